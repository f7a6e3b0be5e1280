output "instance" {
  description = "What the capacity and the service know of the instance type, in one shape. `known` is false when neither the catalog nor `instance_type_facts` knows it (every fit check is then skipped, and the capacity refuses the type)."
  value = {
    instance_type = var.instance_type
    # The group's other types (mixed instances); the figures below are the least over all of them.
    additional_instance_types = var.additional_instance_types
    # Other types the catalog does not know; whose GPU count, fraction or per-GPU memory differ from
    # the primary type's (less memory); whose GPU model differs.
    unknown_additional_types     = local.unknown_other_types
    mismatched_additional_types  = local.mismatched_other_types
    other_model_additional_types = local.other_model_types
    gpu_model                    = try(local.instance.gpu_model, null)
    known                        = local.instance != null
    # "supported", or why the type cannot run ECS GPU tasks (restricted, not-nvidia, no-ecs-gpu-ami,
    # no-ecs-gpu-ami-driver, deprecated, unverified), or "unknown".
    status        = local.instance_status
    status_reason = local.family_reason
    family_known  = local.family_status != null
    architecture  = try(local.instance.architecture, null)
    gpus          = local.instance_gpus
    gpu_fraction  = local.instance_gpu_fraction
    # GPU memory of one GPU (MiB), from the catalog; null for a type known only by instance_type_facts.
    gpu_memory_mib = try(tonumber(local.instance.gpu_memory_mib), null)
    # Whether the type has an Elastic Fabric Adapter (catalog, karpenter-preview-efa and BOTO): null
    # when the sources do not say, and for a type known only by instance_type_facts.
    efa = try(tobool(local.instance.efa), null)
    # The group's other types the catalog says have no EFA.
    additional_types_without_efa = local.other_types_without_efa
    # GPUs one instance offers: whole GPUs, or the partition of a fractional type.
    gpus_per_instance = local.instance_gpu_fraction != null ? local.instance_gpu_fraction : local.instance_gpus
    vcpus             = local.least_vcpus
    # The agent registers vCPUs x 1024 CPU units.
    max_task_cpu        = try(local.least_vcpus * 1024, null)
    max_task_memory_mib = local.least_max_task
    memory_margin_mib   = local.memory_margin_mib
    # Most task memory the module accepts: the catalog's max_task_memory_mib minus the margin.
    max_task_memory = try(local.least_max_task - local.memory_margin_mib, null)
    nearest_types   = local.nearest_types
  }
}

output "unique_name" {
  description = "`name` with the call's suffix: the name of the capacity provider and the task definition family, and the base of the log group."
  value       = local.name_suffix == "" ? var.name : "${var.name}-${local.name_suffix}"
}

output "ami_parameters" {
  description = "The catalog's ECS GPU-optimized AMI SSM parameters (key => { parameter, end_of_life })."
  value       = local.ecs_gpu_ami_parameters
}

output "ami_recommended_parameter" {
  description = "The catalog's recommended AMI SSM parameter (Amazon Linux 2023 GPU image_id)."
  value       = local.ecs_gpu_ami_recommended_parameter
}

output "nvidia_driver_capability_names" {
  description = "The NVIDIA_DRIVER_CAPABILITIES names the NVIDIA container toolkit accepts."
  value       = local.nvidia_driver_capability_names
}
