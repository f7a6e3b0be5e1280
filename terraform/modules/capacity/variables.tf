# Inputs of the capacity. Those shared with the service (name, cluster, instance type, IAM path and
# boundary, model cache) are validated once, in ../facts.

variable "name" {
  description = "Name of the service, and the base name of every resource the module creates (task definition family, service, capacity provider, Auto Scaling group, launch template, roles, log group)."
  type        = string
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
}

variable "tags" {
  description = "Tags added to every resource the module creates (and propagated to the instances and their volumes)."
  type        = map(string)
  default     = {}
}

variable "cluster_name" {
  description = "Name of the ECS cluster the instances join (ECS_CLUSTER in their user data). This module does not create it: it must exist, or be created in the same apply (by the root module's `create_cluster`, modules/cluster or your own `aws_ecs_cluster`, its name passed by reference); a cluster that ListClusters does not return is refused."
  type        = string
}

variable "associate_capacity_provider" {
  description = <<-EOT
    Whether the module manages the cluster's capacity provider list (`aws_ecs_cluster_capacity_providers`).
    That resource owns the cluster's WHOLE list: when true, the list becomes this module's capacity provider
    plus `additional_cluster_capacity_providers`, and any other provider on the cluster is removed.
    When false, the module leaves the list alone and you must add the `capacity_provider_name` output to the
    `aws_ecs_cluster_capacity_providers` you manage elsewhere (otherwise the service cannot be created).
    null (the default) is refused: the choice is yours to make (the root module passes true for the
    cluster it creates with `create_cluster`).
  EOT
  type        = bool
  default     = null
}

variable "additional_cluster_capacity_providers" {
  description = "Other capacity providers (names, e.g. \"FARGATE\" or another module's) to keep on the cluster when `associate_capacity_provider` is true. Everything not listed here is removed from the cluster."
  type        = list(string)
  default     = []
}

variable "default_capacity_provider_strategy" {
  description = "The cluster's default capacity provider strategy, set only when `associate_capacity_provider` is true. Empty leaves the cluster without a default strategy (this module's service names its own)."
  type = list(object({
    capacity_provider = string
    weight            = optional(number, 0)
    base              = optional(number, 0)
  }))
  default = []
}

variable "vpc_id" {
  description = "VPC of the subnets; the module's security groups are created in it."
  type        = string
}

variable "subnet_ids" {
  description = "Subnets of the Auto Scaling group (the GPU instances). Private subnets with a route to ECS, ECR, S3 and CloudWatch Logs (NAT or VPC endpoints)."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) > 0
    error_message = "`subnet_ids` must name at least one subnet."
  }
}

variable "instance_security_group_ids" {
  description = "Extra security groups for the GPU instances, besides the module's own group (which has no ingress and HTTPS egress). In bridge mode, task ports are host ports: allow them here."
  type        = list(string)
  default     = []
}

variable "instance_egress_rules" {
  description = "Egress rules of the instances' security group. The default allows HTTPS anywhere: the ECS agent, ECR, S3, CloudWatch Logs and SSM are all HTTPS."
  type = map(object({
    description                  = string
    from_port                    = number
    to_port                      = number
    ip_protocol                  = optional(string, "tcp")
    cidr_ipv4                    = optional(string)
    referenced_security_group_id = optional(string)
  }))
  default = {
    https = { description = "HTTPS to anywhere (ECS, ECR, S3, CloudWatch Logs, SSM)", from_port = 443, to_port = 443, cidr_ipv4 = "0.0.0.0/0" }
  }

  validation {
    condition     = alltrue([for r in values(var.instance_egress_rules) : (r.cidr_ipv4 == null) != (r.referenced_security_group_id == null)])
    error_message = "Each rule in `instance_egress_rules` must set exactly one of `cidr_ipv4` and `referenced_security_group_id`."
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
}

variable "ami_ssm_parameter" {
  description = "SSM parameter the GPU AMI is read from at plan time. null uses the catalog's recommendation, the Amazon Linux 2023 GPU `.../amazon-linux-2023/gpu/recommended/image_id`. Must be one of the catalog's ECS GPU-optimized AMI parameters or a parameter under its `gpu/` path (a `/image_id` sub-parameter or a version-specific one). The Amazon Linux 2 GPU AMIs reached end of life on 2026-06-30."
  type        = string
  default     = null
}

variable "ami_id" {
  description = "Pin an AMI ID instead of reading the SSM parameter (for example to roll AMIs on your own schedule). It must be an ECS GPU-optimized AMI (x86_64, Linux): the module cannot check that offline."
  type        = string
  default     = null

  validation {
    condition     = var.ami_id == null || can(regex("^ami-[0-9a-f]{8}([0-9a-f]{9})?$", var.ami_id))
    error_message = "`ami_id` must be an AMI ID such as ami-0123456789abcdef0."
  }
}

variable "root_volume_size_gib" {
  description = "Size of the encrypted gp3 root volume, in GiB. CUDA images are large (5 to 20 GB each, unpacked) and Docker keeps the old image during a deployment."
  type        = number
  default     = 100

  validation {
    condition     = var.root_volume_size_gib >= 30 && floor(var.root_volume_size_gib) == var.root_volume_size_gib
    error_message = "`root_volume_size_gib` must be a whole number of at least 30 (the GPU AMI's own snapshot needs that much)."
  }
}

variable "root_volume_device_name" {
  description = "Device name of the AMI's root volume (/dev/xvda on the ECS-optimized Amazon Linux AMIs)."
  type        = string
  default     = "/dev/xvda"
}

variable "root_volume_kms_key_id" {
  description = "KMS key ARN for the root volume; null uses the account's default EBS key."
  type        = string
  default     = null
}

variable "extra_ecs_config" {
  description = "Extra /etc/ecs/ecs.config settings (name => value), written after ECS_CLUSTER and ECS_ENABLE_GPU_SUPPORT=true, for example { ECS_RESERVED_MEMORY = \"256\", ECS_IMAGE_PULL_BEHAVIOR = \"prefer-cached\" }."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for k in keys(var.extra_ecs_config) : can(regex("^ECS_[A-Z0-9_]+$", k))])
    error_message = "Each key of `extra_ecs_config` must be an ECS agent setting name: ECS_ followed by capital letters, digits and underscores."
  }

  validation {
    condition     = !contains(keys(var.extra_ecs_config), "ECS_CLUSTER") && !contains(keys(var.extra_ecs_config), "ECS_ENABLE_GPU_SUPPORT")
    error_message = "`extra_ecs_config` must not set ECS_CLUSTER or ECS_ENABLE_GPU_SUPPORT: the module writes both, and a second line would override them."
  }

  validation {
    condition     = alltrue([for v in values(var.extra_ecs_config) : !can(regex("[\r\n]", v))])
    error_message = "Values of `extra_ecs_config` must be single lines."
  }
}

variable "extra_user_data" {
  description = "Extra shell commands run by the instances' user data after ecs.config is written (before the ECS agent starts). For example `sysctl -w vm.overcommit_memory=1`, which the AMI's README asks for on g6f.large."
  type        = string
  default     = ""
}

variable "enable_ssm" {
  description = "Attach AmazonSSMManagedInstanceCore to the instance role, for Session Manager access to the instances (the first place to look when a task never starts)."
  type        = bool
  default     = true
}

variable "instance_role_policy_arns" {
  description = "Extra IAM policy ARNs attached to the instance role."
  type        = list(string)
  default     = []
}

variable "imds_hop_limit" {
  description = "Instance metadata (IMDSv2) response hop limit. 1 keeps bridge-mode containers from reaching the instance role's credentials; tasks get their own role through the ECS agent."
  type        = number
  default     = 1

  validation {
    condition     = var.imds_hop_limit >= 1 && var.imds_hop_limit <= 64
    error_message = "`imds_hop_limit` must be between 1 and 64."
  }
}

variable "min_size" {
  description = "Minimum number of GPU instances. 0 lets ECS managed scaling stop every instance when no task runs."
  type        = number
  default     = 0

  validation {
    condition     = var.min_size >= 0 && floor(var.min_size) == var.min_size
    error_message = "`min_size` must be a whole number, 0 or more."
  }
}

variable "max_size" {
  description = "Maximum number of GPU instances. Leave room for one more than steady state: a rolling deployment and an instance refresh each need a spare instance."
  type        = number
  default     = 2

  validation {
    condition     = var.max_size >= 1 && floor(var.max_size) == var.max_size
    error_message = "`max_size` must be a whole number, 1 or more."
  }
}

variable "force_delete" {
  description = "Delete the Auto Scaling group without waiting for its instances, which are scale-in protected and would otherwise keep `terraform destroy` waiting. The service (and so every task) is destroyed first."
  type        = bool
  default     = true
}

variable "instance_warmup" {
  description = "Seconds a new instance is given to boot, register with ECS and pull the image before it counts as ready, used by the instance refresh and by ECS managed scaling. Keep it at 300 or more for GPU instances."
  type        = number
  default     = 300

  validation {
    condition     = var.instance_warmup >= 0 && var.instance_warmup <= 10000
    error_message = "`instance_warmup` must be between 0 and 10000 seconds."
  }
}

variable "instance_refresh_min_healthy_percentage" {
  description = "Share of the Auto Scaling group that must stay in service during an instance refresh (rolling replacement after a launch template change)."
  type        = number
  default     = 90

  validation {
    condition     = var.instance_refresh_min_healthy_percentage >= 0 && var.instance_refresh_min_healthy_percentage <= 100
    error_message = "`instance_refresh_min_healthy_percentage` must be between 0 and 100."
  }
}

variable "instance_refresh_max_healthy_percentage" {
  description = "Upper bound of the Auto Scaling group during an instance refresh, in percent of its size (100 to 200). null (100) terminates an instance before its replacement is launched; above 100 the refresh launches replacements first (launch before terminate), so the group keeps its GPUs during the refresh at the price of the extra instances, within max_size."
  type        = number
  default     = null

  validation {
    condition     = var.instance_refresh_max_healthy_percentage == null || try(var.instance_refresh_max_healthy_percentage >= 100 && var.instance_refresh_max_healthy_percentage <= 200 && floor(var.instance_refresh_max_healthy_percentage) == var.instance_refresh_max_healthy_percentage, false)
    error_message = "`instance_refresh_max_healthy_percentage` must be a whole number from 100 to 200."
  }
}

variable "target_capacity" {
  description = "ECS managed scaling target, in percent of the instances running tasks. 100: no idle GPU instance, but a new task waits for an instance to boot. Below 100: ECS keeps spare instances warm, at their price."
  type        = number
  default     = 100

  validation {
    condition     = var.target_capacity >= 1 && var.target_capacity <= 100 && floor(var.target_capacity) == var.target_capacity
    error_message = "`target_capacity` must be a whole number from 1 to 100."
  }
}

variable "minimum_scaling_step_size" {
  description = "Fewest instances ECS managed scaling adds or removes at a time."
  type        = number
  default     = 1

  validation {
    condition     = var.minimum_scaling_step_size >= 1 && var.minimum_scaling_step_size <= 10000
    error_message = "`minimum_scaling_step_size` must be between 1 and 10000."
  }
}

variable "maximum_scaling_step_size" {
  description = "Most instances ECS managed scaling adds or removes at a time."
  type        = number
  default     = 10

  validation {
    condition     = var.maximum_scaling_step_size >= 1 && var.maximum_scaling_step_size <= 10000
    error_message = "`maximum_scaling_step_size` must be between 1 and 10000."
  }
}

variable "iam_role_path" {
  description = "Path of the three IAM roles and the instance profile the module creates (an organization's convention, such as \"/ml/\")."
  type        = string
  default     = "/"
  nullable    = false
}

variable "iam_permissions_boundary" {
  description = "ARN of a managed policy set as the permissions boundary of the three IAM roles the module creates (where an organization requires one); null sets none."
  type        = string
  default     = null
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
}

variable "create_instance_profile" {
  description = "Create the GPU instances' IAM role (with AmazonEC2ContainerServiceforEC2Role, AmazonSSMManagedInstanceCore when `enable_ssm`, and `instance_role_policy_arns`) and its instance profile. false uses your profile, `instance_profile_arn`: the module then attaches nothing to it, and `enable_ssm` and `instance_role_policy_arns` do not apply."
  type        = bool
  default     = true
  nullable    = false
}

variable "instance_profile_arn" {
  description = "ARN of your instance profile for the GPU instances, with `create_instance_profile = false`. Its role needs the permissions of AmazonEC2ContainerServiceforEC2Role (the ECS agent registers, polls and pulls with them)."
  type        = string
  default     = null

  validation {
    condition     = var.instance_profile_arn == null || can(regex("^arn:[^:]+:iam::[0-9]{12}:instance-profile/.+$", coalesce(var.instance_profile_arn, "-")))
    error_message = "`instance_profile_arn` must be an instance profile ARN (arn:aws:iam::<account>:instance-profile/<name>)."
  }
}

# ----------------------------------------------------------------------------------------------
# Where the instances come from: several types, Spot, reservations, a warm pool
# ----------------------------------------------------------------------------------------------

variable "mixed_instances" {
  description = <<-EOT
    Spot, and several GPU instance types in one group (a mixed instances policy): `instance_type` first, then
    `additional_instance_types` (none: Spot on `instance_type` alone). Each other type must be in the catalog with
    the same GPU count (and fraction) and at least the GPU memory per GPU of `instance_type`: a task sized for one
    must fit any instance the group launches, and ECS managed scaling counts instances as if they were alike. The
    fit checks use the least vCPUs and memory over the types. A type with another GPU model (g5.12xlarge's A10G
    beside g6.12xlarge's L4) is refused unless `allow_other_gpu_models = true`: the task's image must run on both
    (CUDA kernels built for one architecture, FP8 only on Ada and newer...). The On-Demand/Spot split:
    `on_demand_base_capacity` instances On-Demand, then `on_demand_percentage_above_base_capacity` percent of the
    rest (100, the default, is all On-Demand). `on_demand_allocation_strategy` "prioritized" (the types in the order
    given) or "lowest-price"; `spot_allocation_strategy` "price-capacity-optimized" (the default),
    "capacity-optimized", "capacity-optimized-prioritized" or "lowest-price". With Spot, the user data sets
    ECS_ENABLE_SPOT_INSTANCE_DRAINING=true (the agent drains an instance on its interruption notice), and
    `capacity_rebalance` (default true with Spot) lets Auto Scaling launch a replacement when EC2 signals that a
    Spot instance is at elevated risk of interruption, before the notice.
  EOT
  type = object({
    additional_instance_types                = optional(list(string), [])
    allow_other_gpu_models                   = optional(bool, false)
    on_demand_base_capacity                  = optional(number, 0)
    on_demand_percentage_above_base_capacity = optional(number, 100)
    on_demand_allocation_strategy            = optional(string, "prioritized")
    spot_allocation_strategy                 = optional(string, "price-capacity-optimized")
    capacity_rebalance                       = optional(bool)
  })
  default = null

  validation {
    condition = var.mixed_instances == null || try(
      var.mixed_instances.on_demand_base_capacity >= 0 && floor(var.mixed_instances.on_demand_base_capacity) == var.mixed_instances.on_demand_base_capacity &&
      var.mixed_instances.on_demand_percentage_above_base_capacity >= 0 && var.mixed_instances.on_demand_percentage_above_base_capacity <= 100 &&
      floor(var.mixed_instances.on_demand_percentage_above_base_capacity) == var.mixed_instances.on_demand_percentage_above_base_capacity,
      false
    )
    error_message = "`mixed_instances.on_demand_base_capacity` must be a whole number, 0 or more, and `on_demand_percentage_above_base_capacity` a whole number from 0 to 100."
  }

  validation {
    condition = var.mixed_instances == null || try(
      contains(["prioritized", "lowest-price"], var.mixed_instances.on_demand_allocation_strategy) &&
      contains(["price-capacity-optimized", "capacity-optimized", "capacity-optimized-prioritized", "lowest-price"], var.mixed_instances.spot_allocation_strategy),
      false
    )
    error_message = "`mixed_instances.on_demand_allocation_strategy` must be \"prioritized\" or \"lowest-price\", and `spot_allocation_strategy` \"price-capacity-optimized\", \"capacity-optimized\", \"capacity-optimized-prioritized\" or \"lowest-price\"."
  }
}

variable "capacity_reservation" {
  description = <<-EOT
    Launch into reserved capacity. `capacity_block = true`: a Capacity Block for ML (the launch template's market
    type "capacity-block"), which needs the block's `capacity_reservation_id` (cr-...). Otherwise an On-Demand
    Capacity Reservation, targeted by `capacity_reservation_id` or by a Capacity Reservation resource group
    (`resource_group_arn`). One instance type only (no `mixed_instances`), the reservation's, in its Availability
    Zone: give `subnet_ids` in that zone. See the README for how the group's size meets a block's start and end.
  EOT
  type = object({
    capacity_block          = optional(bool, false)
    capacity_reservation_id = optional(string)
    resource_group_arn      = optional(string)
  })
  default = null

  validation {
    condition     = var.capacity_reservation == null || try((var.capacity_reservation.capacity_reservation_id == null) != (var.capacity_reservation.resource_group_arn == null), false)
    error_message = "`capacity_reservation` needs exactly one of `capacity_reservation_id` and `resource_group_arn`."
  }

  validation {
    condition     = var.capacity_reservation == null || try(var.capacity_reservation.capacity_reservation_id == null || can(regex("^cr-[0-9a-f]{8,17}$", var.capacity_reservation.capacity_reservation_id)), false)
    error_message = "`capacity_reservation.capacity_reservation_id` must be a Capacity Reservation ID such as cr-0123456789abcdef0."
  }

  validation {
    condition     = var.capacity_reservation == null || try(var.capacity_reservation.resource_group_arn == null || can(regex("^arn:[^:]+:resource-groups:[^:]+:[0-9]{12}:group/.+$", var.capacity_reservation.resource_group_arn)), false)
    error_message = "`capacity_reservation.resource_group_arn` must be a resource group ARN (arn:aws:resource-groups:<region>:<account>:group/<name>)."
  }

  validation {
    condition     = var.capacity_reservation == null || try(!var.capacity_reservation.capacity_block || var.capacity_reservation.capacity_reservation_id != null, false)
    error_message = "A Capacity Block is launched into by its reservation ID: set `capacity_reservation.capacity_reservation_id` (cr-...)."
  }
}

variable "warm_pool" {
  description = <<-EOT
    A warm pool of pre-initialized GPU instances (booted through their user data, then kept `pool_state` "Stopped",
    the default, or "Running"), so that a scale-out skips the boot of a GPU instance. `min_size` instances stay in the pool;
    `max_group_prepared_capacity` caps the group plus the pool (null: the group's max_size). The user data sets
    ECS_WARM_POOLS_CHECK=true, so that an instance in the pool does not register with the cluster before it is placed
    in service. ECS does not allow returning instances to the pool on scale-in (`reuse_on_scale_in` is refused).
    Not with `mixed_instances` (Auto Scaling refuses a warm pool there).
  EOT
  type = object({
    pool_state                  = optional(string, "Stopped")
    min_size                    = optional(number, 0)
    max_group_prepared_capacity = optional(number)
    reuse_on_scale_in           = optional(bool, false)
  })
  default = null

  validation {
    condition     = var.warm_pool == null || try(contains(["Stopped", "Running"], var.warm_pool.pool_state), false)
    error_message = "`warm_pool.pool_state` must be \"Stopped\" or \"Running\"."
  }

  validation {
    condition     = var.warm_pool == null || try(var.warm_pool.min_size >= 0 && floor(var.warm_pool.min_size) == var.warm_pool.min_size && (var.warm_pool.max_group_prepared_capacity == null ? true : var.warm_pool.max_group_prepared_capacity >= 0), false)
    error_message = "`warm_pool.min_size` must be a whole number, 0 or more, and `max_group_prepared_capacity` 0 or more."
  }

  # ECS: "When you create or update a warm pool for an Auto Scaling group for Amazon ECS, you cannot
  # set the option that returns instances to the warm pool on scale in (ReuseOnScaleIn)"
  # (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-warm-pool.html).
  validation {
    condition     = var.warm_pool == null || try(!var.warm_pool.reuse_on_scale_in, false)
    error_message = "`warm_pool.reuse_on_scale_in` cannot be true for an ECS capacity: ECS does not allow returning instances to the warm pool on scale-in."
  }
}

variable "efa" {
  description = <<-EOT
    Give each instance an Elastic Fabric Adapter for multi-node training (NCCL over EFA): the launch
    template's primary network interface becomes `interface_type = "efa"` (network card 0, device 0),
    the group launches into a cluster placement group the module creates, and the instances' security
    group allows all traffic to and from itself (the EFA requirements of the AWS Batch EFA page, which
    follow the EC2 User Guide's EFA page). Refused for a type the catalog says has no EFA; a type the
    catalog does not know EFA for is not refused (see the README). One EFA interface only: types with
    several network cards (p4d 4, p5.48xlarge 32) get one of them.
  EOT
  type        = bool
  default     = false
  nullable    = false
}

variable "gpu_metrics" {
  description = <<-EOT
    Publish per-GPU utilization and memory from every instance with the CloudWatch agent's `nvidia_gpu`
    input: the user data installs the agent (`amazon-cloudwatch-agent` from the Amazon Linux package
    repository), writes the module's agent configuration and starts it; the instance role gets the
    CloudWatchAgentServerPolicy managed policy. `interval` is the agent's collection interval in seconds
    (10, 20, 30, or a multiple of 60 up to 3600); `namespace` the CloudWatch namespace (CWAgent, the
    agent's default). The configuration is in the user data, so changing any of the three later makes a
    new launch template version, and the instance refresh replaces every instance.
  EOT
  type = object({
    enabled   = optional(bool, false)
    interval  = optional(number, 60)
    namespace = optional(string, "CWAgent")
  })
  default  = {}
  nullable = false

  # A CloudWatch alarm's period is 10, 20, 30 or a multiple of 60 seconds (PutMetricAlarm,
  # https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html); the
  # module's alarm and policy evaluate whole intervals.
  validation {
    condition     = try(contains([10, 20, 30], var.gpu_metrics.interval) || (var.gpu_metrics.interval % 60 == 0 && var.gpu_metrics.interval >= 60 && var.gpu_metrics.interval <= 3600), false)
    error_message = "`gpu_metrics.interval` must be 10, 20, 30, or a multiple of 60 up to 3600 (seconds): the periods a CloudWatch alarm evaluates."
  }

  # "The maximum length is 255 characters" (CloudWatch agent configuration file, metrics section,
  # https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Agent-Configuration-File-Details.html).
  validation {
    condition     = try(length(var.gpu_metrics.namespace) >= 1 && length(var.gpu_metrics.namespace) <= 255 && !startswith(var.gpu_metrics.namespace, "AWS/"), false)
    error_message = "`gpu_metrics.namespace` must be 1 to 255 characters and not an AWS/ namespace."
  }
}
