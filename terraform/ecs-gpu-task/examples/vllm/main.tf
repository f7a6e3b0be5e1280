# Two vLLM servers in one task on a g6.12xlarge (4 NVIDIA L4): each serves the model with tensor
# parallelism over 2 GPUs (2 + 2 = the instance's 4), with 16 GiB of /dev/shm for NCCL, memlock
# unlimited, and one model cache on the instance that both read (weights are downloaded once per
# instance, not at every task start). A sidecar without GPUs could be added the same way, with
# gpu_count = 0.

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

locals {
  # vLLM's OpenAI-compatible server; HF_HOME puts the Hugging Face cache on the model cache.
  vllm_environment = { HF_HOME = "/models/huggingface" }
  vllm_command     = ["--model", var.model, "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.90"]
}

module "vllm" {
  source = "../.."

  name           = "vllm"
  cluster_name   = var.cluster_name
  create_cluster = true

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type        = "g6.12xlarge"
  root_volume_size_gib = 300 # the image plus the weights of the model cache
  task_cpu             = 46080
  task_memory          = 184320

  # The first server (GPUs 2 of 4), port 8000.
  container_name          = "vllm-a"
  container_image         = var.image
  gpu_count               = 2
  container_command       = concat(local.vllm_command, ["--port", "8000"])
  container_environment   = local.vllm_environment
  container_port_mappings = [{ container_port = 8000, name = "vllm-a" }]
  container_health_check = {
    command      = ["CMD-SHELL", "curl -fs http://localhost:8000/health || exit 1"]
    start_period = 300
  }

  # The second server (the other 2 GPUs), port 8001, with the same settings.
  additional_containers = {
    vllm-b = {
      image         = var.image
      gpu_count     = 2
      memory        = 92160
      command       = concat(local.vllm_command, ["--port", "8001"])
      environment   = local.vllm_environment
      port_mappings = [{ container_port = 8001, name = "vllm-b" }]
      health_check  = { command = ["CMD-SHELL", "curl -fs http://localhost:8001/health || exit 1"], start_period = 300 }
    }
  }

  # NCCL between the two GPUs of each server needs more than Docker's 64 MiB of /dev/shm.
  linux_parameters = { shared_memory_size = 16384 }
  stop_timeout     = 120 # drain in-flight requests

  model_cache = { host_path = "/opt/ecs-gpu/models", container_path = "/models" }

  ingress_rules = {
    vllm = { description = "vLLM from the VPC", from_port = 8000, to_port = 8001, cidr_ipv4 = var.vpc_cidr }
  }

  desired_count = 1
  max_size      = 2 # one spare instance for rolling deployments and instance refreshes

  tags = { project = "vllm" }
}
