# The service's deployment strategy and the load balancers' advanced configuration, in both forms of
# the service (see ../service/service.tf). A nested block in an override file replaces the blocks of
# that type in the original: `load_balancer` is written again here, whole.

locals {
  # Read by the original's precondition that refuses BLUE_GREEN, LINEAR and CANARY without this block.
  writes_deployment_configuration = true
}

resource "aws_ecs_service" "this" {
  # Always written, ROLLING included: the provider keeps a strategy removed from the configuration
  # (the argument is optional and computed), so going back to ROLLING must say so. The bake times are
  # strings in the provider's schema.
  dynamic "deployment_configuration" {
    for_each = [var.deployment_strategy]
    content {
      strategy             = deployment_configuration.value.strategy
      bake_time_in_minutes = deployment_configuration.value.bake_time_in_minutes == null ? null : tostring(deployment_configuration.value.bake_time_in_minutes)

      dynamic "canary_configuration" {
        for_each = deployment_configuration.value.canary == null ? [] : [deployment_configuration.value.canary]
        content {
          canary_percent              = canary_configuration.value.percent
          canary_bake_time_in_minutes = canary_configuration.value.bake_time_in_minutes == null ? null : tostring(canary_configuration.value.bake_time_in_minutes)
        }
      }

      dynamic "linear_configuration" {
        for_each = deployment_configuration.value.linear == null ? [] : [deployment_configuration.value.linear]
        content {
          step_percent              = linear_configuration.value.step_percent
          step_bake_time_in_minutes = linear_configuration.value.step_bake_time_in_minutes == null ? null : tostring(linear_configuration.value.step_bake_time_in_minutes)
        }
      }
    }
  }

  dynamic "load_balancer" {
    for_each = local.load_balancers
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = load_balancer.value.container_name
      container_port   = load_balancer.value.container_port

      dynamic "advanced_configuration" {
        for_each = load_balancer.value.advanced_configuration == null ? [] : [load_balancer.value.advanced_configuration]
        content {
          alternate_target_group_arn = advanced_configuration.value.alternate_target_group_arn
          production_listener_rule   = advanced_configuration.value.production_listener_rule
          test_listener_rule         = advanced_configuration.value.test_listener_rule
          role_arn                   = advanced_configuration.value.role_arn
        }
      }
    }
  }
}

resource "aws_ecs_service" "autoscaled" {
  # Always written, ROLLING included: the provider keeps a strategy removed from the configuration
  # (the argument is optional and computed), so going back to ROLLING must say so. The bake times are
  # strings in the provider's schema.
  dynamic "deployment_configuration" {
    for_each = [var.deployment_strategy]
    content {
      strategy             = deployment_configuration.value.strategy
      bake_time_in_minutes = deployment_configuration.value.bake_time_in_minutes == null ? null : tostring(deployment_configuration.value.bake_time_in_minutes)

      dynamic "canary_configuration" {
        for_each = deployment_configuration.value.canary == null ? [] : [deployment_configuration.value.canary]
        content {
          canary_percent              = canary_configuration.value.percent
          canary_bake_time_in_minutes = canary_configuration.value.bake_time_in_minutes == null ? null : tostring(canary_configuration.value.bake_time_in_minutes)
        }
      }

      dynamic "linear_configuration" {
        for_each = deployment_configuration.value.linear == null ? [] : [deployment_configuration.value.linear]
        content {
          step_percent              = linear_configuration.value.step_percent
          step_bake_time_in_minutes = linear_configuration.value.step_bake_time_in_minutes == null ? null : tostring(linear_configuration.value.step_bake_time_in_minutes)
        }
      }
    }
  }

  dynamic "load_balancer" {
    for_each = local.load_balancers
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = load_balancer.value.container_name
      container_port   = load_balancer.value.container_port

      dynamic "advanced_configuration" {
        for_each = load_balancer.value.advanced_configuration == null ? [] : [load_balancer.value.advanced_configuration]
        content {
          alternate_target_group_arn = advanced_configuration.value.alternate_target_group_arn
          production_listener_rule   = advanced_configuration.value.production_listener_rule
          test_listener_rule         = advanced_configuration.value.test_listener_rule
          role_arn                   = advanced_configuration.value.role_arn
        }
      }
    }
  }
}
