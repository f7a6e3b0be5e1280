output "autoscaling_group_name" {
  description = "The group with the warm pool."
  value       = module.inference.autoscaling_group_name
}

output "service_name" {
  description = "ECS service."
  value       = module.inference.service_name
}
