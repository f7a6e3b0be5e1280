# The service, in one of two mutually exclusive forms selected by count, because
# lifecycle.ignore_changes cannot be conditional:
# - aws_ecs_service.this (no `autoscaling`): Terraform owns desired_count;
# - aws_ecs_service.autoscaled (`autoscaling` set): Application Auto Scaling owns desired_count,
#   Terraform sets it only at creation and ignores it afterwards.
# The two bodies must stay identical apart from desired_count and the lifecycle block.
# Switching modes replaces the service; a `moved` block in the calling module avoids that (see the README).

resource "aws_ecs_service" "this" {
  count = local.autoscaling_enabled ? 0 : 1

  name                               = var.name
  cluster                            = local.cluster_name
  task_definition                    = aws_ecs_task_definition.this.arn
  desired_count                      = var.desired_count
  deployment_minimum_healthy_percent = var.deployment_minimum_healthy_percent
  deployment_maximum_percent         = var.deployment_maximum_percent
  health_check_grace_period_seconds  = var.load_balancer == null ? null : var.health_check_grace_period_seconds
  enable_execute_command             = var.enable_execute_command
  enable_ecs_managed_tags            = true
  propagate_tags                     = "SERVICE"
  wait_for_steady_state              = var.wait_for_steady_state
  tags                               = local.tags

  capacity_provider_strategy {
    capacity_provider = var.capacity_provider_name
    weight            = 1
    base              = 0
  }

  dynamic "network_configuration" {
    for_each = local.is_awsvpc ? [1] : []
    content {
      subnets          = local.service_subnet_ids
      security_groups  = concat([aws_security_group.task[0].id], var.security_group_ids)
      assign_public_ip = false
    }
  }

  dynamic "placement_constraints" {
    for_each = var.placement_constraint_instance_type ? [1] : []
    content {
      type       = "memberOf"
      expression = local.placement_expression
    }
  }

  # An ECS managed EBS volume per task (`ebs_volume`), created at launch.
  dynamic "volume_configuration" {
    for_each = var.ebs_volume == null ? [] : [var.ebs_volume]
    content {
      name = "scratch"
      managed_ebs_volume {
        role_arn         = volume_configuration.value.infrastructure_role_arn
        size_in_gb       = volume_configuration.value.size_in_gb
        volume_type      = volume_configuration.value.volume_type
        iops             = volume_configuration.value.iops
        throughput       = volume_configuration.value.throughput
        file_system_type = volume_configuration.value.file_system_type
        encrypted        = true
        kms_key_id       = volume_configuration.value.kms_key_id
      }
    }
  }

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  dynamic "load_balancer" {
    for_each = var.load_balancer == null ? [] : [var.load_balancer]
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = coalesce(load_balancer.value.container_name, var.container_name)
      container_port   = load_balancer.value.container_port
    }
  }

  lifecycle {
    precondition {
      condition     = local.tasks_per_instance == null || var.max_size == null || var.desired_count <= coalesce(var.max_size, 0) * coalesce(local.tasks_per_instance, 0)
      error_message = "desired_count ${var.desired_count} is more than the group can hold: max_size ${coalesce(var.max_size, 0)} x ${coalesce(local.tasks_per_instance, 0)} task(s) per ${var.instance_type} (the least over its GPUs, CPU and memory); the rest would pend forever."
    }
  }

  # The roles must have their policies before the first task starts. (The capacity provider is on
  # the cluster before the service is created: `capacity_provider_name` comes from the association.)
  depends_on = [
    aws_iam_role_policy_attachment.execution,
    aws_iam_role_policy.execution_secrets,
    aws_iam_role_policy.task_exec,
    aws_iam_role_policy.task_efs,
  ]
}

resource "aws_ecs_service" "autoscaled" {
  count = local.autoscaling_enabled ? 1 : 0

  name                               = var.name
  cluster                            = local.cluster_name
  task_definition                    = aws_ecs_task_definition.this.arn
  desired_count                      = var.autoscaling.min_capacity
  deployment_minimum_healthy_percent = var.deployment_minimum_healthy_percent
  deployment_maximum_percent         = var.deployment_maximum_percent
  health_check_grace_period_seconds  = var.load_balancer == null ? null : var.health_check_grace_period_seconds
  enable_execute_command             = var.enable_execute_command
  enable_ecs_managed_tags            = true
  propagate_tags                     = "SERVICE"
  wait_for_steady_state              = var.wait_for_steady_state
  tags                               = local.tags

  capacity_provider_strategy {
    capacity_provider = var.capacity_provider_name
    weight            = 1
    base              = 0
  }

  dynamic "network_configuration" {
    for_each = local.is_awsvpc ? [1] : []
    content {
      subnets          = local.service_subnet_ids
      security_groups  = concat([aws_security_group.task[0].id], var.security_group_ids)
      assign_public_ip = false
    }
  }

  dynamic "placement_constraints" {
    for_each = var.placement_constraint_instance_type ? [1] : []
    content {
      type       = "memberOf"
      expression = local.placement_expression
    }
  }

  # An ECS managed EBS volume per task (`ebs_volume`), created at launch.
  dynamic "volume_configuration" {
    for_each = var.ebs_volume == null ? [] : [var.ebs_volume]
    content {
      name = "scratch"
      managed_ebs_volume {
        role_arn         = volume_configuration.value.infrastructure_role_arn
        size_in_gb       = volume_configuration.value.size_in_gb
        volume_type      = volume_configuration.value.volume_type
        iops             = volume_configuration.value.iops
        throughput       = volume_configuration.value.throughput
        file_system_type = volume_configuration.value.file_system_type
        encrypted        = true
        kms_key_id       = volume_configuration.value.kms_key_id
      }
    }
  }

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  dynamic "load_balancer" {
    for_each = var.load_balancer == null ? [] : [var.load_balancer]
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = coalesce(load_balancer.value.container_name, var.container_name)
      container_port   = load_balancer.value.container_port
    }
  }

  lifecycle {
    # Application Auto Scaling owns the task count.
    ignore_changes = [desired_count]

    precondition {
      condition     = local.tasks_per_instance == null || var.max_size == null || var.autoscaling.max_capacity <= coalesce(var.max_size, 0) * coalesce(local.tasks_per_instance, 0)
      error_message = "autoscaling.max_capacity ${var.autoscaling.max_capacity} is more than the group can hold: max_size ${coalesce(var.max_size, 0)} x ${coalesce(local.tasks_per_instance, 0)} task(s) per ${var.instance_type} (the least over its GPUs, CPU and memory); the tasks above it would pend forever."
    }
  }

  depends_on = [
    aws_iam_role_policy_attachment.execution,
    aws_iam_role_policy.execution_secrets,
    aws_iam_role_policy.task_exec,
    aws_iam_role_policy.task_efs,
  ]
}

locals {
  service = local.autoscaling_enabled ? aws_ecs_service.autoscaled[0] : aws_ecs_service.this[0]
}

# --- Application Auto Scaling (only with `autoscaling`) -------------------------------------------

resource "aws_appautoscaling_target" "this" {
  count = local.autoscaling_enabled ? 1 : 0

  service_namespace  = "ecs"
  resource_id        = "service/${local.cluster_name}/${aws_ecs_service.autoscaled[0].name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = var.autoscaling.min_capacity
  max_capacity       = var.autoscaling.max_capacity
  tags               = local.tags
}

resource "aws_appautoscaling_policy" "this" {
  count = local.autoscaling_enabled ? 1 : 0

  name               = "${var.name}-target-tracking"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.this[0].service_namespace
  resource_id        = aws_appautoscaling_target.this[0].resource_id
  scalable_dimension = aws_appautoscaling_target.this[0].scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = var.autoscaling.target_value
    scale_in_cooldown  = var.autoscaling.scale_in_cooldown
    scale_out_cooldown = var.autoscaling.scale_out_cooldown
    disable_scale_in   = var.autoscaling.disable_scale_in

    dynamic "predefined_metric_specification" {
      for_each = var.autoscaling.customized_metric == null && local.gpu_policy_metric == null ? [1] : []
      content {
        predefined_metric_type = var.autoscaling.predefined_metric_type
        resource_label         = var.autoscaling.resource_label
      }
    }

    dynamic "customized_metric_specification" {
      for_each = var.autoscaling.customized_metric == null ? [] : [var.autoscaling.customized_metric]
      content {
        metric_name = customized_metric_specification.value.metric_name
        namespace   = customized_metric_specification.value.namespace
        statistic   = customized_metric_specification.value.statistic
        unit        = customized_metric_specification.value.unit

        dynamic "dimensions" {
          for_each = customized_metric_specification.value.dimensions
          content {
            name  = dimensions.key
            value = dimensions.value
          }
        }
      }
    }

    # `gpu_metric`: the GPUs of the service's group, as metric math over the agent's aggregate
    # (metrics.tf: local.gpu_policy_queries).
    dynamic "customized_metric_specification" {
      for_each = local.gpu_policy_metric == null ? [] : [local.gpu_policy_queries[local.gpu_policy_metric]]
      content {
        dynamic "metrics" {
          for_each = customized_metric_specification.value
          content {
            id          = metrics.value.id
            expression  = metrics.value.expression
            label       = metrics.value.label
            return_data = metrics.value.return_data

            dynamic "metric_stat" {
              for_each = metrics.value.metric_name == null ? [] : [metrics.value]
              content {
                stat = metric_stat.value.stat
                metric {
                  namespace   = var.gpu_metrics.namespace
                  metric_name = metric_stat.value.metric_name
                  dimensions {
                    name  = "AutoScalingGroupName"
                    value = local.gpu_metrics_group_label
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  lifecycle {
    # Tracking a GPU metric nothing publishes would never scale: refuse it.
    precondition {
      condition     = local.gpu_policy_metric == null || local.gpu_metrics
      error_message = "autoscaling.gpu_metric = \"${coalesce(local.gpu_policy_metric, "-")}\" tracks the GPU metrics of the CloudWatch agent, which nothing publishes: set gpu_metrics = { enabled = true }."
    }
    precondition {
      condition     = local.gpu_policy_metric == null || local.gpu_metrics_group != null
      error_message = "autoscaling.gpu_metric needs gpu_metrics.autoscaling_group_name: the policy tracks the agent's aggregate over that group (the capacity's autoscaling_group_name output)."
    }
    # The agent's nvidia_gpu metrics are named nvidia_smi_* (CloudWatch-Agent-NVIDIA-GPU page, see
    # metrics.tf): a customized metric of that name, with the module's agent off, is one nothing
    # publishes unless you run an agent yourself.
    precondition {
      condition     = !startswith(try(var.autoscaling.customized_metric.metric_name, ""), "nvidia_smi_") || local.gpu_metrics
      error_message = "autoscaling.customized_metric tracks ${try(var.autoscaling.customized_metric.metric_name, "")}, a CloudWatch agent nvidia_gpu metric, but gpu_metrics is off and nothing publishes it: set gpu_metrics = { enabled = true } and autoscaling.gpu_metric = \"utilization\" (or \"memory\") instead."
    }
  }
}
