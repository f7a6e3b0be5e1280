# Deployment control on the service (modules/service): the circuit breaker, alarms, forced
# deployments, and the plan-time refusal of a deployment the capacity's max_size can never hold, with
# its arithmetic. Native BLUE_GREEN, LINEAR and CANARY need hashicorp/aws 6.x: refused here with the
# reason, tested with the 6.x schema in modules/service-v6/tests. Needs Terraform >= 1.11.
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
  name                   = "infer"
  cluster_name           = "gpu"
  capacity_provider_name = "infer-gpu"
  vpc_id                 = "vpc-0123456789abcdef0"
  subnet_ids             = ["subnet-0123456789abcdef0"]
  # One 4-GPU task per g6.12xlarge (4 x L4).
  instance_type = "g6.12xlarge"
  gpu_count     = 4
  task_cpu      = 46080
  task_memory   = 184320

  desired_count = 2
  max_size      = 3

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
}

run "defaults_keep_the_circuit_breaker_and_watch_no_alarm" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = aws_ecs_service.this[0].deployment_circuit_breaker[0].enable && aws_ecs_service.this[0].deployment_circuit_breaker[0].rollback
    error_message = "the circuit breaker is on with rollback by default"
  }
  assert {
    condition     = length(aws_ecs_service.this[0].alarms) == 0 && aws_ecs_service.this[0].force_new_deployment == false
    error_message = "no alarm and no forced deployment by default"
  }
  assert {
    condition     = output.deployment_capacity == { strategy = "ROLLING", deploy_count = 2, needed_tasks = 3, peak_tasks = 4, capacity_tasks = 3, task_gpus = 4 }
    error_message = "2 tasks at 100/200 %: 3 tasks to make progress, 4 at full speed; 3 instances hold 3"
  }
}

run "circuit_breaker_alarms_and_a_forced_deployment" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_circuit_breaker = { rollback = false }
    deployment_alarms          = { alarm_names = ["vllm-5xx", "vllm-p99-latency"] }
    force_new_deployment       = true
    deployment_triggers        = { model = "llama-3.1-70b@2026-11-30" }
  }

  assert {
    condition     = aws_ecs_service.this[0].deployment_circuit_breaker[0].enable && !aws_ecs_service.this[0].deployment_circuit_breaker[0].rollback
    error_message = "the circuit breaker is configurable"
  }
  assert {
    condition     = aws_ecs_service.this[0].alarms[0].alarm_names == toset(["vllm-5xx", "vllm-p99-latency"]) && aws_ecs_service.this[0].alarms[0].enable && aws_ecs_service.this[0].alarms[0].rollback
    error_message = "the alarms fail and roll back a deployment"
  }
  assert {
    condition     = aws_ecs_service.this[0].force_new_deployment && aws_ecs_service.this[0].triggers["model"] == "llama-3.1-70b@2026-11-30"
    error_message = "a forced deployment, and its triggers"
  }
}

run "triggers_need_force_new_deployment" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_triggers = { model = "v2" }
  }

  expect_failures = [aws_ecs_service.this]
}

run "deployment_alarms_need_an_alarm" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_alarms = { alarm_names = [] }
  }

  expect_failures = [var.deployment_alarms]
}

# --- what the capacity can hold -----------------------------------------------------------------

run "a_rolling_deployment_without_room_for_one_more_task_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size = 2 # 2 tasks run; the first new 4-GPU task needs a third instance
  }

  expect_failures = [aws_ecs_service.this]
}

run "stopping_old_tasks_first_needs_no_spare_instance" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size                           = 2
    deployment_minimum_healthy_percent = 50
  }

  assert {
    condition     = output.deployment_capacity.needed_tasks == 2 && output.deployment_capacity.capacity_tasks == 2
    error_message = "at 50 % ECS stops one old task before it starts a new one: 2 tasks are enough"
  }
}

run "a_rolling_deployment_that_can_never_start_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_minimum_healthy_percent = 100
    deployment_maximum_percent         = 149 # floor(2 x 149 / 100) = 2: no task beside the 2 running
  }

  expect_failures = [aws_ecs_service.this]
}

run "an_autoscaled_service_is_checked_at_its_max_capacity" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size    = 4
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70 }
  }

  expect_failures = [aws_ecs_service.autoscaled]
}

run "an_autoscaled_service_with_a_spare_instance" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size    = 5
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70 }
  }

  assert {
    condition     = output.deployment_capacity.deploy_count == 4 && output.deployment_capacity.needed_tasks == 5
    error_message = "the deployment is sized at autoscaling.max_capacity"
  }
}

run "two_tasks_per_instance_share_the_spare" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count     = 2 # two 2-GPU tasks per g6.12xlarge
    task_cpu      = 16384
    task_memory   = 65536
    desired_count = 3
    max_size      = 2 # 4 task slots: 3 running and one new
  }

  assert {
    condition     = output.deployment_capacity.capacity_tasks == 4 && output.deployment_capacity.needed_tasks == 4
    error_message = "placement counts tasks per instance: 2 x 2 = 4 slots for 3 + 1 tasks"
  }
}

# --- native deployments need hashicorp/aws 6.x --------------------------------------------------

run "canary_is_refused_here_with_the_reason" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size            = 4
    deployment_strategy = { strategy = "CANARY", canary = { percent = 10, bake_time_in_minutes = 10 } }
  }

  expect_failures = [aws_ecs_service.this]
}

run "a_canary_needs_its_canary_settings" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_strategy = { strategy = "CANARY" }
  }

  expect_failures = [var.deployment_strategy]
}

run "linear_steps_of_less_than_3_percent_are_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_strategy = { strategy = "LINEAR", linear = { step_percent = 2 } }
  }

  expect_failures = [var.deployment_strategy]
}

run "bake_times_above_1440_minutes_are_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    deployment_strategy = { strategy = "BLUE_GREEN", bake_time_in_minutes = 1441 }
  }

  expect_failures = [var.deployment_strategy]
}
