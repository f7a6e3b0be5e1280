output "task_definition_arn" {
  description = "ARN of the task definition (with its revision)."
  value       = aws_ecs_task_definition.this.arn
}

output "task_definition_family" {
  description = "Family of the task definition."
  value       = aws_ecs_task_definition.this.family
}

output "task_definition_revision" {
  description = "Revision of the task definition."
  value       = aws_ecs_task_definition.this.revision
}

output "service_name" {
  description = "Name of the ECS service."
  value       = local.service.name
}

output "service_id" {
  description = "ID (ARN) of the ECS service."
  value       = local.service.id
}

output "desired_count_owner" {
  description = "Who owns the service's desired_count: \"terraform\" or \"application-autoscaling\"."
  value       = local.autoscaling_enabled ? "application-autoscaling" : "terraform"
}

output "execution_role_arn" {
  description = "ARN of the task execution role (the module's, or yours)."
  value       = local.execution_role_arn
}

output "task_role_arn" {
  description = "ARN of the task role (the module's, or yours)."
  value       = local.task_role_arn
}

output "task_role_name" {
  description = "Name of the task role the module created, to attach more policies (null with your own)."
  value       = try(aws_iam_role.task[0].name, null)
}

output "log_group_name" {
  description = "Name of the CloudWatch log group of the task's containers."
  value       = aws_cloudwatch_log_group.this.name
}

output "task_security_group_id" {
  description = "ID of the tasks' security group (awsvpc mode; null in bridge mode)."
  value       = local.is_awsvpc ? aws_security_group.task[0].id : null
}

output "gpus_per_instance" {
  description = "GPUs one instance of the type offers, from the catalog (a fraction on g6f/gr6f)."
  value       = local.instance.gpus_per_instance
}

output "tasks_per_instance" {
  description = "How many of these tasks fit one instance: the least of what its GPUs, CPU units and memory allow (null when the catalog does not know the type)."
  value       = local.tasks_per_instance
}

output "task_gpus" {
  description = "GPUs the task asks for: the sum over its containers."
  value       = local.task_gpus
}

output "container_definitions" {
  description = "The task's container definitions as the module rendered them (JSON), for review or for `ecs-gpu check`."
  value       = jsonencode(local.container_definitions)
}

output "placement_expression" {
  description = "The memberOf placement expression that pins the tasks to the instance type (null when disabled)."
  value       = var.placement_constraint_instance_type ? local.placement_expression : null
}

output "max_task_memory_mib" {
  description = "Most task memory the module accepts on the instance type (the catalog's max_task_memory_mib minus the memory margin)."
  value       = local.max_task_memory
}

output "gpu_idle_alarm_arn" {
  description = "ARN of the alarm for GPUs idle while the service's tasks pend (`gpu_metrics.idle_alarm`); null without it."
  value       = try(aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].arn, null)
}

output "gpu_dashboard_name" {
  description = "Name of the CloudWatch dashboard of the service's GPUs (`gpu_metrics.dashboard`); null without it."
  value       = try(aws_cloudwatch_dashboard.gpu[0].dashboard_name, null)
}

output "deployment_capacity" {
  description = "What a deployment needs of the capacity, in tasks: `deploy_count` (desired_count, or autoscaling.max_capacity), `needed_tasks` (the least the deployment needs at once to make progress: one task more than it keeps running in a rolling deployment at a minimum of 100 %, twice the count for BLUE_GREEN, LINEAR and CANARY), `peak_tasks` (at full speed), and `capacity_tasks` (max_size x tasks per instance; null without a group size). The plan is refused when `needed_tasks` exceeds `capacity_tasks`."
  value = {
    strategy       = local.strategy
    deploy_count   = local.deploy_count
    needed_tasks   = local.deploy_needed_tasks
    peak_tasks     = local.deploy_peak_tasks
    capacity_tasks = local.capacity_tasks
    task_gpus      = local.task_gpus
  }
}
