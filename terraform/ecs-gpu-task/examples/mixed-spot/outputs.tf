output "placement_expression" {
  description = "The constraint that admits the group's three types."
  value       = module.batch.placement_expression
}

output "max_task_memory_mib" {
  description = "Most task memory on the smallest type."
  value       = module.batch.max_task_memory_mib
}

output "autoscaling_group_name" {
  description = "The mixed-instances group."
  value       = module.batch.autoscaling_group_name
}
