# A caller's root that creates, beside the module call, what it passes in: the VPC's subnets, the
# load balancer, its security group, target group and listener, the image repository and the task
# role. Under a mock provider with no plan-time values, every ID and ARN below is known only after
# apply, as on a first `terraform plan`. The runs of unknown_inputs.tftest.hcl plan this root.

terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

# The tests' mock provider replaces this configuration; scripts/test-e2e.sh merges its own into it.
provider "aws" {}

resource "aws_vpc" "this" {
  cidr_block = "10.0.0.0/16"
}

# Zones that offer g5.xlarge (in the emulator as in us-east-1): the module refuses a group whose
# subnets' zones do not offer its type.
resource "aws_subnet" "private" {
  count             = 2
  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet("10.0.0.0/16", 8, count.index)
  availability_zone = ["us-east-1a", "us-east-1b"][count.index]
}

resource "aws_security_group" "lb" {
  name_prefix = "infer-lb-"
  vpc_id      = aws_vpc.this.id
}

resource "aws_security_group" "instances" {
  name_prefix = "infer-instances-"
  vpc_id      = aws_vpc.this.id
}

resource "aws_lb" "this" {
  name            = "infer"
  subnets         = aws_subnet.private[*].id
  security_groups = [aws_security_group.lb.id]
}

resource "aws_lb_target_group" "this" {
  name        = "infer"
  port        = 8000
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = aws_vpc.this.id
}

resource "aws_lb_listener" "this" {
  load_balancer_arn = aws_lb.this.arn
  port              = 80
  protocol          = "HTTP"

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.this.arn
  }
}

resource "aws_ecr_repository" "this" {
  name = "infer"
}

resource "aws_iam_role" "task" {
  name = "infer-task"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "ecs-tasks.amazonaws.com" } }]
  })
}

variable "network_mode" {
  type    = string
  default = "awsvpc"
}

module "gpu" {
  source = "../.."

  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true

  vpc_id                      = aws_vpc.this.id
  subnet_ids                  = aws_subnet.private[*].id
  instance_security_group_ids = [aws_security_group.instances.id]

  instance_type    = "g5.xlarge"
  task_cpu         = 4096
  task_memory      = 15000
  network_mode     = var.network_mode
  container_image  = "${aws_ecr_repository.this.repository_url}:1"
  task_role_arn    = aws_iam_role.task.arn
  create_task_role = false

  container_port_mappings = [{ container_port = 8000 }]
  load_balancers = {
    public = {
      target_group_arn   = aws_lb_target_group.this.arn
      container_port     = 8000
      listener_arns      = [aws_lb_listener.this.arn]
      security_group_ids = [aws_security_group.lb.id]
    }
  }
  ingress_rules = {
    peers = { description = "from the instances", ip_protocol = "tcp", from_port = 8000, to_port = 8000, referenced_security_group_id = aws_security_group.instances.id }
  }

  desired_count = 1
  max_size      = 2
}

output "placement_expression" {
  value = module.gpu.placement_expression
}
