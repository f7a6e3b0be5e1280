output "service_name" {
  description = "ECS service (its desired_count belongs to Application Auto Scaling)."
  value       = module.inference.service_name
}

output "cluster_name" {
  description = "ECS cluster, with Container Insights."
  value       = module.inference.cluster_name
}

output "autoscaling_group_name" {
  description = "Auto Scaling group of the g6.xlarge instances; the GPU aggregate is published for it."
  value       = module.inference.autoscaling_group_name
}

output "gpu_metrics" {
  description = "The GPU metrics: namespace, interval, group, the agent configuration, the alarm and the dashboard."
  value       = module.inference.gpu_metrics
}
