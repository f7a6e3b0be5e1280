# Container settings and several containers per task: what the task definition renders, and the
# refusals of settings ECS would reject or that would never be placed. Needs Terraform >= 1.11.

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
  gpu_count                   = 4
  task_cpu                    = 32768
  task_memory                 = 131072

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
}

run "gpu_container_gets_shared_memory_memlock_and_init_by_default" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].linuxParameters.sharedMemorySize == 32768
    error_message = "a GPU container must get a quarter of the task memory as /dev/shm by default"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].linuxParameters.initProcessEnabled == true
    error_message = "the init process must be on by default"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].ulimits == [{ name = "memlock", softLimit = -1, hardLimit = -1 }]
    error_message = "memlock must be unlimited by default"
  }
  assert {
    condition     = aws_ecs_task_definition.this.ipc_mode == null
    error_message = "ipc_mode must stay unset by default"
  }
}

run "container_settings_are_passed_through" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    linux_parameters       = { shared_memory_size = 16384, init_process_enabled = false, capabilities = { add = ["IPC_LOCK"] } }
    ulimits                = [{ name = "memlock", soft_limit = -1, hard_limit = -1 }, { name = "nofile", soft_limit = 65536, hard_limit = 65536 }]
    ipc_mode               = "task"
    stop_timeout           = 120
    docker_labels          = { team = "ml" }
    repository_credentials = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ngc-AbCdEf"
    container_command      = ["--model", "m", "--tensor-parallel-size", "4"]
    container_entry_point  = ["vllm", "serve"]
    enable_execute_command = true
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].linuxParameters == { initProcessEnabled = false, sharedMemorySize = 16384, capabilities = { add = ["IPC_LOCK"], drop = [] } }
    error_message = "linux_parameters must be rendered as given"
  }
  assert {
    condition     = length(jsondecode(aws_ecs_task_definition.this.container_definitions)[0].ulimits) == 2 && aws_ecs_task_definition.this.ipc_mode == "task"
    error_message = "ulimits and ipc_mode must be rendered as given"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].stopTimeout == 120 && jsondecode(aws_ecs_task_definition.this.container_definitions)[0].dockerLabels == { team = "ml" }
    error_message = "stop_timeout and docker_labels must be rendered"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].repositoryCredentials.credentialsParameter == "arn:aws:secretsmanager:us-east-1:123456789012:secret:ngc-AbCdEf"
    error_message = "repository_credentials must be rendered"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].entryPoint == ["vllm", "serve"] && length(jsondecode(aws_ecs_task_definition.this.container_definitions)[0].command) == 4
    error_message = "command and entry_point must be rendered"
  }
  assert {
    condition     = length(aws_iam_role_policy.execution_secrets) == 1
    error_message = "the execution role must be allowed to read the registry credentials"
  }
  assert {
    condition     = length(aws_iam_role_policy.task_exec) == 1
    error_message = "ECS Exec must grant the task role the ssmmessages channels"
  }
}

run "no_ecs_exec_permission_without_ecs_exec" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = length(aws_iam_role_policy.task_exec) == 0
    error_message = "the ssmmessages permissions must be granted only with enable_execute_command"
  }
}

run "two_plus_two_gpus_fit_a_four_gpu_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count = 2
    additional_containers = {
      second  = { image = "vllm:1", gpu_count = 2, memory = 32768 }
      metrics = { image = "exporter:1", essential = false, cpu = 256, memory = 512 }
    }
  }

  assert {
    condition     = [for c in jsondecode(aws_ecs_task_definition.this.container_definitions) : c.resourceRequirements] == [[{ type = "GPU", value = "2" }], [], [{ type = "GPU", value = "2" }]]
    error_message = "each container must carry its own GPU share as a string, the sidecar none"
  }
  assert {
    condition     = output.task_gpus == 4 && output.tasks_per_instance == 1
    error_message = "the task's GPUs are the sum over its containers"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[2].linuxParameters.sharedMemorySize == 8192
    error_message = "an additional GPU container gets a quarter of its own memory as /dev/shm"
  }
  assert {
    condition     = !can(jsondecode(aws_ecs_task_definition.this.container_definitions)[1].linuxParameters.sharedMemorySize)
    error_message = "a container without GPUs keeps Docker's /dev/shm"
  }
}

run "an_additional_container_with_linux_parameters_and_no_shared_memory_size" {
  # Regression: the validation compared a null size with || (which evaluates both sides) and refused it.
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    linux_parameters      = { shared_memory_size = 4096 }
    additional_containers = { exporter = { image = "exporter:1", memory = 512, linux_parameters = { init_process_enabled = false } } }
  }

  assert {
    condition     = !can(jsondecode(aws_ecs_task_definition.this.container_definitions)[1].linuxParameters.sharedMemorySize) && jsondecode(aws_ecs_task_definition.this.container_definitions)[1].linuxParameters.initProcessEnabled == false
    error_message = "the exporter keeps its own Linux parameters, without the GPU container's /dev/shm"
  }
}

run "tasks_per_instance_is_the_least_over_gpus_cpu_and_memory" {
  command = plan

  variables {
    gpu_count   = 1
    task_cpu    = 16384
    task_memory = 8192
  }

  assert {
    condition     = output.tasks_per_instance == 3
    error_message = "4 GPUs allow 4 tasks but 48 vCPUs allow 3 of 16 vCPUs: tasks_per_instance must be 3"
  }
}

run "three_plus_two_gpus_do_not_fit_a_four_gpu_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count             = 3
    additional_containers = { second = { image = "vllm:1", gpu_count = 2 } }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "two_fractions_on_a_fractional_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type         = "g6f.large"
    gpu_count             = 0.125
    task_cpu              = 1024
    task_memory           = 4096
    additional_containers = { second = { image = "x:1", gpu_count = 0.125 } }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "duplicate_container_names" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { app = { image = "x:1" } }
    gpu_count             = 1
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "containers_cpu_above_task_cpu" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { side = { image = "x:1", cpu = 40000 } }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "containers_memory_above_task_memory" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { side = { image = "x:1", memory = 200000 } }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "shared_memory_above_the_memory" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    linux_parameters = { shared_memory_size = 200000 }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "shared_memory_with_host_ipc" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ipc_mode         = "host"
    linux_parameters = { shared_memory_size = 1024 }
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "shared_memory_must_be_whole" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    linux_parameters = { shared_memory_size = 0.5 }
  }

  expect_failures = [var.linux_parameters]
}

run "capability_with_cap_prefix" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    linux_parameters = { capabilities = { add = ["CAP_IPC_LOCK"] } }
  }

  expect_failures = [var.linux_parameters]
}

run "unknown_ulimit" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ulimits = [{ name = "memlok", soft_limit = -1, hard_limit = -1 }]
  }

  expect_failures = [var.ulimits]
}

run "ulimit_soft_above_hard" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ulimits = [{ name = "nofile", soft_limit = 70000, hard_limit = 65536 }]
  }

  expect_failures = [var.ulimits]
}

run "ulimit_named_twice" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ulimits = [{ name = "nofile", soft_limit = 1, hard_limit = 2 }, { name = "nofile", soft_limit = 1, hard_limit = 2 }]
  }

  expect_failures = [var.ulimits]
}

run "unknown_ipc_mode" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ipc_mode = "shareable"
  }

  expect_failures = [var.ipc_mode]
}

run "negative_stop_timeout" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    stop_timeout = -1
  }

  expect_failures = [var.stop_timeout]
}

run "empty_docker_label_name" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    docker_labels = { "" = "x" }
  }

  expect_failures = [var.docker_labels]
}

run "repository_credentials_must_be_a_secret_arn" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    repository_credentials = "arn:aws:ssm:us-east-1:123456789012:parameter/ngc"
  }

  expect_failures = [var.repository_credentials]
}

run "additional_container_bad_name" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { "a b" = { image = "x:1" } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_bad_gpu_count" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", gpu_count = 1.5 } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_negative_cpu" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", cpu = -1 } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_reservation_above_memory" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", memory = 100, memory_reservation = 200 } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_bad_depends_on" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", depends_on = [{ container_name = "app", condition = "READY" }] } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_sets_visible_devices" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", environment = { NVIDIA_VISIBLE_DEVICES = "0" } } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_bad_secret" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", secrets = { T = "token" } } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_bad_health_check" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", health_check = { command = ["curl"] } } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_bad_ulimit" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", ulimits = [{ name = "files", soft_limit = 1, hard_limit = 1 }] } }
  }

  expect_failures = [var.additional_containers]
}

run "additional_container_bad_shared_memory" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = { b = { image = "x:1", linux_parameters = { shared_memory_size = 0 } } }
  }

  expect_failures = [var.additional_containers]
}
