output "launch_template_id" {
  description = "The launch template that launches into the block."
  value       = module.train.launch_template_id
}

output "task_gpus" {
  description = "GPUs per task: the whole instance."
  value       = module.train.task_gpus
}
