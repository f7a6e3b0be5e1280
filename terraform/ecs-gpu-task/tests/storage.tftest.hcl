# Model storage: the model cache (root volume or instance store), EFS volumes, the ECS managed EBS
# volume; what is rendered and the refusals. Needs Terraform >= 1.11.

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
  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true

  # Inputs of the submodules, for the runs that plan modules/capacity or modules/service alone (the
  # root ignores them): the root passes the association choice it derives from create_cluster, and
  # the capacity's provider name and group size.
  associate_capacity_provider = true
  capacity_provider_name      = "infer-gpu"
  max_size                    = 2
  vpc_id                      = "vpc-0123456789abcdef0"
  subnet_ids                  = ["subnet-0123456789abcdef0"]
  instance_type               = "g6.12xlarge"
  gpu_count                   = 2
  task_cpu                    = 32768
  task_memory                 = 131072

  container_image       = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
  additional_containers = { second = { image = "vllm:1", gpu_count = 2 }, proxy = { image = "envoy:1" } }
}

run "model_cache_is_mounted_into_the_gpu_containers_only" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    model_cache = {}
  }

  assert {
    condition     = one([for v in aws_ecs_task_definition.this.volume : v.host_path if v.name == "model-cache"]) == "/opt/ecs-gpu/models"
    error_message = "the model cache must be a host-path volume"
  }
  assert {
    condition     = [for c in jsondecode(aws_ecs_task_definition.this.container_definitions) : length(c.mountPoints)] == [1, 0, 1]
    error_message = "the GPU containers mount the cache, the proxy does not"
  }
}

run "model_cache_directory_is_made_on_the_root_volume" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    model_cache = {}
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "mkdir -p /opt/ecs-gpu/models") && !strcontains(base64decode(aws_launch_template.this.user_data), "NVMe")
    error_message = "the user data must create the cache directory on the root volume"
  }
}

run "model_cache_on_instance_store" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    model_cache = { instance_store = true, host_path = "/mnt/models" }
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "Amazon EC2 NVMe Instance Storage") && strcontains(base64decode(aws_launch_template.this.user_data), "cache_dir=/mnt/models")
    error_message = "the user data must format and mount the instance-store disks at the cache path"
  }
}

run "efs_volume_with_access_point_and_iam" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    efs_volumes = {
      weights = { file_system_id = "fs-0123456789abcdef0", access_point_id = "fsap-0123456789abcdef0", container_path = "/weights", read_only = true, containers = ["app", "proxy"] }
    }
  }

  assert {
    condition     = one([for v in aws_ecs_task_definition.this.volume : v.efs_volume_configuration[0].authorization_config[0].iam if v.name == "weights"]) == "ENABLED"
    error_message = "EFS must be mounted with IAM authorization"
  }
  assert {
    condition     = one([for v in aws_ecs_task_definition.this.volume : v.efs_volume_configuration[0].transit_encryption if v.name == "weights"]) == "ENABLED"
    error_message = "EFS transit encryption must be on"
  }
  assert {
    condition     = [for c in jsondecode(aws_ecs_task_definition.this.container_definitions) : length(c.mountPoints)] == [1, 1, 0]
    error_message = "the EFS volume goes to the containers it names"
  }
  assert {
    condition     = length(aws_iam_role_policy.task_efs) == 1
    error_message = "the task role must be allowed to mount the file system"
  }
}

run "managed_ebs_volume" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ebs_volume = { container_path = "/scratch", size_in_gb = 500, infrastructure_role_arn = "arn:aws:iam::123456789012:role/ecs-infra" }
  }

  assert {
    condition     = one([for v in aws_ecs_task_definition.this.volume : v.configure_at_launch if v.name == "scratch"]) == true
    error_message = "the scratch volume must be configured at launch"
  }
  assert {
    condition     = aws_ecs_service.this[0].volume_configuration[0].managed_ebs_volume[0].size_in_gb == 500 && aws_ecs_service.this[0].volume_configuration[0].managed_ebs_volume[0].encrypted == true
    error_message = "the service must carry the managed EBS volume, encrypted"
  }
}

run "model_cache_relative_path" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    model_cache = { container_path = "models" }
  }

  expect_failures = [var.model_cache]
}

run "efs_bad_file_system_id" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    efs_volumes = { w = { file_system_id = "my-fs", container_path = "/w" } }
  }

  expect_failures = [var.efs_volumes]
}

run "efs_bad_access_point" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    efs_volumes = { w = { file_system_id = "fs-0123456789abcdef0", container_path = "/w", access_point_id = "ap-1" } }
  }

  expect_failures = [var.efs_volumes]
}

run "efs_access_point_and_root_directory" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    efs_volumes = { w = { file_system_id = "fs-0123456789abcdef0", container_path = "/w", access_point_id = "fsap-0123456789abcdef0", root_directory = "/x" } }
  }

  expect_failures = [var.efs_volumes]
}

run "efs_names_a_missing_container" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    efs_volumes = { w = { file_system_id = "fs-0123456789abcdef0", container_path = "/w", containers = ["nope"] } }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "ebs_volume_size_zero" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ebs_volume = { container_path = "/scratch", size_in_gb = 0, infrastructure_role_arn = "arn:aws:iam::123456789012:role/ecs-infra" }
  }

  expect_failures = [var.ebs_volume]
}

run "ebs_volume_type_unknown" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ebs_volume = { container_path = "/scratch", size_in_gb = 10, volume_type = "gp4", infrastructure_role_arn = "arn:aws:iam::123456789012:role/ecs-infra" }
  }

  expect_failures = [var.ebs_volume]
}

run "ebs_volume_role_not_an_arn" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ebs_volume = { container_path = "/scratch", size_in_gb = 10, infrastructure_role_arn = "ecs-infra" }
  }

  expect_failures = [var.ebs_volume]
}
