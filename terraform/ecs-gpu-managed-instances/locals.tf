# Every per-type fact comes from the generated catalog (catalog.tf, the same file as
# terraform/ecs-gpu-task's). The lookups are null-safe so that an unknown instance type fails on the
# preconditions with a clear message, never on an index error somewhere else.

locals {
  # --- the instance types, from the catalog or the caller's facts ---------------------------
  types = {
    for t in var.instance_types : t => (
      lookup(local.ecs_gpu_instance_types, t, null) != null ? local.ecs_gpu_instance_types[t] :
      lookup(var.instance_type_facts, t, null) != null ? {
        family              = split(".", t)[0], gpus = var.instance_type_facts[t].gpus, gpu_fraction = null, gpu_model = null
        gpu_memory_mib      = null, vcpus = var.instance_type_facts[t].vcpus, memory_mib = var.instance_type_facts[t].memory_mib
        max_task_memory_mib = var.instance_type_facts[t].memory_mib, architecture = "x86_64", ecs_status = "supported"
      } : null
    )
  }

  unknown_types = [for t, f in local.types : t if f == null]
  # The catalog's names nearest each unknown type: the same family, else the same size, else every
  # family the catalog knows.
  nearest_types = {
    for t in local.unknown_types : t => coalescelist(
      [for k in keys(local.ecs_gpu_instance_types) : k if split(".", k)[0] == split(".", t)[0]],
      [for k in keys(local.ecs_gpu_instance_types) : k if try(split(".", k)[1], "") == try(split(".", t)[1], "-")],
      sort(keys(local.ecs_gpu_family_status)),
    )
  }
  # Families whose GPUs ECS cannot give a task whatever runs the instance: not NVIDIA, deprecated,
  # or with no EC2 record to check the task against. The other statuses of catalog.tf
  # ("restricted", "no-ecs-gpu-ami") are about the ECS GPU-optimized AMI, which Managed Instances
  # do not use: they are not refused here (an arm64 type is refused on its architecture below).
  refused_statuses = ["not-nvidia", "deprecated", "unverified"]
  refused_types = {
    for t, f in local.types : t => coalesce(try(local.ecs_gpu_family_status[f.family].reason, null), f.ecs_status)
    if f != null && contains(local.refused_statuses, try(f.ecs_status, "unknown"))
  }
  known_types = { for t, f in local.types : t => f if f != null && !contains(local.refused_statuses, try(f.ecs_status, "unknown")) }

  # The task definition is Linux on X86_64.
  wrong_architecture_types = [for t, f in local.known_types : t if try(f.architecture, "x86_64") != "x86_64"]

  # --- what the task asks for, and what each type offers ------------------------------------
  is_fractional_task = floor(var.gpu_count) != var.gpu_count

  # GPUs one instance offers: whole GPUs, or the partition of a fractional type.
  gpus_offered = { for t, f in local.known_types : t => try(f.gpu_fraction != null ? f.gpu_fraction : f.gpus, null) }
  # A fractional task needs a partition of exactly its size; a whole-GPU task needs whole GPUs.
  gpu_misfits = [
    for t, f in local.known_types : t
    if local.is_fractional_task ? try(f.gpu_fraction, null) != var.gpu_count : (try(f.gpu_fraction, null) != null || try(f.gpus, 0) < var.gpu_count)
  ]

  # The agent registers vCPUs x 1024 CPU units.
  cpu_misfits = [for t, f in local.known_types : t if try(f.vcpus * 1024 < var.task_cpu, false)]

  # The catalog's max_task_memory_mib is EC2 memory minus the 207 MiB the kernel always keeps
  # (ECS-MEM); the margin covers the rest, by terraform/ecs-gpu-task's rule.
  memory_margin_mib = {
    for t, f in local.known_types : t => (
      var.memory_margin_mib != null ? var.memory_margin_mib : try(max(1024, ceil(f.memory_mib * 5 / 100)), 1024)
    )
  }
  max_task_memory = { for t, f in local.known_types : t => try(f.max_task_memory_mib - local.memory_margin_mib[t], null) }
  memory_misfits  = [for t, m in local.max_task_memory : t if try(var.task_memory > m, false)]

  gpu_memory_misfits = [
    for t, f in local.known_types : t
    if var.gpu_memory_min_mib != null && try(f.gpu_memory_mib * max(f.gpus, 1) < var.gpu_memory_min_mib, false)
  ]

  # Tasks one instance of each type holds: the least over GPUs, CPU units and memory.
  tasks_per_instance = {
    for t, f in local.known_types : t => try(min(
      floor(local.gpus_offered[t] / var.gpu_count),
      floor(f.vcpus * 1024 / var.task_cpu),
      floor(local.max_task_memory[t] / var.task_memory),
    ), null)
  }

  # --- the instance requirements ------------------------------------------------------------
  # The requirements repeat what the task needs, so that EC2 never picks a listed type too small
  # for it; `vcpu_count` and `memory_mib` are required by the API. A fractional GPU's count as an
  # accelerator is not documented, so the count is left open for fractional tasks.
  vcpu_min            = ceil(var.task_cpu / 1024)
  accelerator_count   = local.is_fractional_task ? null : var.gpu_count
  requirement_memory  = var.task_memory
  accelerator_type    = "gpu"
  accelerator_maker   = "nvidia"
  nvidia_capabilities = [for c in split(",", var.nvidia_driver_capabilities) : trimspace(c)]
  cluster_name        = var.create_cluster ? aws_ecs_cluster.this[0].name : var.cluster_name
  unique_name         = "${var.name}-${substr(sha1(var.cluster_name), 0, 6)}"
  log_group_name      = "/ecs/${local.unique_name}"
  tags                = merge(var.tags, { "ecs-gpu-managed-instances" = var.name })
}
