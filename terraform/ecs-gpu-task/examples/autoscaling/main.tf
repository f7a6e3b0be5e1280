# A GPU service whose task count is owned by Application Auto Scaling (target tracking on the
# service's average CPU), behind an existing Application Load Balancer, in an existing cluster.
# Terraform creates the service with `min_capacity` tasks and then ignores desired_count; ECS
# managed scaling adds and removes g6.xlarge instances to fit the tasks.
#
# The module call has no depends_on: the service waits for the listener rule through
# `load_balancers.listener_arns`, by reference. A depends_on on the module would defer every data
# source inside it whenever the rule changes, so that adding a tag to the rule would plan a new task
# definition (a model reload) and an instance refresh.

terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.100.0, < 7.0"
    }
  }
}

provider "aws" {
  region = var.region
}

resource "aws_lb_target_group" "inference" {
  #checkov:skip=CKV_AWS_378:TLS ends at the load balancer's HTTPS listener (listener_arn); the hop to the task stays inside the VPC, allowed only from the load balancer's security group
  name        = "inference-gpu"
  port        = 8080
  protocol    = "HTTP"
  target_type = "ip" # awsvpc tasks register by IP
  vpc_id      = var.vpc_id
  tags        = var.load_balancer_tags

  health_check {
    path    = "/health"
    matcher = "200"
  }
}

resource "aws_lb_listener_rule" "inference" {
  listener_arn = var.listener_arn
  priority     = 100

  action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.inference.arn
  }

  condition {
    path_pattern {
      values = ["/v1/*"]
    }
  }

  tags = var.load_balancer_tags
}

module "inference" {
  source = "../.."

  name         = "inference-as"
  cluster_name = var.cluster_name
  # The cluster exists and has other capacity providers: keep them by listing them, since the
  # module then owns the whole list. (false would leave the list to you.)
  associate_capacity_provider           = true
  additional_cluster_capacity_providers = var.other_capacity_providers

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g6.xlarge"
  gpu_count     = 1
  task_cpu      = 3584
  task_memory   = 14336

  container_image         = var.image
  container_port_mappings = [{ container_port = 8080 }]
  container_secrets       = var.secrets

  # The target group, the rule that forwards to it (the service waits for it), and the load
  # balancer's security group, allowed into the tasks on 8080.
  load_balancers = {
    inference = {
      target_group_arn   = aws_lb_target_group.inference.arn
      container_port     = 8080
      listener_arns      = [aws_lb_listener_rule.inference.arn]
      security_group_ids = [var.alb_security_group_id]
    }
  }

  # Application Auto Scaling owns desired_count: 1 to 4 tasks, aiming at 60% average CPU.
  autoscaling = {
    min_capacity = 1
    max_capacity = 4
    target_value = 60
  }

  # One instance per task (one GPU each) plus one spare for deployments and refreshes.
  min_size = 0
  max_size = 5

  wait_for_steady_state = true
}
