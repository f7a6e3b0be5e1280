# What modules/service-v6 brings to Managed Instances through the pass-through inputs (load
# balancers, health check, secrets, autoscaling, shared memory and ulimits, volumes, more containers,
# native deployments), and the capacity's Spot and Capacity Reservations. Needs Terraform >= 1.11.
mock_provider "aws" {
  override_during = plan

  mock_data "aws_region" {
    defaults = { region = "us-east-1", endpoint = "ec2.us-east-1.amazonaws.com" }
  }
  mock_data "aws_partition" {
    defaults = { partition = "aws" }
  }
  mock_data "aws_caller_identity" {
    defaults = { account_id = "123456789012" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/ecsInstanceRole-infer-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/ecsInstanceRole-infer-1" }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3" }
  }
}

variables {
  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true
  vpc_id         = "vpc-0123456789abcdef0"
  subnet_ids     = ["subnet-0123456789abcdef0"]
  instance_types = ["g6.12xlarge", "g5.12xlarge"]
  gpu_count      = 4
  task_cpu       = 46080
  task_memory    = 184320

  container_image         = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
  container_port_mappings = [{ container_port = 8000, name = "openai", app_protocol = "http" }]
}

run "the_service_side_of_modules_service_reaches_managed_instances" {
  command = plan

  variables {
    container_secrets      = { HF_TOKEN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf" }
    container_health_check = { command = ["CMD-SHELL", "curl -f http://localhost:8000/health || exit 1"], start_period = 300 }
    linux_parameters       = { shared_memory_size = 32768 }
    ulimits                = [{ name = "memlock", soft_limit = -1, hard_limit = -1 }, { name = "nofile", soft_limit = 65536, hard_limit = 65536 }]
    efs_volumes            = { weights = { file_system_id = "fs-0123456789abcdef0", container_path = "/models", read_only = true } }
    additional_containers  = { metrics-exporter = { image = "public.ecr.aws/example/exporter:1", memory = 512, linux_parameters = {} } }
    load_balancers = {
      public = {
        target_group_arn   = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm/0123456789abcdef"
        container_port     = 8000
        listener_arns      = ["arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/web/0123456789abcdef/0123456789abcdef"]
        security_group_ids = ["sg-0aaaaaaaaaaaaaaaa"]
      }
    }
    autoscaling = { min_capacity = 1, max_capacity = 3, target_value = 100, predefined_metric_type = "ALBRequestCountPerTarget", resource_label = "app/web/0123456789abcdef/targetgroup/vllm/0123456789abcdef" }
  }

  assert {
    condition     = jsondecode(output.container_definitions)[0].secrets == [{ name = "HF_TOKEN", valueFrom = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf" }]
    error_message = "secrets reach the GPU container"
  }
  assert {
    condition     = jsondecode(output.container_definitions)[0].healthCheck.startPeriod == 300 && jsondecode(output.container_definitions)[0].linuxParameters.sharedMemorySize == 32768
    error_message = "the health check and /dev/shm reach the GPU container"
  }
  assert {
    condition     = contains(jsondecode(output.container_definitions)[0].ulimits, { name = "nofile", softLimit = 65536, hardLimit = 65536 })
    error_message = "ulimits reach the GPU container"
  }
  assert {
    condition     = jsondecode(output.container_definitions)[0].mountPoints == [{ sourceVolume = "weights", containerPath = "/models", readOnly = true }]
    error_message = "the EFS volume is mounted into the GPU container"
  }
  assert {
    condition     = [for c in jsondecode(output.container_definitions) : c.name] == ["app", "metrics-exporter"]
    error_message = "more containers reach the task"
  }
  assert {
    condition     = output.desired_count_owner == "application-autoscaling" && output.deployment_capacity.deploy_count == 3
    error_message = "Application Auto Scaling owns the count, and the deployment is sized at its max_capacity"
  }
}

run "native_canary_deployments_on_managed_instances" {
  command = plan

  variables {
    desired_count = 2
    load_balancers = {
      public = {
        target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-blue/0123456789abcdef"
        container_port   = 8000
        advanced_configuration = {
          alternate_target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-green/0123456789abcdef"
          production_listener_rule   = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener-rule/app/web/0123456789abcdef/0123456789abcdef/0123456789abcdef"
          role_arn                   = "arn:aws:iam::123456789012:role/ecs-load-balancers"
        }
      }
    }
    deployment_strategy = { strategy = "CANARY", canary = { percent = 10, bake_time_in_minutes = 5 } }
  }

  assert {
    condition     = output.deployment_capacity.strategy == "CANARY" && output.deployment_capacity.needed_tasks == 4
    error_message = "the canary strategy reaches the service (modules/service-v6), both revisions at full size"
  }
}

run "spot_instances" {
  command = plan

  variables {
    capacity_option_type = "SPOT"
  }

  assert {
    condition     = aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].capacity_option_type == "SPOT"
    error_message = "the capacity provider buys Spot instances"
  }
}

run "capacity_reservations" {
  command = plan

  variables {
    capacity_option_type  = "RESERVED"
    capacity_reservations = { reservation_group_arn = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcr" }
  }

  assert {
    condition = (
      aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].capacity_option_type == "RESERVED" &&
      aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].capacity_reservations[0].reservation_group_arn == "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcr" &&
      aws_ecs_capacity_provider.this.managed_instances_provider[0].instance_launch_template[0].capacity_reservations[0].reservation_preference == "RESERVATIONS_ONLY"
    )
    error_message = "the instances launch into the reservations only, by default"
  }
}

run "reserved_needs_its_reservations" {
  command = plan

  variables {
    capacity_option_type = "RESERVED"
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}

run "reservations_without_reserved_are_refused" {
  command = plan

  variables {
    capacity_reservations = { reservation_group_arn = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcr" }
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}

run "an_unknown_capacity_option_is_refused" {
  command = plan

  variables {
    capacity_option_type = "CAPACITY_BLOCK"
  }

  expect_failures = [var.capacity_option_type]
}
