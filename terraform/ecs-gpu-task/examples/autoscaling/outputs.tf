output "service_name" {
  description = "ECS service (its desired_count belongs to Application Auto Scaling)."
  value       = module.inference.service_name
}

output "desired_count_owner" {
  description = "Who owns desired_count."
  value       = module.inference.desired_count_owner
}

output "capacity_provider_name" {
  description = "The GPU capacity provider now on the cluster."
  value       = module.inference.capacity_provider_name
}

output "autoscaling_group_name" {
  description = "Auto Scaling group of the g6.xlarge instances."
  value       = module.inference.autoscaling_group_name
}

output "task_definition_arn" {
  description = "The task definition the service runs."
  value       = module.inference.task_definition_arn
}

output "ami_id" {
  description = "The GPU AMI of the launch template (read from SSM at plan time)."
  value       = module.inference.ami_id
}

output "container_definitions" {
  description = "The task's container definitions as rendered (JSON)."
  value       = module.inference.container_definitions
}
