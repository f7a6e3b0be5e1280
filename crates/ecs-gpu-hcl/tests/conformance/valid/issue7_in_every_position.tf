terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "services" {
  type = map(object({ gpus = number }))
  default = {
    # a duplicate key in a variable default: the last one wins
    infer = { gpus = 1, gpus = 2 }
  }
}

locals {
  gpu_flags = { for k, v in var.services : k =>
    v.gpus > 0 &&
    v.gpus < 8
  }
  sizes = { for k, v in var.services : k =>
    v.gpus > 4
    ? "large"
    : "small"
  }
}

resource "aws_ecs_task_definition" "this" {
  family = "issue7"
  # a resource argument holding both constructs
  tags = merge({ a = "1", a = "2" }, { for k, v in var.services : k =>
    v.gpus > 1
    ? "multi"
    : "single"
  })

  container_definitions = jsonencode([for k, v in var.services : {
    name        = k
    image       = "nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    essential   = true
    memory      = 1024
    environment = []
    environment = [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility" }]
    resourceRequirements = [{ type = "GPU", value = tostring(
      v.gpus > 0
      ? v.gpus
      : 1
    ) }]
  }])
}

output "flags" {
  value = { for k, v in local.gpu_flags : k =>
    v
    ? "gpu"
    : "cpu"
  }
}
