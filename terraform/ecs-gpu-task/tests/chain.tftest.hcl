# Every link of the GPU chain, asserted on planned values of the default configuration: one
# g5.xlarge inference service in a cluster the module creates, Terraform owning desired_count.
#
# Needs Terraform >= 1.11 (`override_during = plan` makes the mocked computed values, such as the
# launch template's latest_version and the ARNs, known at plan time so the links can be compared).

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
  subnet_ids                  = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
  instance_type               = "g5.xlarge"
  task_cpu                    = 4096
  task_memory                 = 15000

  container_image         = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
  container_port_mappings = [{ container_port = 8080 }]
}

run "ami_is_resolved_from_the_al2023_gpu_parameter" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = data.aws_ssm_parameter.ami[0].name == "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
    error_message = "the AMI must be read from the AL2023 GPU image_id parameter by default"
  }
  assert {
    condition     = aws_launch_template.this.image_id == "ami-0123456789abcdef0"
    error_message = "the launch template must use the AMI read from SSM"
  }
  assert {
    condition     = output.ami_id == "ami-0123456789abcdef0"
    error_message = "the ami_id output must be the resolved AMI"
  }
}

run "launch_template_registers_a_gpu_instance_in_the_cluster" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = contains(split("\n", base64decode(aws_launch_template.this.user_data)), "ECS_CLUSTER=gpu")
    error_message = "user data must write ECS_CLUSTER=<cluster>"
  }
  assert {
    condition     = contains(split("\n", base64decode(aws_launch_template.this.user_data)), "ECS_ENABLE_GPU_SUPPORT=true")
    error_message = "user data must write ECS_ENABLE_GPU_SUPPORT=true"
  }
  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "cat >> /etc/ecs/ecs.config <<'ECSCONFIG'")
    error_message = "the lines must go to /etc/ecs/ecs.config"
  }
  assert {
    condition     = startswith(base64decode(aws_launch_template.this.user_data), "#!/bin/bash\n")
    error_message = "user data must be a shell script"
  }
  assert {
    condition     = aws_launch_template.this.instance_type == "g5.xlarge"
    error_message = "the launch template must use the instance type"
  }
  assert {
    condition     = aws_launch_template.this.iam_instance_profile[0].arn == aws_iam_instance_profile.instance[0].arn
    error_message = "the launch template must use the module's instance profile"
  }
  assert {
    condition     = aws_iam_instance_profile.instance[0].role == aws_iam_role.instance[0].name
    error_message = "the instance profile must hold the instance role"
  }
  assert {
    condition     = aws_launch_template.this.metadata_options[0].http_tokens == "required" && aws_launch_template.this.metadata_options[0].http_endpoint == "enabled"
    error_message = "IMDSv2 must be required"
  }
  assert {
    condition     = aws_launch_template.this.block_device_mappings[0].device_name == "/dev/xvda"
    error_message = "the root volume must be /dev/xvda"
  }
  assert {
    condition = (
      aws_launch_template.this.block_device_mappings[0].ebs[0].volume_size == 100 &&
      aws_launch_template.this.block_device_mappings[0].ebs[0].volume_type == "gp3" &&
      aws_launch_template.this.block_device_mappings[0].ebs[0].encrypted == "true"
    )
    error_message = "the root volume must be an encrypted 100 GiB gp3 volume"
  }
  assert {
    condition     = contains(aws_launch_template.this.vpc_security_group_ids, aws_security_group.instance.id)
    error_message = "the instances must be in the module's instance security group"
  }
}

run "instance_role_has_the_ecs_and_ssm_policies" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = contains(aws_iam_role_policy_attachment.instance[*].policy_arn, "arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role")
    error_message = "the instance role must have AmazonEC2ContainerServiceforEC2Role"
  }
  assert {
    condition     = contains(aws_iam_role_policy_attachment.instance[*].policy_arn, "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore")
    error_message = "the instance role must have AmazonSSMManagedInstanceCore by default"
  }
  assert {
    condition     = alltrue([for a in aws_iam_role_policy_attachment.instance : a.role == aws_iam_role.instance[0].name])
    error_message = "the policies must be attached to the instance role"
  }
  assert {
    condition     = aws_launch_template.this.iam_instance_profile[0].arn == aws_iam_instance_profile.instance[0].arn
    error_message = "the launch template must use the module's instance profile"
  }
}

run "execution_role_has_the_execution_policy_and_the_task_role_nothing" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = aws_iam_role_policy_attachment.execution[0].policy_arn == "arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy" && aws_iam_role_policy_attachment.execution[0].role == aws_iam_role.execution[0].name
    error_message = "the execution role must have AmazonECSTaskExecutionRolePolicy"
  }
  assert {
    condition     = length(aws_iam_role_policy_attachment.task) == 0 && length(aws_iam_role_policy.execution_secrets) == 0
    error_message = "the task role has no permissions by default, and there is no secrets policy without secrets"
  }
  assert {
    condition     = aws_ecs_task_definition.this.execution_role_arn == aws_iam_role.execution[0].arn && aws_ecs_task_definition.this.task_role_arn == aws_iam_role.task[0].arn
    error_message = "the task definition must use the module's execution and task roles"
  }
}

run "auto_scaling_group_is_protected_and_refreshed" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = aws_autoscaling_group.this.protect_from_scale_in == true
    error_message = "the ASG must protect instances from scale-in (managed termination protection needs it)"
  }
  assert {
    condition     = aws_autoscaling_group.this.launch_template[0].id == aws_launch_template.this.id
    error_message = "the ASG must use the module's launch template"
  }
  assert {
    condition     = aws_autoscaling_group.this.launch_template[0].version == "7"
    error_message = "the ASG must track the launch template's latest_version (mocked as 7)"
  }
  assert {
    condition     = aws_autoscaling_group.this.instance_refresh[0].strategy == "Rolling"
    error_message = "the ASG must have a Rolling instance refresh"
  }
  assert {
    condition = (
      aws_autoscaling_group.this.instance_refresh[0].preferences[0].min_healthy_percentage == 90 &&
      aws_autoscaling_group.this.instance_refresh[0].preferences[0].instance_warmup == "300" &&
      aws_autoscaling_group.this.instance_refresh[0].preferences[0].skip_matching == true &&
      aws_autoscaling_group.this.instance_refresh[0].preferences[0].scale_in_protected_instances == "Refresh"
    )
    error_message = "the refresh must keep 90% healthy, warm up 300 s, skip matching instances and refresh protected ones"
  }
  assert {
    condition     = anytrue([for t in aws_autoscaling_group.this.tag : t.key == "AmazonECSManaged" && t.propagate_at_launch])
    error_message = "the ASG must carry the AmazonECSManaged tag"
  }
  assert {
    condition     = toset(aws_autoscaling_group.this.vpc_zone_identifier) == toset(["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"])
    error_message = "the ASG must use the subnets"
  }
  assert {
    condition     = aws_autoscaling_group.this.min_size == 0 && aws_autoscaling_group.this.max_size == 2
    error_message = "min/max default to 0/2"
  }
  assert {
    condition     = aws_autoscaling_group.this.force_delete == true
    error_message = "destroy must not wait on scale-in protected instances"
  }
}

run "capacity_provider_scales_the_group_and_is_on_the_cluster" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].auto_scaling_group_arn == aws_autoscaling_group.this.arn
    error_message = "the capacity provider must point to the module's ASG"
  }
  assert {
    condition     = aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].managed_termination_protection == "ENABLED"
    error_message = "managed termination protection must be enabled"
  }
  assert {
    condition = (
      aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].managed_scaling[0].status == "ENABLED" &&
      aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].managed_scaling[0].target_capacity == 100 &&
      aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].managed_scaling[0].minimum_scaling_step_size == 1 &&
      aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].managed_scaling[0].maximum_scaling_step_size == 10 &&
      aws_ecs_capacity_provider.this.auto_scaling_group_provider[0].managed_scaling[0].instance_warmup_period == 300
    )
    error_message = "managed scaling must be enabled with target 100, steps 1..10 and a 300 s warmup"
  }
  assert {
    condition     = aws_ecs_cluster_capacity_providers.this[0].cluster_name == "gpu" && aws_ecs_cluster_capacity_providers.this[0].capacity_providers == toset(["infer-778642"])
    error_message = "the associated cluster gets exactly the module's capacity provider"
  }
  assert {
    condition     = output.capacity_provider_name == "infer-778642"
    error_message = "the capacity provider's name comes out of the association"
  }
}

run "task_definition_reserves_the_gpu_inside_the_container" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = length(aws_ecs_task_definition.this.requires_compatibilities) == 1 && contains(aws_ecs_task_definition.this.requires_compatibilities, "EC2")
    error_message = "requires_compatibilities must be exactly [\"EC2\"]"
  }
  assert {
    condition     = aws_ecs_task_definition.this.network_mode == "awsvpc"
    error_message = "the network mode defaults to awsvpc"
  }
  assert {
    condition     = aws_ecs_task_definition.this.cpu == "4096" && aws_ecs_task_definition.this.memory == "15000"
    error_message = "task cpu and memory must be set"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].resourceRequirements == [{ type = "GPU", value = "1" }]
    error_message = "the GPU container must hold resourceRequirements [{type = GPU, value = \"1\"}]"
  }
  assert {
    # A JSON number 1 would decode to a number and fail the comparison with the string "1"; this
    # also checks the encoded text.
    condition     = strcontains(aws_ecs_task_definition.this.container_definitions, "\"resourceRequirements\":[{\"type\":\"GPU\",\"value\":\"1\"}]")
    error_message = "the GPU value must be a JSON string"
  }
  assert {
    condition     = contains(jsondecode(aws_ecs_task_definition.this.container_definitions)[0].environment, { name = "NVIDIA_DRIVER_CAPABILITIES", value = "utility,compute" })
    error_message = "the GPU container must set NVIDIA_DRIVER_CAPABILITIES=utility,compute"
  }
  assert {
    condition = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].logConfiguration == {
      logDriver = "awslogs"
      options   = { "awslogs-group" = "/ecs/infer-778642", "awslogs-region" = "us-east-1", "awslogs-stream-prefix" = "infer" }
    }
    error_message = "the GPU container must log to the module's log group"
  }
  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].portMappings == [{ containerPort = 8080, hostPort = 8080, protocol = "tcp" }]
    error_message = "in awsvpc mode the host port is the container port"
  }
  assert {
    condition     = length(jsondecode(aws_ecs_task_definition.this.container_definitions)) == 1
    error_message = "no sidecar by default"
  }
  assert {
    condition     = aws_ecs_task_definition.this.execution_role_arn == aws_iam_role.execution[0].arn && aws_ecs_task_definition.this.task_role_arn == aws_iam_role.task[0].arn
    error_message = "the task definition must use the module's execution and task roles"
  }
  assert {
    condition     = aws_ecs_task_definition.this.runtime_platform[0].operating_system_family == "LINUX"
    error_message = "the task must be Linux"
  }
  assert {
    condition     = aws_cloudwatch_log_group.this.name == "/ecs/infer-778642" && aws_cloudwatch_log_group.this.retention_in_days == 30 && aws_cloudwatch_log_group.this.kms_key_id == null
    error_message = "the log group keeps 30 days by default, without a KMS key"
  }
}

run "service_runs_on_the_gpu_capacity_provider" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = length(aws_ecs_service.this) == 1 && length(aws_ecs_service.autoscaled) == 0
    error_message = "without autoscaling, only the Terraform-owned service exists"
  }
  assert {
    condition     = aws_ecs_service.this[0].desired_count == 1 && output.desired_count_owner == "terraform"
    error_message = "Terraform owns desired_count (default 1)"
  }
  assert {
    condition     = length(aws_appautoscaling_target.this) == 0 && length(aws_appautoscaling_policy.this) == 0
    error_message = "no Application Auto Scaling without autoscaling"
  }
  assert {
    condition     = aws_ecs_service.this[0].task_definition == aws_ecs_task_definition.this.arn && aws_ecs_service.this[0].cluster == "gpu"
    error_message = "the service must run the task definition in the cluster"
  }
  assert {
    condition     = [for s in aws_ecs_service.this[0].capacity_provider_strategy : s.capacity_provider] == [var.capacity_provider_name]
    error_message = "the service must use exactly the capacity provider it is given"
  }
  assert {
    condition     = [for c in aws_ecs_service.this[0].placement_constraints : c.type] == ["memberOf"]
    error_message = "the service must have one memberOf constraint"
  }
  assert {
    condition     = [for c in aws_ecs_service.this[0].placement_constraints : c.expression] == ["attribute:ecs.instance-type == g5.xlarge"]
    error_message = "the placement expression must name the instance type"
  }
  assert {
    condition     = output.placement_expression == "attribute:ecs.instance-type == g5.xlarge"
    error_message = "the placement_expression output must match"
  }
  assert {
    condition     = aws_ecs_service.this[0].deployment_circuit_breaker[0].enable && aws_ecs_service.this[0].deployment_circuit_breaker[0].rollback
    error_message = "the deployment circuit breaker must be on with rollback"
  }
  assert {
    condition = (
      aws_ecs_service.this[0].network_configuration[0].security_groups == toset([aws_security_group.task[0].id]) &&
      aws_ecs_service.this[0].network_configuration[0].subnets == toset(["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]) &&
      aws_ecs_service.this[0].network_configuration[0].assign_public_ip == false
    )
    error_message = "awsvpc tasks use the module's security group in the subnets, without public IP"
  }
  assert {
    condition     = length(aws_vpc_security_group_ingress_rule.task) == 0 && keys(aws_vpc_security_group_egress_rule.task) == ["https"]
    error_message = "the tasks' security group has no ingress by default, and HTTPS egress"
  }
  assert {
    condition     = length(aws_ecs_service.this[0].load_balancer) == 0
    error_message = "no load balancer by default"
  }
}

run "outputs_describe_the_gpu_capacity" {
  command = plan

  assert {
    condition     = aws_ecs_cluster.this[0].name == "gpu"
    error_message = "the module creates the cluster when create_cluster = true"
  }
  assert {
    condition     = output.gpus_per_instance == 1 && output.tasks_per_instance == 1 && output.task_gpus == 1
    error_message = "g5.xlarge has one GPU: one task per instance (got ${jsonencode([output.gpus_per_instance, output.tasks_per_instance, output.task_gpus])})"
  }
  assert {
    condition     = output.capacity_provider_name == "infer-778642" && output.cluster_name == "gpu" && output.log_group_name == "/ecs/infer-778642"
    error_message = "names must be output"
  }
  assert {
    # 16177 MiB the agent can register at most on g5.xlarge (catalog), minus the 1024 MiB margin.
    condition     = output.max_task_memory_mib == 15153
    error_message = "the memory limit on g5.xlarge must be 16177 - 1024 MiB"
  }
  assert {
    condition = (
      output.launch_template_latest_version == 7 &&
      output.task_security_group_id == "sg-0123456789abcdef0" &&
      output.task_definition_arn == "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3" &&
      output.task_definition_revision == 3 &&
      output.service_name == "infer" &&
      output.service_id == "arn:aws:ecs:us-east-1:123456789012:service/gpu/infer" &&
      output.autoscaling_group_arn == "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:uuid:autoScalingGroupName/infer-1" &&
      output.instance_profile_arn == "arn:aws:iam::123456789012:instance-profile/infer-instance-1" &&
      output.instance_role_arn == "arn:aws:iam::123456789012:role/infer-role-1" &&
      output.execution_role_arn == "arn:aws:iam::123456789012:role/infer-role-1"
    )
    error_message = "outputs must reflect the resources"
  }
}
