# The GPU service on capacity that exists: the task definition (GPU reservations, shared memory,
# volumes), its log group, execution and task roles, the tasks' security group, the ECS service on
# the capacity provider `capacity_provider_name`, and Application Auto Scaling. The plan-time fit
# checks read the instance type's facts from ../facts, as the capacity does.

module "facts" {
  source = "../facts"

  name                      = var.name
  name_suffix               = var.name_suffix
  cluster_name              = var.cluster_name
  instance_type             = var.instance_type
  additional_instance_types = var.additional_instance_types
  instance_type_facts       = var.instance_type_facts
  memory_margin_mib         = var.memory_margin_mib
  iam_role_path             = var.iam_role_path
  iam_permissions_boundary  = var.iam_permissions_boundary
  model_cache               = var.model_cache
}

data "aws_partition" "current" {}

data "aws_region" "current" {}

data "aws_caller_identity" "current" {}

locals {
  # A real partition is aws or aws-<name>; only a caller's bare mock provider yields anything else
  # (a random string), which the provider would refuse in every ARN: the plan then goes on in "aws".
  partition  = can(regex("^aws(-[a-z]+)*$", data.aws_partition.current.partition)) ? data.aws_partition.current.partition : "aws"
  account_id = data.aws_caller_identity.current.account_id
  tags       = merge(var.tags, { "ecs-gpu-task" = var.name })

  # --- the instance type's facts ------------------------------------------------------------
  instance              = module.facts.instance
  instance_status       = local.instance.status
  instance_gpus         = local.instance.gpus
  instance_gpu_fraction = local.instance.gpu_fraction
  instance_vcpus        = local.instance.vcpus
  is_fractional_type    = local.instance_gpu_fraction != null
  max_task_cpu          = local.instance.max_task_cpu
  max_task_memory       = local.instance.max_task_memory
  memory_margin_mib     = local.instance.memory_margin_mib

  # Tasks one instance holds: the least over GPUs, CPU units and memory.
  # With MPS a task takes a share of one GPU: ECS places MPS tasks by GPU memory (ECS-GPU-SPEC), so
  # an instance holds, per GPU, as many tasks as their memory fits.
  tasks_per_instance = try(min(
    var.mps != null ? local.instance.gpus * floor(local.instance.gpu_memory_mib / var.mps.memory_mib) : floor(local.instance.gpus_per_instance / local.task_gpus),
    floor(local.max_task_cpu / var.task_cpu),
    floor(local.max_task_memory / var.task_memory),
  ), null)

  # --- the service --------------------------------------------------------------------------
  cluster_name = var.cluster_name
  # One type: ==; several (mixed instances): the cluster query language's `in [...]`.
  placement_expression = (
    length(var.additional_instance_types) == 0
    ? "attribute:ecs.instance-type == ${var.instance_type}"
    : "attribute:ecs.instance-type in [${join(", ", concat([var.instance_type], var.additional_instance_types))}]"
  )
  autoscaling_enabled = var.autoscaling != null
  service_subnet_ids  = var.subnet_ids
  is_awsvpc           = var.network_mode == "awsvpc"
  log_group_name      = "/ecs/${module.facts.unique_name}"

  nvidia_driver_capabilities     = [for c in split(",", var.nvidia_driver_capabilities) : trimspace(c)]
  nvidia_driver_capability_names = module.facts.nvidia_driver_capability_names
}
