output "service_name" {
  description = "ECS service."
  value       = module.inference.service_name
}

output "task_definition_arn" {
  description = "Task definition (with revision)."
  value       = module.inference.task_definition_arn
}

output "ami_id" {
  description = "GPU AMI the instances boot."
  value       = module.inference.ami_id
}

output "placement_expression" {
  description = "Placement expression that pins the tasks to g5.xlarge."
  value       = module.inference.placement_expression
}

output "log_group_name" {
  description = "Where the container logs go."
  value       = module.inference.log_group_name
}
