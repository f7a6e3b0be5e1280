# One g5.xlarge inference service: one NVIDIA A10G per task, one task, in a cluster the module
# creates. Terraform owns the task count.

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

  name           = "inference"
  cluster_name   = "gpu-inference"
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g5.xlarge"
  gpu_count     = 1
  task_cpu      = 4096  # all 4 vCPUs of a g5.xlarge
  task_memory   = 15000 # under the module's limit for g5.xlarge (15153 MiB)

  container_image         = var.image
  container_port_mappings = [{ container_port = 8080, name = "http" }]
  container_health_check = {
    command      = ["CMD-SHELL", "curl -fs http://localhost:8080/health || exit 1"]
    start_period = 300 # model loading
  }

  # Reach the service from inside the VPC only.
  ingress_rules = {
    http = { description = "HTTP from the VPC", from_port = 8080, to_port = 8080, cidr_ipv4 = var.vpc_cidr }
  }

  desired_count = 1
  max_size      = 2 # one spare instance for rolling deployments and instance refreshes

  tags = { project = "inference" }
}
