# examples/canary plans as written (it needs hashicorp/aws >= 6.21.0: run with the 6.x schema, like
# the other tests of this module). Needs Terraform >= 1.11.
mock_provider "aws" {
  override_during = plan

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
  mock_resource "aws_launch_template" {
    defaults = { id = "lt-0123456789abcdef0", latest_version = 7 }
  }
  mock_resource "aws_autoscaling_group" {
    defaults = { arn = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:uuid:autoScalingGroupName/infer-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/infer-instance-1" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/infer-role-1" }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3", revision = 3 }
  }
  mock_resource "aws_ecs_service" {
    defaults = { id = "arn:aws:ecs:us-east-1:123456789012:service/gpu/infer" }
  }
  mock_resource "aws_cloudwatch_metric_alarm" {
    defaults = { arn = "arn:aws:cloudwatch:us-east-1:123456789012:alarm:gpu-scaled-gpus-idle-while-tasks-pend" }
  }
}

run "canary_example_holds_both_revisions" {
  command = plan

  module {
    source = "../../ecs-gpu-task/examples/canary"
  }

  variables {
    vpc_id                = "vpc-0123456789abcdef0"
    private_subnet_ids    = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    listener_arn          = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/web/0123456789abcdef/0123456789abcdef"
    alb_security_group_id = "sg-0aaaaaaaaaaaaaaaa"
    image                 = "123456789012.dkr.ecr.us-east-1.amazonaws.com/chat:1"
  }

  assert {
    condition     = output.deployment_capacity == { strategy = "CANARY", deploy_count = 2, needed_tasks = 4, peak_tasks = 4, capacity_tasks = 4, task_gpus = 1 }
    error_message = "2 tasks, both revisions at full size: 4 g6e.xlarge"
  }
}
