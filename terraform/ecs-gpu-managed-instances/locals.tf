# What each listed type offers, from ../modules/facts (the generated catalog, or the
# caller's `instance_type_facts`), and what the task asks of it.

locals {
  types = { for t in var.instance_types : t => module.facts[t].instance }

  unknown_types = [for t, f in local.types : t if !f.known]
  # Families whose GPUs ECS cannot give a task whatever runs the instance: not NVIDIA, deprecated,
  # or with no EC2 record to check the task against; and "no-ecs-gpu-ami-driver" (G7): its GPU
  # needs a newer NVIDIA driver than any ECS GPU AMI release ships, and no source says the
  # Managed Instances AMI ships one. The other statuses of the catalog ("restricted",
  # "no-ecs-gpu-ami") are about the ECS GPU-optimized AMI, which Managed Instances do not use: they
  # are not refused here (an arm64 type is refused on its architecture below).
  refused_statuses = ["not-nvidia", "deprecated", "unverified", "no-ecs-gpu-ami-driver"]
  refused_types = {
    for t, f in local.types : t => coalesce(f.status_reason, f.status)
    if contains(local.refused_statuses, f.status)
  }
  known_types = { for t, f in local.types : t => f if f.known && !contains(local.refused_statuses, f.status) }

  # The task definition is Linux on X86_64.
  wrong_architecture_types = [for t, f in local.known_types : t if coalesce(f.architecture, "x86_64") != "x86_64"]

  # --- what the task asks for, and where it does not fit ------------------------------------
  is_fractional_task = floor(var.gpu_count) != var.gpu_count

  # A fractional task needs a partition of exactly its size; a whole-GPU task needs whole GPUs.
  gpu_misfits = [
    for t, f in local.known_types : t
    if var.mps != null ? false : local.is_fractional_task ? f.gpu_fraction != var.gpu_count : (f.gpu_fraction != null || coalesce(f.gpus, 0) < var.gpu_count)
  ]
  # MPS (ECS-GPU-SPEC): a share of one whole GPU, whose memory must hold the container's.
  mps_misfits = [
    for t, f in local.known_types : t
    if var.mps != null && (f.gpu_fraction != null || (f.gpu_memory_mib != null && coalesce(f.gpu_memory_mib, 0) < try(var.mps.memory_mib, 0)))
  ]
  cpu_misfits        = [for t, f in local.known_types : t if f.max_task_cpu != null && var.task_cpu > coalesce(f.max_task_cpu, 0)]
  memory_misfits     = [for t, f in local.known_types : t if f.max_task_memory != null && var.task_memory > coalesce(f.max_task_memory, 0)]
  gpu_memory_misfits = [for t, f in local.known_types : t if var.gpu_memory_min_mib != null && f.gpu_memory_mib != null && coalesce(f.gpu_memory_mib, 0) * max(coalesce(f.gpus, 1), 1) < coalesce(var.gpu_memory_min_mib, 0)]

  # Tasks one instance of each type holds: the least over GPUs, CPU units and memory.
  tasks_per_instance = {
    for t, f in local.known_types : t => try(min(
      var.mps != null ? f.gpus * floor(f.gpu_memory_mib / var.mps.memory_mib) : floor(f.gpus_per_instance / var.gpu_count),
      floor(f.max_task_cpu / var.task_cpu),
      floor(f.max_task_memory / var.task_memory),
    ), null)
  }

  # --- the instance requirements ------------------------------------------------------------
  # The requirements repeat what the task needs, so that EC2 never picks a listed type too small
  # for it; `vcpu_count` and `memory_mib` are required by the API. A fractional GPU's count as an
  # accelerator is not documented, so the count is left open for fractional tasks.
  vcpu_min          = ceil(var.task_cpu / 1024)
  accelerator_count = local.is_fractional_task ? null : var.gpu_count
  accelerator_type  = "gpu"
  accelerator_maker = "nvidia"

  cluster_name = var.create_cluster ? aws_ecs_cluster.this[0].name : var.cluster_name
  unique_name  = module.facts[var.instance_types[0]].unique_name
  tags         = merge(var.tags, { "ecs-gpu-managed-instances" = var.name })
}
