# Bring-your-own IAM: the instance profile (modules/capacity), the execution and task roles
# (modules/service). Either the module creates a role and attaches its policies, or it uses yours
# and attaches nothing; one or the other, refused otherwise. Needs Terraform >= 1.11.

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
  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true
  vpc_id         = "vpc-0123456789abcdef0"
  subnet_ids     = ["subnet-0123456789abcdef0"]
  instance_type  = "g5.xlarge"
  task_cpu       = 4096
  task_memory    = 15000

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"

  # Inputs of the submodules (the root ignores them).
  associate_capacity_provider = true
  capacity_provider_name      = "infer-gpu"
  max_size                    = 2
}

run "own_instance_profile_is_used_and_nothing_is_created" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    create_instance_profile = false
    instance_profile_arn    = "arn:aws:iam::123456789012:instance-profile/platform/gpu-nodes"
  }

  assert {
    condition     = aws_launch_template.this.iam_instance_profile[0].arn == "arn:aws:iam::123456789012:instance-profile/platform/gpu-nodes"
    error_message = "the launch template must use the caller's instance profile"
  }
  assert {
    condition     = length(aws_iam_role.instance) == 0 && length(aws_iam_instance_profile.instance) == 0 && length(aws_iam_role_policy_attachment.instance) == 0
    error_message = "with the caller's profile the module creates no role, no profile and attaches no policy"
  }
  assert {
    condition     = output.instance_role_arn == null && output.instance_profile_name == null && output.instance_profile_arn == "arn:aws:iam::123456789012:instance-profile/platform/gpu-nodes"
    error_message = "the outputs must say the profile is the caller's"
  }
}

run "own_instance_profile_needs_its_arn" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    create_instance_profile = false
  }

  expect_failures = [aws_launch_template.this]
}

run "instance_profile_arn_needs_create_instance_profile_false" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_profile_arn = "arn:aws:iam::123456789012:instance-profile/gpu-nodes"
  }

  expect_failures = [aws_launch_template.this]
}

run "instance_role_policies_need_the_modules_role" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    create_instance_profile   = false
    instance_profile_arn      = "arn:aws:iam::123456789012:instance-profile/gpu-nodes"
    instance_role_policy_arns = ["arn:aws:iam::123456789012:policy/extra"]
  }

  expect_failures = [aws_launch_template.this]
}

run "instance_profile_arn_must_be_a_profile_arn" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    create_instance_profile = false
    instance_profile_arn    = "arn:aws:iam::123456789012:role/gpu-nodes"
  }

  expect_failures = [var.instance_profile_arn]
}

run "own_task_and_execution_roles_are_used_and_nothing_is_attached" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    create_execution_role  = false
    execution_role_arn     = "arn:aws:iam::123456789012:role/platform/ecs-execution"
    create_task_role       = false
    task_role_arn          = "arn:aws:iam::123456789012:role/platform/inference"
    container_secrets      = { HF_TOKEN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf" }
    enable_execute_command = true
    efs_volumes            = { weights = { file_system_id = "fs-0123456789abcdef0", container_path = "/weights" } }
  }

  assert {
    condition     = aws_ecs_task_definition.this.execution_role_arn == "arn:aws:iam::123456789012:role/platform/ecs-execution" && aws_ecs_task_definition.this.task_role_arn == "arn:aws:iam::123456789012:role/platform/inference"
    error_message = "the task definition must use the caller's roles"
  }
  assert {
    condition = (
      length(aws_iam_role.execution) == 0 && length(aws_iam_role.task) == 0 &&
      length(aws_iam_role_policy_attachment.execution) == 0 && length(aws_iam_role_policy.execution_secrets) == 0 &&
      length(aws_iam_role_policy.task_exec) == 0 && length(aws_iam_role_policy.task_efs) == 0
    )
    error_message = "with the caller's roles the module creates no role and attaches no policy (secrets, ECS Exec and EFS included)"
  }
  assert {
    condition     = output.task_role_name == null && output.execution_role_arn == "arn:aws:iam::123456789012:role/platform/ecs-execution"
    error_message = "the outputs must say the roles are the caller's"
  }
}

run "own_execution_role_needs_its_arn" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    create_execution_role = false
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "execution_role_arn_needs_create_execution_role_false" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    execution_role_arn = "arn:aws:iam::123456789012:role/ecs-execution"
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "own_task_role_needs_its_arn" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    create_task_role = false
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "task_role_arn_needs_create_task_role_false" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    task_role_arn = "arn:aws:iam::123456789012:role/inference"
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "task_role_policies_need_the_modules_role" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    create_task_role      = false
    task_role_arn         = "arn:aws:iam::123456789012:role/inference"
    task_role_policy_arns = ["arn:aws:iam::123456789012:policy/infer-s3"]
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "role_arns_must_be_role_arns" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    create_execution_role = false
    execution_role_arn    = "arn:aws:iam::123456789012:policy/ecs-execution"
    create_task_role      = false
    task_role_arn         = "inference"
  }

  expect_failures = [var.execution_role_arn, var.task_role_arn]
}

run "root_passes_your_roles_and_profile_through" {
  command = plan

  variables {
    create_instance_profile = false
    instance_profile_arn    = "arn:aws:iam::123456789012:instance-profile/gpu-nodes"
    create_execution_role   = false
    execution_role_arn      = "arn:aws:iam::123456789012:role/ecs-execution"
    create_task_role        = false
    task_role_arn           = "arn:aws:iam::123456789012:role/inference"
  }

  assert {
    condition = (
      output.instance_profile_arn == "arn:aws:iam::123456789012:instance-profile/gpu-nodes" && output.instance_role_arn == null &&
      output.execution_role_arn == "arn:aws:iam::123456789012:role/ecs-execution" &&
      output.task_role_arn == "arn:aws:iam::123456789012:role/inference" && output.task_role_name == null
    )
    error_message = "the root must use the caller's roles and profile"
  }
}
