# Four small inference tasks sharing the one NVIDIA L40S of a g6e.xlarge with NVIDIA MPS: each task
# pins 11264 MiB of the GPU's memory and at most a quarter of its threads. The AL2023 GPU AMI runs
# nvidia-mps.service from release 20260721 (the catalog's recommended parameter follows it).

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

module "embeddings" {
  source = "../.."

  name           = "embeddings"
  cluster_name   = "gpu-shared"
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g6e.xlarge"
  # No gpu_count: the task asks for a share of one GPU, not for whole GPUs.
  mps         = { memory_mib = 11264, max_compute_percent = 25 }
  task_cpu    = 1024 # a quarter of the 4 vCPUs
  task_memory = 7168 # four tasks fit the module's limit for g6e.xlarge

  container_image         = var.image
  container_port_mappings = [{ container_port = 8080, name = "http" }]

  ingress_rules = {
    http = { description = "HTTP from the VPC", from_port = 8080, to_port = 8080, cidr_ipv4 = var.vpc_cidr }
  }

  desired_count = 4
  max_size      = 2

  tags = { project = "embeddings" }
}
