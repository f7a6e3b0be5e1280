output "name" {
  description = "Name of the cluster (from the cluster itself: give it to each GPU service's `cluster_name`)."
  value       = var.create ? aws_ecs_cluster.this[0].name : var.name
}

output "arn" {
  description = "ARN of the cluster (null when `create` is false)."
  value       = try(aws_ecs_cluster.this[0].arn, null)
}

output "capacity_providers" {
  description = "The capacity provider list, read from the association: give it to each GPU service's `cluster_capacity_providers` (root module), so that the service is created once its provider is on the cluster."
  value       = aws_ecs_cluster_capacity_providers.this.capacity_providers
}
