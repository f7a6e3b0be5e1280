# ECS native deployments (BLUE_GREEN, LINEAR, CANARY) in modules/service-v6, which writes the
# `deployment_configuration` block of hashicorp/aws 6.x. Run with the 6.x schema (terraform-offline's
# stand-in serves 6.66.0; scripts/test-terraform-real.sh runs them with a real 6.x provider when a
# mirror has one). Needs Terraform >= 1.11.
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
}

variables {
  name                   = "vllm"
  cluster_name           = "gpu"
  capacity_provider_name = "vllm-gpu"
  vpc_id                 = "vpc-0123456789abcdef0"
  subnet_ids             = ["subnet-0123456789abcdef0"]
  # One 4-GPU task per g6.12xlarge.
  instance_type           = "g6.12xlarge"
  gpu_count               = 4
  task_cpu                = 46080
  task_memory             = 184320
  container_image         = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
  container_port_mappings = [{ container_port = 8000, name = "openai", app_protocol = "http" }]

  desired_count = 2
  max_size      = 4

  load_balancers = {
    public = {
      target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-blue/0123456789abcdef"
      container_port   = 8000
      listener_arns    = ["arn:aws:elasticloadbalancing:us-east-1:123456789012:listener-rule/app/web/0123456789abcdef/0123456789abcdef/0123456789abcdef"]
      advanced_configuration = {
        alternate_target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-green/0123456789abcdef"
        production_listener_rule   = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener-rule/app/web/0123456789abcdef/0123456789abcdef/0123456789abcdef"
        role_arn                   = "arn:aws:iam::123456789012:role/ecs-load-balancers"
      }
    }
  }
}

run "a_canary_keeps_both_revisions_and_shifts_traffic_through_the_alternate_group" {
  command = plan

  variables {
    deployment_strategy = { strategy = "CANARY", bake_time_in_minutes = 10, canary = { percent = 10, bake_time_in_minutes = 5 } }
  }

  assert {
    condition = (
      aws_ecs_service.this[0].deployment_configuration[0].strategy == "CANARY" &&
      aws_ecs_service.this[0].deployment_configuration[0].bake_time_in_minutes == "10" &&
      aws_ecs_service.this[0].deployment_configuration[0].canary_configuration[0].canary_percent == 10 &&
      aws_ecs_service.this[0].deployment_configuration[0].canary_configuration[0].canary_bake_time_in_minutes == "5"
    )
    error_message = "the canary strategy and its settings reach the service (bake times as strings, the provider's type)"
  }
  assert {
    condition     = one(aws_ecs_service.this[0].load_balancer).advanced_configuration[0].alternate_target_group_arn == "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-green/0123456789abcdef"
    error_message = "the load balancer carries the alternate target group ECS shifts traffic to"
  }
  assert {
    condition     = output.deployment_capacity.needed_tasks == 4 && output.deployment_capacity.capacity_tasks == 4
    error_message = "both revisions at full size: 2 x 2 tasks, which 4 instances hold"
  }
}

run "a_canary_the_capacity_cannot_hold_twice_is_refused" {
  command = plan

  variables {
    max_size            = 3
    deployment_strategy = { strategy = "CANARY", canary = { percent = 10 } }
  }

  expect_failures = [aws_ecs_service.this]
}

run "a_canary_behind_a_load_balancer_needs_its_advanced_configuration" {
  command = plan

  variables {
    load_balancers = {
      public = {
        target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-blue/0123456789abcdef"
        container_port   = 8000
      }
    }
    deployment_strategy = { strategy = "CANARY", canary = { percent = 10 } }
  }

  expect_failures = [aws_ecs_service.this]
}

run "linear_steps" {
  command = plan

  variables {
    deployment_strategy = { strategy = "LINEAR", linear = { step_percent = 25, step_bake_time_in_minutes = 3 } }
  }

  assert {
    condition     = aws_ecs_service.this[0].deployment_configuration[0].strategy == "LINEAR" && aws_ecs_service.this[0].deployment_configuration[0].linear_configuration[0].step_percent == 25 && aws_ecs_service.this[0].deployment_configuration[0].linear_configuration[0].step_bake_time_in_minutes == "3"
    error_message = "the linear steps reach the service"
  }
}

run "blue_green_of_an_autoscaled_service_at_its_max_capacity" {
  command = plan

  variables {
    autoscaling         = { min_capacity = 1, max_capacity = 2, target_value = 70 }
    deployment_strategy = { strategy = "BLUE_GREEN", bake_time_in_minutes = 15 }
  }

  assert {
    condition     = aws_ecs_service.autoscaled[0].deployment_configuration[0].strategy == "BLUE_GREEN" && output.deployment_capacity.needed_tasks == 4
    error_message = "blue/green on the autoscaled form, sized at max_capacity x 2"
  }
}

run "rolling_is_written_so_that_going_back_to_it_is_not_silently_kept_as_canary" {
  command = plan

  assert {
    condition     = aws_ecs_service.this[0].deployment_configuration[0].strategy == "ROLLING"
    error_message = "the strategy is always written, ROLLING included"
  }
}
