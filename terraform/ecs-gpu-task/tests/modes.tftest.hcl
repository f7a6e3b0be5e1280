# The other ways to use the module, each asserted on planned values: Application Auto Scaling
# owning desired_count, bridge mode, an existing cluster (both association choices), a pinned AMI,
# the JSON `recommended` parameter, fractional and multi-GPU types, sidecars, secrets, a load
# balancer. Needs Terraform >= 1.11 (`override_during = plan`).

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
  instance_type               = "g5.xlarge"
  task_cpu                    = 4096
  task_memory                 = 15000

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

run "autoscaling_owns_desired_count" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    desired_count = 5
    max_size      = 5 # one g5.xlarge per task, up to the 4 tasks of max_capacity, plus a spare
    autoscaling = {
      min_capacity = 1
      max_capacity = 4
      target_value = 70
    }
  }

  assert {
    condition     = length(aws_ecs_service.this) == 0 && length(aws_ecs_service.autoscaled) == 1
    error_message = "with autoscaling, only the service that ignores desired_count exists"
  }
  assert {
    condition     = aws_ecs_service.autoscaled[0].desired_count == 1
    error_message = "the service starts at min_capacity, not at the Terraform desired_count"
  }
  assert {
    condition     = output.desired_count_owner == "application-autoscaling" && output.service_name == "infer"
    error_message = "outputs must say who owns desired_count"
  }
  assert {
    condition = (
      aws_appautoscaling_target.this[0].resource_id == "service/gpu/infer" &&
      aws_appautoscaling_target.this[0].scalable_dimension == "ecs:service:DesiredCount" &&
      aws_appautoscaling_target.this[0].service_namespace == "ecs" &&
      aws_appautoscaling_target.this[0].min_capacity == 1 &&
      aws_appautoscaling_target.this[0].max_capacity == 4
    )
    error_message = "the scalable target must be the service's desired count, 1..4"
  }
  assert {
    condition = (
      aws_appautoscaling_policy.this[0].policy_type == "TargetTrackingScaling" &&
      aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].target_value == 70 &&
      aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].predefined_metric_specification[0].predefined_metric_type == "ECSServiceAverageCPUUtilization"
    )
    error_message = "the policy must track 70% average CPU"
  }
  assert {
    condition     = [for c in aws_ecs_service.autoscaled[0].placement_constraints : c.expression] == ["attribute:ecs.instance-type == g5.xlarge"]
    error_message = "the autoscaled service must keep the placement constraint"
  }
  assert {
    condition     = [for s in aws_ecs_service.autoscaled[0].capacity_provider_strategy : s.capacity_provider] == [var.capacity_provider_name]
    error_message = "the autoscaled service must use the capacity provider it is given"
  }
  assert {
    condition     = aws_ecs_service.autoscaled[0].deployment_circuit_breaker[0].rollback
    error_message = "the autoscaled service must roll back failed deployments"
  }
}

run "autoscaling_on_a_custom_gpu_metric" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size = 4
    autoscaling = {
      min_capacity      = 0
      max_capacity      = 3
      target_value      = 60
      customized_metric = { metric_name = "DCGM_FI_DEV_GPU_UTIL", namespace = "CWAgent", dimensions = { ServiceName = "infer" } }
    }
  }

  assert {
    condition     = length(aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].predefined_metric_specification) == 0
    error_message = "a customized metric replaces the predefined one"
  }
  assert {
    condition     = aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metric_name == "DCGM_FI_DEV_GPU_UTIL"
    error_message = "the customized metric must be tracked"
  }
}

run "terraform_owns_desired_count" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    desired_count = 3
    max_size      = 4
  }

  assert {
    condition     = aws_ecs_service.this[0].desired_count == 3 && length(aws_ecs_service.autoscaled) == 0
    error_message = "without autoscaling, Terraform sets desired_count"
  }
}

run "bridge_mode" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    network_mode            = "bridge"
    container_port_mappings = [{ container_port = 8080 }, { container_port = 9090, host_port = 9090, protocol = "udp" }]
  }

  assert {
    condition     = aws_ecs_task_definition.this.network_mode == "bridge"
    error_message = "bridge mode must be selectable"
  }
  assert {
    condition     = length(aws_ecs_service.this[0].network_configuration) == 0 && length(aws_security_group.task) == 0 && output.task_security_group_id == null
    error_message = "bridge mode has no network configuration and no task security group"
  }
  assert {
    condition = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].portMappings == [
      { containerPort = 8080, hostPort = 0, protocol = "tcp" },
      { containerPort = 9090, hostPort = 9090, protocol = "udp" },
    ]
    error_message = "bridge mode uses dynamic host ports unless one is given"
  }
}

run "existing_cluster_left_to_the_caller" {
  command = plan

  variables {
    create_cluster              = false
    associate_capacity_provider = false
    # As read from the caller's association (modules/cluster's capacity_providers output).
    cluster_capacity_providers = ["FARGATE", "infer-778642"]
  }

  assert {
    condition     = length(aws_ecs_cluster.this) == 0 && output.cluster_name == "gpu" && output.capacity_provider_name == "infer-778642"
    error_message = "with associate_capacity_provider = false the module creates no cluster and names its capacity provider"
  }
  assert {
    condition     = local.service_capacity_provider_name == "infer-778642"
    error_message = "the service takes its provider's name from the caller's association list"
  }
}

run "existing_cluster_left_to_the_caller_needs_the_list" {
  command = plan

  variables {
    create_cluster              = false
    associate_capacity_provider = false
  }

  # The service would otherwise race the caller's association (created 10 s before the provider joined
  # the cluster, against a real cluster): the root passes null, which the service refuses.
  expect_failures = [output.service_name]
}

run "existing_cluster_list_without_the_provider_is_refused" {
  command = plan

  variables {
    create_cluster              = false
    associate_capacity_provider = false
    cluster_capacity_providers  = ["FARGATE"]
  }

  expect_failures = [output.service_name]
}

run "existing_cluster_left_to_the_caller_capacity" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    associate_capacity_provider = false
  }

  assert {
    condition     = length(aws_ecs_cluster_capacity_providers.this) == 0 && output.capacity_provider_name == "infer-778642"
    error_message = "with associate_capacity_provider = false the capacity leaves the cluster's provider list alone"
  }
  assert {
    condition     = contains(split("\n", base64decode(aws_launch_template.this.user_data)), "ECS_CLUSTER=gpu")
    error_message = "the instances join the existing cluster"
  }
}

run "existing_cluster_list_taken_whole" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    associate_capacity_provider           = true
    additional_cluster_capacity_providers = ["FARGATE", "other-gpu"]
    default_capacity_provider_strategy    = [{ capacity_provider = "FARGATE", weight = 1 }]
  }

  assert {
    condition     = aws_ecs_cluster_capacity_providers.this[0].capacity_providers == toset(["infer-778642", "FARGATE", "other-gpu"])
    error_message = "the cluster's list is this provider plus the listed ones"
  }
  assert {
    condition     = [for s in aws_ecs_cluster_capacity_providers.this[0].default_capacity_provider_strategy : s.capacity_provider] == ["FARGATE"]
    error_message = "the default strategy is set as given"
  }
}

run "pinned_ami" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_id = "ami-0fedcba9876543210"
  }

  assert {
    condition     = length(data.aws_ssm_parameter.ami) == 0 && aws_launch_template.this.image_id == "ami-0fedcba9876543210"
    error_message = "a pinned AMI is used as is, without reading SSM"
  }
  assert {
    condition     = output.ami_ssm_parameter == null && output.ami_id == "ami-0fedcba9876543210"
    error_message = "outputs must show the pinned AMI"
  }
}

run "recommended_parameter_holds_json" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_ssm_parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended"
  }

  override_data {
    target = data.aws_ssm_parameter.ami[0]
    values = {
      value = "{\"image_id\":\"ami-0aaaaaaaaaaaaaaaa\",\"image_name\":\"al2023-ami-ecs-gpu-hvm-2023.0.20261029-kernel-6.1-x86_64-ebs\",\"os\":\"Amazon Linux 2023\"}"
    }
  }

  assert {
    condition     = aws_launch_template.this.image_id == "ami-0aaaaaaaaaaaaaaaa"
    error_message = "the image_id must be taken from the JSON document of .../recommended"
  }
}

run "version_specific_gpu_parameter" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_ssm_parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20261029-kernel-6.1-x86_64/image_id"
  }

  assert {
    condition     = data.aws_ssm_parameter.ami[0].name == "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20261029-kernel-6.1-x86_64/image_id"
    error_message = "a version-specific parameter under the AL2023 GPU path is accepted"
  }
}

run "fractional_gpu_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type = "g6f.2xlarge"
    gpu_count     = 0.25
    task_cpu      = 8192
    task_memory   = 30000
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].resourceRequirements == [{ type = "GPU", value = "0.25" }]
    error_message = "a fractional type reserves its partition, as the string \"0.25\""
  }
  assert {
    condition     = output.gpus_per_instance == 0.25 && output.tasks_per_instance == 1
    error_message = "g6f.2xlarge offers one quarter of an L4"
  }
}

run "multi_gpu_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type = "g5.12xlarge"
    gpu_count     = 2
    task_cpu      = 24576
    task_memory   = 90000
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].resourceRequirements == [{ type = "GPU", value = "2" }]
    error_message = "two GPUs are reserved as the string \"2\""
  }
  assert {
    condition     = output.gpus_per_instance == 4 && output.tasks_per_instance == 2
    error_message = "g5.12xlarge has four GPUs: two 2-GPU tasks per instance"
  }
  assert {
    condition     = [for c in aws_ecs_service.this[0].placement_constraints : c.expression] == ["attribute:ecs.instance-type == g5.12xlarge"]
    error_message = "the placement expression follows the instance type"
  }
}

run "sidecars_secrets_and_configuration" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    sidecar_containers = [
      { name = "metrics", image = "public.ecr.aws/example/dcgm-exporter:1", cpu = 256, memory = 256 },
    ]
    container_secrets = {
      HF_TOKEN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf:token::"
      DB_URL   = "arn:aws:ssm:us-east-1:123456789012:parameter/infer/db-url"
    }
    container_environment      = { MODEL = "llama" }
    nvidia_driver_capabilities = "compute,utility,video"
    container_command          = ["serve", "--port", "8080"]
    container_health_check     = { command = ["CMD-SHELL", "curl -f http://localhost:8080/health || exit 1"] }
    task_role_policy_arns      = ["arn:aws:iam::123456789012:policy/infer-s3"]
    log_retention_days         = 90
    log_group_kms_key_arn      = "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555"
  }

  assert {
    condition     = length(jsondecode(aws_ecs_task_definition.this.container_definitions)) == 2
    error_message = "the sidecar must be in the task"
  }
  assert {
    condition     = !can(jsondecode(aws_ecs_task_definition.this.container_definitions)[1].resourceRequirements)
    error_message = "the sidecar has no GPU"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[1].logConfiguration.options["awslogs-group"] == "/ecs/infer-778642" && jsondecode(aws_ecs_task_definition.this.container_definitions)[1].essential == false
    error_message = "the sidecar logs to the module's log group and is not essential by default"
  }
  assert {
    condition = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].secrets == [
      { name = "DB_URL", valueFrom = "arn:aws:ssm:us-east-1:123456789012:parameter/infer/db-url" },
      { name = "HF_TOKEN", valueFrom = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf:token::" },
    ]
    error_message = "the secrets must be in the GPU container"
  }
  assert {
    condition = (
      jsondecode(aws_iam_role_policy.execution_secrets[0].policy).Statement[0].Action == ["ssm:GetParameters"] &&
      jsondecode(aws_iam_role_policy.execution_secrets[0].policy).Statement[0].Resource == ["arn:aws:ssm:us-east-1:123456789012:parameter/infer/db-url"] &&
      jsondecode(aws_iam_role_policy.execution_secrets[0].policy).Statement[1].Action == ["secretsmanager:GetSecretValue"] &&
      jsondecode(aws_iam_role_policy.execution_secrets[0].policy).Statement[1].Resource == ["arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf"]
    )
    error_message = "the execution role may read exactly the named parameter and secret (without the JSON key suffix)"
  }
  assert {
    condition     = length(aws_iam_role_policy.execution_secrets) == 1 && aws_iam_role_policy.execution_secrets[0].role == aws_iam_role.execution[0].id
    error_message = "the execution role must be allowed to read the secrets"
  }
  assert {
    condition = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].environment == [
      { name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility,video" },
      { name = "MODEL", value = "llama" },
    ]
    error_message = "the environment holds the capabilities and the user's variables"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].command == ["serve", "--port", "8080"] && jsondecode(aws_ecs_task_definition.this.container_definitions)[0].healthCheck.startPeriod == 300
    error_message = "command and health check must be set"
  }
  assert {
    condition     = !can(jsondecode(aws_ecs_task_definition.this.container_definitions)[0].entryPoint)
    error_message = "unset optional fields are left out of the container definition"
  }
  assert {
    condition     = aws_iam_role_policy_attachment.task[0].policy_arn == "arn:aws:iam::123456789012:policy/infer-s3" && aws_iam_role_policy_attachment.task[0].role == aws_iam_role.task[0].name
    error_message = "task role policies must be attached to the task role"
  }
  assert {
    condition     = aws_cloudwatch_log_group.this.retention_in_days == 90 && aws_cloudwatch_log_group.this.kms_key_id == "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555"
    error_message = "retention and KMS key are inputs"
  }
}

run "extra_ecs_config_user_data_and_ssm" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    extra_ecs_config = { ECS_IMAGE_PULL_BEHAVIOR = "prefer-cached", ECS_RESERVED_MEMORY = "256" }
    extra_user_data  = "sysctl -w vm.overcommit_memory=1"
    enable_ssm       = false
  }

  assert {
    condition = alltrue([
      for l in ["ECS_CLUSTER=gpu", "ECS_ENABLE_GPU_SUPPORT=true", "ECS_IMAGE_PULL_BEHAVIOR=prefer-cached", "ECS_RESERVED_MEMORY=256", "sysctl -w vm.overcommit_memory=1"] :
      contains(split("\n", base64decode(aws_launch_template.this.user_data)), l)
    ])
    error_message = "user data must hold the extra ecs.config lines and commands"
  }
  assert {
    condition     = !contains(aws_iam_role_policy_attachment.instance[*].policy_arn, "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore")
    error_message = "enable_ssm = false leaves out the SSM policy"
  }
}

run "load_balancer_and_no_placement_constraint" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_port_mappings            = [{ container_port = 8080 }]
    load_balancer                      = { target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/infer/0123456789abcdef", container_port = 8080 }
    ingress_rules                      = { lb = { description = "from the load balancer", from_port = 8080, to_port = 8080, referenced_security_group_id = "sg-0aaaaaaaaaaaaaaaa" } }
    security_group_ids                 = ["sg-0bbbbbbbbbbbbbbbb"]
    placement_constraint_instance_type = false
  }

  assert {
    condition     = [for lb in aws_ecs_service.this[0].load_balancer : [lb.container_name, lb.container_port]] == [["app", 8080]]
    error_message = "the load balancer must target the GPU container's port"
  }
  assert {
    condition     = aws_ecs_service.this[0].health_check_grace_period_seconds == 600
    error_message = "a load balancer gets a 600 s health check grace period by default"
  }
  assert {
    condition     = aws_vpc_security_group_ingress_rule.task["lb"].referenced_security_group_id == "sg-0aaaaaaaaaaaaaaaa" && aws_vpc_security_group_ingress_rule.task["lb"].from_port == 8080
    error_message = "ingress rules go to the task security group"
  }
  assert {
    condition     = aws_ecs_service.this[0].network_configuration[0].security_groups == toset([aws_security_group.task[0].id, "sg-0bbbbbbbbbbbbbbbb"])
    error_message = "user security groups are added to the module's"
  }
  assert {
    condition     = length(aws_ecs_service.this[0].placement_constraints) == 0 && output.placement_expression == null
    error_message = "the placement constraint can be turned off"
  }
}

run "al2_parameter_warns_of_its_end_of_life" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_ssm_parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id"
  }

  expect_failures = [check.ami_end_of_life]

  assert {
    condition     = data.aws_ssm_parameter.ami[0].name == "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id"
    error_message = "the AL2 parameter is still accepted (with a warning)"
  }
}

run "memory_margin_can_be_lowered" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    memory_margin_mib = 0
    task_memory       = 16177
  }

  assert {
    condition     = aws_ecs_task_definition.this.memory == "16177" && output.max_task_memory_mib == 16177
    error_message = "with no margin, the task may ask for all the catalog's max_task_memory_mib (16177 MiB on g5.xlarge)"
  }
}
