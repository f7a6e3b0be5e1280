output "service_name" {
  description = "ECS service."
  value       = module.vllm.service_name
}

output "task_definition_arn" {
  description = "Task definition (with revision)."
  value       = module.vllm.task_definition_arn
}

output "task_gpus" {
  description = "GPUs the task asks for (2 + 2)."
  value       = module.vllm.task_gpus
}

output "capacity_provider_name" {
  description = "Capacity provider of the g6.12xlarge group."
  value       = module.vllm.capacity_provider_name
}

output "autoscaling_group_name" {
  description = "Auto Scaling group of the GPU instances."
  value       = module.vllm.autoscaling_group_name
}
