# Every plan-time refusal: each variable validation and each precondition has a run that trips it
# (expect_failures). Needs Terraform >= 1.11 (`override_during = plan` in the mock provider).

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

run "the_defaults_plan" {
  command = plan
}

run "name_must_be_a_short_identifier" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    name = "1-infer"
  }

  expect_failures = [var.name]
}

run "name_must_not_start_with_ecs" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    name = "ecs-infer"
  }

  expect_failures = [var.name]
}

run "cluster_name_must_be_valid" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    cluster_name = "my cluster"
  }

  expect_failures = [var.cluster_name]
}

run "container_insights_value" {
  command = plan

  variables {
    cluster_container_insights = "on"
  }

  expect_failures = [var.cluster_container_insights]
}

run "at_least_one_subnet" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    subnet_ids = []
  }

  expect_failures = [var.subnet_ids]
}

run "ingress_rule_needs_one_source" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    ingress_rules = { a = { description = "x", from_port = 443, to_port = 443 } }
  }

  expect_failures = [var.ingress_rules]
}

run "egress_rule_needs_one_source" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    egress_rules = { a = { description = "x", from_port = 443, to_port = 443, cidr_ipv4 = "0.0.0.0/0", referenced_security_group_id = "sg-0aaaaaaaaaaaaaaaa" } }
  }

  expect_failures = [var.egress_rules]
}

run "instance_egress_rule_needs_one_source" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_egress_rules = { a = { description = "x", from_port = 443, to_port = 443 } }
  }

  expect_failures = [var.instance_egress_rules]
}

run "ami_id_must_be_an_ami_id" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_id = "ubuntu-22.04"
  }

  expect_failures = [var.ami_id]
}

run "root_volume_at_least_30_gib" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    root_volume_size_gib = 20
  }

  expect_failures = [var.root_volume_size_gib]
}

run "extra_ecs_config_keys_are_agent_settings" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    extra_ecs_config = { "cluster" = "x" }
  }

  expect_failures = [var.extra_ecs_config]
}

run "extra_ecs_config_must_not_override_the_gpu_lines" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    extra_ecs_config = { ECS_ENABLE_GPU_SUPPORT = "false" }
  }

  expect_failures = [var.extra_ecs_config]
}

run "extra_ecs_config_values_are_single_lines" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    extra_ecs_config = { ECS_LOGLEVEL = "info\nECS_ENABLE_GPU_SUPPORT=false" }
  }

  expect_failures = [var.extra_ecs_config]
}

run "imds_hop_limit_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    imds_hop_limit = 0
  }

  expect_failures = [var.imds_hop_limit]
}

run "min_size_not_negative" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    min_size = -1
  }

  expect_failures = [var.min_size]
}

run "max_size_at_least_one" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    max_size = 0
  }

  expect_failures = [var.max_size]
}

run "instance_warmup_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_warmup = -5
  }

  expect_failures = [var.instance_warmup]
}

run "refresh_min_healthy_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_refresh_min_healthy_percentage = 120
  }

  expect_failures = [var.instance_refresh_min_healthy_percentage]
}

run "target_capacity_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    target_capacity = 0
  }

  expect_failures = [var.target_capacity]
}

run "minimum_step_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    minimum_scaling_step_size = 0
  }

  expect_failures = [var.minimum_scaling_step_size]
}

run "maximum_step_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    maximum_scaling_step_size = 10001
  }

  expect_failures = [var.maximum_scaling_step_size]
}

run "network_mode_awsvpc_or_bridge" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    network_mode = "host"
  }

  expect_failures = [var.network_mode]
}

run "gpu_count_below_one_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count = 0
  }

  expect_failures = [var.gpu_count]
}

run "gpu_count_must_be_whole_or_a_known_fraction" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count = 1.5
  }

  expect_failures = [var.gpu_count]
}

run "task_cpu_minimum" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    task_cpu = 64
  }

  expect_failures = [var.task_cpu]
}

run "task_memory_minimum" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    task_memory = 64
  }

  expect_failures = [var.task_memory]
}

run "memory_margin_not_negative" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    memory_margin_mib = -1
  }

  expect_failures = [var.memory_margin_mib]
}

run "port_protocol" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_port_mappings = [{ container_port = 80, protocol = "sctp" }]
  }

  expect_failures = [var.container_port_mappings]
}

run "nvidia_variables_are_owned_by_the_module" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_environment = { NVIDIA_VISIBLE_DEVICES = "all" }
  }

  expect_failures = [var.container_environment]
}

run "secrets_are_arns" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_secrets = { TOKEN = "hf-token" }
  }

  expect_failures = [var.container_secrets]
}

run "health_check_command_form" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_health_check = { command = ["curl", "-f", "http://localhost/"] }
  }

  expect_failures = [var.container_health_check]
}

run "health_check_ranges" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_health_check = { command = ["CMD-SHELL", "true"], start_period = 600 }
  }

  expect_failures = [var.container_health_check]
}

run "sidecars_need_name_and_image" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    sidecar_containers = [{ name = "metrics" }]
  }

  expect_failures = [var.sidecar_containers]
}

run "sidecars_get_no_gpu" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    sidecar_containers = [{ name = "metrics", image = "x", resourceRequirements = [{ type = "GPU", value = "1" }] }]
  }

  expect_failures = [var.sidecar_containers]
}

run "log_retention_is_a_cloudwatch_value" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    log_retention_days = 10
  }

  expect_failures = [var.log_retention_days]
}

run "desired_count_not_negative" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    desired_count = -1
  }

  expect_failures = [var.desired_count]
}

run "autoscaling_min_at_most_max" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = { min_capacity = 3, max_capacity = 2, target_value = 70 }
  }

  expect_failures = [var.autoscaling]
}

run "autoscaling_metric_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = { min_capacity = 1, max_capacity = 2, target_value = 70, predefined_metric_type = "GPUUtilization" }
  }

  expect_failures = [var.autoscaling]
}

run "autoscaling_alb_metric_needs_a_label" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = { min_capacity = 1, max_capacity = 2, target_value = 100, predefined_metric_type = "ALBRequestCountPerTarget" }
  }

  expect_failures = [var.autoscaling]
}

run "instance_type_not_in_the_catalog" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "m5.large"
  }

  expect_failures = [aws_launch_template.this]
}

run "g2_is_refused_with_its_reason" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g2.2xlarge"
  }

  expect_failures = [aws_launch_template.this]
}

run "p2_is_refused_with_its_reason" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "p2.xlarge"
  }

  expect_failures = [aws_launch_template.this]
}

run "g4ad_amd_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g4ad.xlarge"
  }

  expect_failures = [aws_launch_template.this]
}

run "g5g_arm64_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g5g.xlarge"
  }

  expect_failures = [aws_launch_template.this]
}

run "p6e_gb200_unverified_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "p6e-gb200.36xlarge"
  }

  expect_failures = [aws_launch_template.this]
}

run "ami_parameter_must_be_a_gpu_parameter" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_ssm_parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
  }

  expect_failures = [aws_launch_template.this]
}

run "ami_parameter_must_be_an_ecs_parameter" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_ssm_parameter = "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
  }

  expect_failures = [aws_launch_template.this]
}

run "ami_id_and_parameter_exclude_each_other" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    ami_id            = "ami-0123456789abcdef0"
    ami_ssm_parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
  }

  expect_failures = [aws_launch_template.this]
}

run "min_size_above_max_size" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    min_size = 3
    max_size = 2
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "scaling_steps_in_order" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    minimum_scaling_step_size = 5
    maximum_scaling_step_size = 2
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}

run "existing_cluster_needs_an_explicit_association_choice" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    associate_capacity_provider = null
  }

  expect_failures = [aws_ecs_capacity_provider.this]
}

run "gpu_count_above_the_types_gpus" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count = 2
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "gpu_count_above_the_types_gpus_multi" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type = "g5.12xlarge"
    gpu_count     = 8
    task_cpu      = 4096
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "whole_gpu_on_a_fractional_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type = "g6f.large"
    gpu_count     = 1
    task_cpu      = 2048
    task_memory   = 4096
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "wrong_fraction_on_a_fractional_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type = "g6f.large"
    gpu_count     = 0.5
    task_cpu      = 2048
    task_memory   = 4096
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "fraction_on_a_whole_gpu_type" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_count = 0.5
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "task_cpu_above_the_types_vcpus" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    task_cpu = 5120
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "task_memory_above_what_the_type_can_register" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    task_memory = 16500
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "task_memory_above_the_margin" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    task_memory = 15154
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "unknown_nvidia_capability" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    nvidia_driver_capabilities = "utility,compute,cuda"
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "all_stands_alone" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    nvidia_driver_capabilities = "all,compute"
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "unknown_type_of_a_known_family_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g5.xlarg"
  }

  expect_failures = [aws_launch_template.this]
}

run "unknown_type_with_facts_is_accepted_and_checked" {
  command = plan

  variables {
    instance_type       = "g8.2xlarge"
    instance_type_facts = { gpus = 1, vcpus = 8, memory_mib = 32768 }
    task_cpu            = 8192
    task_memory         = 30000
  }

  assert {
    condition     = output.gpus_per_instance == 1 && output.tasks_per_instance == 1
    error_message = "the caller's facts must drive the fit checks"
  }
}

run "unknown_type_with_facts_still_checks_the_fit" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type       = "g8.2xlarge"
    instance_type_facts = { gpus = 1, vcpus = 8, memory_mib = 32768 }
    gpu_count           = 2
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "instance_type_facts_must_be_whole" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    instance_type       = "g8.2xlarge"
    instance_type_facts = { gpus = 0.5, vcpus = 8, memory_mib = 32768 }
  }

  expect_failures = [var.instance_type_facts]
}

run "desired_count_above_what_the_group_holds" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    desired_count = 3
    max_size      = 2
  }

  expect_failures = [aws_ecs_service.this[0]]
}

run "autoscaling_max_above_what_the_group_holds" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    max_size    = 2
    autoscaling = { min_capacity = 1, max_capacity = 3, target_value = 60 }
  }

  expect_failures = [aws_ecs_service.autoscaled[0]]
}

run "name_suffix_must_be_short" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    name_suffix = "staging_environment"
  }

  expect_failures = [var.name_suffix]
}

run "empty_name_suffix_keeps_the_bare_names" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    name_suffix = ""
  }

  assert {
    condition     = output.log_group_name == "/ecs/infer" && aws_ecs_task_definition.this.family == "infer"
    error_message = "an empty name_suffix must keep the bare names"
  }
}

run "empty_name_suffix_keeps_the_bare_capacity_provider_name" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    name_suffix = ""
  }

  assert {
    condition     = aws_ecs_capacity_provider.this.name == "infer" && output.capacity_provider_name == "infer"
    error_message = "an empty name_suffix must keep the bare capacity provider name"
  }
}

run "role_path_and_permissions_boundary_are_set" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    iam_role_path            = "/ml/"
    iam_permissions_boundary = "arn:aws:iam::123456789012:policy/boundary"
  }

  assert {
    condition     = aws_iam_role.instance[0].permissions_boundary == "arn:aws:iam::123456789012:policy/boundary" && aws_iam_role.instance[0].path == "/ml/" && aws_iam_instance_profile.instance[0].path == "/ml/"
    error_message = "the instance role and the profile must carry the path and the boundary"
  }
}

run "role_path_and_permissions_boundary_are_set_on_the_task_roles" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    iam_role_path            = "/ml/"
    iam_permissions_boundary = "arn:aws:iam::123456789012:policy/boundary"
  }

  assert {
    condition = (
      aws_iam_role.task[0].path == "/ml/" && aws_iam_role.execution[0].path == "/ml/" &&
      aws_iam_role.task[0].permissions_boundary == "arn:aws:iam::123456789012:policy/boundary" &&
      aws_iam_role.execution[0].permissions_boundary == "arn:aws:iam::123456789012:policy/boundary"
    )
    error_message = "the task and execution roles must carry the path and the boundary"
  }
}

run "role_path_needs_slashes" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    iam_role_path = "ml"
  }

  expect_failures = [var.iam_role_path]
}

run "permissions_boundary_must_be_a_policy_arn" {
  command = plan

  module {
    source = "../modules/facts"
  }

  variables {
    iam_permissions_boundary = "boundary"
  }

  expect_failures = [var.iam_permissions_boundary]
}
