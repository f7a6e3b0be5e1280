# Every plan-time refusal of this module: each variable validation and each precondition has a run
# that trips it (expect_failures). The task definition's own refusals (driver capabilities, container
# names, shared memory...) are ../modules/service's, tested there. Needs Terraform >= 1.11 (`override_during = plan` in the mock provider).


mock_provider "aws" {
  override_during = plan

  mock_data "aws_region" {
    defaults = { region = "us-east-1", endpoint = "ec2.us-east-1.amazonaws.com" }
  }
  mock_data "aws_partition" {
    defaults = { partition = "aws" }
  }
  mock_data "aws_caller_identity" {
    defaults = { account_id = "123456789012" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/ecsInstanceRole-infer-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/ecsInstanceRole-infer-1" }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3" }
  }
}

variables {
  name            = "infer"
  cluster_name    = "gpu"
  create_cluster  = true
  vpc_id          = "vpc-0123456789abcdef0"
  subnet_ids      = ["subnet-0123456789abcdef0"]
  instance_types  = ["g5.xlarge"]
  task_cpu        = 4096
  task_memory     = 15000
  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

run "the_defaults_plan" {
  command = plan
}

run "name_must_not_start_with_fargate" {
  command = plan
  variables {
    name = "fargate-gpu"
  }
  expect_failures = [var.name]
}

run "name_must_be_a_short_identifier" {
  command = plan
  variables {
    name = "1-infer"
  }
  expect_failures = [var.name]
}

run "cluster_name_must_be_valid" {
  command = plan
  variables {
    cluster_name = "my cluster"
  }
  expect_failures = [var.cluster_name]
}

run "at_least_one_subnet" {
  command = plan
  variables {
    subnet_ids = []
  }
  expect_failures = [var.subnet_ids]
}

run "ingress_rule_needs_one_source" {
  command = plan
  variables {
    ingress_rules = { a = { description = "x", from_port = 443, to_port = 443 } }
  }
  expect_failures = [var.ingress_rules]
}

run "at_least_one_instance_type" {
  command = plan
  variables {
    instance_types = []
  }
  expect_failures = [var.instance_types]
}

run "instance_types_are_exact_names" {
  command = plan
  variables {
    instance_types = ["g6e.*"]
  }
  expect_failures = [var.instance_types]
}

run "instance_type_facts_need_whole_gpus" {
  command = plan
  variables {
    instance_types      = ["g8e.2xlarge"]
    instance_type_facts = { "g8e.2xlarge" = { gpus = 0.5, vcpus = 8, memory_mib = 65536 } }
  }
  expect_failures = [var.instance_type_facts]
}

run "gpu_count_must_be_whole_or_a_fraction" {
  command = plan
  variables {
    gpu_count = 1.5
  }
  expect_failures = [var.gpu_count]
}

run "gpu_count_zero_is_not_a_gpu_task" {
  command = plan
  variables {
    gpu_count = 0
  }
  expect_failures = [var.gpu_count]
}

run "gpu_memory_min_must_be_whole" {
  command = plan
  variables {
    gpu_memory_min_mib = 0.5
  }
  expect_failures = [var.gpu_memory_min_mib]
}

run "storage_size_must_be_whole" {
  command = plan
  variables {
    storage_size_gib = 0
  }
  expect_failures = [var.storage_size_gib]
}

run "task_cpu_must_be_whole" {
  command = plan
  variables {
    task_cpu = 100
  }
  expect_failures = [var.task_cpu]
}

run "task_memory_must_be_whole" {
  command = plan
  variables {
    task_memory = 64
  }
  expect_failures = [var.task_memory]
}

run "memory_margin_must_be_whole" {
  command = plan
  variables {
    memory_margin_mib = -1
  }
  expect_failures = [var.memory_margin_mib]
}

run "nvidia_visible_devices_is_the_agents" {
  command = plan
  variables {
    container_environment = { NVIDIA_VISIBLE_DEVICES = "all" }
  }
  expect_failures = [var.container_environment]
}

run "log_retention_must_be_a_cloudwatch_value" {
  command = plan
  variables {
    log_retention_days = 2
  }
  expect_failures = [var.log_retention_days]
}

run "permissions_boundary_must_be_a_policy_arn" {
  command = plan
  variables {
    iam_permissions_boundary = "boundary"
  }
  expect_failures = [var.iam_permissions_boundary]
}

run "container_name_must_be_valid" {
  command = plan
  variables {
    container_name = "my app"
  }
  expect_failures = [var.container_name]
}

run "desired_count_must_be_whole" {
  command = plan
  variables {
    desired_count = -1
  }
  expect_failures = [var.desired_count]
}

# --- preconditions -------------------------------------------------------------------------------

run "a_typo_is_refused_with_the_nearest_names" {
  command = plan
  variables {
    instance_types = ["g5.xlarg"]
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "an_amd_gpu_type_is_refused" {
  command = plan
  variables {
    instance_types = ["g4ad.xlarge"]
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "a_type_without_an_ec2_record_is_refused" {
  command = plan
  variables {
    instance_types = ["p6e-gb200.36xlarge"]
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "a_type_no_ecs_gpu_ami_driver_drives_is_refused" {
  command = plan
  variables {
    instance_types = ["g7.2xlarge"]
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "an_arm64_type_is_refused" {
  command = plan
  variables {
    instance_types = ["g5g.xlarge"]
    task_memory    = 4096
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "more_gpus_than_a_type_has_are_refused" {
  command = plan
  variables {
    instance_types = ["g5.xlarge", "g5.12xlarge"]
    gpu_count      = 4
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "a_whole_gpu_on_a_fractional_type_is_refused" {
  command = plan
  variables {
    instance_types = ["g6f.2xlarge"]
    task_memory    = 16384
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "a_fraction_on_a_full_gpu_type_is_refused" {
  command = plan
  variables {
    instance_types = ["g6f.2xlarge", "g6.2xlarge"]
    gpu_count      = 0.25
    task_memory    = 16384
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "a_fraction_of_another_size_is_refused" {
  command = plan
  variables {
    instance_types = ["g6f.4xlarge"]
    gpu_count      = 0.25
    task_memory    = 16384
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "more_cpu_than_a_type_registers_is_refused" {
  command = plan
  variables {
    task_cpu = 8192
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "more_memory_than_a_type_allows_is_refused" {
  command = plan
  variables {
    task_memory = 16000
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

run "more_gpu_memory_than_a_type_has_is_refused" {
  command = plan
  variables {
    gpu_memory_min_mib = 40000
  }
  expect_failures = [aws_ecs_capacity_provider.this]
}

# MPS (ECS-GPU-SPEC, BOTO `NvidiaMpsAllocation`): the allocation's bounds, one option per container,
# and a share that fits one whole GPU of every listed type.
run "mps_memory_must_be_at_least_one_mib" {
  command = plan

  variables {
    mps = { memory_mib = 0 }
  }

  expect_failures = [var.mps]
}

run "mps_compute_percent_must_be_1_to_100" {
  command = plan

  variables {
    mps = { memory_mib = 4096, max_compute_percent = 0 }
  }

  expect_failures = [var.mps]
}

run "mps_and_a_gpu_count_together" {
  command = plan

  variables {
    instance_types = ["g6.12xlarge"]
    gpu_count      = 2
    mps            = { memory_mib = 4096 }
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}

run "mps_memory_larger_than_one_gpu_of_a_listed_type" {
  command = plan

  variables {
    instance_types = ["g6e.xlarge", "g5.xlarge"]
    mps            = { memory_mib = 32768 }
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}

run "mps_on_a_fractional_type" {
  command = plan

  variables {
    instance_types = ["g6f.xlarge"]
    task_cpu       = 2048
    task_memory    = 4096
    mps            = { memory_mib = 1024 }
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}
