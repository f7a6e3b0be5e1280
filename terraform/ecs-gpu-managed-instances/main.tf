# The facts of each listed type, and the task and service, come from terraform/ecs-gpu-task's
# submodules, so that the catalog, the fit rules and the task definition live once:
# - ../ecs-gpu-task/modules/facts, once per type: the generated catalog (catalog.tf), the memory
#   margin rule, the nearest names of an unknown type;
# - ../ecs-gpu-task/modules/service: the task definition (requires_compatibilities
#   MANAGED_INSTANCES), its roles, log group and security group, and the service on this module's
#   capacity provider.

module "facts" {
  source   = "../ecs-gpu-task/modules/facts"
  for_each = toset(var.instance_types)

  name                = var.name
  cluster_name        = var.cluster_name
  instance_type       = each.key
  instance_type_facts = lookup(var.instance_type_facts, each.key, null)
  memory_margin_mib   = var.memory_margin_mib
}

module "service" {
  source = "../ecs-gpu-task/modules/service"

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

  vpc_id             = var.vpc_id
  subnet_ids         = var.subnet_ids
  security_group_ids = var.security_group_ids
  ingress_rules      = var.ingress_rules
  network_mode       = "awsvpc"

  gpu_count                  = var.gpu_count
  mps                        = var.mps
  task_cpu                   = var.task_cpu
  task_memory                = var.task_memory
  container_name             = var.container_name
  container_image            = var.container_image
  container_command          = var.container_command
  container_environment      = var.container_environment
  container_port_mappings    = var.container_port_mappings
  nvidia_driver_capabilities = var.nvidia_driver_capabilities

  iam_permissions_boundary = var.iam_permissions_boundary
  task_role_policy_arns    = var.task_role_policy_arns
  log_retention_days       = var.log_retention_days
  log_group_kms_key_arn    = var.log_group_kms_key_arn

  desired_count         = var.desired_count
  wait_for_steady_state = var.wait_for_steady_state
}
