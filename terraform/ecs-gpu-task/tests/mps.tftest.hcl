# NVIDIA MPS sharing (`mps`): the GPU requirement it renders, the tasks an instance then holds, and
# the refusals of what ECS refuses (ECS-GPU-SPEC, BOTO `ResourceRequirement`, `NvidiaMpsAllocation`).
# Needs Terraform >= 1.11.

mock_provider "aws" {
  override_during = plan

  mock_data "aws_ssm_parameter" {
    defaults = { value = "ami-0123456789abcdef0", arn = "arn:aws:ssm:us-east-1::parameter/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id" }
  }
  mock_data "aws_region" {
    defaults = { endpoint = "ec2.us-east-1.amazonaws.com" }
  }
  mock_data "aws_partition" {
    defaults = { partition = "aws" }
  }
  mock_data "aws_caller_identity" {
    defaults = { account_id = "123456789012" }
  }
  mock_resource "aws_launch_template" {
    defaults = { id = "lt-0123456789abcdef0", latest_version = 7 }
  }
  mock_resource "aws_autoscaling_group" {
    defaults = { arn = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:uuid:autoScalingGroupName/infer-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/infer-instance-1" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/infer-role-1" }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3", revision = 3 }
  }
  mock_resource "aws_ecs_service" {
    defaults = { id = "arn:aws:ecs:us-east-1:123456789012:service/gpu/infer" }
  }
}

variables {
  name                   = "infer"
  cluster_name           = "gpu"
  create_cluster         = true
  capacity_provider_name = "infer-gpu"
  max_size               = 2
  vpc_id                 = "vpc-0123456789abcdef0"
  subnet_ids             = ["subnet-0123456789abcdef0"]
  instance_type          = "g6.12xlarge"
  task_cpu               = 4096
  task_memory            = 16384
  mps                    = { memory_mib = 8192, max_compute_percent = 50 }

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
}

run "mps_renders_a_sharing_strategy_and_no_value" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].resourceRequirements == [{ type = "GPU", sharingStrategy = { nvidiaMps = { memory = 8192, maxComputePercent = 50 } } }]
    error_message = "with mps the GPU requirement must be a sharing strategy with the memory and compute share, and no value"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].environment == [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = "utility,compute" }]
    error_message = "an MPS container is a GPU container: it must get NVIDIA_DRIVER_CAPABILITIES"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].linuxParameters.sharedMemorySize == 4096
    error_message = "an MPS container is a GPU container: it must get a quarter of the task memory as /dev/shm"
  }
  # 4 GPUs x floor(22888 / 8192) = 8 by GPU memory; 12 by CPU units; 11 by memory.
  assert {
    condition     = output.tasks_per_instance == 8
    error_message = "an instance must hold, per GPU, as many MPS tasks as their GPU memory fits, bounded by CPU and memory"
  }
  assert {
    condition     = output.task_gpus == 0
    error_message = "an MPS task reserves no whole GPU"
  }
}

run "mps_without_a_compute_share_renders_only_the_memory" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    mps = { memory_mib = 22888 }
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].resourceRequirements == [{ type = "GPU", sharingStrategy = { nvidiaMps = { memory = 22888 } } }]
    error_message = "without max_compute_percent the sharing strategy must carry only the memory (a GPU's whole memory fits)"
  }
}

run "the_root_module_passes_mps_to_the_task" {
  command = plan

  assert {
    condition     = jsondecode(module.service.container_definitions)[0].resourceRequirements[0].sharingStrategy.nvidiaMps.memory == 8192
    error_message = "the root module must pass mps to the service's task definition"
  }
}

run "mps_memory_must_be_at_least_one_mib" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    mps = { memory_mib = 0 }
  }

  expect_failures = [var.mps]
}

run "mps_compute_percent_must_be_1_to_100" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    mps = { memory_mib = 4096, max_compute_percent = 101 }
  }

  expect_failures = [var.mps]
}

run "mps_and_a_gpu_count_together" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count = 2
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "mps_beside_a_container_with_whole_gpus" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = {
      trainer = { image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1", gpu_count = 1 }
    }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "mps_memory_larger_than_one_gpu" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    mps = { memory_mib = 22889 }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "mps_on_a_fractional_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type = "g6f.large"
    task_cpu      = 1024
    task_memory   = 2048
    mps           = { memory_mib = 1024 }
  }

  expect_failures = [aws_ecs_task_definition.this]
}
