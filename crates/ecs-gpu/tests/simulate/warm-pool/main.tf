# Inference on g5.xlarge with a warm pool of Running instances (they skip the boot of a GPU
# instance, and are billed while they wait), an instance refresh without preferences, and scale-in
# protection for managed termination protection.

resource "aws_ecs_cluster" "gpu" {
  name = "gpu"
}

data "aws_ssm_parameter" "ami" {
  name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
}

resource "aws_launch_template" "gpu" {
  name_prefix   = "gpu-"
  image_id      = data.aws_ssm_parameter.ami.value
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\necho ECS_WARM_POOLS_CHECK=true >> /etc/ecs/ecs.config\n")
}

resource "aws_autoscaling_group" "gpu" {
  name                  = "gpu"
  min_size              = 0
  max_size              = 4
  vpc_zone_identifier   = ["subnet-0123456789abcdef0"]
  protect_from_scale_in = true

  launch_template {
    id      = aws_launch_template.gpu.id
    version = aws_launch_template.gpu.latest_version
  }

  warm_pool {
    pool_state                  = "Running"
    min_size                    = 1
    max_group_prepared_capacity = 4
  }

  instance_refresh {
    strategy = "Rolling"
  }
}

resource "aws_ecs_capacity_provider" "gpu" {
  name = "gpu"
  auto_scaling_group_provider {
    auto_scaling_group_arn         = aws_autoscaling_group.gpu.arn
    managed_termination_protection = "ENABLED"
    managed_scaling {
      status          = "ENABLED"
      target_capacity = 100
    }
  }
}

resource "aws_ecs_cluster_capacity_providers" "gpu" {
  cluster_name       = aws_ecs_cluster.gpu.name
  capacity_providers = [aws_ecs_capacity_provider.gpu.name]
}

resource "aws_ecs_task_definition" "infer" {
  family                   = "infer"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{
    name                 = "infer"
    image                = "vllm/vllm-openai:v0.6.3"
    memory               = 12288
    cpu                  = 2048
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}

resource "aws_ecs_service" "infer" {
  name            = "infer"
  cluster         = aws_ecs_cluster.gpu.id
  task_definition = aws_ecs_task_definition.infer.arn
  desired_count   = 2
  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.gpu.name
    weight            = 1
  }
}
