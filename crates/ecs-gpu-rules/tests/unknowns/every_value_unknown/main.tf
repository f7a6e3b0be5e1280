# Every value a rule reads is a variable without a value: nothing is known, so nothing may be
# reported.
variable "u" {}
variable "n" {}
variable "l" {}

resource "aws_launch_template" "gpu" {
  image_id      = var.u
  instance_type = var.u
  user_data     = var.u
  iam_instance_profile {
    arn = var.u
  }
  metadata_options {
    http_tokens   = var.u
    http_endpoint = var.u
  }
}

resource "aws_autoscaling_group" "gpu" {
  min_size              = var.n
  max_size              = var.n
  desired_capacity      = var.n
  protect_from_scale_in = var.u
  launch_template {
    id      = aws_launch_template.gpu.id
    version = var.u
  }
  instance_refresh {
    strategy = var.u
    preferences {
      instance_warmup              = var.n
      scale_in_protected_instances = var.u
    }
  }
  tag {
    key                 = var.u
    value               = var.u
    propagate_at_launch = var.u
  }
}

resource "aws_ecs_capacity_provider" "gpu" {
  name = var.u
  auto_scaling_group_provider {
    auto_scaling_group_arn         = aws_autoscaling_group.gpu.arn
    managed_termination_protection = var.u
    managed_scaling {
      status = var.u
    }
  }
}

resource "aws_ecs_cluster" "c" {
  name = var.u
}

resource "aws_ecs_cluster_capacity_providers" "c" {
  cluster_name       = aws_ecs_cluster.c.name
  capacity_providers = [aws_ecs_capacity_provider.gpu.name]
}

resource "aws_ecs_task_definition" "t" {
  family                   = var.u
  requires_compatibilities = var.l
  cpu                      = var.u
  memory                   = var.u
  runtime_platform {
    operating_system_family = var.u
  }
  container_definitions = jsonencode([{
    name                 = var.u
    image                = var.u
    memory               = var.n
    cpu                  = var.n
    environment          = var.l
    resourceRequirements = [{ type = "GPU", value = var.u }]
  }])
}

resource "aws_ecs_service" "s" {
  cluster         = aws_ecs_cluster.c.id
  task_definition = aws_ecs_task_definition.t.arn
  desired_count   = var.n
  launch_type     = var.u
  capacity_provider_strategy {
    capacity_provider = var.u
    weight            = var.n
  }
  placement_constraints {
    type       = var.u
    expression = var.u
  }
  lifecycle {
    ignore_changes = []
  }
}

resource "aws_appautoscaling_target" "s" {
  service_namespace  = "ecs"
  scalable_dimension = "ecs:service:DesiredCount"
  resource_id        = "service/${aws_ecs_cluster.c.name}/${aws_ecs_service.s.name}"
  min_capacity       = 1
  max_capacity       = 2
}
