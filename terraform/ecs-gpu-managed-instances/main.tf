# The facts of each listed type, and the task and service, come from the submodules that the EC2
# module (terraform/ecs-gpu-task) calls too, so that the catalog, the fit rules, the task definition
# and the service live once:
# - ../modules/facts, once per type: the generated catalog (catalog.tf), the memory margin rule, the
#   nearest names of an unknown type;
# - ../modules/service-v6 (modules/service with the blocks of hashicorp/aws 6.x): the task
#   definition (requires_compatibilities MANAGED_INSTANCES), its roles, log group and security group,
#   the service on this module's capacity provider, load balancers, Service Connect, deployments
#   (native blue/green, linear and canary included) and Application Auto Scaling.

module "facts" {
  source   = "../modules/facts"
  for_each = toset(var.instance_types)
  # Not set: name_suffix, iam_role_path, iam_permissions_boundary, model_cache and
  # additional_instance_types: this call reads the facts of each type only; the service's own call
  # of modules/facts checks the others.

  name                = var.name
  cluster_name        = var.cluster_name
  instance_type       = each.key
  instance_type_facts = lookup(var.instance_type_facts, each.key, null)
  memory_margin_mib   = var.memory_margin_mib
}

module "service" {
  source = "../modules/service-v6"
  # Not set: efa, gpu_metrics, capacity_availability_zones and additional_instance_types: the inputs
  # of an EC2 capacity's instances, its agent and its Auto Scaling group, which Managed Instances
  # does not have (README: "GPU metrics"; the capacity provider pins the types).
  # Not set: model_cache: a host path on instances ECS Managed Instances manages, and whether it
  # persists, and where, is not documented.
  # Not set: name_suffix: not offered yet; the service derives it from the cluster name (the default).

  name          = var.name
  tags          = var.tags
  cluster_name  = local.cluster_name
  compatibility = "MANAGED_INSTANCES"
  # The service module checks the task against one type; this module checks it against every
  # listed type (capacity.tf). The type comes through the capacity provider, so that a type this
  # module refuses stops the plan there, with one message, before the service module sees it.
  instance_type       = aws_ecs_capacity_provider.this.name == "" ? var.instance_types[0] : var.instance_types[0]
  instance_type_facts = lookup(var.instance_type_facts, var.instance_types[0], null)
  memory_margin_mib   = var.memory_margin_mib

  # The capacity provider pins the types: no memberOf on one instance type, no group to size.
  capacity_provider_name             = aws_ecs_capacity_provider.this.name
  placement_constraint_instance_type = false
  max_size                           = null

  vpc_id       = var.vpc_id
  subnet_ids   = var.subnet_ids
  network_mode = "awsvpc"

  gpu_count                = var.gpu_count
  mps                      = var.mps
  task_cpu                 = var.task_cpu
  task_memory              = var.task_memory
  iam_permissions_boundary = var.iam_permissions_boundary

  # Passed through: variables_service.tf declares them as modules/service-v6 does (copied by
  # scripts/generate.sh, whose check fails when an input of modules/service-v6 is neither set here
  # nor named in a `# Not set:` comment above).
  security_group_ids                 = var.security_group_ids
  ingress_rules                      = var.ingress_rules
  egress_rules                       = var.egress_rules
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
  task_role_policy_arns              = var.task_role_policy_arns
  log_retention_days                 = var.log_retention_days
  log_group_kms_key_arn              = var.log_group_kms_key_arn
  desired_count                      = var.desired_count
  autoscaling                        = var.autoscaling
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
  efs_volumes                        = var.efs_volumes
  ebs_volume                         = var.ebs_volume
  create_execution_role              = var.create_execution_role
  execution_role_arn                 = var.execution_role_arn
  create_task_role                   = var.create_task_role
  task_role_arn                      = var.task_role_arn
}
