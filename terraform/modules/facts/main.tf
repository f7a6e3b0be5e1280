# Facts and names that the capacity and the service must derive the same way: the instance type's
# facts from the generated catalog (catalog.tf), what a task may ask for on it, and the names that
# are unique per call. No resources: both submodules call this module, so each fact and each rule
# lives once. The lookups are null-safe so that an unknown instance type fails on the capacity's
# preconditions with a clear message, never on an index error somewhere else.

terraform {
  required_version = ">= 1.6"
}

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

  # --- CPU and memory a task may ask for ----------------------------------------------------
  # The catalog's max_task_memory_mib is EC2 memory minus the 207 MiB the kernel always keeps
  # (ECS memory-management example). The margin covers the rest: the kernel keeps more on larger
  # and GPU instances, and the OS, Docker, the agent and the NVIDIA daemons use memory the agent
  # does not subtract (ECS_RESERVED_MEMORY defaults to 0).
  memory_margin_mib = (
    var.memory_margin_mib != null ? var.memory_margin_mib :
    try(max(1024, ceil(local.least_memory_mib * 5 / 100)), 1024)
  )

  # The catalog's names nearest an unknown type: the same family, else the same size, else every
  # family the catalog knows.
  same_family_types = [for t in keys(local.ecs_gpu_instance_types) : t if split(".", t)[0] == local.instance_family]
  same_size_types   = [for t in keys(local.ecs_gpu_instance_types) : t if try(split(".", t)[1], "") == try(split(".", var.instance_type)[1], "-")]
  nearest_types = (
    length(local.same_family_types) > 0 ? local.same_family_types :
    length(local.same_size_types) > 0 ? local.same_size_types :
    sort(keys(local.ecs_gpu_family_status))
  )

  # --- several types in one group (mixed instances) ------------------------------------------
  # Every other type must be in the catalog with the primary type's GPU count and fraction, and at
  # least its GPU memory per GPU: a task sized for one type must be placeable on any instance the
  # group launches, and managed scaling counts instances as if they were alike. Another GPU model
  # (g5.12xlarge's A10G beside g6.12xlarge's L4) is listed apart: the task must run on both, which
  # the caller says (modules/capacity `mixed_instances.allow_other_gpu_models`). The fit checks use
  # the least vCPUs and memory over all the types (the smallest type).
  other_types = [for t in var.additional_instance_types : {
    instance_type = t
    facts         = lookup(local.ecs_gpu_instance_types, t, null)
  }]
  unknown_other_types = [for o in local.other_types : o.instance_type if o.facts == null]
  mismatched_other_types = [
    for o in local.other_types : "${o.instance_type} (${o.facts.gpus} x ${o.facts.gpu_model}${o.facts.gpu_fraction == null ? "" : ", fraction ${o.facts.gpu_fraction}"}, ${o.facts.gpu_memory_mib} MiB each)"
    if o.facts != null && (
      try(o.facts.gpus != local.instance_gpus, true) ||
      try(o.facts.gpu_fraction != local.instance_gpu_fraction, true) ||
      try(local.instance.gpu_memory_mib != null && o.facts.gpu_memory_mib < tonumber(local.instance.gpu_memory_mib), true) ||
      try(o.facts.ecs_status != "supported", true)
    )
  ]
  other_model_types = [
    for o in local.other_types : "${o.instance_type} (${o.facts.gpu_model})"
    if o.facts != null && try(o.facts.gpu_model != local.instance.gpu_model, true)
  ]
  known_other_facts = [for o in local.other_types : o.facts if o.facts != null]
  # Other types the catalog says have no EFA (karpenter-preview-efa, BOTO): null is unknown, not false.
  other_types_without_efa = [for o in local.other_types : o.instance_type if try(tobool(o.facts.efa) == false, false)]
  all_vcpus               = concat([local.instance_vcpus], [for f in local.known_other_facts : f.vcpus])
  all_memory_mib          = concat([local.instance_memory_mib], [for f in local.known_other_facts : f.memory_mib])
  all_max_task_mib        = concat([try(tonumber(local.instance.max_task_memory_mib), null)], [for f in local.known_other_facts : f.max_task_memory_mib])
  least_vcpus             = try(min(local.all_vcpus...), null)
  least_memory_mib        = try(min(local.all_memory_mib...), null)
  least_max_task          = try(min(local.all_max_task_mib...), null)

  # Names unique in the account and region (see `name_suffix`).
  name_suffix = var.name_suffix != null ? var.name_suffix : substr(sha1(var.cluster_name), 0, 6)
}
