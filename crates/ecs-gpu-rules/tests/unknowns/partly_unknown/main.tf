# A GPU service whose capacity has one known instance type (g5.xlarge, 1 GPU, 4 vCPUs) and one
# unknown override: the task asks for 4 GPUs, 16 vCPUs and p4d.24xlarge, and requires EC2 and
# an unknown compatibility. The unknown type may have them all, and the unknown compatibility
# may or may not be FARGATE: no finding may depend on them.
variable "u" {}

resource "aws_launch_template" "gpu" {
  image_id      = "ami-0123456789abcdef0"
  instance_type = "g5.xlarge"
  iam_instance_profile {
    name = "x"
  }
}

resource "aws_autoscaling_group" "gpu" {
  min_size = 0
  max_size = 2
  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.gpu.id
        version            = aws_launch_template.gpu.latest_version
      }
      override {
        instance_type = "g5.xlarge"
      }
      override {
        instance_type = var.u
      }
    }
  }
}

resource "aws_ecs_capacity_provider" "gpu" {
  name = "gpu"
  auto_scaling_group_provider {
    auto_scaling_group_arn = aws_autoscaling_group.gpu.arn
    managed_scaling {
      status = "ENABLED"
    }
  }
}

resource "aws_ecs_cluster" "c" {
  name = "c"
}

resource "aws_ecs_task_definition" "t" {
  family                   = "t"
  requires_compatibilities = ["EC2", var.u]
  cpu                      = "16384"
  memory                   = "65536"
  container_definitions = jsonencode([{
    name                 = "m"
    image                = "nvcr.io/nvidia/tritonserver:24.08-py3"
    memory               = 65536
    resourceRequirements = [{ type = "GPU", value = "4" }]
  }])
}

resource "aws_ecs_service" "s" {
  cluster         = aws_ecs_cluster.c.id
  task_definition = aws_ecs_task_definition.t.arn
  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.gpu.name
    weight            = 1
  }
  placement_constraints {
    type       = "memberOf"
    expression = "attribute:ecs.instance-type == p4d.24xlarge"
  }
}
