output "task_definition_arn" {
  description = "ARN of the task definition (with its revision)."
  value       = module.service.task_definition_arn
}

output "task_definition_family" {
  description = "Family of the task definition."
  value       = module.service.task_definition_family
}

output "task_definition_revision" {
  description = "Revision of the task definition."
  value       = module.service.task_definition_revision
}

output "service_name" {
  description = "Name of the ECS service."
  value       = module.service.service_name

  # Without the caller's list, the service would be created as soon as the provider exists, racing
  # the caller's association: ECS refuses a service whose provider is not on the cluster yet. (On
  # this output, not on capacity_provider_name: the caller's list is made from that one.)
  precondition {
    condition     = local.associate_capacity_provider != false || local.listed_capacity_provider != null
    error_message = "With associate_capacity_provider = false, set cluster_capacity_providers to the capacity provider list read from your aws_ecs_cluster_capacity_providers (or modules/cluster's capacity_providers output), and list this module's capacity_provider_name output (${module.capacity.capacity_provider_name}) in it: the service then waits for the provider to be on the cluster."
  }
}

output "service_id" {
  description = "ID (ARN) of the ECS service."
  value       = module.service.service_id
}

output "desired_count_owner" {
  description = "Who owns the service's desired_count: \"terraform\" or \"application-autoscaling\"."
  value       = module.service.desired_count_owner
}

output "cluster_name" {
  description = "Name of the ECS cluster (created by the module or passed in)."
  value       = module.capacity.cluster_name
}

output "capacity_provider_name" {
  description = "Name of the capacity provider. With associate_capacity_provider = false, add it to the cluster's aws_ecs_cluster_capacity_providers yourself (modules/cluster's `capacity_providers`), and give this module that list as `cluster_capacity_providers`."
  value       = module.capacity.capacity_provider_name
}

output "autoscaling_group_name" {
  description = "Name of the Auto Scaling group of the GPU instances."
  value       = module.capacity.autoscaling_group_name
}

output "autoscaling_group_arn" {
  description = "ARN of the Auto Scaling group of the GPU instances."
  value       = module.capacity.autoscaling_group_arn
}

output "launch_template_id" {
  description = "ID of the launch template."
  value       = module.capacity.launch_template_id
}

output "launch_template_latest_version" {
  description = "Latest version of the launch template (the one the Auto Scaling group uses)."
  value       = module.capacity.launch_template_latest_version
}

output "ami_id" {
  description = "The GPU AMI the launch template uses (from the SSM parameter, or pinned)."
  value       = module.capacity.ami_id
}

output "ami_ssm_parameter" {
  description = "The SSM parameter the AMI was read from (null when ami_id is pinned)."
  value       = module.capacity.ami_ssm_parameter
}

output "instance_role_arn" {
  description = "ARN of the GPU instances' IAM role (null with `instance_profile_arn`)."
  value       = module.capacity.instance_role_arn
}

output "instance_role_name" {
  description = "Name of the GPU instances' IAM role, to attach more policies (null with `instance_profile_arn`)."
  value       = module.capacity.instance_role_name
}

output "instance_profile_arn" {
  description = "ARN of the GPU instances' instance profile."
  value       = module.capacity.instance_profile_arn
}

output "instance_profile_name" {
  description = "Name of the GPU instances' instance profile (null with `instance_profile_arn`)."
  value       = module.capacity.instance_profile_name
}

output "execution_role_arn" {
  description = "ARN of the task execution role (the module's, or `execution_role_arn`)."
  value       = module.service.execution_role_arn
}

output "task_role_arn" {
  description = "ARN of the task role (the module's, or `task_role_arn`)."
  value       = module.service.task_role_arn
}

output "task_role_name" {
  description = "Name of the task role, to attach more policies (null with `task_role_arn`)."
  value       = module.service.task_role_name
}

output "log_group_name" {
  description = "Name of the CloudWatch log group of the task's containers."
  value       = module.service.log_group_name
}

output "task_security_group_id" {
  description = "ID of the tasks' security group (awsvpc mode; null in bridge mode)."
  value       = module.service.task_security_group_id
}

output "instance_security_group_id" {
  description = "ID of the GPU instances' security group."
  value       = module.capacity.instance_security_group_id
}

output "gpus_per_instance" {
  description = "GPUs one instance of the type offers, from the catalog (a fraction on g6f/gr6f)."
  value       = module.service.gpus_per_instance
}

output "tasks_per_instance" {
  description = "How many of these tasks fit one instance: the least of what its GPUs, CPU units and memory allow (null when the catalog does not know the type)."
  value       = module.service.tasks_per_instance
}

output "task_gpus" {
  description = "GPUs the task asks for: the sum over its containers."
  value       = module.service.task_gpus
}

output "container_definitions" {
  description = "The task's container definitions as the module rendered them (JSON), for review or for `ecs-gpu check`."
  value       = module.service.container_definitions
}

output "placement_expression" {
  description = "The memberOf placement expression that pins the tasks to the instance type (null when disabled)."
  value       = module.service.placement_expression
}

output "max_task_memory_mib" {
  description = "Most task memory the module accepts on the instance type (the catalog's max_task_memory_mib minus the memory margin)."
  value       = module.service.max_task_memory_mib
}

output "placement_group_name" {
  description = "The cluster placement group of the EFA instances (null without `efa`)."
  value       = module.capacity.placement_group_name
}

output "gpu_metrics" {
  description = "GPU metrics (`gpu_metrics`): the namespace, the agent's interval, the Auto Scaling group whose aggregate the policy and alarm read, the agent configuration written to each instance (JSON) and its path, the idle alarm's ARN and the dashboard's name. null when off."
  value = module.capacity.gpu_metrics == null ? null : merge(module.capacity.gpu_metrics, {
    idle_alarm_arn = module.service.gpu_idle_alarm_arn
    dashboard_name = module.service.gpu_dashboard_name
  })
}

output "deployment_capacity" {
  description = "What a deployment needs of the capacity, in tasks: `deploy_count` (desired_count, or autoscaling.max_capacity), `needed_tasks` (the least it needs at once to make progress), `peak_tasks` (at full speed) and `capacity_tasks` (max_size x tasks per instance). The plan is refused when `needed_tasks` exceeds `capacity_tasks`."
  value       = module.service.deployment_capacity
}

output "availability_zones" {
  description = "Availability Zones of the GPU instances' subnets."
  value       = module.capacity.availability_zones
}
