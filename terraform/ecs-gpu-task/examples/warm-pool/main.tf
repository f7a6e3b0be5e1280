# An inference service whose scale-out skips the boot of a GPU instance: a warm pool keeps one
# g6e.xlarge (NVIDIA L40S) booted and stopped, so a new instance is in service in about the time
# it takes to start. The module writes ECS_WARM_POOLS_CHECK=true into the user data, so an
# instance in the pool does not register with the cluster before it is placed in service.

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

  name           = "chat"
  cluster_name   = "gpu-chat"
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g6e.xlarge"
  warm_pool = {
    pool_state = "Stopped"
    min_size   = 1
  }

  gpu_count   = 1
  task_cpu    = 4096
  task_memory = 28000

  # The cache on the root volume survives the stop in the pool (an instance-store cache would not).
  model_cache          = {}
  root_volume_size_gib = 200

  container_image         = var.image
  container_port_mappings = [{ container_port = 8000, name = "http" }]
  ingress_rules = {
    http = { description = "HTTP from the VPC", from_port = 8000, to_port = 8000, cidr_ipv4 = var.vpc_cidr }
  }

  desired_count = 1
  max_size      = 3
}
