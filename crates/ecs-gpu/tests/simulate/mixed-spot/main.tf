# Batch embedding on NVIDIA L4 GPUs from three instance types in one group (one L4 each): one
# On-Demand instance as a floor, everything above it Spot. Which type a scale-out gets is the
# allocation strategy's choice.

resource "aws_ecs_cluster" "gpu" {
  name = "gpu-batch"
}

data "aws_ssm_parameter" "ami" {
  name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
}

resource "aws_launch_template" "gpu" {
  name_prefix   = "batch-"
  image_id      = data.aws_ssm_parameter.ami.value
  instance_type = "g6.xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=gpu-batch >> /etc/ecs/ecs.config\necho ECS_ENABLE_SPOT_INSTANCE_DRAINING=true >> /etc/ecs/ecs.config\n")
}

resource "aws_autoscaling_group" "gpu" {
  name                  = "batch"
  min_size              = 0
  max_size              = 4
  vpc_zone_identifier   = ["subnet-0123456789abcdef0"]
  protect_from_scale_in = true

  mixed_instances_policy {
    instances_distribution {
      on_demand_base_capacity                  = 1
      on_demand_percentage_above_base_capacity = 0
      spot_allocation_strategy                 = "price-capacity-optimized"
    }
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.gpu.id
        version            = aws_launch_template.gpu.latest_version
      }
      override {
        instance_type = "g6.xlarge"
      }
      override {
        instance_type = "g6.2xlarge"
      }
      override {
        instance_type = "gr6.4xlarge"
      }
    }
  }
}

resource "aws_ecs_capacity_provider" "gpu" {
  name = "batch"
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

resource "aws_ecs_task_definition" "embed" {
  family                   = "embed"
  requires_compatibilities = ["EC2"]
  cpu                      = "4096"
  memory                   = "15000"
  container_definitions = jsonencode([{
    name                 = "embed"
    image                = "ghcr.io/huggingface/text-embeddings-inference:1.5"
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}

resource "aws_ecs_service" "embed" {
  name            = "embed"
  cluster         = aws_ecs_cluster.gpu.id
  task_definition = aws_ecs_task_definition.embed.arn
  desired_count   = 3
  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.gpu.name
    weight            = 1
  }
}
