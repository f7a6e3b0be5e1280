variable "name" {
  type = string
}

resource "aws_ecs_task_definition" "worker" {
  family                   = var.name
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{
    name                 = "worker"
    image                = "registry.example.com/worker:1"
    memory               = 4096
    resourceRequirements = [{ type = "GPU", value = "1" }]
    environment          = [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = "utility" }]
  }])
}
