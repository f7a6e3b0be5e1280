output "capacity_provider_name" {
  description = "The GPU capacity provider, on the platform's cluster."
  value       = module.gpu_capacity.capacity_provider_name
}

output "service_name" {
  description = "ECS service."
  value       = module.embeddings.service_name
}

output "task_gpus" {
  description = "GPUs per task."
  value       = module.embeddings.task_gpus
}

output "tasks_per_instance" {
  description = "Tasks one g5.2xlarge holds."
  value       = module.embeddings.tasks_per_instance
}
