output "cluster_name" {
  description = "Name of the ECS cluster (created by the module or passed in)."
  value       = local.cluster_name
}

output "capacity_provider_name" {
  description = "Name of the Managed Instances capacity provider (associated with the cluster on creation)."
  value       = aws_ecs_capacity_provider.this.name
}

output "service_name" {
  description = "Name of the ECS service."
  value       = module.service.service_name
}

output "service_id" {
  description = "ID (ARN) of the ECS service."
  value       = module.service.service_id
}

output "desired_count_owner" {
  description = "Who owns the service's desired_count: \"terraform\" or \"application-autoscaling\"."
  value       = module.service.desired_count_owner
}

output "deployment_capacity" {
  description = "What a deployment needs, in tasks (modules/service's output of the same name). Managed Instances has no group size to check it against: ECS launches the instances a deployment needs, within the account's quotas."
  value       = module.service.deployment_capacity
}

output "task_definition_arn" {
  description = "ARN of the task definition (with its revision)."
  value       = module.service.task_definition_arn
}

output "infrastructure_role_arn" {
  description = "ARN of the infrastructure role ECS uses to manage the instances."
  value       = aws_iam_role.infrastructure.arn
}

output "instance_profile_arn" {
  description = "ARN of the instances' instance profile."
  value       = aws_iam_instance_profile.instance.arn
}

output "instance_role_name" {
  description = "Name of the instances' IAM role (it starts with ecsInstanceRole, as AmazonECSInfrastructureRolePolicyForManagedInstances requires)."
  value       = aws_iam_role.instance.name
}

output "execution_role_arn" {
  description = "ARN of the task execution role."
  value       = module.service.execution_role_arn
}

output "task_role_arn" {
  description = "ARN of the task role."
  value       = module.service.task_role_arn
}

output "task_role_name" {
  description = "Name of the task role (to attach more policies)."
  value       = module.service.task_role_name
}

output "log_group_name" {
  description = "Name of the CloudWatch log group of the task's containers."
  value       = module.service.log_group_name
}

output "task_security_group_id" {
  description = "ID of the tasks' security group."
  value       = module.service.task_security_group_id
}

output "instance_security_group_id" {
  description = "ID of the instances' security group."
  value       = aws_security_group.instance.id
}

output "tasks_per_instance" {
  description = "How many of these tasks one instance of each listed type holds: the least of what its GPUs, CPU units and memory allow (types described by instance_type_facts included)."
  value       = local.tasks_per_instance
}

output "container_definitions" {
  description = "The task's container definitions as the module rendered them (JSON), for review or for `ecs-gpu check`."
  value       = module.service.container_definitions
}
