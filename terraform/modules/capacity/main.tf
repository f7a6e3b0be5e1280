# The GPU capacity of one instance type in a cluster that exists: the instances' security group and
# IAM role, the launch template, the Auto Scaling group, the capacity provider and (by choice) its
# association with the cluster. The service takes the capacity provider's name from the output
# `capacity_provider_name`, which is read from the association: referring to it orders the service
# after the association, with no depends_on and no race.

module "facts" {
  source = "../facts"

  name                      = var.name
  name_suffix               = var.name_suffix
  cluster_name              = var.cluster_name
  instance_type             = var.instance_type
  additional_instance_types = var.mixed_instances == null ? [] : var.mixed_instances.additional_instance_types
  instance_type_facts       = var.instance_type_facts
  iam_role_path             = var.iam_role_path
  iam_permissions_boundary  = var.iam_permissions_boundary
  model_cache               = var.model_cache
}

data "aws_partition" "current" {}

# The GPU AMI, resolved at plan time from the ECS GPU-optimized AMI parameter (never a hard-coded
# ID). Skipped when an AMI ID is pinned with `ami_id`.
data "aws_ssm_parameter" "ami" {
  count = var.ami_id == null ? 1 : 0

  name = local.ami_ssm_parameter
}

locals {
  instance = module.facts.instance
  # A real partition is aws or aws-<name>; only a caller's bare mock provider yields anything else
  # (a random string), which the provider would refuse in every ARN: the plan then goes on in "aws".
  partition = can(regex("^aws(-[a-z]+)*$", data.aws_partition.current.partition)) ? data.aws_partition.current.partition : "aws"
  tags      = merge(var.tags, { "ecs-gpu-task" = var.name })

  # --- the AMI ------------------------------------------------------------------------------
  ami_ssm_parameter = var.ami_ssm_parameter != null ? var.ami_ssm_parameter : module.facts.ami_recommended_parameter
  # A parameter is accepted when it is one of the catalog's GPU parameters or lies under the same
  # `.../gpu/` path (the `/image_id` sub-parameter, or a version-specific parameter).
  ami_parameter_matches = [
    for k, p in module.facts.ami_parameters : k
    if local.ami_ssm_parameter == p.parameter || startswith(local.ami_ssm_parameter, "${trimsuffix(p.parameter, "recommended")}")
  ]
  ami_parameter_key         = length(local.ami_parameter_matches) > 0 ? local.ami_parameter_matches[0] : null
  ami_parameter_end_of_life = try(module.facts.ami_parameters[local.ami_parameter_key].end_of_life, null)
  # `.../recommended` itself holds a JSON document; `.../recommended/image_id` holds the ID.
  ami_ssm_value = var.ami_id == null ? nonsensitive(data.aws_ssm_parameter.ami[0].value) : null
  ami_id        = var.ami_id != null ? var.ami_id : try(jsondecode(local.ami_ssm_value).image_id, local.ami_ssm_value)

  # Instance-store NVMe: found at boot by the model name the EC2 NVMe driver reports, so that no
  # per-type fact is needed; a type without instance store keeps the cache on the root volume.
  model_cache_user_data = var.model_cache == null ? "" : (var.model_cache.instance_store ? <<-EOT
    # Model cache on the instance-store NVMe disks (RAID 0 over several), else on the root volume.
    cache_dir=${var.model_cache.host_path}
    mkdir -p "$cache_dir"
    mapfile -t disks < <(lsblk -dpno NAME,MODEL | awk '/Amazon EC2 NVMe Instance Storage/ {print $1}')
    if [ "$${#disks[@]}" -gt 1 ] && command -v mdadm >/dev/null 2>&1; then
      mdadm --create /dev/md0 --level=0 --raid-devices="$${#disks[@]}" "$${disks[@]}" --run
      mkfs.xfs -f /dev/md0 && mount /dev/md0 "$cache_dir"
    elif [ "$${#disks[@]}" -ge 1 ]; then
      mkfs.xfs -f "$${disks[0]}" && mount "$${disks[0]}" "$cache_dir"
    else
      echo "ecs-gpu-task: no instance-store NVMe disk; the model cache stays on the root volume"
    fi
  EOT
    : <<-EOT
    # Model cache on the root volume.
    mkdir -p ${var.model_cache.host_path}
  EOT
  )
}
