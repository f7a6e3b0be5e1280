# The root module composes the two submodules, as terraform-aws-modules/ecs does:
# - modules/capacity: launch template, Auto Scaling group, capacity provider, and its association
#   with the cluster;
# - modules/service: task definition, service, Application Auto Scaling.
# The service reads the capacity provider's name from the capacity's output, which comes from the
# cluster association, or from the caller's association (`cluster_capacity_providers`): the reference
# orders the service after the association. A caller with its own cluster can also call the
# submodules directly (examples/existing-cluster).

resource "aws_ecs_cluster" "this" {
  count = var.create_cluster ? 1 : 0

  name = var.cluster_name
  tags = merge(var.tags, { "ecs-gpu-task" = var.name })

  setting {
    name  = "containerInsights"
    value = var.cluster_container_insights
  }

  lifecycle {
    # The idle alarm reads PendingTaskCount, which only Container Insights publishes
    # (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Container-Insights-metrics-ECS.html).
    # For a cluster the module does not create, whether Container Insights is on is not known here.
    precondition {
      condition     = !(var.gpu_metrics.enabled && try(var.gpu_metrics.idle_alarm.enabled, false)) || var.cluster_container_insights != "disabled"
      error_message = "gpu_metrics.idle_alarm reads Container Insights' PendingTaskCount, and cluster_container_insights is \"disabled\": set it to \"enabled\" (or \"enhanced\"), or set gpu_metrics.idle_alarm = { enabled = false }."
    }
  }
}

locals {
  cluster_name = var.create_cluster ? aws_ecs_cluster.this[0].name : var.cluster_name
  # With the caller's association (associate_capacity_provider = false), the service takes its
  # provider's name from the caller's list, read from that association: the reference orders the
  # service after it. Without the list, or with a list that lacks it, the plan is refused (the
  # capacity_provider_name output's precondition).
  listed_capacity_provider = try(one([for p in var.cluster_capacity_providers : p if p == module.capacity.capacity_provider_name]), null)
  service_capacity_provider_name = (
    local.associate_capacity_provider == false && local.listed_capacity_provider != null
    ? local.listed_capacity_provider : module.capacity.capacity_provider_name
  )
  # null for an existing cluster: the capacity refuses it, to make the choice explicit (see the README).
  associate_capacity_provider = (
    var.associate_capacity_provider != null ? var.associate_capacity_provider :
    var.create_cluster ? true : null
  )
}

module "capacity" {
  source = "../modules/capacity"

  name                                    = var.name
  name_suffix                             = var.name_suffix
  tags                                    = var.tags
  cluster_name                            = local.cluster_name
  associate_capacity_provider             = local.associate_capacity_provider
  additional_cluster_capacity_providers   = var.additional_cluster_capacity_providers
  default_capacity_provider_strategy      = var.default_capacity_provider_strategy
  vpc_id                                  = var.vpc_id
  subnet_ids                              = var.subnet_ids
  instance_security_group_ids             = var.instance_security_group_ids
  instance_egress_rules                   = var.instance_egress_rules
  instance_type                           = var.instance_type
  instance_type_facts                     = var.instance_type_facts
  ami_ssm_parameter                       = var.ami_ssm_parameter
  ami_id                                  = var.ami_id
  root_volume_size_gib                    = var.root_volume_size_gib
  root_volume_device_name                 = var.root_volume_device_name
  root_volume_kms_key_id                  = var.root_volume_kms_key_id
  extra_ecs_config                        = var.extra_ecs_config
  extra_user_data                         = var.extra_user_data
  enable_ssm                              = var.enable_ssm
  instance_role_policy_arns               = var.instance_role_policy_arns
  imds_hop_limit                          = var.imds_hop_limit
  min_size                                = var.min_size
  max_size                                = var.max_size
  force_delete                            = var.force_delete
  instance_warmup                         = var.instance_warmup
  instance_refresh_min_healthy_percentage = var.instance_refresh_min_healthy_percentage
  instance_refresh_max_healthy_percentage = var.instance_refresh_max_healthy_percentage
  target_capacity                         = var.target_capacity
  minimum_scaling_step_size               = var.minimum_scaling_step_size
  maximum_scaling_step_size               = var.maximum_scaling_step_size
  iam_role_path                           = var.iam_role_path
  iam_permissions_boundary                = var.iam_permissions_boundary
  model_cache                             = var.model_cache
  create_instance_profile                 = var.create_instance_profile
  instance_profile_arn                    = var.instance_profile_arn
  mixed_instances                         = var.mixed_instances
  capacity_reservation                    = var.capacity_reservation
  warm_pool                               = var.warm_pool
  efa                                     = var.efa
  gpu_metrics = {
    enabled   = var.gpu_metrics.enabled
    interval  = var.gpu_metrics.interval
    namespace = var.gpu_metrics.namespace
  }
}

module "service" {
  source = "../modules/service"
  # Not set: compatibility: the tasks run on this module's EC2 capacity (the input's default, "EC2").

  name                               = var.name
  name_suffix                        = var.name_suffix
  tags                               = var.tags
  cluster_name                       = module.capacity.cluster_name
  vpc_id                             = var.vpc_id
  subnet_ids                         = var.service_subnet_ids != null ? var.service_subnet_ids : var.subnet_ids
  security_group_ids                 = var.security_group_ids
  ingress_rules                      = var.ingress_rules
  egress_rules                       = var.egress_rules
  instance_type                      = module.capacity.instance_type
  instance_type_facts                = var.instance_type_facts
  network_mode                       = var.network_mode
  gpu_count                          = var.gpu_count
  mps                                = var.mps
  efa                                = module.capacity.efa
  task_cpu                           = var.task_cpu
  task_memory                        = var.task_memory
  memory_margin_mib                  = var.memory_margin_mib
  container_name                     = var.container_name
  container_image                    = var.container_image
  container_command                  = var.container_command
  container_entry_point              = var.container_entry_point
  container_port_mappings            = var.container_port_mappings
  container_environment              = var.container_environment
  container_secrets                  = var.container_secrets
  secrets_kms_key_arns               = var.secrets_kms_key_arns
  container_health_check             = var.container_health_check
  nvidia_driver_capabilities         = var.nvidia_driver_capabilities
  readonly_root_filesystem           = var.readonly_root_filesystem
  sidecar_containers                 = var.sidecar_containers
  linux_parameters                   = var.linux_parameters
  ulimits                            = var.ulimits
  ipc_mode                           = var.ipc_mode
  stop_timeout                       = var.stop_timeout
  docker_labels                      = var.docker_labels
  repository_credentials             = var.repository_credentials
  additional_containers              = var.additional_containers
  iam_role_path                      = var.iam_role_path
  iam_permissions_boundary           = var.iam_permissions_boundary
  task_role_policy_arns              = var.task_role_policy_arns
  log_retention_days                 = var.log_retention_days
  log_group_kms_key_arn              = var.log_group_kms_key_arn
  desired_count                      = var.desired_count
  autoscaling                        = var.autoscaling
  placement_constraint_instance_type = var.placement_constraint_instance_type
  deployment_minimum_healthy_percent = var.deployment_minimum_healthy_percent
  deployment_maximum_percent         = var.deployment_maximum_percent
  load_balancer                      = var.load_balancer
  load_balancers                     = var.load_balancers
  health_check_grace_period_seconds  = var.health_check_grace_period_seconds
  deployment_circuit_breaker         = var.deployment_circuit_breaker
  deployment_alarms                  = var.deployment_alarms
  force_new_deployment               = var.force_new_deployment
  deployment_triggers                = var.deployment_triggers
  deployment_strategy                = var.deployment_strategy
  service_connect                    = var.service_connect
  enable_execute_command             = var.enable_execute_command
  wait_for_steady_state              = var.wait_for_steady_state
  model_cache                        = var.model_cache
  efs_volumes                        = var.efs_volumes
  ebs_volume                         = var.ebs_volume
  capacity_provider_name             = local.service_capacity_provider_name
  max_size                           = module.capacity.max_size
  capacity_availability_zones        = module.capacity.availability_zones
  create_execution_role              = var.create_execution_role
  execution_role_arn                 = var.execution_role_arn
  create_task_role                   = var.create_task_role
  task_role_arn                      = var.task_role_arn
  additional_instance_types          = module.capacity.additional_instance_types
  gpu_metrics = {
    enabled                = var.gpu_metrics.enabled
    interval               = var.gpu_metrics.interval
    namespace              = var.gpu_metrics.namespace
    autoscaling_group_name = module.capacity.autoscaling_group_name
    dashboard              = var.gpu_metrics.dashboard
    idle_alarm             = var.gpu_metrics.idle_alarm
  }
}
