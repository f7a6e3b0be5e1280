resource "aws_cloudwatch_log_group" "inference" {
  name              = "/ecs/${var.name}"
  retention_in_days = 30
}

resource "aws_ecs_task_definition" "inference" {
  family                   = var.name
  requires_compatibilities = ["EC2"]
  network_mode             = "awsvpc"
  cpu                      = "4096"
  memory                   = "16384" # "a g5.xlarge has 16 GiB"

  container_definitions = jsonencode([
    {
      name      = "server"
      image     = var.image
      essential = true
      portMappings = [
        { containerPort = 8000, protocol = "tcp" },
      ]
      environment = [
        { name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility" },
      ]
      resourceRequirements = [
        { type = "GPU", value = 1 },
      ]
      logConfiguration = {
        logDriver = "awslogs"
        options = {
          awslogs-group         = aws_cloudwatch_log_group.inference.name
          awslogs-region        = var.region
          awslogs-stream-prefix = "server"
        }
      }
      # Added later, further down, by someone else:
      environment = [
        { name = "MODEL_REPOSITORY", value = "s3://example-models/triton" },
      ]
    },
    {
      name                = "embedder"
      image               = "nvcr.io/nvidia/tritonserver:24.08-py3"
      essential           = false
      resourceRequirement = [{ type = "GPU", value = "1" }]
    },
  ])
}

resource "aws_ecs_service" "inference" {
  name            = var.name
  cluster         = aws_ecs_cluster.gpu.id
  task_definition = aws_ecs_task_definition.inference.arn
  desired_count   = 1

  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.gpu.name
    weight            = 1
  }

  network_configuration {
    subnets = var.subnet_ids
  }

  placement_constraints {
    type       = "memberOf"
    expression = "attribute:ecs.instance-type == g5.xlarge"
  }
}
