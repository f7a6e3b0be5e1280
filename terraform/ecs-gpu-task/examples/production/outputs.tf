output "cluster_name" {
  description = "The cluster of both services."
  value       = module.cluster.name
}

output "capacity_providers" {
  description = "The cluster's capacity provider list, read from the association."
  value       = module.cluster.capacity_providers
}

output "vllm_deployment_capacity" {
  description = "What a vLLM deployment needs of its capacity, in tasks."
  value       = module.vllm.deployment_capacity
}

output "vllm_gpu_metrics" {
  description = "vLLM's GPU metrics: namespace, group, alarm, dashboard."
  value       = module.vllm.gpu_metrics
}

output "embed_placement_expression" {
  description = "Where the embedding tasks may run."
  value       = module.embed.placement_expression
}
