# Inputs of the capacity and the GPU task. Checks on one input are validation blocks here; checks
# that need another input or the instance types' facts (../modules/facts) are
# preconditions on the capacity provider (capacity.tf), so that `terraform plan` fails on them. The
# service's other inputs are in variables_service.tf, copied from modules/service-v6. An input this
# file declares and main.tf passes unchanged to a submodule says how and why it differs from the
# submodule's declaration (`# Differs from ...`), which `scripts/generate.sh --check` verifies.

# ----------------------------------------------------------------------------------------------
# Naming and tags
# ----------------------------------------------------------------------------------------------

variable "name" {
  # Differs from modules/facts in description: the resources of this module (a capacity provider,
  # no Auto Scaling group or launch template).
  description = "Name of the service, and the base name of every resource the module creates (task definition family, service, capacity provider, roles, security groups, log group)."
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

variable "tags" {
  # Differs from modules/service-v6 in description: the capacity provider, not an Auto Scaling
  # group, propagates them to the instances here.
  description = "Tags added to every resource the module creates; the capacity provider propagates them to the instances it launches."
  type        = map(string)
  default     = {}
}

# ----------------------------------------------------------------------------------------------
# Cluster
# ----------------------------------------------------------------------------------------------

variable "cluster_name" {
  # Differs from modules/facts in description: this module may create the cluster, and a Managed
  # Instances capacity provider must stay out of the cluster's capacity provider list.
  description = "Name of the ECS cluster. With `create_cluster = false` (the default) it must already exist. A Managed Instances capacity provider belongs to one cluster and is associated with it when created: the module does not touch the cluster's capacity provider list (`aws_ecs_cluster_capacity_providers` must not name it)."
  type        = string

  validation {
    condition     = can(regex("^[a-zA-Z0-9_-]{1,255}$", var.cluster_name))
    error_message = "`cluster_name` must have 1 to 255 letters, digits, hyphens and underscores."
  }
}

variable "create_cluster" {
  description = "Create the ECS cluster `cluster_name` in this module (with Container Insights enabled)."
  type        = bool
  default     = false
}

# ----------------------------------------------------------------------------------------------
# Network
# ----------------------------------------------------------------------------------------------

variable "vpc_id" {
  description = "VPC of the subnets; the module's security groups are created in it."
  type        = string
}

variable "subnet_ids" {
  # Differs from modules/service-v6 in description: the same subnets hold the instances here.
  description = "Private subnets of the instances and of the tasks' network interfaces (awsvpc), with a route to ECS, ECR, S3 and CloudWatch Logs (NAT or VPC endpoints)."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) > 0
    error_message = "`subnet_ids` must name at least one subnet."
  }
}

# ----------------------------------------------------------------------------------------------
# GPU capacity: the Managed Instances capacity provider
# ----------------------------------------------------------------------------------------------

variable "instance_types" {
  description = "The GPU instance types ECS Managed Instances may launch (`allowed_instance_types`), exact names such as \"g6e.xlarge\". Each must be in the catalog (terraform/modules/facts/catalog.tf) with an NVIDIA GPU on x86_64, or described in `instance_type_facts`; each must hold the task (GPUs, CPU, memory). Types need not be on the Managed Instances GPU page's partial list (g4dn, g5, p3, p4d): that list is not exhaustive."
  type        = list(string)

  validation {
    condition     = length(var.instance_types) > 0 && length(distinct(var.instance_types)) == length(var.instance_types)
    error_message = "`instance_types` must name at least one instance type, each once."
  }

  validation {
    condition     = alltrue([for t in var.instance_types : can(regex("^[a-z0-9-]+\\.[a-z0-9-]+$", t))])
    error_message = "`instance_types` takes exact instance type names such as \"g6e.xlarge\" (no wildcards: the module checks that each type holds the task)."
  }
}

variable "instance_type_facts" {
  description = "Opt in to instance types the module's catalog does not know (name => its NVIDIA GPU count, vCPUs and memory in MiB, EC2 figures), which the fit checks then use. Without it an unknown type is refused with the catalog's nearest names (a typo such as g5.xlarg). Ignored for a type the catalog knows."
  type = map(object({
    gpus       = number
    vcpus      = number
    memory_mib = number
  }))
  default  = {}
  nullable = false

  validation {
    condition     = alltrue([for f in values(var.instance_type_facts) : try(f.gpus >= 1 && f.vcpus >= 1 && f.memory_mib >= 1024 && floor(f.gpus) == f.gpus && floor(f.vcpus) == f.vcpus, false)])
    error_message = "Each of `instance_type_facts` needs a whole `gpus` and `vcpus` of at least 1 and `memory_mib` of at least 1024."
  }
}

variable "gpu_memory_min_mib" {
  description = "Least total GPU memory of an instance, in MiB (`accelerator_total_memory_mib.min`); null sets no bound. Every type in `instance_types` whose GPU memory the catalog knows must have at least this much."
  type        = number
  default     = null

  validation {
    condition     = var.gpu_memory_min_mib == null || try(var.gpu_memory_min_mib >= 1 && floor(var.gpu_memory_min_mib) == var.gpu_memory_min_mib, false)
    error_message = "`gpu_memory_min_mib` must be a whole number of MiB, at least 1."
  }
}

variable "storage_size_gib" {
  description = "Size of each instance's EBS data volume, in GiB (`storage_configuration`); it holds the container images, and CUDA images are large (5 to 20 GB each, unpacked). null leaves the Managed Instances default."
  type        = number
  default     = 100

  validation {
    condition     = var.storage_size_gib == null || try(var.storage_size_gib >= 1 && floor(var.storage_size_gib) == var.storage_size_gib, false)
    error_message = "`storage_size_gib` must be a whole number of GiB, at least 1."
  }
}

variable "capacity_option_type" {
  description = "How ECS Managed Instances buys the instances (`capacity_option_type`): \"ON_DEMAND\" (the default), \"SPOT\" (interrupted when EC2 needs the capacity back: for batch and retryable work, not for a server with a long model load) or \"RESERVED\" (On-Demand Capacity Reservations, with `capacity_reservations`)."
  type        = string
  default     = "ON_DEMAND"
  nullable    = false

  validation {
    condition     = contains(["ON_DEMAND", "SPOT", "RESERVED"], var.capacity_option_type)
    error_message = "`capacity_option_type` must be \"ON_DEMAND\", \"SPOT\" or \"RESERVED\"."
  }
}

variable "capacity_reservations" {
  description = "The On-Demand Capacity Reservations the instances launch into, with `capacity_option_type = \"RESERVED\"`: `reservation_group_arn`, a Capacity Reservation resource group, and `reservation_preference`, \"RESERVATIONS_ONLY\" (the default: launch into the reservations or not at all), \"RESERVATIONS_FIRST\" or \"RESERVATIONS_EXCLUDED\". The reservations must be of instance types in `instance_types`."
  type = object({
    reservation_group_arn  = string
    reservation_preference = optional(string, "RESERVATIONS_ONLY")
  })
  default = null

  validation {
    condition     = var.capacity_reservations == null || try(can(regex("^arn:[^:]+:resource-groups:[^:]+:[0-9]{12}:group/.+$", var.capacity_reservations.reservation_group_arn)) && contains(["RESERVATIONS_ONLY", "RESERVATIONS_FIRST", "RESERVATIONS_EXCLUDED"], var.capacity_reservations.reservation_preference), false)
    error_message = "`capacity_reservations` needs a resource group ARN (arn:aws:resource-groups:<region>:<account>:group/<name>) and a `reservation_preference` of \"RESERVATIONS_ONLY\", \"RESERVATIONS_FIRST\" or \"RESERVATIONS_EXCLUDED\"."
  }
}

variable "iam_permissions_boundary" {
  # Differs from modules/service-v6 in description, validation: four roles here (the infrastructure
  # and instance roles too); refused on this module's input (modules/service-v6 leaves that to
  # modules/facts).
  description = "ARN of a managed policy set as the permissions boundary of the four IAM roles the module creates; null sets none."
  type        = string
  default     = null

  validation {
    condition     = var.iam_permissions_boundary == null || can(regex("^arn:[^:]+:iam::([0-9]{12}|aws):policy/.+$", coalesce(var.iam_permissions_boundary, "-")))
    error_message = "`iam_permissions_boundary` must be an IAM policy ARN (arn:aws:iam::<account>:policy/<name>)."
  }
}

# ----------------------------------------------------------------------------------------------
# Task
# ----------------------------------------------------------------------------------------------

variable "gpu_count" {
  # Differs from modules/service-v6 in description, validation: a fraction must suit every listed
  # type; the condition is written differently and refuses the same values.
  description = "GPUs of the container: a whole number of at least 1, or a GPU fraction (0.125, 0.25 or 0.5) when every type in `instance_types` is a g6f/gr6f type offering exactly that fraction."
  type        = number
  default     = 1

  validation {
    condition     = var.gpu_count >= 1 && floor(var.gpu_count) == var.gpu_count || contains([0.125, 0.25, 0.5], var.gpu_count)
    error_message = "`gpu_count` must be a whole number of at least 1, or a GPU fraction (0.125, 0.25 or 0.5) on g6f/gr6f types."
  }
}

variable "mps" {
  # Differs from modules/service-v6 in description: the share must fit every listed type.
  description = "Share a GPU between tasks with NVIDIA MPS instead of reserving whole GPUs: `{ memory_mib, max_compute_percent }`, rendered as the container's `sharingStrategy.nvidiaMps` (Managed Instances support it). `memory_mib` must fit one GPU of every listed type; leave `gpu_count` unset. Not on g6f/gr6f."
  type = object({
    memory_mib          = number
    max_compute_percent = optional(number)
  })
  default = null

  validation {
    condition     = var.mps == null || try(var.mps.memory_mib >= 1 && floor(var.mps.memory_mib) == var.mps.memory_mib, false)
    error_message = "`mps.memory_mib` must be a whole number of MiB, at least 1 (the GPU memory the container may pin)."
  }
  validation {
    condition     = try(var.mps.max_compute_percent, null) == null ? true : try(var.mps.max_compute_percent >= 1 && var.mps.max_compute_percent <= 100 && floor(var.mps.max_compute_percent) == var.mps.max_compute_percent, false)
    error_message = "`mps.max_compute_percent` must be a whole number from 1 to 100, or unset."
  }
}

variable "task_cpu" {
  # Differs from modules/service-v6 in description: checked against every listed type.
  description = "CPU units of the task (1024 per vCPU)."
  type        = number

  validation {
    condition     = var.task_cpu >= 128 && floor(var.task_cpu) == var.task_cpu
    error_message = "`task_cpu` must be a whole number of CPU units, at least 128."
  }
}

variable "task_memory" {
  # Differs from modules/service-v6 in description: checked against every listed type.
  description = "Memory of the task, in MiB."
  type        = number

  validation {
    condition     = var.task_memory >= 128 && floor(var.task_memory) == var.task_memory
    error_message = "`task_memory` must be a whole number of MiB, at least 128."
  }
}

variable "memory_margin_mib" {
  # Differs from modules/facts in description, validation: applied to every listed type; whole MiB
  # only here, where modules/facts also takes a fraction.
  description = "Memory of each instance type kept out of the fit check, in MiB, for the kernel, the OS, the container runtime, the ECS agent and the NVIDIA daemons. null uses the larger of 1024 MiB and 5% of the type's memory (the rule of terraform/ecs-gpu-task)."
  type        = number
  default     = null

  validation {
    condition     = var.memory_margin_mib == null || try(var.memory_margin_mib >= 0 && floor(var.memory_margin_mib) == var.memory_margin_mib, false)
    error_message = "`memory_margin_mib` must be a whole number of MiB, 0 or more."
  }
}
