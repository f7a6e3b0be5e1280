# The inputs both submodules use, validated here once (capacity and service both call this module).

variable "name" {
  description = "Name of the service, and the base name of every resource the module creates (task definition family, service, capacity provider, Auto Scaling group, launch template, roles, log group)."
  type        = string

  validation {
    condition     = can(regex("^[a-zA-Z][a-zA-Z0-9-]{0,23}$", var.name))
    error_message = "`name` must start with a letter and have 1 to 24 letters, digits and hyphens (IAM role name prefixes are limited to 38 characters)."
  }

  validation {
    condition     = !can(regex("^(?i)(aws|ecs|fargate)", var.name))
    error_message = "`name` must not start with \"aws\", \"ecs\" or \"fargate\": ECS refuses capacity provider names with those prefixes."
  }
}

variable "name_suffix" {
  description = <<-EOT
    Suffix of the names that are unique in the account and region: the capacity provider ("<name>-<suffix>"),
    the log group ("/ecs/<name>-<suffix>") and the task definition family. null (the default) derives it from the
    cluster name (the first 6 hex digits of its SHA-1), so that two calls named `inference` in a staging and a
    prod cluster do not collide; "" uses `name` alone (the names of module versions before it: set it when
    upgrading, to keep the existing capacity provider). The service is named `name` (service names are per
    cluster); roles, security groups, the launch template and the group use `name` as a prefix with a
    generated suffix.
  EOT
  type        = string
  default     = null

  validation {
    condition     = var.name_suffix == null || can(regex("^[a-zA-Z0-9-]{0,16}$", coalesce(var.name_suffix, "-")))
    error_message = "`name_suffix` must have at most 16 letters, digits and hyphens."
  }
}

variable "cluster_name" {
  description = "Name of the ECS cluster; with `name_suffix` null, the suffix of the names that are unique in the account and region is derived from it."
  type        = string

  validation {
    condition     = can(regex("^[a-zA-Z0-9_-]{1,255}$", var.cluster_name))
    error_message = "`cluster_name` must have 1 to 255 letters, digits, hyphens and underscores."
  }
}

variable "instance_type" {
  description = "EC2 instance type of the GPU instances. Must be in the catalog (catalog.tf) with ECS status \"supported\" (NVIDIA GPU, x86_64, served by the ECS GPU-optimized AMI)."
  type        = string
}

variable "instance_type_facts" {
  description = "Opt in to an instance type the module's catalog does not know (a new type, or one the catalog lacks): its NVIDIA GPU count, vCPUs and memory in MiB (EC2 figures), which the fit checks then use. Without it an unknown type is refused with the catalog's nearest names (a typo such as g5.xlarg). Ignored for a type the catalog knows."
  type = object({
    gpus       = number
    vcpus      = number
    memory_mib = number
  })
  default = null

  validation {
    condition     = var.instance_type_facts == null || try(var.instance_type_facts.gpus >= 1 && var.instance_type_facts.vcpus >= 1 && var.instance_type_facts.memory_mib >= 1024 && floor(var.instance_type_facts.gpus) == var.instance_type_facts.gpus && floor(var.instance_type_facts.vcpus) == var.instance_type_facts.vcpus, false)
    error_message = "`instance_type_facts` needs a whole `gpus` and `vcpus` of at least 1 and `memory_mib` of at least 1024."
  }
}

variable "memory_margin_mib" {
  description = "MiB kept free below the catalog's `max_task_memory_mib` (EC2 memory minus the 207 MiB the kernel always keeps) when checking `task_memory`. null uses max(1024, 5% of the instance memory): the kernel keeps more than 207 MiB on larger and GPU instances, and the OS, Docker, the ECS agent and the NVIDIA daemons need memory the agent does not subtract."
  type        = number
  default     = null

  validation {
    condition     = var.memory_margin_mib == null || try(var.memory_margin_mib >= 0, false)
    error_message = "`memory_margin_mib` must be 0 or more."
  }
}

variable "iam_role_path" {
  description = "Path of the three IAM roles and the instance profile the module creates (an organization's convention, such as \"/ml/\")."
  type        = string
  default     = "/"
  nullable    = false

  validation {
    condition     = can(regex("^/([\\x21-\\x7E]{0,510}/)?$", var.iam_role_path))
    error_message = "`iam_role_path` must start and end with a slash, such as \"/\" or \"/ml/\"."
  }
}

variable "iam_permissions_boundary" {
  description = "ARN of a managed policy set as the permissions boundary of the three IAM roles the module creates (where an organization requires one); null sets none."
  type        = string
  default     = null

  validation {
    condition     = var.iam_permissions_boundary == null || can(regex("^arn:[^:]+:iam::([0-9]{12}|aws):policy/.+$", coalesce(var.iam_permissions_boundary, "-")))
    error_message = "`iam_permissions_boundary` must be an IAM policy ARN (arn:aws:iam::<account>:policy/<name>)."
  }
}

variable "model_cache" {
  description = <<-EOT
    A model cache on the instance, mounted into every container with GPUs at `container_path`, so that weights are
    downloaded once per instance instead of at every task start (point the server's cache there, for example
    HF_HOME=/models). It lives on the root volume (size it with `root_volume_size_gib`), or with
    `instance_store = true` on the instance-store NVMe disks, which the user data formats (XFS, RAID 0 over several)
    and mounts at `host_path` at boot when the instance has them; an instance without them keeps the root volume.
    Instance-store data is lost when the instance stops.
  EOT
  type = object({
    host_path      = optional(string, "/opt/ecs-gpu/models")
    container_path = optional(string, "/models")
    read_only      = optional(bool, false)
    instance_store = optional(bool, false)
  })
  default = null

  validation {
    condition     = var.model_cache == null || try(can(regex("^/[A-Za-z0-9._/-]+$", var.model_cache.host_path)) && can(regex("^/[A-Za-z0-9._/-]+$", var.model_cache.container_path)) && var.model_cache.host_path != "/", false)
    error_message = "`model_cache.host_path` and `container_path` must be absolute paths of letters, digits, dots, underscores, hyphens and slashes (and host_path not \"/\")."
  }
}

variable "additional_instance_types" {
  description = "The group's other instance types (`mixed_instances`), each in the catalog with the same GPUs as `instance_type`."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = length(distinct(var.additional_instance_types)) == length(var.additional_instance_types)
    error_message = "`mixed_instances.additional_instance_types` must name each type once."
  }
}
