# The module plans, and what it plans is right: the capacity provider selects NVIDIA GPU types
# from the list with at least the task's GPUs, vCPUs and memory; the task definition is for
# Managed Instances with the GPU reservation. Needs Terraform >= 1.11 (`override_during = plan`).

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
  instance_types  = ["g6e.xlarge", "g6e.2xlarge"]
  task_cpu        = 4096
  task_memory     = 16384
  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

run "the_capacity_provider_selects_nvidia_gpus_large_enough_for_the_task" {
  command = plan

  assert {
    condition     = aws_ecs_capacity_provider.this.cluster == "gpu"
    error_message = "the capacity provider belongs to the cluster"
  }
  assert {
    condition = (
      aws_ecs_capacity_provider.this.managed_instances_provider[0].infrastructure_role_arn == "arn:aws:iam::123456789012:role/ecsInstanceRole-infer-1"
      && aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].ec2_instance_profile_arn == "arn:aws:iam::123456789012:instance-profile/ecsInstanceRole-infer-1"
    )
    error_message = "the capacity provider uses the module's infrastructure role and instance profile"
  }
  assert {
    condition     = toset(aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].allowed_instance_types) == toset(["g6e.xlarge", "g6e.2xlarge"])
    error_message = "the allowed types are the listed ones"
  }
  assert {
    condition = (
      toset(aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_types) == toset(["gpu"])
      && toset(aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_manufacturers) == toset(["nvidia"])
    )
    error_message = "the requirements select NVIDIA GPUs"
  }
  assert {
    condition = (
      aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_count[0].min == 1
      && aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].vcpu_count[0].min == 4
      && aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].memory_mib[0].min == 16384
    )
    error_message = "the requirements ask for the task's GPUs, vCPUs and memory"
  }
  assert {
    condition     = length(aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_total_memory_mib) == 0
    error_message = "no GPU memory bound unless asked"
  }
  assert {
    condition     = startswith(aws_iam_role.instance.name_prefix, "ecsInstanceRole-")
    error_message = "the instance role's name starts with ecsInstanceRole, as the managed infrastructure policy's PassRole requires"
  }
  assert {
    condition     = aws_iam_role_policy_attachment.infrastructure.policy_arn == "arn:aws:iam::aws:policy/AmazonECSInfrastructureRolePolicyForManagedInstances"
    error_message = "the infrastructure role has the managed policy AWS documents for it"
  }
  assert {
    condition     = aws_iam_role_policy_attachment.instance.policy_arn == "arn:aws:iam::aws:policy/AmazonECSInstanceRolePolicyForManagedInstances"
    error_message = "the instance role has the managed policy AWS documents for it"
  }
  assert {
    condition     = output.tasks_per_instance == { "g6e.xlarge" = 1, "g6e.2xlarge" = 1 }
    error_message = "one 1-GPU task per single-GPU instance"
  }
}

run "the_task_is_the_gpu_container_on_the_capacity_provider" {
  command = plan

  assert {
    condition     = jsondecode(output.container_definitions)[0].resourceRequirements == [{ type = "GPU", value = "1" }]
    error_message = "the GPU container reserves one GPU"
  }
  assert {
    condition     = jsondecode(output.container_definitions)[0].logConfiguration.options["awslogs-region"] == "us-east-1"
    error_message = "the logs go to the region's log group"
  }
  assert {
    condition     = output.service_name == "infer"
    error_message = "the service is named `name`"
  }
}

# The task definition and service come from ../modules/service, called here as this
# module calls it (main.tf): compatibility MANAGED_INSTANCES, no instance-type constraint, no group.
run "the_service_module_builds_a_managed_instances_task_definition" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    compatibility                      = "MANAGED_INSTANCES"
    instance_type                      = "g6e.xlarge"
    capacity_provider_name             = "infer-778642"
    placement_constraint_instance_type = false
    max_size                           = null
    desired_count                      = 3
  }

  assert {
    condition     = aws_ecs_task_definition.this.requires_compatibilities == toset(["MANAGED_INSTANCES"])
    error_message = "the task definition requires MANAGED_INSTANCES"
  }
  assert {
    condition     = aws_ecs_task_definition.this.network_mode == "awsvpc" && aws_ecs_task_definition.this.runtime_platform[0].operating_system_family == "LINUX"
    error_message = "awsvpc, Linux"
  }
  assert {
    condition     = [for s in aws_ecs_service.this[0].capacity_provider_strategy : s.capacity_provider] == ["infer-778642"]
    error_message = "the service runs on the Managed Instances capacity provider"
  }
  assert {
    condition     = length(aws_ecs_service.this[0].placement_constraints) == 0
    error_message = "no memberOf on one instance type: the capacity provider allows several"
  }
}

run "a_fractional_gpu_task_on_g6f_leaves_the_accelerator_count_open" {
  command = plan

  variables {
    instance_types = ["g6f.2xlarge"]
    gpu_count      = 0.25
    task_cpu       = 4096
    task_memory    = 16384
  }

  assert {
    condition     = length(aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_count) == 0
    error_message = "a GPU partition's count as an accelerator is not documented: no bound"
  }
  assert {
    condition     = jsondecode(output.container_definitions)[0].resourceRequirements == [{ type = "GPU", value = "0.25" }]
    error_message = "the container reserves the partition"
  }
}

run "a_type_the_catalog_lacks_is_used_with_the_callers_facts" {
  command = plan

  variables {
    instance_types      = ["g8e.2xlarge"]
    instance_type_facts = { "g8e.2xlarge" = { gpus = 1, vcpus = 8, memory_mib = 65536 } }
  }

  assert {
    condition     = output.tasks_per_instance["g8e.2xlarge"] == 1
    error_message = "the fit uses the caller's facts"
  }
}

run "types_beyond_the_documented_partial_list_are_not_refused" {
  command = plan

  # ECS-MI-GPU names g4dn, g5, p3 and p4d as a non-exhaustive list: p5 is not on it.
  variables {
    instance_types = ["p5.48xlarge"]
    gpu_count      = 8
    task_cpu       = 16384
    task_memory    = 65536
  }

  assert {
    condition     = aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_count[0].min == 8
    error_message = "p5.48xlarge plans with 8 GPUs"
  }
}

run "a_gpu_memory_bound_goes_into_the_requirements" {
  command = plan

  variables {
    gpu_memory_min_mib = 40000
  }

  assert {
    condition     = aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_total_memory_mib[0].min == 40000
    error_message = "the bound is set"
  }
}

run "an_mps_task_shares_a_gpu_and_is_counted_by_gpu_memory" {
  command = plan

  variables {
    instance_types = ["g6e.xlarge", "g5.xlarge"]
    task_cpu       = 1024
    task_memory    = 4096
    mps            = { memory_mib = 8192, max_compute_percent = 25 }
  }

  assert {
    condition     = jsondecode(output.container_definitions)[0].resourceRequirements == [{ type = "GPU", sharingStrategy = { nvidiaMps = { memory = 8192, maxComputePercent = 25 } } }]
    error_message = "with mps the Managed Instances task must ask for a sharing strategy and no GPU count"
  }
  assert {
    condition     = aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].instance_requirements[0].accelerator_count[0].min == 1
    error_message = "an MPS task still needs an instance with at least one GPU"
  }
  # g5.xlarge: floor(22888 / 8192) = 2 by GPU memory, 4 by CPU units, 3 by memory (15153 MiB).
  assert {
    condition     = output.tasks_per_instance["g5.xlarge"] == 2
    error_message = "tasks per instance must be the least of GPU memory, CPU and memory"
  }
}
