# A platform team's cluster, and a GPU service added to it with the submodules directly: the
# cluster's capacity provider list stays the platform's own resource, and the service takes its
# capacity provider's name from that resource. The reference orders the service after the
# association (no depends_on, no race on the first apply). The task runs with the platform's own
# task role (bring your own), to which the module attaches nothing.

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

module "gpu_capacity" {
  source = "../../../modules/capacity"

  name                        = "embed"
  cluster_name                = var.cluster_name
  associate_capacity_provider = false # the list below is the platform's

  vpc_id        = var.vpc_id
  subnet_ids    = var.private_subnet_ids
  instance_type = "g5.2xlarge"
  max_size      = 3
}

# The cluster's whole capacity provider list, owned here: the platform's providers plus the GPU one.
resource "aws_ecs_cluster_capacity_providers" "platform" {
  cluster_name       = var.cluster_name
  capacity_providers = concat(var.other_capacity_providers, [module.gpu_capacity.capacity_provider_name])
}

module "embeddings" {
  source = "../../../modules/service"

  name         = "embed"
  cluster_name = module.gpu_capacity.cluster_name
  # From the association above: the service is created once the provider is on the cluster.
  capacity_provider_name = one([
    for p in aws_ecs_cluster_capacity_providers.platform.capacity_providers : p
    if p == module.gpu_capacity.capacity_provider_name
  ])
  instance_type = module.gpu_capacity.instance_type
  max_size      = module.gpu_capacity.max_size

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  gpu_count   = 1
  task_cpu    = 4096
  task_memory = 16384

  container_image         = var.image
  container_port_mappings = [{ container_port = 8080, name = "http" }]
  ingress_rules = {
    http = { description = "HTTP from the VPC", from_port = 8080, to_port = 8080, cidr_ipv4 = var.vpc_cidr }
  }

  create_task_role = false
  task_role_arn    = var.task_role_arn

  desired_count = 2
}
