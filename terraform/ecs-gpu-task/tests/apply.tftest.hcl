# Runs that apply (against the mock provider) and then plan again over the state they left: what a
# second plan changes, and the checks that read the account after a first apply. Without
# `override_during = plan`: the mocked values are then made once, at apply, and kept in the state.
# Needs Terraform >= 1.11.

mock_provider "aws" {
  mock_data "aws_ssm_parameter" {
    defaults = { value = "ami-0123456789abcdef0", arn = "arn:aws:ssm:us-east-1::parameter/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id" }
  }
  mock_data "aws_region" {
    defaults = { endpoint = "ec2.us-east-1.amazonaws.com" }
  }
  mock_data "aws_partition" {
    defaults = { partition = "aws" }
  }
  mock_data "aws_caller_identity" {
    defaults = { account_id = "123456789012" }
  }
  mock_data "aws_subnet" {
    defaults = { availability_zone = "us-east-1a" }
  }
  mock_data "aws_ecs_clusters" {
    defaults = { cluster_arns = ["arn:aws:ecs:us-east-1:123456789012:cluster/shared"] }
  }
  mock_resource "aws_launch_template" {
    defaults = { id = "lt-0123456789abcdef0", latest_version = 7 }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/infer-role-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/infer-instance-1" }
  }
  mock_resource "aws_autoscaling_group" {
    defaults = { arn = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:uuid:autoScalingGroupName/infer-1" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3", revision = 3 }
  }
  mock_resource "aws_lb_target_group" {
    defaults = { arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/inference-gpu/0123456789abcdef" }
  }
  mock_resource "aws_lb_listener_rule" {
    defaults = { arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener-rule/app/web/0123456789abcdef/0123456789abcdef/0123456789abcdef" }
  }
}

variables {
  name                        = "infer"
  cluster_name                = "shared"
  vpc_id                      = "vpc-0123456789abcdef0"
  subnet_ids                  = ["subnet-0123456789abcdef0"]
  instance_type               = "g5.xlarge"
  ami_id                      = "ami-0123456789abcdef0"
  associate_capacity_provider = true
}

# --- the cluster must exist ------------------------------------------------------------------------

run "a_cluster_that_exists_is_accepted" {
  command = apply

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = terraform_data.cluster.output == "shared"
    error_message = "the gate holds the cluster's name"
  }
}

run "a_cluster_that_does_not_exist_is_refused" {
  # The list is read once the gate (terraform_data.cluster) exists: at apply on the first run, at plan
  # on the next ones (here: the gate changes with the name, so at apply).
  command = apply

  module {
    source = "../modules/capacity"
  }

  variables {
    cluster_name = "shraed"
  }

  expect_failures = [data.aws_ecs_clusters.all]
}

# --- a listener change plans no change inside the module -----------------------------------------

run "autoscaling_example_applied" {
  command = apply

  module {
    source = "./examples/autoscaling"
  }

  variables {
    cluster_name          = "shared"
    private_subnet_ids    = ["subnet-0123456789abcdef0"]
    listener_arn          = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/web/0123456789abcdef/0123456789abcdef"
    alb_security_group_id = "sg-0aaaaaaaaaaaaaaaa"
    image                 = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1"
  }
}

run "a_tag_on_the_listener_rule_changes_nothing_in_the_module" {
  command = plan

  module {
    source = "./examples/autoscaling"
  }

  variables {
    cluster_name          = "shared"
    private_subnet_ids    = ["subnet-0123456789abcdef0"]
    listener_arn          = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/web/0123456789abcdef/0123456789abcdef"
    alb_security_group_id = "sg-0aaaaaaaaaaaaaaaa"
    image                 = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1"
    load_balancer_tags    = { team = "ml-platform" }
  }

  # With `depends_on = [aws_lb_listener_rule.inference]` on the module call, every data source of the
  # module is read again at apply: the AMI and the container definitions (the region) are unknown in
  # this plan, and the conditions below cannot be evaluated ("Unknown condition value"), which fails
  # the run. The real provider then plans a new task definition and a new launch template version.
  assert {
    condition     = output.container_definitions == run.autoscaling_example_applied.container_definitions
    error_message = "the task's container definitions must stay as they are"
  }
  assert {
    condition     = output.ami_id == run.autoscaling_example_applied.ami_id
    error_message = "the launch template's AMI must stay as it is (no new version, no instance refresh)"
  }
  assert {
    condition     = output.task_definition_arn == run.autoscaling_example_applied.task_definition_arn
    error_message = "the task definition must stay as it is"
  }
}
