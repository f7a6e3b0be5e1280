# An ECS cluster shared by several GPU services, and its capacity provider list in one place.
#
# aws_ecs_cluster_capacity_providers owns a cluster's whole list: one resource per cluster must name
# every provider. Each GPU service (the root module, or modules/capacity) creates its own provider and
# is called with associate_capacity_provider = false; this module lists them all. The services take
# their provider's name from the `capacity_providers` output, read from this association, so Terraform
# creates each service only once its provider is on the cluster. The cluster's name comes from the
# cluster itself, not from the association, so that the capacities can refer to it without a cycle.

resource "aws_ecs_cluster" "this" {
  count = var.create ? 1 : 0

  name = var.name
  tags = var.tags

  setting {
    name  = "containerInsights"
    value = var.container_insights
  }

  dynamic "service_connect_defaults" {
    for_each = var.service_connect_namespace_arn == null ? [] : [var.service_connect_namespace_arn]
    content {
      namespace = service_connect_defaults.value
    }
  }
}

resource "aws_ecs_cluster_capacity_providers" "this" {
  cluster_name       = var.create ? aws_ecs_cluster.this[0].name : var.name
  capacity_providers = var.capacity_providers

  dynamic "default_capacity_provider_strategy" {
    for_each = var.default_capacity_provider_strategy
    content {
      capacity_provider = default_capacity_provider_strategy.value.capacity_provider
      weight            = default_capacity_provider_strategy.value.weight
      base              = default_capacity_provider_strategy.value.base
    }
  }
}
