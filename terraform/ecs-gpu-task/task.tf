# The task definition: EC2 only, the GPU container with its GPU reservation, optional sidecars.

locals {
  # The region from the EC2 endpoint (ec2.<region>.amazonaws.com[.cn]): aws_region's `name` and `id`
  # are deprecated in provider 6 and its `region` does not exist in provider 5.
  region = regex("^[^.]+\\.([^.]+)\\.", data.aws_region.current.endpoint)[0]

  log_configuration = {
    logDriver = "awslogs"
    options = {
      "awslogs-group"         = aws_cloudwatch_log_group.this.name
      "awslogs-region"        = local.region
      "awslogs-stream-prefix" = var.name
    }
  }

  # awsvpc: the host port is the container port (or absent). bridge: 0 picks a dynamic host port.
  port_mappings = [
    for p in var.container_port_mappings : merge(
      {
        containerPort = p.container_port
        hostPort      = local.is_awsvpc ? p.container_port : coalesce(p.host_port, 0)
        protocol      = p.protocol
      },
      p.name == null ? {} : { name = p.name },
      p.app_protocol == null ? {} : { appProtocol = p.app_protocol },
    )
  ]

  gpu_container = merge(
    {
      name      = var.container_name
      image     = var.container_image
      essential = true

      # The GPU reservation, inside the container definition, as a string ("1", or "0.25" on a
      # fractional type). The agent gives the container that many of the GPUs it registered,
      # sets NVIDIA_VISIBLE_DEVICES to them and runs the container with the NVIDIA runtime.
      resourceRequirements = [{ type = "GPU", value = tostring(var.gpu_count) }]

      # ECS does not set it; images not built on NVIDIA's CUDA images need it to see the driver.
      environment = concat(
        [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = var.nvidia_driver_capabilities }],
        [for k in sort(keys(var.container_environment)) : { name = k, value = var.container_environment[k] }],
      )
      secrets = [for k in sort(keys(var.container_secrets)) : { name = k, valueFrom = var.container_secrets[k] }]

      portMappings           = local.port_mappings
      readonlyRootFilesystem = var.readonly_root_filesystem
      logConfiguration       = local.log_configuration
      mountPoints            = []
      volumesFrom            = []
    },
    var.container_command == null ? {} : { command = var.container_command },
    var.container_entry_point == null ? {} : { entryPoint = var.container_entry_point },
    var.container_health_check == null ? {} : {
      healthCheck = {
        command     = var.container_health_check.command
        interval    = var.container_health_check.interval
        timeout     = var.container_health_check.timeout
        retries     = var.container_health_check.retries
        startPeriod = var.container_health_check.start_period
      }
    },
  )

  sidecar_containers = [
    for c in var.sidecar_containers : merge({ essential = false, logConfiguration = local.log_configuration }, c)
  ]

  container_definitions = concat([local.gpu_container], local.sidecar_containers)
}

resource "aws_ecs_task_definition" "this" {
  #checkov:skip=CKV_AWS_336:the GPU container's read-only root filesystem is the input readonly_root_filesystem; it is off by default because CUDA and ML images write model and kernel caches under the root filesystem
  family                   = var.name
  requires_compatibilities = ["EC2"]
  network_mode             = var.network_mode
  cpu                      = tostring(var.task_cpu)
  memory                   = tostring(var.task_memory)
  execution_role_arn       = aws_iam_role.execution.arn
  task_role_arn            = aws_iam_role.task.arn
  container_definitions    = jsonencode(local.container_definitions)
  tags                     = local.tags

  runtime_platform {
    operating_system_family = var.operating_system_family
    cpu_architecture        = "X86_64"
  }

  lifecycle {
    # The plan-time refusals of a task that would be accepted and never placed. An unsupported
    # instance type is refused on the launch template alone, with its reason.
    precondition {
      condition = (
        local.instance == null || local.instance_status != "supported" ? true :
        local.is_fractional_type ? var.gpu_count == local.instance_gpu_fraction :
        var.gpu_count >= 1 && floor(var.gpu_count) == var.gpu_count && var.gpu_count <= local.instance_gpus
      )
      error_message = (
        local.is_fractional_type
        ? "gpu_count ${var.gpu_count} does not fit ${var.instance_type}: it offers one GPU partition of ${local.instance_gpu_fraction}, and gpu_count must be exactly that."
        : "gpu_count ${var.gpu_count} does not fit ${var.instance_type}: it must be a whole number from 1 to the type's ${coalesce(local.instance_gpus, 0)} GPU(s)."
      )
    }
    precondition {
      condition     = local.instance_status != "supported" || local.max_task_cpu == null || var.task_cpu <= coalesce(local.max_task_cpu, 0)
      error_message = "task_cpu ${var.task_cpu} is more than ${var.instance_type} registers (${coalesce(local.instance_vcpus, 0)} vCPUs = ${coalesce(local.max_task_cpu, 0)} CPU units): the task would never be placed."
    }
    precondition {
      condition     = local.instance_status != "supported" || local.max_task_memory == null || var.task_memory <= coalesce(local.max_task_memory, 0)
      error_message = "task_memory ${var.task_memory} MiB is more than the module allows on ${var.instance_type}: ${coalesce(local.max_task_memory, 0)} MiB (the ${coalesce(try(local.instance.max_task_memory_mib, null), 0)} MiB the agent can register at most, minus a margin of ${local.memory_margin_mib} MiB for the kernel, the OS, Docker, the ECS agent and the NVIDIA daemons; see memory_margin_mib)."
    }
    precondition {
      condition     = length(local.nvidia_driver_capabilities) > 0 && alltrue([for c in local.nvidia_driver_capabilities : contains(local.nvidia_driver_capability_names, c)])
      error_message = "nvidia_driver_capabilities \"${var.nvidia_driver_capabilities}\" must be a comma-separated list of ${join(", ", local.nvidia_driver_capability_names)}."
    }
    precondition {
      condition     = length(local.nvidia_driver_capabilities) == 1 || !anytrue([for c in local.nvidia_driver_capabilities : contains(["all", "none"], c)])
      error_message = "nvidia_driver_capabilities: \"all\" and \"none\" stand alone, not in a list."
    }
  }
}
