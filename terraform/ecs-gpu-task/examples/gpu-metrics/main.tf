# An inference service that scales on its GPUs: the CloudWatch agent on every g6.xlarge publishes
# per-GPU utilization and memory (gpu_metrics), Application Auto Scaling keeps the group's GPUs at 70%
# utilization on average (autoscaling.gpu_metric), and an alarm says when tasks pend while the GPUs
# idle. The instances install the agent from the Amazon Linux package repository and send to
# CloudWatch: the private subnets need a NAT gateway or VPC endpoints for both.

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

module "inference" {
  source = "../.."

  name           = "gpu-scaled"
  cluster_name   = "gpu-scaled"
  create_cluster = true # with Container Insights (the alarm reads its PendingTaskCount)

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g6.xlarge"
  gpu_count     = 1
  task_cpu      = 3584
  task_memory   = 14336

  container_image         = var.image
  container_port_mappings = [{ container_port = 8080 }]

  ingress_rules = {
    http = { description = "HTTP from the VPC", from_port = 8080, to_port = 8080, cidr_ipv4 = var.vpc_cidr }
  }

  gpu_metrics = {
    enabled    = true
    interval   = 60
    idle_alarm = { utilization_threshold = 10, evaluation_periods = 5, alarm_topic_arn = var.alarm_topic_arn }
  }

  # 1 to 4 tasks, aiming at 70% average utilization over the group's GPUs.
  autoscaling = {
    min_capacity = 1
    max_capacity = 4
    target_value = 70
    gpu_metric   = "utilization"
  }

  min_size = 0
  max_size = 5 # one spare instance for deployments and refreshes

  wait_for_steady_state = var.wait_for_steady_state
}
