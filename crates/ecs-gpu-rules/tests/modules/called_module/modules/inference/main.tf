# Checked as a root of its own too (nothing says it is not one): the defaults then.
variable "image" {
  type    = string
  default = "registry.example.com/model:1"
}

# Empty: the NVIDIA toolkit's default applies.
variable "capabilities" {
  type    = string
  default = ""
}

resource "aws_ecs_task_definition" "model" {
  family                   = "model"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{
    name                 = "model"
    image                = var.image
    memory               = 4096
    resourceRequirements = [{ type = "GPU", value = "1" }]
    environment          = [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = var.capabilities }]
  }])
}
