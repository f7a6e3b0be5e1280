output "service_name" {
  description = "ECS service."
  value       = module.embeddings.service_name
}

output "task_definition_arn" {
  description = "Task definition (with revision)."
  value       = module.embeddings.task_definition_arn
}

output "tasks_per_instance" {
  description = "Tasks one g6e.xlarge holds: four MPS shares of its GPU."
  value       = module.embeddings.tasks_per_instance
}

output "container_definitions" {
  description = "The rendered container definitions, with the MPS sharing strategy."
  value       = module.embeddings.container_definitions
}
