# One inference service on ECS Managed Instances: one NVIDIA GPU per task, on a g6.xlarge (L4) or,
# when EC2 has none, a g5.xlarge (A10G). AWS launches, patches and replaces the instances; the
# module chooses which types they may be. The cluster is created here.

terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.66.0, < 7.0"
    }
  }
}

provider "aws" {
  region = var.region
}

module "inference" {
  source = "../.."

  name           = "inference"
  cluster_name   = "gpu-inference"
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  # Both have one NVIDIA GPU, 4 vCPUs and 16 GiB.
  instance_types = ["g6.xlarge", "g5.xlarge"]
  gpu_count      = 1
  task_cpu       = 4096  # all 4 vCPUs
  task_memory    = 15000 # under the module's limit for both types (15153 MiB)

  container_image         = var.image
  container_port_mappings = [{ container_port = 8080, name = "http" }]

  # Reach the service from inside the VPC only.
  ingress_rules = {
    http = { description = "HTTP from the VPC", from_port = 8080, to_port = 8080, cidr_ipv4 = var.vpc_cidr }
  }

  desired_count = 1

  tags = { project = "inference" }
}
