terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "instance_types" {
  type    = list(string)
  default = ["g5.xlarge"]

  validation {
    condition     = length(var.instance_types) > 0
    error_message = "At least one instance type."
  }
}

variable "empty" {}

locals { one_line_block = true }

resource "aws_ecs_cluster" "this" {
  name = "gpu"

  setting {
    name  = "containerInsights"
    value = "enabled"
  }

  dynamic "service_connect_defaults" {
    for_each = []
    content {
      namespace = service_connect_defaults.value
    }
  }

  lifecycle {
    ignore_changes = [tags]
  }
}

moved {
  from = aws_ecs_cluster.old
  to   = aws_ecs_cluster.this
}

check "cluster_named" {
  assert {
    condition     = aws_ecs_cluster.this.name != ""
    error_message = "Cluster needs a name."
  }
}

output "cluster" {
  value       = aws_ecs_cluster.this.arn
  description = "The cluster."
}
