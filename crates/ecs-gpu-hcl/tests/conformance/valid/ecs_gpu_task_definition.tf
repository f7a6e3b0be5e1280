terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "image" {
  type    = string
  default = "nvcr.io/nvidia/tritonserver:24.08-py3"
}

variable "gpu_count" {
  type    = number
  default = 1
}

data "aws_ssm_parameter" "ecs_gpu_ami" {
  name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
}

resource "aws_ecs_cluster" "gpu" {
  name = "gpu-inference"
}

resource "aws_launch_template" "gpu" {
  name_prefix   = "gpu-"
  image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
  instance_type = "g5.xlarge"

  metadata_options {
    http_tokens = "required"
  }

  user_data = base64encode(<<-EOT
    #!/bin/bash
    cat <<'EOF' >> /etc/ecs/ecs.config
    ECS_CLUSTER=${aws_ecs_cluster.gpu.name}
    ECS_ENABLE_GPU_SUPPORT=true
    EOF
  EOT
  )
}

resource "aws_ecs_task_definition" "inference" {
  family                   = "inference"
  requires_compatibilities = ["EC2"]
  network_mode             = "awsvpc"
  cpu                      = 4096
  memory                   = 15000

  container_definitions = jsonencode([
    {
      name      = "triton"
      image     = var.image
      essential = true
      cpu       = 4096
      memory    = 15000
      # a public example does this: the empty list is silently replaced by the second one
      environment = []
      portMappings = [
        { containerPort = 8000, protocol = "tcp" },
        { containerPort = 8001, protocol = "tcp" },
      ]
      environment = [
        { name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility" },
        { name = "MODEL_REPOSITORY", value = "s3://models/triton" },
      ]
      resourceRequirements = [
        { type = "GPU", value = tostring(var.gpu_count) },
      ]
      command = ["tritonserver", "--model-repository=/models"]
      logConfiguration = {
        logDriver = "awslogs"
        options = {
          "awslogs-group"         = "/ecs/inference"
          "awslogs-region"        = "us-east-1"
          "awslogs-stream-prefix" = "triton"
        }
      }
    }
  ])

  placement_constraints {
    type       = "memberOf"
    expression = "attribute:ecs.instance-type =~ g5.*"
  }
}

resource "aws_ecs_service" "inference" {
  name            = "inference"
  cluster         = aws_ecs_cluster.gpu.id
  task_definition = aws_ecs_task_definition.inference.arn
  desired_count   = 1

  lifecycle {
    ignore_changes = [desired_count]
  }
}
