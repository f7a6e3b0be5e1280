variable "name" {
  description = "Name of the ECS cluster."
  type        = string

  validation {
    condition     = can(regex("^[a-zA-Z0-9_-]{1,255}$", var.name))
    error_message = "`name` must have 1 to 255 letters, digits, hyphens and underscores."
  }
}

variable "create" {
  description = "Create the cluster. false manages only the capacity provider list of an existing cluster `name`."
  type        = bool
  default     = true
  nullable    = false
}

variable "container_insights" {
  description = "Container Insights setting of the cluster: \"enabled\", \"enhanced\" or \"disabled\". The GPU idle alarm (`gpu_metrics.idle_alarm`) reads Container Insights' PendingTaskCount."
  type        = string
  default     = "enabled"

  validation {
    condition     = contains(["enabled", "enhanced", "disabled"], var.container_insights)
    error_message = "`container_insights` must be \"enabled\", \"enhanced\" or \"disabled\"."
  }
}

variable "capacity_providers" {
  description = "The cluster's whole capacity provider list: every GPU service's `capacity_provider_name` output, and any other provider the cluster keeps (\"FARGATE\"...). A provider not listed is removed from the cluster."
  type        = list(string)

  validation {
    condition     = length(var.capacity_providers) == length(distinct(var.capacity_providers))
    error_message = "`capacity_providers` must name each provider once."
  }
}

variable "default_capacity_provider_strategy" {
  description = "The cluster's default capacity provider strategy; empty leaves none (each GPU service names its own provider)."
  type = list(object({
    capacity_provider = string
    weight            = optional(number, 0)
    base              = optional(number, 0)
  }))
  default  = []
  nullable = false
}

variable "service_connect_namespace_arn" {
  description = "ARN of a Cloud Map namespace (aws_service_discovery_http_namespace) the cluster's services use for Service Connect by default; null sets none."
  type        = string
  default     = null
}

variable "tags" {
  description = "Tags of the cluster."
  type        = map(string)
  default     = {}
}
