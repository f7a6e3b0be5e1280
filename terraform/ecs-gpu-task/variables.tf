# Inputs of the root module, passed to the submodules (../modules/capacity, ../modules/service),
# which validate them: an invalid value fails the plan with the submodule's message, on the module
# call. Only the inputs of the root's own cluster are validated here.
#
# An input passed unchanged (`x = var.x` in main.tf) is declared by the submodule: its block here is
# that declaration without its validations, copied by scripts/generate.sh (edit it in the
# submodule; `scripts/generate.sh --check` fails on a copy edited here). A block that must say
# something else at the root says so in a `# Differs from modules/<name> in <fields>: <why>`
# comment, and the check fails unless it differs in exactly those fields.

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
  description = "Name of the ECS cluster. With `create_cluster = false` (the default) it must already exist; with `create_cluster = true` the module creates it."
  type        = string
}

variable "create_cluster" {
  description = "Create the ECS cluster `cluster_name` in this module (with Container Insights)."
  type        = bool
  default     = false
}

variable "cluster_container_insights" {
  description = "Container Insights setting of a cluster the module creates: \"enabled\", \"enhanced\" or \"disabled\"."
  type        = string
  default     = "enabled"

  validation {
    condition     = contains(["enabled", "enhanced", "disabled"], var.cluster_container_insights)
    error_message = "`cluster_container_insights` must be \"enabled\", \"enhanced\" or \"disabled\"."
  }
}

variable "associate_capacity_provider" {
  description = <<-EOT
    Whether the module manages the cluster's capacity provider list (`aws_ecs_cluster_capacity_providers`).
    That resource owns the cluster's WHOLE list: when true, the list becomes this module's capacity provider
    plus `additional_cluster_capacity_providers`, and any other provider on the cluster is removed.
    When false, the module leaves the list alone and you must add the `capacity_provider_name` output to the
    `aws_ecs_cluster_capacity_providers` you manage elsewhere (otherwise the service cannot be created).
    null (the default) means true when the module creates the cluster, and is refused for an existing
    cluster: there you must choose explicitly.
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

variable "cluster_capacity_providers" {
  description = "With `associate_capacity_provider = false` (required then): the cluster's capacity provider list as read from the `aws_ecs_cluster_capacity_providers` you manage, for example modules/cluster's `capacity_providers` output. It must name this module's provider (its `capacity_provider_name` output); the service takes the name from this list, so that Terraform creates the service only once the provider is on the cluster, with no depends_on (which would be a cycle)."
  type        = list(string)
  default     = null
}

variable "vpc_id" {
  description = "VPC of the subnets; the module's security groups are created in it."
  type        = string
}

variable "subnet_ids" {
  # Differs from modules/capacity in description: the root also places the tasks' network
  # interfaces in them, unless service_subnet_ids is set.
  description = "Subnets of the Auto Scaling group (the GPU instances) and, unless `service_subnet_ids` is set, of the tasks' network interfaces in awsvpc mode. Private subnets with a route to ECS, ECR, S3 and CloudWatch Logs (NAT or VPC endpoints)."
  type        = list(string)
}

variable "service_subnet_ids" {
  description = "Subnets of the tasks' network interfaces in awsvpc mode; null uses `subnet_ids`. They must be in the Availability Zones of `subnet_ids`, or a task can be placed on no instance."
  type        = list(string)
  default     = null
}

variable "security_group_ids" {
  description = "Extra security groups for the tasks' network interfaces (awsvpc mode), besides the module's own group."
  type        = list(string)
  default     = []
}

variable "ingress_rules" {
  description = "Ingress rules of the tasks' security group (awsvpc mode). Empty by default: no inbound traffic. Each rule takes one source: `cidr_ipv4` or `referenced_security_group_id` (for example the load balancer's group)."
  type = map(object({
    description                  = string
    from_port                    = number
    to_port                      = number
    ip_protocol                  = optional(string, "tcp")
    cidr_ipv4                    = optional(string)
    referenced_security_group_id = optional(string)
  }))
  default = {}
}

variable "egress_rules" {
  description = "Egress rules of the tasks' security group (awsvpc mode). The default allows HTTPS anywhere (model downloads, AWS APIs)."
  type = map(object({
    description                  = string
    from_port                    = number
    to_port                      = number
    ip_protocol                  = optional(string, "tcp")
    cidr_ipv4                    = optional(string)
    referenced_security_group_id = optional(string)
  }))
  default = {
    https = { description = "HTTPS to anywhere", from_port = 443, to_port = 443, cidr_ipv4 = "0.0.0.0/0" }
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
}

variable "root_volume_size_gib" {
  description = "Size of the encrypted gp3 root volume, in GiB. CUDA images are large (5 to 20 GB each, unpacked) and Docker keeps the old image during a deployment."
  type        = number
  default     = 100
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
}

variable "min_size" {
  description = "Minimum number of GPU instances. 0 lets ECS managed scaling stop every instance when no task runs."
  type        = number
  default     = 0
}

variable "max_size" {
  description = "Maximum number of GPU instances. Leave room for one more than steady state: a rolling deployment and an instance refresh each need a spare instance."
  type        = number
  default     = 2
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
}

variable "instance_refresh_min_healthy_percentage" {
  description = "Share of the Auto Scaling group that must stay in service during an instance refresh (rolling replacement after a launch template change)."
  type        = number
  default     = 90
}

variable "instance_refresh_max_healthy_percentage" {
  description = "Upper bound of the Auto Scaling group during an instance refresh, in percent of its size (100 to 200). null (100) terminates an instance before its replacement is launched; above 100 the refresh launches replacements first (launch before terminate), so the group keeps its GPUs during the refresh at the price of the extra instances, within max_size."
  type        = number
  default     = null
}

variable "target_capacity" {
  description = "ECS managed scaling target, in percent of the instances running tasks. 100: no idle GPU instance, but a new task waits for an instance to boot. Below 100: ECS keeps spare instances warm, at their price."
  type        = number
  default     = 100
}

variable "minimum_scaling_step_size" {
  description = "Fewest instances ECS managed scaling adds or removes at a time."
  type        = number
  default     = 1
}

variable "maximum_scaling_step_size" {
  description = "Most instances ECS managed scaling adds or removes at a time."
  type        = number
  default     = 10
}

variable "network_mode" {
  description = "Task network mode: \"awsvpc\" (each task has its own network interface and the module's security group) or \"bridge\" (Docker bridge on the instance's interface)."
  type        = string
  default     = "awsvpc"
}

variable "gpu_count" {
  description = "GPUs reserved for the GPU container. On whole-GPU types: a whole number from 1 to the type's GPU count. On the fractional g6f/gr6f types: exactly the type's partition (0.125, 0.25 or 0.5), the only value those types can serve."
  type        = number
  default     = 1
}

variable "mps" {
  description = <<-EOT
    Share one GPU between tasks with NVIDIA MPS instead of reserving whole GPUs: the GPU container's
    GPU requirement becomes `sharingStrategy.nvidiaMps` (ECS-GPU-SPEC, BOTO `NvidiaMpsAllocation`).
    `memory_mib` (at least 1) is the GPU memory the container may pin on its GPU
    (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT) and must fit on one GPU of the type; `max_compute_percent`
    (1 to 100, optional) caps its share of the GPU's threads (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).
    ECS takes either a GPU count or a sharing strategy, and one option for every GPU container of a
    task: with `mps`, leave `gpu_count` at its default and give `additional_containers` no
    `gpu_count`. EC2 and Managed Instances only; not on the fractional g6f/gr6f types. null (the
    default) reserves `gpu_count` whole GPUs.
  EOT
  type = object({
    memory_mib          = number
    max_compute_percent = optional(number)
  })
  default = null
}

variable "task_cpu" {
  description = "Task CPU units (1024 per vCPU). At most the instance type's vCPUs x 1024."
  type        = number
}

variable "task_memory" {
  description = "Task memory in MiB (hard limit). At most what the instance type can register minus the module's memory margin (see `memory_margin_mib`)."
  type        = number
}

variable "memory_margin_mib" {
  description = "MiB kept free below the catalog's `max_task_memory_mib` (EC2 memory minus the 207 MiB the kernel always keeps) when checking `task_memory`. null uses max(1024, 5% of the instance memory): the kernel keeps more than 207 MiB on larger and GPU instances, and the OS, Docker, the ECS agent and the NVIDIA daemons need memory the agent does not subtract."
  type        = number
  default     = null
}

variable "container_name" {
  description = "Name of the GPU container."
  type        = string
  default     = "app"
}

variable "container_image" {
  description = "Image of the GPU container (for example an ECR image built on an nvidia/cuda base)."
  type        = string
}

variable "container_command" {
  description = "Command of the GPU container; null keeps the image's CMD."
  type        = list(string)
  default     = null
}

variable "container_entry_point" {
  description = "Entry point of the GPU container; null keeps the image's ENTRYPOINT."
  type        = list(string)
  default     = null
}

variable "container_port_mappings" {
  description = "Port mappings of the GPU container. In awsvpc mode the host port is the container port; in bridge mode a host port of 0 (the default there) picks a dynamic port."
  type = list(object({
    container_port = number
    host_port      = optional(number)
    protocol       = optional(string, "tcp")
    name           = optional(string)
    app_protocol   = optional(string)
  }))
  default = []
}

variable "container_environment" {
  description = "Environment variables of the GPU container (name => value). NVIDIA_DRIVER_CAPABILITIES is set from `nvidia_driver_capabilities`; NVIDIA_VISIBLE_DEVICES is set by the ECS agent to the GPUs it assigns."
  type        = map(string)
  default     = {}
}

variable "container_secrets" {
  description = "Secrets of the GPU container (environment variable name => ARN of an SSM parameter or a Secrets Manager secret, optionally with a JSON key suffix). The execution role is allowed to read exactly these."
  type        = map(string)
  default     = {}
}

variable "secrets_kms_key_arns" {
  description = "Customer-managed KMS keys that encrypt `container_secrets`; the execution role may decrypt with them."
  type        = list(string)
  default     = []
}

variable "container_health_check" {
  description = "Container health check of the GPU container. `start_period` (at most 300 s) should cover model loading."
  type = object({
    command      = list(string)
    interval     = optional(number, 30)
    timeout      = optional(number, 5)
    retries      = optional(number, 3)
    start_period = optional(number, 300)
  })
  default = null
}

variable "nvidia_driver_capabilities" {
  description = "NVIDIA_DRIVER_CAPABILITIES of the GPU container: a comma-separated list of the NVIDIA container toolkit's capability names (compute, compat32, graphics, utility, video, display, ngx, or all / none). Images not built on NVIDIA's CUDA images need at least utility,compute."
  type        = string
  default     = "utility,compute"
}

variable "readonly_root_filesystem" {
  description = "Mount the GPU container's root filesystem read-only. Off by default: most CUDA/ML images write model and kernel caches under the root filesystem."
  type        = bool
  default     = false
}

variable "sidecar_containers" {
  description = "Extra container definitions (ECS JSON shape as HCL objects: name, image, essential, ...) added to the task, without GPUs. Those without a logConfiguration log to the module's log group."
  type        = any
  default     = []
}

variable "linux_parameters" {
  description = <<-EOT
    Linux parameters of the GPU container. `shared_memory_size` is the size of /dev/shm in MiB: Docker's default is
    64 MiB, on which NCCL (tensor parallelism in vLLM, SGLang, Triton, PyTorch) and PyTorch's DataLoader workers fail.
    null (the default) gives every container with GPUs a quarter of its memory (its `memory`, else `task_memory`),
    and Docker's default to the others; with `ipc_mode` "host" or "none" it stays unset (/dev/shm is then the host's,
    or absent). `init_process_enabled` runs an init process (tini) as PID 1, which forwards signals and reaps zombies
    (on by default). `capabilities` adds or drops Linux capabilities (ECS names, such as "IPC_LOCK" or "SYS_PTRACE").
  EOT
  type = object({
    shared_memory_size   = optional(number)
    init_process_enabled = optional(bool, true)
    capabilities = optional(object({
      add  = optional(list(string), [])
      drop = optional(list(string), [])
    }), {})
  })
  default  = {}
  nullable = false
}

variable "ulimits" {
  description = "Resource limits of the GPU container (and of `additional_containers` that set none). The default lifts `memlock` (-1 is unlimited): NCCL, GPUDirect RDMA and CUDA pinned host memory lock pages, and Docker's default locks 64 KiB. Add `nofile` for servers with many connections."
  type = list(object({
    name       = string
    soft_limit = number
    hard_limit = number
  }))
  default  = [{ name = "memlock", soft_limit = -1, hard_limit = -1 }]
  nullable = false
}

variable "ipc_mode" {
  description = "IPC namespace of the task's containers: null (Docker's default: private to each container), \"task\" (shared by the task's containers, for example a server and a sidecar exchanging tensors through /dev/shm), \"host\" (the instance's, a wider exposure) or \"none\"."
  type        = string
  default     = null
}

variable "stop_timeout" {
  description = "Seconds the GPU container gets to exit after SIGTERM before it is killed (stopTimeout). null uses the agent's ECS_CONTAINER_STOP_TIMEOUT (30 s by default), short for a server draining requests or a trainer writing a checkpoint."
  type        = number
  default     = null
}

variable "docker_labels" {
  description = "Docker labels of the GPU container (name => value), for example for a log or metrics agent."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "repository_credentials" {
  description = "ARN of a Secrets Manager secret with the username and password of a private registry (NGC's nvcr.io, Docker Hub...) for the images of the task's containers. The execution role is allowed to read it (and to decrypt with `secrets_kms_key_arns`)."
  type        = string
  default     = null
}

variable "additional_containers" {
  description = <<-EOT
    More containers of the task (name => settings), each with its own GPU share (`gpu_count`, 0 for a sidecar
    without GPUs). The task's GPUs are the sum over the GPU container and these: ECS places the task when the sum
    fits an instance, so two containers with 2 GPUs each fit a 4-GPU type. `cpu`, `memory` (hard limit) and
    `memory_reservation` are per container, within the task's `task_cpu`/`task_memory`. `linux_parameters` and
    `ulimits` null take the module's (shared memory is then a quarter of the container's memory when it has GPUs).
    Each container logs to the module's log group and mounts the model cache and the EFS volumes whose
    `containers` name it (or name no container).
  EOT
  type = map(object({
    image                    = string
    gpu_count                = optional(number, 0)
    cpu                      = optional(number)
    memory                   = optional(number)
    memory_reservation       = optional(number)
    essential                = optional(bool, true)
    command                  = optional(list(string))
    entry_point              = optional(list(string))
    environment              = optional(map(string), {})
    secrets                  = optional(map(string), {})
    port_mappings            = optional(list(object({ container_port = number, host_port = optional(number), protocol = optional(string, "tcp"), name = optional(string), app_protocol = optional(string) })), [])
    health_check             = optional(object({ command = list(string), interval = optional(number, 30), timeout = optional(number, 5), retries = optional(number, 3), start_period = optional(number, 300) }))
    linux_parameters         = optional(object({ shared_memory_size = optional(number), init_process_enabled = optional(bool, true), capabilities = optional(object({ add = optional(list(string), []), drop = optional(list(string), []) }), {}) }))
    ulimits                  = optional(list(object({ name = string, soft_limit = number, hard_limit = number })))
    stop_timeout             = optional(number)
    docker_labels            = optional(map(string), {})
    readonly_root_filesystem = optional(bool, false)
    depends_on               = optional(list(object({ container_name = string, condition = string })), [])
  }))
  default  = {}
  nullable = false
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

variable "task_role_policy_arns" {
  description = "IAM policy ARNs attached to the task role (the role the application's AWS calls use). The task role has no permissions by default."
  type        = list(string)
  default     = []
}

variable "log_retention_days" {
  description = "Retention of the task log group, in days."
  type        = number
  default     = 30
}

variable "log_group_kms_key_arn" {
  description = "KMS key ARN that encrypts the task log group (its key policy must allow the CloudWatch Logs service); null uses CloudWatch Logs' own encryption."
  type        = string
  default     = null
}

variable "desired_count" {
  description = "Number of tasks, owned by Terraform. Ignored when `autoscaling` is set: then Application Auto Scaling owns the count."
  type        = number
  default     = 1
}

variable "autoscaling" {
  description = <<-EOT
    Application Auto Scaling of the task count with a target tracking policy. When set, the auto scaler owns
    `desired_count` (the service is created with `min_capacity` tasks and Terraform then ignores the count).
    `predefined_metric_type` is ECSServiceAverageCPUUtilization, ECSServiceAverageMemoryUtilization or
    ALBRequestCountPerTarget (which needs `resource_label`). `gpu_metric` tracks the GPUs of the service's
    Auto Scaling group instead, from the metrics `gpu_metrics` publishes (it needs `gpu_metrics.enabled`):
    "utilization" (the average nvidia_smi_utilization_gpu over every GPU of the group, in percent) or
    "memory" (100 x the group's GPU memory used / total, metric math); `target_value` is then a percentage
    (1 to 100). `customized_metric` tracks any other CloudWatch metric (a DCGM exporter's...); a
    nvidia_smi_* metric there is refused unless `gpu_metrics` publishes it.
  EOT
  type = object({
    min_capacity           = number
    max_capacity           = number
    target_value           = number
    predefined_metric_type = optional(string, "ECSServiceAverageCPUUtilization")
    resource_label         = optional(string)
    gpu_metric             = optional(string)
    customized_metric = optional(object({
      metric_name = string
      namespace   = string
      statistic   = optional(string, "Average")
      unit        = optional(string)
      dimensions  = optional(map(string), {})
    }))
    scale_in_cooldown  = optional(number, 300)
    scale_out_cooldown = optional(number, 60)
    disable_scale_in   = optional(bool, false)
  })
  default = null
}

variable "gpu_metrics" {
  description = <<-EOT
    GPU metrics, opt-in (`enabled = true`). Each instance's user data installs the CloudWatch agent
    (package `amazon-cloudwatch-agent`: the instances must reach the Amazon Linux package repository and
    CloudWatch, through a NAT gateway or VPC endpoints) and starts it with the module's configuration: the
    `nvidia_gpu` input publishes nvidia_smi_utilization_gpu, nvidia_smi_utilization_memory,
    nvidia_smi_memory_used and nvidia_smi_memory_total per GPU, plus an aggregate over the Auto Scaling
    group, every `interval` seconds (10, 20, 30 or a multiple of 60 up to 3600) in `namespace`. The
    instance role the module creates gets CloudWatchAgentServerPolicy (with `instance_profile_arn`, give
    your role the same). Then: `autoscaling.gpu_metric` can track the GPUs; `dashboard` creates a
    CloudWatch dashboard; `idle_alarm` (on by default) creates an alarm for GPUs idle while the service's
    tasks pend: the group's GPU utilization under `utilization_threshold` percent while Container
    Insights' PendingTaskCount is above 0, for `evaluation_periods` periods, notifying `alarm_topic_arn`
    (an SNS topic) when set. PendingTaskCount needs Container Insights on the cluster. Changing `enabled`,
    `interval` or `namespace` later rewrites the user data: a new launch template version, and the
    instance refresh replaces every instance (`dashboard` and `idle_alarm` do not touch the instances).
  EOT
  type = object({
    enabled   = optional(bool, false)
    interval  = optional(number, 60)
    namespace = optional(string, "CWAgent")
    dashboard = optional(bool, true)
    idle_alarm = optional(object({
      enabled               = optional(bool, true)
      utilization_threshold = optional(number, 10)
      evaluation_periods    = optional(number, 5)
      alarm_topic_arn       = optional(string)
    }), {})
  })
  default  = {}
  nullable = false
}

variable "placement_constraint_instance_type" {
  description = "Add the placement constraint memberOf `attribute:ecs.instance-type == <instance_type>`, so that the service's tasks go only to this module's GPU instances even in a cluster shared with other capacity."
  type        = bool
  default     = true
}

variable "deployment_minimum_healthy_percent" {
  description = "Lower bound of running tasks during a deployment, in percent of the desired count. 100 (with a maximum of 200) starts the new task before stopping the old, which needs a spare GPU (managed scaling launches one). 0 stops the old task first: no extra instance, but downtime."
  type        = number
  default     = 100
}

variable "deployment_maximum_percent" {
  description = "Upper bound of running tasks during a deployment, in percent of the desired count."
  type        = number
  default     = 200
}

variable "load_balancer" {
  description = "One load balancer target group (the shorthand of `load_balancers` for one; both may be set). `container_name` defaults to the GPU container."
  type = object({
    target_group_arn = string
    container_port   = number
    container_name   = optional(string)
  })
  default = null
}

variable "health_check_grace_period_seconds" {
  description = "Seconds the service ignores load balancer and container health checks after a task starts, used only with a load balancer. A GPU server downloads and loads its model before it answers a health check, which takes minutes for large models: a grace period shorter than that makes ECS stop every new task as unhealthy, and the deployment never ends. Size it to your model's cold start."
  type        = number
  default     = 600
}

variable "load_balancers" {
  description = <<-EOT
    Load balancer target groups the service registers its tasks with (name => settings): ip target type in awsvpc
    mode, instance in bridge mode. `container_name` (default: the GPU container) and `container_port` must be a
    port mapping of the task, or the plan is refused. `listener_arns`: the listeners or listener rules that forward
    to the target group; the service is created after them by reference (ECS refuses a target group that no load
    balancer uses), so the module call needs no `depends_on`, which would defer every data source of the module to
    the apply and turn an unrelated listener edit into a new task definition and an instance refresh.
    `security_group_ids`: the load balancer's security groups, each allowed into the tasks' security group on
    `container_port` (awsvpc only). `advanced_configuration`: the alternate target group, production and test
    listener rules and the role ECS shifts traffic with, for `deployment_strategy` BLUE_GREEN, LINEAR or CANARY
    (hashicorp/aws 6.x, modules/service-v6).
  EOT
  type = map(object({
    target_group_arn   = string
    container_port     = number
    container_name     = optional(string)
    listener_arns      = optional(list(string), [])
    security_group_ids = optional(list(string), [])
    advanced_configuration = optional(object({
      alternate_target_group_arn = string
      production_listener_rule   = string
      test_listener_rule         = optional(string)
      role_arn                   = string
    }))
  }))
  default  = {}
  nullable = false
}

variable "deployment_circuit_breaker" {
  description = "The deployment circuit breaker (rolling deployments): `enable` stops a deployment whose tasks keep failing to start, `rollback` then returns to the last deployment that completed. Both on by default."
  type = object({
    enable   = optional(bool, true)
    rollback = optional(bool, true)
  })
  default  = {}
  nullable = false
}

variable "deployment_alarms" {
  description = "CloudWatch alarms that fail a deployment while they are in ALARM (`alarm_names`, the alarms' names), and roll it back with `rollback` (default true). null watches none."
  type = object({
    alarm_names = list(string)
    rollback    = optional(bool, true)
  })
  default = null
}

variable "force_new_deployment" {
  description = "Start a new deployment on every apply that changes the service, even with the same task definition (for example to pull a mutable image tag again), and whenever `deployment_triggers` change."
  type        = bool
  default     = false
  nullable    = false
}

variable "deployment_triggers" {
  description = "Values (name => value) whose change starts a new deployment in place; needs `force_new_deployment = true`. For example `{ model = var.model_revision }`."
  type        = map(string)
  default     = {}
  nullable    = false
}

variable "deployment_strategy" {
  description = <<-EOT
    How ECS replaces the tasks on a deployment. `strategy` "ROLLING" (the default) replaces them within
    `deployment_minimum_healthy_percent`/`deployment_maximum_percent`. "BLUE_GREEN", "LINEAR" and "CANARY" are
    ECS native deployments: ECS starts the new revision at full size beside the old one, shifts traffic (all at once,
    in `linear.step_percent` steps, or `canary.percent` first) and keeps the old one through `bake_time_in_minutes`
    (0 to 1440), so the capacity must hold both revisions at once: twice the service's GPUs. They need the
    `deployment_configuration` block of hashicorp/aws 6.x (BLUE_GREEN from 6.4.0, LINEAR and CANARY from 6.21.0):
    modules/service-v6 and the Managed Instances module write it; modules/service and the root module, which must
    plan with 5.x too, refuse these strategies with the reason. With a load balancer, each of `load_balancers`
    needs its `advanced_configuration`.
  EOT
  type = object({
    strategy             = optional(string, "ROLLING")
    bake_time_in_minutes = optional(number)
    canary = optional(object({
      percent              = number
      bake_time_in_minutes = optional(number)
    }))
    linear = optional(object({
      step_percent              = number
      step_bake_time_in_minutes = optional(number)
    }))
  })
  default  = {}
  nullable = false
}

variable "service_connect" {
  description = <<-EOT
    ECS Service Connect. `namespace`: the Cloud Map namespace (name or ARN; null takes the cluster's default).
    `services`: the ports this service offers to the others, each a port mapping `port_name` (its `name`), with an
    optional `discovery_name` and `client_aliases` (`port`, `dns_name`). Without `services` the service is a client
    only. Service Connect's proxy ends a request after 15 seconds by default, which cuts a long LLM generation:
    `per_request_timeout_seconds` (default 600; 0 turns it off) and `idle_timeout_seconds` (default 600; the
    connection closes at the shorter of the two) raise it, for port mappings whose `app_protocol` is http, http2 or
    grpc (a TCP port takes the idle timeout only). Logs go to the module's log group.
  EOT
  type = object({
    namespace = optional(string)
    services = optional(list(object({
      port_name      = string
      discovery_name = optional(string)
      client_aliases = optional(list(object({
        port     = number
        dns_name = optional(string)
      })), [])
      per_request_timeout_seconds = optional(number)
      idle_timeout_seconds        = optional(number)
    })), [])
  })
  default = null
}

variable "enable_execute_command" {
  description = "Enable ECS Exec into the tasks (the task role then needs the ssmmessages permissions)."
  type        = bool
  default     = false
}

variable "wait_for_steady_state" {
  description = "Make `terraform apply` wait until the service reaches a steady state. A GPU task that never starts then fails the apply instead of passing silently."
  type        = bool
  default     = false
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

variable "efs_volumes" {
  description = "EFS file systems mounted into the task (volume name => settings), for shared model weights. Transit encryption is always on; `iam = true` (the default) mounts with the task role, which is allowed to mount (and write unless `read_only`) exactly these file systems. `containers` lists the containers that mount it; empty means every container with GPUs."
  type = map(object({
    file_system_id  = string
    container_path  = string
    access_point_id = optional(string)
    root_directory  = optional(string)
    iam             = optional(bool, true)
    read_only       = optional(bool, false)
    containers      = optional(list(string), [])
  }))
  default  = {}
  nullable = false
}

variable "ebs_volume" {
  description = "An ECS managed EBS volume created per task at launch (scratch space for model weights or checkpoints), mounted into every container with GPUs at `container_path`. ECS creates and deletes it with the infrastructure role `infrastructure_role_arn` (with the AmazonECSInfrastructureRolePolicyForVolumes policy)."
  type = object({
    container_path          = string
    size_in_gb              = number
    infrastructure_role_arn = string
    volume_type             = optional(string, "gp3")
    iops                    = optional(number)
    throughput              = optional(number)
    file_system_type        = optional(string, "xfs")
    kms_key_id              = optional(string)
  })
  default = null
}

# ----------------------------------------------------------------------------------------------
# Bring-your-own IAM roles and instance profile
# ----------------------------------------------------------------------------------------------

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
}

variable "create_execution_role" {
  description = "Create the task execution role (with AmazonECSTaskExecutionRolePolicy, and read access to exactly the task's secrets and registry credentials). false uses your role, `execution_role_arn`: the module then attaches nothing to it, and your role must allow what the task needs (image pull, logs, its secrets)."
  type        = bool
  default     = true
  nullable    = false
}

variable "execution_role_arn" {
  description = "ARN of your task execution role, with `create_execution_role = false`."
  type        = string
  default     = null
}

variable "create_task_role" {
  description = "Create the task role (with `task_role_policy_arns`, the ECS Exec channels when `enable_execute_command`, and the EFS mounts of `efs_volumes` with IAM authorization). false uses your role, `task_role_arn`: the module then attaches nothing to it, and your role must allow ECS Exec and the EFS mounts you use."
  type        = bool
  default     = true
  nullable    = false
}

variable "task_role_arn" {
  description = "ARN of your task role, with `create_task_role = false`."
  type        = string
  default     = null
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
}

variable "efa" {
  # Differs from modules/capacity in description: the root also gives the EFA to the service's GPU
  # containers (module.capacity.efa), which modules/capacity's description cannot say.
  description = <<-EOT
    Give each instance an Elastic Fabric Adapter for multi-node training (NCCL over EFA): the launch
    template's primary network interface becomes `interface_type = "efa"` (network card 0, device 0),
    the group launches into a cluster placement group the module creates, the instances' security
    group allows all traffic to and from itself, and the GPU containers get the EFA device
    `/dev/infiniband/uverbs0` (the EFA requirements of the AWS Batch EFA page, which follow the EC2
    User Guide's EFA page). Refused for a type the catalog says has no EFA; a type the catalog does
    not know EFA for is not refused. One EFA interface only: types with several network cards (p4d
    4, p5.48xlarge 32) get one of them. See the README's "EFA and cluster placement groups".
  EOT
  type        = bool
  default     = false
  nullable    = false
}
