# Inputs of the service. Those shared with the capacity (name, cluster, instance type, IAM path and
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
  description = "Name of the ECS cluster the service runs in, which holds its capacity provider (for example `module.capacity.cluster_name`). This module does not create it."
  type        = string
}

variable "vpc_id" {
  description = "VPC of the subnets; the module's security groups are created in it."
  type        = string
}

variable "subnet_ids" {
  description = "Subnets of the tasks' network interfaces in awsvpc mode (unused in bridge mode). They must be in the Availability Zones of the capacity's subnets, or a task can be placed on no instance."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) > 0
    error_message = "`subnet_ids` must name at least one subnet."
  }
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

  validation {
    condition     = alltrue([for r in values(var.ingress_rules) : (r.cidr_ipv4 == null) != (r.referenced_security_group_id == null)])
    error_message = "Each rule in `ingress_rules` must set exactly one of `cidr_ipv4` and `referenced_security_group_id`."
  }
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

  validation {
    condition     = alltrue([for r in values(var.egress_rules) : (r.cidr_ipv4 == null) != (r.referenced_security_group_id == null)])
    error_message = "Each rule in `egress_rules` must set exactly one of `cidr_ipv4` and `referenced_security_group_id`."
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

variable "network_mode" {
  description = "Task network mode: \"awsvpc\" (each task has its own network interface and the module's security group) or \"bridge\" (Docker bridge on the instance's interface)."
  type        = string
  default     = "awsvpc"

  validation {
    condition     = contains(["awsvpc", "bridge"], var.network_mode)
    error_message = "`network_mode` must be \"awsvpc\" or \"bridge\"."
  }
}

variable "gpu_count" {
  description = "GPUs reserved for the GPU container. On whole-GPU types: a whole number from 1 to the type's GPU count. On the fractional g6f/gr6f types: exactly the type's partition (0.125, 0.25 or 0.5), the only value those types can serve."
  type        = number
  default     = 1

  validation {
    condition     = var.gpu_count > 0 && (floor(var.gpu_count) == var.gpu_count || contains([0.125, 0.25, 0.5], var.gpu_count))
    error_message = "`gpu_count` must be a whole number of at least 1, or a GPU fraction (0.125, 0.25 or 0.5) on g6f/gr6f types."
  }
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
  description = "Task CPU units (1024 per vCPU). At most the instance type's vCPUs x 1024."
  type        = number

  validation {
    condition     = var.task_cpu >= 128 && floor(var.task_cpu) == var.task_cpu
    error_message = "`task_cpu` must be a whole number of CPU units, at least 128."
  }
}

variable "task_memory" {
  description = "Task memory in MiB (hard limit). At most what the instance type can register minus the module's memory margin (see `memory_margin_mib`)."
  type        = number

  validation {
    condition     = var.task_memory >= 128 && floor(var.task_memory) == var.task_memory
    error_message = "`task_memory` must be a whole number of MiB, at least 128."
  }
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

  validation {
    condition     = can(regex("^[a-zA-Z0-9_-]{1,255}$", var.container_name))
    error_message = "`container_name` must have 1 to 255 letters, digits, hyphens and underscores."
  }
}

variable "container_image" {
  description = "Image of the GPU container (for example an ECR image built on an nvidia/cuda base)."
  type        = string

  # ECS registers a task definition with an empty image, and every task then fails to pull.
  validation {
    condition     = length(trimspace(var.container_image)) > 0
    error_message = "`container_image` is empty: give the GPU container's image, such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1."
  }
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

  validation {
    condition     = alltrue([for p in var.container_port_mappings : contains(["tcp", "udp"], p.protocol)])
    error_message = "`protocol` of a port mapping must be \"tcp\" or \"udp\"."
  }
}

variable "container_environment" {
  description = "Environment variables of the GPU container (name => value). NVIDIA_DRIVER_CAPABILITIES is set from `nvidia_driver_capabilities`; NVIDIA_VISIBLE_DEVICES is set by the ECS agent to the GPUs it assigns."
  type        = map(string)
  default     = {}

  validation {
    condition     = !contains(keys(var.container_environment), "NVIDIA_DRIVER_CAPABILITIES") && !contains(keys(var.container_environment), "NVIDIA_VISIBLE_DEVICES")
    error_message = "Set NVIDIA_DRIVER_CAPABILITIES with `nvidia_driver_capabilities`; NVIDIA_VISIBLE_DEVICES is set by the ECS agent to the GPUs it assigns and must not be set in the task."
  }
}

variable "container_secrets" {
  description = "Secrets of the GPU container (environment variable name => ARN of an SSM parameter or a Secrets Manager secret, optionally with a JSON key suffix). The execution role is allowed to read exactly these."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for v in values(var.container_secrets) : can(regex("^arn:[^:]+:(ssm|secretsmanager):[^:]*:[0-9]{12}:(parameter/|secret:)", v))])
    error_message = "Each value of `container_secrets` must be the ARN of an SSM parameter (arn:...:ssm:...:parameter/...) or a Secrets Manager secret (arn:...:secretsmanager:...:secret:...)."
  }
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

  validation {
    condition     = var.container_health_check == null || try(contains(["CMD", "CMD-SHELL", "NONE"], var.container_health_check.command[0]), false)
    error_message = "`container_health_check.command` must start with \"CMD\", \"CMD-SHELL\" or \"NONE\"."
  }

  validation {
    condition = var.container_health_check == null || try(
      var.container_health_check.interval >= 5 && var.container_health_check.interval <= 300 &&
      var.container_health_check.timeout >= 2 && var.container_health_check.timeout <= 60 &&
      var.container_health_check.retries >= 1 && var.container_health_check.retries <= 10 &&
      var.container_health_check.start_period >= 0 && var.container_health_check.start_period <= 300,
      false
    )
    error_message = "`container_health_check` must keep ECS's ranges: interval 5-300 s, timeout 2-60 s, retries 1-10, start_period 0-300 s."
  }
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

  validation {
    condition     = can(tolist(var.sidecar_containers)) && alltrue([for c in var.sidecar_containers : can(c.name) && can(c.image)])
    error_message = "`sidecar_containers` must be a list of container definitions, each with a name and an image."
  }

  validation {
    condition     = alltrue([for c in var.sidecar_containers : !contains([for r in try(c.resourceRequirements, []) : upper(try(r.type, ""))], "GPU")])
    error_message = "`sidecar_containers` must not request GPUs: give a container GPUs through `additional_containers` (its `gpu_count`), where the module checks the task's sum against the instance type."
  }
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

  validation {
    condition     = var.linux_parameters.shared_memory_size == null || try(var.linux_parameters.shared_memory_size >= 1 && floor(var.linux_parameters.shared_memory_size) == var.linux_parameters.shared_memory_size, false)
    error_message = "`linux_parameters.shared_memory_size` must be a whole number of MiB, at least 1."
  }

  validation {
    condition = alltrue([for c in concat(var.linux_parameters.capabilities.add, var.linux_parameters.capabilities.drop) : contains([
      "ALL", "AUDIT_CONTROL", "AUDIT_WRITE", "BLOCK_SUSPEND", "CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID",
      "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE", "LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN",
      "NET_BIND_SERVICE", "NET_BROADCAST", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_ADMIN", "SYS_BOOT",
      "SYS_CHROOT", "SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE", "SYS_RAWIO", "SYS_RESOURCE", "SYS_TIME",
      "SYS_TTY_CONFIG", "SYSLOG", "WAKE_ALARM",
    ], c)])
    error_message = "`linux_parameters.capabilities` must use ECS capability names without the CAP_ prefix, such as \"IPC_LOCK\", \"SYS_PTRACE\" or \"ALL\"."
  }
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

  validation {
    condition     = alltrue([for u in var.ulimits : contains(["core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"], u.name)])
    error_message = "Each `ulimits` name must be one of core, cpu, data, fsize, locks, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime, sigpending, stack."
  }

  validation {
    condition     = alltrue([for u in var.ulimits : u.soft_limit >= -1 && u.hard_limit >= -1 && floor(u.soft_limit) == u.soft_limit && floor(u.hard_limit) == u.hard_limit && (u.hard_limit == -1 || (u.soft_limit != -1 && u.soft_limit <= u.hard_limit))])
    error_message = "Each of `ulimits` must have whole limits (-1 is unlimited) with `soft_limit` at most `hard_limit`."
  }

  validation {
    condition     = length(distinct([for u in var.ulimits : u.name])) == length(var.ulimits)
    error_message = "`ulimits` must name each limit once."
  }
}

variable "ipc_mode" {
  description = "IPC namespace of the task's containers: null (Docker's default: private to each container), \"task\" (shared by the task's containers, for example a server and a sidecar exchanging tensors through /dev/shm), \"host\" (the instance's, a wider exposure) or \"none\"."
  type        = string
  default     = null

  validation {
    condition     = var.ipc_mode == null || contains(["host", "task", "none"], coalesce(var.ipc_mode, "-"))
    error_message = "`ipc_mode` must be null, \"task\", \"host\" or \"none\"."
  }
}

variable "stop_timeout" {
  description = "Seconds the GPU container gets to exit after SIGTERM before it is killed (stopTimeout). null uses the agent's ECS_CONTAINER_STOP_TIMEOUT (30 s by default), short for a server draining requests or a trainer writing a checkpoint."
  type        = number
  default     = null

  validation {
    condition     = var.stop_timeout == null || try(var.stop_timeout >= 0 && floor(var.stop_timeout) == var.stop_timeout, false)
    error_message = "`stop_timeout` must be a whole number of seconds, 0 or more."
  }
}

variable "docker_labels" {
  description = "Docker labels of the GPU container (name => value), for example for a log or metrics agent."
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    condition     = alltrue([for k in keys(var.docker_labels) : length(k) > 0 && !can(regex("[[:cntrl:]]", k))])
    error_message = "`docker_labels` names must be non-empty and have no control characters."
  }
}

variable "repository_credentials" {
  description = "ARN of a Secrets Manager secret with the username and password of a private registry (NGC's nvcr.io, Docker Hub...) for the images of the task's containers. The execution role is allowed to read it (and to decrypt with `secrets_kms_key_arns`)."
  type        = string
  default     = null

  validation {
    condition     = var.repository_credentials == null || can(regex("^arn:[^:]+:secretsmanager:[^:]+:[0-9]{12}:secret:.+$", coalesce(var.repository_credentials, "-")))
    error_message = "`repository_credentials` must be the ARN of a Secrets Manager secret (arn:...:secretsmanager:<region>:<account>:secret:<name>)."
  }
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

  validation {
    condition     = alltrue([for k in keys(var.additional_containers) : can(regex("^[a-zA-Z0-9_-]{1,255}$", k))])
    error_message = "Each key of `additional_containers` (the container name) must have 1 to 255 letters, digits, hyphens and underscores."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : length(trimspace(c.image)) > 0])
    error_message = "Each of `additional_containers` needs an `image`: ECS registers an empty one, and every task then fails to pull."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : c.gpu_count >= 0 && (floor(c.gpu_count) == c.gpu_count || contains([0.125, 0.25, 0.5], c.gpu_count))])
    error_message = "`gpu_count` of each of `additional_containers` must be 0 (no GPU), a whole number, or a GPU fraction (0.125, 0.25 or 0.5) on g6f/gr6f types."
  }

  validation {
    condition = alltrue([for c in values(var.additional_containers) : alltrue([
      for n in [c.cpu, c.memory, c.memory_reservation, c.stop_timeout] : n == null || try(n >= 0 && floor(n) == n, false)
    ])])
    error_message = "`cpu`, `memory`, `memory_reservation` and `stop_timeout` of each of `additional_containers` must be whole numbers, 0 or more."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : c.memory == null || c.memory_reservation == null || try(c.memory_reservation <= c.memory, false)])
    error_message = "`memory_reservation` of each of `additional_containers` must not exceed its `memory`."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : alltrue([for d in c.depends_on : contains(["START", "COMPLETE", "SUCCESS", "HEALTHY"], d.condition)])])
    error_message = "`depends_on` conditions of `additional_containers` must be START, COMPLETE, SUCCESS or HEALTHY."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : alltrue([for k in keys(c.environment) : k != "NVIDIA_VISIBLE_DEVICES"])])
    error_message = "NVIDIA_VISIBLE_DEVICES is set by the ECS agent to the GPUs it assigns and must not be set in `additional_containers`."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : alltrue([for v in values(c.secrets) : can(regex("^arn:[^:]+:(ssm|secretsmanager):[^:]*:[0-9]{12}:(parameter/|secret:)", v))])])
    error_message = "Each value of `secrets` in `additional_containers` must be the ARN of an SSM parameter or a Secrets Manager secret."
  }

  validation {
    condition     = alltrue([for c in values(var.additional_containers) : c.health_check == null || try(contains(["CMD", "CMD-SHELL", "NONE"], c.health_check.command[0]), false)])
    error_message = "`health_check.command` of `additional_containers` must start with \"CMD\", \"CMD-SHELL\" or \"NONE\"."
  }

  validation {
    condition = alltrue([for c in values(var.additional_containers) : alltrue([
      for u in coalesce(c.ulimits, []) : contains(["core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"], u.name)
    ])])
    error_message = "Each `ulimits` name of `additional_containers` must be one of core, cpu, data, fsize, locks, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime, sigpending, stack."
  }

  validation {
    # Conditionals, not ||: Terraform evaluates both sides of ||, and a null size would fail the comparison.
    condition = alltrue([for c in values(var.additional_containers) : c.linux_parameters == null ? true : c.linux_parameters.shared_memory_size == null ? true : try(
      c.linux_parameters.shared_memory_size >= 1 && floor(c.linux_parameters.shared_memory_size) == c.linux_parameters.shared_memory_size, false
    )])
    error_message = "`linux_parameters.shared_memory_size` of `additional_containers` must be a whole number of MiB, at least 1."
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

variable "task_role_policy_arns" {
  description = "IAM policy ARNs attached to the task role (the role the application's AWS calls use). The task role has no permissions by default."
  type        = list(string)
  default     = []
}

variable "log_retention_days" {
  description = "Retention of the task log group, in days."
  type        = number
  default     = 30

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "`log_retention_days` must be a CloudWatch Logs retention value (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653)."
  }
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

  validation {
    condition     = var.desired_count >= 0 && floor(var.desired_count) == var.desired_count
    error_message = "`desired_count` must be a whole number, 0 or more."
  }
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

  validation {
    condition     = var.autoscaling == null || try(var.autoscaling.min_capacity >= 0 && var.autoscaling.min_capacity <= var.autoscaling.max_capacity, false)
    error_message = "`autoscaling.min_capacity` must be 0 or more and at most `autoscaling.max_capacity`."
  }

  validation {
    condition     = var.autoscaling == null || try(contains(["ECSServiceAverageCPUUtilization", "ECSServiceAverageMemoryUtilization", "ALBRequestCountPerTarget"], var.autoscaling.predefined_metric_type), false)
    error_message = "`autoscaling.predefined_metric_type` must be ECSServiceAverageCPUUtilization, ECSServiceAverageMemoryUtilization or ALBRequestCountPerTarget."
  }

  validation {
    condition     = var.autoscaling == null || try(var.autoscaling.predefined_metric_type != "ALBRequestCountPerTarget" || var.autoscaling.customized_metric != null || var.autoscaling.resource_label != null, false)
    error_message = "`autoscaling.resource_label` (app/<lb>/<id>/targetgroup/<tg>/<id>) is required with ALBRequestCountPerTarget."
  }

  validation {
    condition     = var.autoscaling == null || try(var.autoscaling.gpu_metric == null ? true : contains(["utilization", "memory"], var.autoscaling.gpu_metric), false)
    error_message = "`autoscaling.gpu_metric` must be \"utilization\" or \"memory\"."
  }

  validation {
    condition     = var.autoscaling == null || try(var.autoscaling.gpu_metric == null || var.autoscaling.customized_metric == null, false)
    error_message = "Set `autoscaling.gpu_metric` or `autoscaling.customized_metric`, not both: a policy tracks one metric."
  }

  # Both GPU metrics are percentages: a target outside 1..100 is never reached, and the policy would
  # keep scaling one way.
  validation {
    condition     = var.autoscaling == null || try(var.autoscaling.gpu_metric == null ? true : var.autoscaling.target_value >= 1 && var.autoscaling.target_value <= 100, false)
    error_message = "`autoscaling.target_value` must be a percentage from 1 to 100 with `autoscaling.gpu_metric` (GPU utilization or memory used, in percent)."
  }
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

  validation {
    condition     = alltrue([for k in keys(var.load_balancers) : can(regex("^[a-zA-Z0-9_-]{1,64}$", k))])
    error_message = "Each key of `load_balancers` must have 1 to 64 letters, digits, hyphens and underscores."
  }
}

variable "health_check_grace_period_seconds" {
  description = "Seconds the service ignores load balancer and container health checks after a task starts, used only with a load balancer. A GPU server downloads and loads its model before it answers a health check, which takes minutes for large models: a grace period shorter than that makes ECS stop every new task as unhealthy, and the deployment never ends. Size it to your model's cold start."
  type        = number
  default     = 600

  validation {
    condition     = var.health_check_grace_period_seconds >= 0 && var.health_check_grace_period_seconds <= 2147483647 && floor(var.health_check_grace_period_seconds) == var.health_check_grace_period_seconds
    error_message = "`health_check_grace_period_seconds` must be a whole number of seconds from 0 to 2147483647."
  }
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

  validation {
    condition     = var.deployment_alarms == null || try(length(var.deployment_alarms.alarm_names) > 0, false)
    error_message = "`deployment_alarms.alarm_names` must name at least one alarm (or set `deployment_alarms = null`)."
  }
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

  validation {
    condition     = contains(["ROLLING", "BLUE_GREEN", "LINEAR", "CANARY"], var.deployment_strategy.strategy)
    error_message = "`deployment_strategy.strategy` must be \"ROLLING\", \"BLUE_GREEN\", \"LINEAR\" or \"CANARY\"."
  }

  validation {
    condition = (
      (var.deployment_strategy.strategy == "CANARY") == (var.deployment_strategy.canary != null) &&
      (var.deployment_strategy.strategy == "LINEAR") == (var.deployment_strategy.linear != null)
    )
    error_message = "`deployment_strategy.canary` goes with strategy \"CANARY\" only, and is required there; `linear` goes with \"LINEAR\" only, and is required there."
  }

  # ECS API LinearConfiguration: stepPercent 3.0 to 100; bake times up to 1440 minutes (botocore 1.44.8
  # ecs 2014-11-13, ECS blue/green pages; crates/ecs-gpu-catalog/data/sources/ecs-gpu-2026-updates.md 1.1 and 1.5).
  validation {
    condition = alltrue([
      for m in [var.deployment_strategy.bake_time_in_minutes, try(var.deployment_strategy.canary.bake_time_in_minutes, null), try(var.deployment_strategy.linear.step_bake_time_in_minutes, null)] :
      m == null ? true : m >= 0 && m <= 1440 && floor(m) == m
    ])
    error_message = "The bake times of `deployment_strategy` must be whole minutes from 0 to 1440."
  }

  validation {
    condition = (
      (var.deployment_strategy.canary == null ? true : try(var.deployment_strategy.canary.percent > 0 && var.deployment_strategy.canary.percent <= 100, false)) &&
      (var.deployment_strategy.linear == null ? true : try(var.deployment_strategy.linear.step_percent >= 3 && var.deployment_strategy.linear.step_percent <= 100, false))
    )
    error_message = "`deployment_strategy.canary.percent` must be above 0 and at most 100, and `linear.step_percent` from 3 to 100."
  }
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

  validation {
    condition = var.service_connect == null || try(alltrue([
      for s in var.service_connect.services : alltrue([
        for t in [s.per_request_timeout_seconds, s.idle_timeout_seconds] : t == null ? true : t >= 0 && floor(t) == t
      ])
    ]), false)
    error_message = "The timeouts of `service_connect.services` must be whole seconds, 0 or more (0 turns a timeout off)."
  }
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

  validation {
    condition     = alltrue([for k, v in var.efs_volumes : can(regex("^[a-zA-Z0-9_-]{1,255}$", k)) && can(regex("^fs-[0-9a-f]{8,40}$", v.file_system_id)) && can(regex("^/", v.container_path))])
    error_message = "Each of `efs_volumes` needs a name of letters, digits, hyphens and underscores, a `file_system_id` such as fs-0123456789abcdef0 and an absolute `container_path`."
  }

  validation {
    condition     = alltrue([for v in values(var.efs_volumes) : v.access_point_id == null || can(regex("^fsap-[0-9a-f]{8,40}$", coalesce(v.access_point_id, "-")))])
    error_message = "`access_point_id` of `efs_volumes` must be an access point ID such as fsap-0123456789abcdef0."
  }

  validation {
    condition     = alltrue([for v in values(var.efs_volumes) : v.access_point_id == null || v.root_directory == null])
    error_message = "Set `access_point_id` or `root_directory` in `efs_volumes`, not both: with an access point, its own root directory applies."
  }
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

  validation {
    condition     = var.ebs_volume == null || try(can(regex("^/", var.ebs_volume.container_path)) && var.ebs_volume.size_in_gb >= 1 && floor(var.ebs_volume.size_in_gb) == var.ebs_volume.size_in_gb, false)
    error_message = "`ebs_volume` needs an absolute `container_path` and a whole `size_in_gb` of at least 1."
  }

  validation {
    condition     = var.ebs_volume == null || try(contains(["gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"], var.ebs_volume.volume_type) && contains(["xfs", "ext3", "ext4"], var.ebs_volume.file_system_type), false)
    error_message = "`ebs_volume.volume_type` must be gp2, gp3, io1, io2, st1, sc1 or standard, and `file_system_type` xfs, ext3 or ext4."
  }

  validation {
    condition     = var.ebs_volume == null || can(regex("^arn:[^:]+:iam::[0-9]{12}:role/", try(var.ebs_volume.infrastructure_role_arn, "")))
    error_message = "`ebs_volume.infrastructure_role_arn` must be an IAM role ARN."
  }
}

# ----------------------------------------------------------------------------------------------
# The capacity the service runs on, and bring-your-own roles
# ----------------------------------------------------------------------------------------------

variable "capacity_provider_name" {
  description = "The capacity provider of the service's strategy. Give it `module.capacity.capacity_provider_name` (read from the cluster association, so the service is created after it), or, when you manage the cluster's `aws_ecs_cluster_capacity_providers` yourself, the name from that resource: the reference orders the service after the association."
  type        = string

  validation {
    condition     = try(length(var.capacity_provider_name) > 0, false)
    error_message = "`capacity_provider_name` must name the capacity provider of the GPU instances."
  }
}

variable "max_size" {
  description = "Maximum number of instances of the capacity's Auto Scaling group (`module.capacity.max_size`): `desired_count` and `autoscaling.max_capacity` are checked against `max_size` x the tasks one instance holds. null: the capacity has no such bound (ECS Managed Instances), and neither is checked."
  type        = number
  default     = null
}

variable "capacity_availability_zones" {
  description = "Availability Zones of the capacity's instances (`module.capacity.availability_zones`): in awsvpc mode the tasks' `subnet_ids` must be in them, or a task has no instance to run on. null skips the check."
  type        = list(string)
  default     = null
}

variable "compatibility" {
  description = "Launch compatibility of the task definition (`requires_compatibilities`): \"EC2\" (the default, on the capacity of ../capacity) or \"MANAGED_INSTANCES\" (on an ECS Managed Instances capacity provider, terraform/ecs-gpu-managed-instances)."
  type        = string
  default     = "EC2"

  validation {
    condition     = contains(["EC2", "MANAGED_INSTANCES"], var.compatibility)
    error_message = "`compatibility` must be \"EC2\" or \"MANAGED_INSTANCES\" (GPUs are not offered on Fargate or ECS Anywhere task definitions here)."
  }
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

  validation {
    condition     = var.execution_role_arn == null || can(regex("^arn:[^:]+:iam::[0-9]{12}:role/.+$", coalesce(var.execution_role_arn, "-")))
    error_message = "`execution_role_arn` must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)."
  }
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

  validation {
    condition     = var.task_role_arn == null || can(regex("^arn:[^:]+:iam::[0-9]{12}:role/.+$", coalesce(var.task_role_arn, "-")))
    error_message = "`task_role_arn` must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)."
  }
}

variable "additional_instance_types" {
  description = "The capacity's other instance types (`module.capacity.additional_instance_types`, with `mixed_instances`): the placement constraint admits them all, and the fit checks use the least vCPUs and memory over them and `instance_type`."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "efa" {
  description = "The capacity gives its instances an Elastic Fabric Adapter (`module.capacity.efa`): the GPU containers get the EFA device `/dev/infiniband/uverbs0` (`linuxParameters.devices`, read, write and mknod), which the AWS Batch EFA page requires to pass the EFA through to a container."
  type        = bool
  default     = false
  nullable    = false
}

variable "gpu_metrics" {
  description = <<-EOT
    The GPU metrics the capacity publishes (modules/capacity `gpu_metrics`), for `autoscaling.gpu_metric`,
    the dashboard and the idle alarm: `enabled`, the agent's `interval` (seconds) and `namespace`, and the
    `autoscaling_group_name` whose aggregate they read. `dashboard` creates a CloudWatch dashboard;
    `idle_alarm` (on by default) an alarm for GPUs idle while the service's tasks pend (see the README):
    the group's GPU utilization under `utilization_threshold` percent while Container Insights'
    PendingTaskCount is above 0, for `evaluation_periods` periods, notifying the SNS topic
    `alarm_topic_arn` when set.
  EOT
  type = object({
    enabled                = optional(bool, false)
    interval               = optional(number, 60)
    namespace              = optional(string, "CWAgent")
    autoscaling_group_name = optional(string)
    dashboard              = optional(bool, true)
    idle_alarm = optional(object({
      enabled               = optional(bool, true)
      utilization_threshold = optional(number, 10)
      evaluation_periods    = optional(number, 5)
      alarm_topic_arn       = optional(string)
    }), {})
  })
  default  = {}
  nullable = false

  validation {
    condition     = try(contains([10, 20, 30], var.gpu_metrics.interval) || (var.gpu_metrics.interval % 60 == 0 && var.gpu_metrics.interval >= 60 && var.gpu_metrics.interval <= 3600), false)
    error_message = "`gpu_metrics.interval` must be 10, 20, 30, or a multiple of 60 up to 3600 (seconds): the periods a CloudWatch alarm evaluates."
  }

  validation {
    condition     = try(var.gpu_metrics.idle_alarm == null ? true : var.gpu_metrics.idle_alarm.utilization_threshold > 0 && var.gpu_metrics.idle_alarm.utilization_threshold <= 100, false)
    error_message = "`gpu_metrics.idle_alarm.utilization_threshold` must be a percentage above 0 and at most 100."
  }

  validation {
    condition     = try(var.gpu_metrics.idle_alarm == null ? true : var.gpu_metrics.idle_alarm.evaluation_periods >= 1 && floor(var.gpu_metrics.idle_alarm.evaluation_periods) == var.gpu_metrics.idle_alarm.evaluation_periods, false)
    error_message = "`gpu_metrics.idle_alarm.evaluation_periods` must be a whole number, 1 or more."
  }

  validation {
    condition     = try(var.gpu_metrics.idle_alarm == null ? true : var.gpu_metrics.idle_alarm.alarm_topic_arn == null ? true : can(regex("^arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]+(\\.fifo)?$", var.gpu_metrics.idle_alarm.alarm_topic_arn)), false)
    error_message = "`gpu_metrics.idle_alarm.alarm_topic_arn` must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<topic>)."
  }
}
