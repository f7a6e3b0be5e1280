# The task definition: Managed Instances only, the GPU container with its GPU reservation.

locals {
  log_configuration = {
    logDriver = "awslogs"
    options = {
      "awslogs-group"         = aws_cloudwatch_log_group.this.name
      "awslogs-region"        = data.aws_region.current.region
      "awslogs-stream-prefix" = var.name
    }
  }

  container_definitions = [merge(
    {
      name      = var.container_name
      image     = var.container_image
      essential = true

      # The GPU reservation, inside the container definition, as a string ("1", or "0.25" on a
      # fractional type): the same form on Managed Instances as on EC2 (ECS-MI-GPU, ECS-GPU-SPEC).
      resourceRequirements = [{ type = "GPU", value = tostring(var.gpu_count) }]

      # ECS does not set it; images not built on NVIDIA's CUDA images need it to see the driver.
      environment = concat(
        contains(keys(var.container_environment), "NVIDIA_DRIVER_CAPABILITIES") ? [] : [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = var.nvidia_driver_capabilities }],
        [for k in sort(keys(var.container_environment)) : { name = k, value = var.container_environment[k] }],
      )
      portMappings = [
        for p in var.container_port_mappings : merge(
          { containerPort = p.container_port, hostPort = p.container_port, protocol = p.protocol },
          p.name == null ? {} : { name = p.name },
        )
      ]
      logConfiguration = local.log_configuration
      mountPoints      = []
      volumesFrom      = []
    },
    var.container_command == null ? {} : { command = var.container_command },
  )]
}

resource "aws_ecs_task_definition" "this" {
  #checkov:skip=CKV_AWS_336:CUDA and ML images write model and kernel caches under the root filesystem, so the GPU container's root filesystem stays writable
  family                   = local.unique_name
  requires_compatibilities = ["MANAGED_INSTANCES"]
  network_mode             = "awsvpc"
  cpu                      = tostring(var.task_cpu)
  memory                   = tostring(var.task_memory)
  execution_role_arn       = aws_iam_role.execution.arn
  task_role_arn            = aws_iam_role.task.arn
  container_definitions    = jsonencode(local.container_definitions)
  tags                     = local.tags

  # GPUs are for Linux containers only (ECS-GPU); the catalog's GPU types are x86_64.
  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = "X86_64"
  }

  lifecycle {
    # The fit of the task on every listed type the catalog knows: a type that cannot hold it would
    # never be chosen for it, and a list where none can leaves the task pending forever.
    precondition {
      condition = length(local.gpu_misfits) == 0
      error_message = (
        local.is_fractional_task
        ? "the task asks for a GPU fraction of ${var.gpu_count}: every type must be a g6f/gr6f type offering exactly that partition, and ${join(", ", [for t in local.gpu_misfits : "${t} offers ${coalesce(local.gpus_offered[t], 0)}"])}: remove those from instance_types."
        : "the task asks for ${var.gpu_count} whole GPU(s): ${join(", ", [for t in local.gpu_misfits : local.known_types[t].gpu_fraction != null ? "${t} offers only a GPU fraction of ${local.known_types[t].gpu_fraction}" : "${t} has ${coalesce(local.known_types[t].gpus, 0)}"])}: remove those from instance_types, or lower gpu_count."
      )
    }
    precondition {
      condition     = length(local.cpu_misfits) == 0
      error_message = "task_cpu ${var.task_cpu} is more than ${join(", ", [for t in local.cpu_misfits : "${t} registers (${local.known_types[t].vcpus} vCPUs = ${local.known_types[t].vcpus * 1024} CPU units)"])}: the task would never be placed there; remove those from instance_types, or lower task_cpu."
    }
    precondition {
      condition     = length(local.memory_misfits) == 0
      error_message = "task_memory ${var.task_memory} MiB is more than the module allows on ${join(", ", [for t in local.memory_misfits : "${t} (${local.max_task_memory[t]} MiB: the ${local.known_types[t].max_task_memory_mib} MiB the agent can register at most, minus a margin of ${local.memory_margin_mib[t]} MiB; see memory_margin_mib)"])}."
    }
    precondition {
      condition     = length(local.gpu_memory_misfits) == 0
      error_message = "gpu_memory_min_mib ${coalesce(var.gpu_memory_min_mib, 0)} is more than the GPU memory of ${join(", ", local.gpu_memory_misfits)}: EC2 would never choose them."
    }
    precondition {
      condition     = length(local.nvidia_capabilities) > 0 && alltrue([for c in local.nvidia_capabilities : contains(local.nvidia_driver_capability_names, c)])
      error_message = "nvidia_driver_capabilities \"${var.nvidia_driver_capabilities}\" must be a comma-separated list of ${join(", ", local.nvidia_driver_capability_names)}."
    }
  }
}
