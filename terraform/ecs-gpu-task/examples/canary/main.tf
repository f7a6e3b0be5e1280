# A canary deployment of a GPU service, native to ECS (hashicorp/aws >= 6.21.0): ECS starts the new
# revision at full size beside the old one, sends it 10 % of the traffic for 10 minutes, then all of
# it, and keeps the old revision for 15 more minutes before it stops it. Both revisions run at once,
# so the capacity must hold twice the service's GPUs: the module refuses a max_size that cannot.
#
# The root module stays usable with hashicorp/aws 5.x and has no native deployments: this example
# calls the submodules, with modules/service-v6.

terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.21.0, < 7.0"
    }
  }
}

provider "aws" {
  region = var.region
}

module "cluster" {
  source = "../../../modules/cluster"

  name               = "gpu-canary"
  capacity_providers = [module.capacity.capacity_provider_name]
}

module "capacity" {
  source = "../../../modules/capacity"

  name                        = "chat"
  cluster_name                = module.cluster.name
  associate_capacity_provider = false

  vpc_id        = var.vpc_id
  subnet_ids    = var.private_subnet_ids
  instance_type = "g6e.xlarge" # 1 x L40S

  # Two tasks, and a canary deployment runs both revisions at full size: 2 x 2 instances.
  min_size = 2
  max_size = 4
}

# The two target groups ECS shifts the traffic between, and the listener rule it rewrites.
resource "aws_lb_target_group" "chat" {
  #checkov:skip=CKV_AWS_378:TLS ends at the load balancer's HTTPS listener (listener_arn); the hop to the task stays inside the VPC, allowed only from the load balancer's security group
  for_each = toset(["blue", "green"])

  name        = "chat-${each.key}"
  port        = 8000
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = var.vpc_id

  health_check {
    path    = "/health"
    matcher = "200"
  }
}

resource "aws_lb_listener_rule" "chat" {
  listener_arn = var.listener_arn
  priority     = 120

  action {
    type = "forward"
    forward {
      target_group {
        arn    = aws_lb_target_group.chat["blue"].arn
        weight = 100
      }
      target_group {
        arn    = aws_lb_target_group.chat["green"].arn
        weight = 0
      }
    }
  }

  condition {
    path_pattern {
      values = ["/chat/*"]
    }
  }

  # ECS moves the weights during a deployment.
  lifecycle {
    ignore_changes = [action]
  }
}

# The role ECS uses to rewrite the listener rule, with the AWS managed policy for it ("Amazon ECS
# infrastructure IAM role for load balancers", ECS Developer Guide).
resource "aws_iam_role" "load_balancers" {
  name_prefix = "chat-ecs-lb-"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "ecs.amazonaws.com" } }]
  })
}

resource "aws_iam_role_policy_attachment" "load_balancers" {
  role       = aws_iam_role.load_balancers.name
  policy_arn = "arn:aws:iam::aws:policy/AmazonECSInfrastructureRolePolicyForLoadBalancers"
}

module "service" {
  source = "../../../modules/service-v6"

  name         = "chat"
  cluster_name = module.capacity.cluster_name
  capacity_provider_name = one([
    for p in module.cluster.capacity_providers : p if p == module.capacity.capacity_provider_name
  ])
  instance_type               = module.capacity.instance_type
  max_size                    = module.capacity.max_size
  capacity_availability_zones = module.capacity.availability_zones

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  gpu_count               = 1
  task_cpu                = 4096
  task_memory             = 30720
  container_image         = var.image
  container_port_mappings = [{ container_port = 8000, name = "http", app_protocol = "http" }]

  load_balancers = {
    chat = {
      target_group_arn   = aws_lb_target_group.chat["blue"].arn
      container_port     = 8000
      listener_arns      = [aws_lb_listener_rule.chat.arn]
      security_group_ids = [var.alb_security_group_id]
      advanced_configuration = {
        alternate_target_group_arn = aws_lb_target_group.chat["green"].arn
        production_listener_rule   = aws_lb_listener_rule.chat.arn
        role_arn                   = aws_iam_role.load_balancers.arn
      }
    }
  }

  deployment_strategy = {
    strategy             = "CANARY"
    bake_time_in_minutes = 15
    canary               = { percent = 10, bake_time_in_minutes = 10 }
  }

  desired_count = 2
}
