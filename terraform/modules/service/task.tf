# The task definition: EC2 only, the GPU container with its GPU reservation, optional sidecars.

locals {
  # The region from the EC2 endpoint (ec2.<region>.amazonaws.com[.cn]): aws_region's `name` and `id`
  # are deprecated in provider 6 and its `region` does not exist in provider 5. Only a mocked
  # endpoint lacks that shape (a caller's bare `mock_provider "aws" {}` mocks it as a random
  # string): the plan then goes on with the endpoint as it is.
  region = try(regex("^[^.]+\\.([^.]+)\\.", data.aws_region.current.endpoint)[0], data.aws_region.current.endpoint)

  log_configuration = {
    logDriver = "awslogs"
    options = {
      "awslogs-group"         = aws_cloudwatch_log_group.this.name
      "awslogs-region"        = local.region
      "awslogs-stream-prefix" = var.name
    }
  }

  # Every container the module renders, the GPU container first, in one shape. Sidecars passed
  # as raw definitions (`sidecar_containers`) are added as they are.
  containers = concat(
    [{
      name  = var.container_name
      image = var.container_image
      # With MPS the container reserves no whole GPU: it asks for a share of one (sharingStrategy).
      gpu_count                = var.mps == null ? var.gpu_count : 0
      mps                      = var.mps
      cpu                      = null
      memory                   = null
      memory_reservation       = null
      essential                = true
      command                  = var.container_command
      entry_point              = var.container_entry_point
      environment              = var.container_environment
      secrets                  = var.container_secrets
      port_mappings            = var.container_port_mappings
      health_check             = var.container_health_check
      linux_parameters         = var.linux_parameters
      ulimits                  = var.ulimits
      stop_timeout             = var.stop_timeout
      docker_labels            = var.docker_labels
      readonly_root_filesystem = var.readonly_root_filesystem
      depends_on               = []
    }],
    [for name in sort(keys(var.additional_containers)) : merge(var.additional_containers[name], {
      name             = name
      mps              = null
      linux_parameters = coalesce(var.additional_containers[name].linux_parameters, var.linux_parameters)
      ulimits          = coalesce(var.additional_containers[name].ulimits, var.ulimits)
    })],
  )

  # The task's GPUs: ECS places a task when the sum over its containers fits one instance.
  task_gpus           = sum([for c in local.containers : c.gpu_count])
  gpu_container_count = length([for c in local.containers : c if c.gpu_count > 0 || c.mps != null])
  # The MPS share of one GPU: its memory must fit one GPU of the type (ECS-GPU-SPEC). null when
  # the catalog does not know the type's GPU memory (the check is then skipped).
  gpu_memory_mib = local.instance.gpu_memory_mib

  # /dev/shm: explicit, or a quarter of the container's memory for containers with GPUs (NCCL and
  # DataLoader workers fail on Docker's 64 MiB), unset when the IPC namespace is the host's or none.
  shared_memory_sizes = [
    for c in local.containers : (
      contains(["host", "none"], coalesce(var.ipc_mode, "-")) ? null :
      c.linux_parameters.shared_memory_size != null ? c.linux_parameters.shared_memory_size :
      c.gpu_count > 0 || c.mps != null ? floor(coalesce(c.memory, var.task_memory) / 4) : null
    )
  ]

  container_definitions = concat(
    [for i, c in local.containers : merge(
      {
        name      = c.name
        image     = c.image
        essential = c.essential

        # The GPU reservation, inside the container definition, as a string ("1", or "0.25" on a
        # fractional type). The agent gives the container that many of the GPUs it registered,
        # sets NVIDIA_VISIBLE_DEVICES to them and runs the container with the NVIDIA runtime.
        # With MPS: a sharing strategy and no value, which ECS refuses together (ECS-GPU-SPEC, BOTO
        # `ResourceRequirement`); the agent starts the container as an MPS client of one GPU.
        resourceRequirements = concat(
          c.mps == null ? [] : [{
            type = "GPU"
            sharingStrategy = {
              nvidiaMps = merge(
                { memory = c.mps.memory_mib },
                c.mps.max_compute_percent == null ? {} : { maxComputePercent = c.mps.max_compute_percent },
              )
            }
          }],
          c.mps == null && c.gpu_count > 0 ? [{ type = "GPU", value = tostring(c.gpu_count) }] : [],
        )

        # ECS does not set it; images not built on NVIDIA's CUDA images need it to see the driver.
        environment = concat(
          (c.gpu_count > 0 || c.mps != null) && !contains(keys(c.environment), "NVIDIA_DRIVER_CAPABILITIES") ? [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = var.nvidia_driver_capabilities }] : [],
          [for k in sort(keys(c.environment)) : { name = k, value = c.environment[k] }],
        )
        secrets = [for k in sort(keys(c.secrets)) : { name = k, valueFrom = c.secrets[k] }]

        # awsvpc: the host port is the container port. bridge: 0 picks a dynamic host port.
        portMappings = [
          for p in c.port_mappings : merge(
            {
              containerPort = p.container_port
              hostPort      = local.is_awsvpc ? p.container_port : coalesce(p.host_port, 0)
              protocol      = p.protocol
            },
            p.name == null ? {} : { name = p.name },
            p.app_protocol == null ? {} : { appProtocol = p.app_protocol },
          )
        ]
        readonlyRootFilesystem = c.readonly_root_filesystem
        logConfiguration       = local.log_configuration
        mountPoints            = local.container_mount_points[i]
        volumesFrom            = []
        dockerLabels           = c.docker_labels
        ulimits                = [for u in c.ulimits : { name = u.name, softLimit = u.soft_limit, hardLimit = u.hard_limit }]

        linuxParameters = merge(
          { initProcessEnabled = c.linux_parameters.init_process_enabled },
          # The EFA device, for the containers with GPUs (NCCL over libfabric), with `efa`.
          var.efa && (c.gpu_count > 0 || c.mps != null) ? { devices = local.efa_devices } : {},
          local.shared_memory_sizes[i] == null ? {} : { sharedMemorySize = local.shared_memory_sizes[i] },
          length(c.linux_parameters.capabilities.add) + length(c.linux_parameters.capabilities.drop) == 0 ? {} : {
            capabilities = { add = c.linux_parameters.capabilities.add, drop = c.linux_parameters.capabilities.drop }
          },
        )
      },
      c.cpu == null ? {} : { cpu = c.cpu },
      c.memory == null ? {} : { memory = c.memory },
      c.memory_reservation == null ? {} : { memoryReservation = c.memory_reservation },
      c.command == null ? {} : { command = c.command },
      c.entry_point == null ? {} : { entryPoint = c.entry_point },
      c.stop_timeout == null ? {} : { stopTimeout = c.stop_timeout },
      var.repository_credentials == null ? {} : { repositoryCredentials = { credentialsParameter = var.repository_credentials } },
      length(c.depends_on) == 0 ? {} : { dependsOn = [for d in c.depends_on : { containerName = d.container_name, condition = d.condition }] },
      c.health_check == null ? {} : {
        healthCheck = {
          command     = c.health_check.command
          interval    = c.health_check.interval
          timeout     = c.health_check.timeout
          retries     = c.health_check.retries
          startPeriod = c.health_check.start_period
        }
      },
    )],
    [for c in var.sidecar_containers : merge({ essential = false, logConfiguration = local.log_configuration }, c)],
  )

  # The device the EFA driver creates for the instance's one EFA interface (AWS Batch EFA page:
  # hostPath and containerPath /dev/infiniband/uverbs0).
  efa_devices = [{ hostPath = "/dev/infiniband/uverbs0", containerPath = "/dev/infiniband/uverbs0", permissions = ["read", "write", "mknod"] }]

  container_names = concat([for c in local.containers : c.name], [for c in var.sidecar_containers : try(c.name, "")])
}

resource "aws_ecs_task_definition" "this" {
  #checkov:skip=CKV_AWS_336:the GPU container's read-only root filesystem is the input readonly_root_filesystem; it is off by default because CUDA and ML images write model and kernel caches under the root filesystem
  family                   = module.facts.unique_name
  requires_compatibilities = [var.compatibility]
  network_mode             = var.network_mode
  cpu                      = tostring(var.task_cpu)
  memory                   = tostring(var.task_memory)
  execution_role_arn       = local.execution_role_arn
  task_role_arn            = local.task_role_arn
  container_definitions    = jsonencode(local.container_definitions)
  ipc_mode                 = var.ipc_mode
  tags                     = local.tags

  dynamic "volume" {
    for_each = var.model_cache == null ? [] : [var.model_cache]
    content {
      name      = "model-cache"
      host_path = volume.value.host_path
    }
  }

  dynamic "volume" {
    for_each = var.efs_volumes
    content {
      name = volume.key
      efs_volume_configuration {
        file_system_id     = volume.value.file_system_id
        root_directory     = volume.value.access_point_id == null ? volume.value.root_directory : null
        transit_encryption = "ENABLED"
        authorization_config {
          access_point_id = volume.value.access_point_id
          iam             = volume.value.iam ? "ENABLED" : "DISABLED"
        }
      }
    }
  }

  dynamic "volume" {
    for_each = var.ebs_volume == null ? [] : [var.ebs_volume]
    content {
      name                = "scratch"
      configure_at_launch = true
    }
  }

  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = "X86_64"
  }

  lifecycle {
    precondition {
      condition     = var.create_execution_role != (var.execution_role_arn != null)
      error_message = var.create_execution_role ? "Set create_execution_role = false to use execution_role_arn: the module either creates the execution role or uses yours, not both." : "With create_execution_role = false, set execution_role_arn (a role ECS tasks can assume, with AmazonECSTaskExecutionRolePolicy or the same permissions)."
    }
    precondition {
      condition     = var.create_task_role != (var.task_role_arn != null)
      error_message = var.create_task_role ? "Set create_task_role = false to use task_role_arn: the module either creates the task role or uses yours, not both." : "With create_task_role = false, set task_role_arn (a role ECS tasks can assume)."
    }
    precondition {
      condition     = var.create_task_role || length(var.task_role_policy_arns) == 0
      error_message = "task_role_policy_arns are attached only to the task role the module creates: with task_role_arn, attach them to your own role."
    }
    # The plan-time refusals of a task that would be accepted and never placed. An unsupported
    # instance type is refused on the launch template alone, with its reason.
    precondition {
      condition = (
        !local.instance.known || local.instance_status != "supported" || var.mps != null ? true :
        local.is_fractional_type ? local.gpu_container_count == 1 && local.task_gpus == local.instance_gpu_fraction :
        alltrue([for c in local.containers : floor(c.gpu_count) == c.gpu_count]) && local.task_gpus <= local.instance_gpus
      )
      error_message = (
        local.is_fractional_type
        ? "the task asks for ${local.task_gpus} GPU over ${local.gpu_container_count} container(s) on ${var.instance_type}: it offers one GPU partition of ${local.instance_gpu_fraction}, which exactly one container must ask for (gpu_count = ${local.instance_gpu_fraction})."
        : "the task asks for ${local.task_gpus} GPUs (${join(" + ", [for c in local.containers : "${c.name} ${c.gpu_count}" if c.gpu_count > 0])}) on ${var.instance_type}, which has ${coalesce(local.instance_gpus, 0)}: each container's gpu_count must be a whole number and their sum at most the type's GPUs."
      )
    }
    # MPS (ECS-GPU-SPEC, BOTO `ResourceRequirement`): one sharing option for every GPU container of
    # the task, a GPU count or a sharing strategy but not both, and memory that fits one GPU.
    precondition {
      condition     = var.mps == null || var.gpu_count == 1
      error_message = "`mps` and `gpu_count` ${var.gpu_count} both set: ECS takes either a GPU count or an MPS sharing strategy for a container, not both; with `mps` leave `gpu_count` unset."
    }
    precondition {
      condition     = var.mps == null || local.task_gpus == 0
      error_message = "with `mps`, `additional_containers` must not reserve whole GPUs (${join(", ", [for c in local.containers : "${c.name} ${c.gpu_count}" if c.gpu_count > 0])}): every GPU container of a task uses the same option, and the module shares the GPU container's GPU with MPS."
    }
    precondition {
      condition     = var.mps == null || !local.is_fractional_type
      error_message = "`mps` on ${var.instance_type}, a fractional g6f/gr6f type: MPS sharing is not offered on GPU partitions; use a whole-GPU type, or the partition itself with `gpu_count = ${coalesce(local.instance_gpu_fraction, 0)}`."
    }
    precondition {
      condition     = var.mps == null || local.gpu_memory_mib == null || try(var.mps.memory_mib <= local.gpu_memory_mib, true)
      error_message = "`mps.memory_mib` ${try(var.mps.memory_mib, 0)} MiB does not fit one GPU of ${var.instance_type} (${coalesce(local.gpu_memory_mib, 0)} MiB): an MPS container pins its memory on a single GPU, so ECS would never place the task."
    }
    precondition {
      condition     = alltrue([for v in values(var.efs_volumes) : alltrue([for n in v.containers : contains(local.container_names, n)])])
      error_message = "efs_volumes name containers the task does not have (it has ${join(", ", local.container_names)})."
    }
    precondition {
      condition     = length(distinct(local.container_names)) == length(local.container_names)
      error_message = "container names must be unique in the task: ${join(", ", local.container_names)}."
    }
    precondition {
      condition     = sum(concat([0], [for c in local.containers : coalesce(c.cpu, 0)])) <= var.task_cpu
      error_message = "the containers' cpu add up to ${sum(concat([0], [for c in local.containers : coalesce(c.cpu, 0)]))} units, more than task_cpu ${var.task_cpu}."
    }
    precondition {
      condition     = sum(concat([0], [for c in local.containers : coalesce(c.memory, c.memory_reservation, 0)])) <= var.task_memory
      error_message = "the containers' memory adds up to ${sum(concat([0], [for c in local.containers : coalesce(c.memory, c.memory_reservation, 0)]))} MiB, more than task_memory ${var.task_memory}."
    }
    precondition {
      condition     = alltrue([for i, c in local.containers : local.shared_memory_sizes[i] == null || coalesce(local.shared_memory_sizes[i], 0) <= coalesce(c.memory, var.task_memory)])
      error_message = "shared_memory_size must not exceed the container's memory (its memory, else task_memory ${var.task_memory} MiB): /dev/shm is memory the container is charged for."
    }
    precondition {
      condition     = !contains(["host", "none"], coalesce(var.ipc_mode, "-")) || alltrue([for c in local.containers : c.linux_parameters.shared_memory_size == null])
      error_message = "shared_memory_size has no effect with ipc_mode \"${coalesce(var.ipc_mode, "-")}\" (/dev/shm is then the host's, or absent): unset one of them."
    }
    precondition {
      condition     = local.instance_status != "supported" || local.max_task_cpu == null || var.task_cpu <= coalesce(local.max_task_cpu, 0)
      error_message = "task_cpu ${var.task_cpu} is more than ${var.instance_type} registers (${coalesce(local.instance_vcpus, 0)} vCPUs = ${coalesce(local.max_task_cpu, 0)} CPU units): the task would never be placed."
    }
    precondition {
      condition     = local.instance_status != "supported" || local.max_task_memory == null || var.task_memory <= coalesce(local.max_task_memory, 0)
      error_message = "task_memory ${var.task_memory} MiB is more than the module allows on ${var.instance_type}: ${coalesce(local.max_task_memory, 0)} MiB (the ${coalesce(local.instance.max_task_memory_mib, 0)} MiB the agent can register at most, minus a margin of ${local.memory_margin_mib} MiB for the kernel, the OS, Docker, the ECS agent and the NVIDIA daemons; see memory_margin_mib)."
    }
    precondition {
      condition     = length(local.nvidia_driver_capabilities) > 0 && alltrue([for c in local.nvidia_driver_capabilities : contains(local.nvidia_driver_capability_names, c)])
      error_message = "nvidia_driver_capabilities \"${var.nvidia_driver_capabilities}\" must be a comma-separated list of ${join(", ", local.nvidia_driver_capability_names)}."
    }
    precondition {
      condition     = length(local.nvidia_driver_capabilities) == 1 || !anytrue([for c in local.nvidia_driver_capabilities : contains(["all", "none"], c)])
      error_message = "nvidia_driver_capabilities: \"all\" and \"none\" stand alone, not in a list."
    }
    # The provider normalizes container_definitions through its AWS SDK's types, already when it
    # plans, and drops the fields its SDK does not know: hashicorp/aws 5.100.0 (aws-sdk-go-v2 ecs
    # v1.57.3) has no sharingStrategy, and would register a GPU requirement with neither a value
    # nor a sharing strategy. The postcondition stops that at plan time.
    postcondition {
      condition     = var.mps == null || can(jsondecode(self.container_definitions)[0].resourceRequirements[0].sharingStrategy.nvidiaMps.memory)
      error_message = "hashicorp/aws dropped the GPU container's `sharingStrategy` from container_definitions: this provider's AWS SDK does not know MPS sharing (5.100.0 does not); upgrade the provider, or unset `mps`."
    }
  }
}
