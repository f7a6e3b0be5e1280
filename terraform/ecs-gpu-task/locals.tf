# Every per-type fact comes from the generated catalog (catalog.tf). The lookups are null-safe so
# that an unknown instance type fails on the preconditions in checks.tf with a clear message,
# never on an index error somewhere else.

locals {
  # --- the instance type, from the catalog --------------------------------------------------
  instance_family  = split(".", var.instance_type)[0]
  catalog_instance = lookup(local.ecs_gpu_instance_types, var.instance_type, null)
  # A type the catalog does not know is used only with the caller's facts (instance_type_facts); the
  # module's memory margin then stands for what the kernel keeps.
  opted_in_instance = local.catalog_instance == null && var.instance_type_facts != null ? {
    family              = split(".", var.instance_type)[0], gpus = var.instance_type_facts.gpus, gpu_fraction = null
    vcpus               = var.instance_type_facts.vcpus, memory_mib = var.instance_type_facts.memory_mib
    max_task_memory_mib = var.instance_type_facts.memory_mib, architecture = "x86_64", ecs_status = "supported"
  } : null
  instance        = local.catalog_instance != null ? local.catalog_instance : local.opted_in_instance
  family_status   = local.opted_in_instance != null ? { status = "supported", reason = null } : lookup(local.ecs_gpu_family_status, local.instance_family, null)
  instance_status = try(local.instance.ecs_status, try(local.family_status.status, "unknown"))
  family_reason   = try(coalesce(local.family_status.reason, ""), "")

  instance_gpus         = try(tonumber(local.instance.gpus), null)
  instance_gpu_fraction = try(tonumber(local.instance.gpu_fraction), null)
  instance_vcpus        = try(tonumber(local.instance.vcpus), null)
  instance_memory_mib   = try(tonumber(local.instance.memory_mib), null)
  instance_architecture = try(local.instance.architecture, null)
  is_fractional_type    = local.instance_gpu_fraction != null

  # GPUs one instance offers: whole GPUs, or the partition of a fractional type.
  gpus_per_instance = local.is_fractional_type ? local.instance_gpu_fraction : local.instance_gpus

  # --- CPU and memory a task may ask for ----------------------------------------------------
  # The agent registers vCPUs x 1024 CPU units.
  max_task_cpu = try(local.instance_vcpus * 1024, null)
  # The catalog's max_task_memory_mib is EC2 memory minus the 207 MiB the kernel always keeps
  # (ECS memory-management example). The margin covers the rest: the kernel keeps more on larger
  # and GPU instances, and the OS, Docker, the agent and the NVIDIA daemons use memory the agent
  # does not subtract (ECS_RESERVED_MEMORY defaults to 0).
  memory_margin_mib = (
    var.memory_margin_mib != null ? var.memory_margin_mib :
    try(max(1024, ceil(local.instance_memory_mib * 5 / 100)), 1024)
  )
  max_task_memory = try(tonumber(local.instance.max_task_memory_mib) - local.memory_margin_mib, null)

  # Tasks one instance holds: the least over GPUs, CPU units and memory.
  tasks_per_instance = try(min(
    floor(local.gpus_per_instance / local.task_gpus),
    floor(local.max_task_cpu / var.task_cpu),
    floor(local.max_task_memory / var.task_memory),
  ), null)

  # --- the AMI ------------------------------------------------------------------------------
  ami_ssm_parameter = var.ami_ssm_parameter != null ? var.ami_ssm_parameter : local.ecs_gpu_ami_recommended_parameter
  # A parameter is accepted when it is one of the catalog's GPU parameters or lies under the same
  # `.../gpu/` path (the `/image_id` sub-parameter, or a version-specific parameter).
  ami_parameter_matches = [
    for k, p in local.ecs_gpu_ami_parameters : k
    if local.ami_ssm_parameter == p.parameter || startswith(local.ami_ssm_parameter, "${trimsuffix(p.parameter, "recommended")}")
  ]
  ami_parameter_key         = length(local.ami_parameter_matches) > 0 ? local.ami_parameter_matches[0] : null
  ami_parameter_end_of_life = try(local.ecs_gpu_ami_parameters[local.ami_parameter_key].end_of_life, null)
  # `.../recommended` itself holds a JSON document; `.../recommended/image_id` holds the ID.
  ami_ssm_value = var.ami_id == null ? nonsensitive(data.aws_ssm_parameter.ami[0].value) : null
  ami_id        = var.ami_id != null ? var.ami_id : try(jsondecode(local.ami_ssm_value).image_id, local.ami_ssm_value)

  # --- the cluster and the capacity provider association ------------------------------------
  cluster_name = var.create_cluster ? aws_ecs_cluster.this[0].name : var.cluster_name
  associate_capacity_provider = (
    var.associate_capacity_provider != null ? var.associate_capacity_provider : var.create_cluster
  )

  # --- the service --------------------------------------------------------------------------
  placement_expression = "attribute:ecs.instance-type == ${var.instance_type}"
  autoscaling_enabled  = var.autoscaling != null
  service_subnet_ids   = var.service_subnet_ids != null ? var.service_subnet_ids : var.subnet_ids
  is_awsvpc            = var.network_mode == "awsvpc"

  nvidia_driver_capabilities = [for c in split(",", var.nvidia_driver_capabilities) : trimspace(c)]

  # Names unique in the account and region (see `name_suffix`).
  name_suffix    = var.name_suffix != null ? var.name_suffix : substr(sha1(var.cluster_name), 0, 6)
  unique_name    = local.name_suffix == "" ? var.name : "${var.name}-${local.name_suffix}"
  log_group_name = "/ecs/${local.unique_name}"

  # The catalog's names nearest an unknown type: the same family, else the same size, else every
  # family the catalog knows.
  same_family_types = [for t in keys(local.ecs_gpu_instance_types) : t if split(".", t)[0] == local.instance_family]
  same_size_types   = [for t in keys(local.ecs_gpu_instance_types) : t if try(split(".", t)[1], "") == try(split(".", var.instance_type)[1], "-")]
  nearest_types = (
    length(local.same_family_types) > 0 ? local.same_family_types :
    length(local.same_size_types) > 0 ? local.same_size_types :
    sort(keys(local.ecs_gpu_family_status))
  )

  tags = merge(var.tags, { "ecs-gpu-task" = var.name })
}
