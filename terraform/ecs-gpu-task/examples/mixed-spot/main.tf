# Batch embedding on NVIDIA L4 GPUs from three instance types in one group: one On-Demand instance
# as a floor, everything above it Spot, spread by price and capacity over g6.xlarge, g6.2xlarge and
# gr6.4xlarge (one L4 each, so a task fits any of them; the fit checks use the smallest, g6.xlarge).
# When EC2 has no capacity for one type, the group launches another. The agent drains an instance
# on its Spot interruption notice (ECS_ENABLE_SPOT_INSTANCE_DRAINING, set by the module).

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

module "batch" {
  source = "../.."

  name           = "batch"
  cluster_name   = "gpu-batch"
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g6.xlarge"
  mixed_instances = {
    additional_instance_types                = ["g6.2xlarge", "gr6.4xlarge"]
    on_demand_base_capacity                  = 1
    on_demand_percentage_above_base_capacity = 0
    spot_allocation_strategy                 = "price-capacity-optimized"
  }

  gpu_count   = 1
  task_cpu    = 4096  # all of g6.xlarge, the smallest type
  task_memory = 15000 # under the module's limit for g6.xlarge (15153 MiB)

  container_image = var.image # no inbound port: the workers pull their work from a queue

  desired_count = 3
  max_size      = 4
}
