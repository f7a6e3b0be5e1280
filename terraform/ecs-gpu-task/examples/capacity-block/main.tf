# A training service on a Capacity Block for ML: p5.48xlarge instances (8 NVIDIA H100 each) that
# exist only between the block's start and end. The launch template launches into the block (market
# type capacity-block, the block's reservation ID); the group's subnets must be in the block's
# Availability Zone. With EFA the instances also share a cluster placement group. Before the start, launches fail for lack of capacity and ECS managed scaling
# retries; about 30 minutes before the end, EC2 terminates the instances (see the module README).

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

module "train" {
  source = "../.."

  name           = "train"
  cluster_name   = "gpu-train"
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = [var.block_subnet_id]

  instance_type = "p5.48xlarge"
  capacity_reservation = {
    capacity_block          = true
    capacity_reservation_id = var.capacity_block_id
  }

  # Multi-node training: an Elastic Fabric Adapter per instance, in a cluster placement group
  # (one EFA interface of the p5.48xlarge's 32; see the module README).
  efa = true

  gpu_count   = 8
  task_cpu    = 184320  # 180 of the 192 vCPUs
  task_memory = 1800000 # MiB, under the module's limit for p5.48xlarge

  container_image = var.image

  desired_count = var.block_instance_count
  max_size      = var.block_instance_count # the block holds no more

  # No room for a new task beside the old ones in a full block: a deployment stops the old tasks
  # first (the module refuses 100 %, which could never start a new task).
  deployment_minimum_healthy_percent = 0
  deployment_maximum_percent         = 100
}
