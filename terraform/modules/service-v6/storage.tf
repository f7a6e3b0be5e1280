# Model storage: a host-path model cache (the capacity's user data prepares it on the root volume or
# the instance-store NVMe), EFS volumes and an ECS managed EBS volume per task. Each is mounted into the containers with GPUs unless the volume
# names its containers.

locals {
  gpu_container_names = [for c in local.containers : c.name if c.gpu_count > 0 || c.mps != null]

  # Task volumes, rendered into the task definition's volume blocks.
  model_cache_volume = var.model_cache == null ? [] : [{
    name           = "model-cache"
    container_path = var.model_cache.container_path
    read_only      = var.model_cache.read_only
    containers     = local.gpu_container_names
  }]
  efs_mounts = [for name in sort(keys(var.efs_volumes)) : {
    name           = name
    container_path = var.efs_volumes[name].container_path
    read_only      = var.efs_volumes[name].read_only
    containers     = length(var.efs_volumes[name].containers) > 0 ? var.efs_volumes[name].containers : local.gpu_container_names
  }]
  ebs_mount = var.ebs_volume == null ? [] : [{
    name           = "scratch"
    container_path = var.ebs_volume.container_path
    read_only      = false
    containers     = local.gpu_container_names
  }]
  volume_mounts = concat(local.model_cache_volume, local.efs_mounts, local.ebs_mount)

  # Per container, in the order of local.containers (names may repeat until the precondition refuses them).
  container_mount_points = [
    for c in local.containers : [
      for v in local.volume_mounts : { sourceVolume = v.name, containerPath = v.container_path, readOnly = v.read_only }
      if contains(v.containers, c.name)
    ]
  ]

  efs_iam_file_systems = distinct([for v in values(var.efs_volumes) : v.file_system_id if v.iam])
  efs_writable_file_systems = distinct([
    for v in values(var.efs_volumes) : v.file_system_id if v.iam && !v.read_only
  ])
  efs_policy_statements = concat(
    [{
      Sid      = "MountEfs"
      Effect   = "Allow"
      Action   = ["elasticfilesystem:ClientMount"]
      Resource = [for id in local.efs_iam_file_systems : "arn:${local.partition}:elasticfilesystem:${local.region}:${local.account_id}:file-system/${id}"]
    }],
    length(local.efs_writable_file_systems) == 0 ? [] : [{
      Sid      = "WriteEfs"
      Effect   = "Allow"
      Action   = ["elasticfilesystem:ClientWrite"]
      Resource = [for id in local.efs_writable_file_systems : "arn:${local.partition}:elasticfilesystem:${local.region}:${local.account_id}:file-system/${id}"]
    }],
  )
}

# The task role mounts (and writes) exactly the EFS file systems mounted with IAM authorization.
resource "aws_iam_role_policy" "task_efs" {
  count = var.create_task_role && length(local.efs_iam_file_systems) > 0 ? 1 : 0

  name   = "efs"
  role   = aws_iam_role.task[0].id
  policy = jsonencode({ Version = "2012-10-17", Statement = local.efs_policy_statements })
}
