output "service_name" {
  description = "Name of the ECS service."
  value       = module.inference.service_name
}

output "capacity_provider_name" {
  description = "Name of the Managed Instances capacity provider."
  value       = module.inference.capacity_provider_name
}

output "tasks_per_instance" {
  description = "Tasks one instance of each type holds."
  value       = module.inference.tasks_per_instance
}
