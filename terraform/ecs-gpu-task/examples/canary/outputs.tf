output "deployment_capacity" {
  description = "What a canary deployment needs of the capacity: both revisions at full size."
  value       = module.service.deployment_capacity
}

output "service_name" {
  description = "ECS service."
  value       = module.service.service_name
}
