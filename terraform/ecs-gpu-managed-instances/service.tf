# The service, placed only on this module's Managed Instances capacity provider.

resource "aws_ecs_service" "this" {
  name                    = var.name
  cluster                 = local.cluster_name
  task_definition         = aws_ecs_task_definition.this.arn
  desired_count           = var.desired_count
  enable_ecs_managed_tags = true
  propagate_tags          = "SERVICE"
  wait_for_steady_state   = var.wait_for_steady_state
  tags                    = local.tags

  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.this.name
    weight            = 1
    base              = 0
  }

  network_configuration {
    subnets          = var.subnet_ids
    security_groups  = concat([aws_security_group.task.id], var.security_group_ids)
    assign_public_ip = false
  }

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  depends_on = [
    aws_iam_role_policy_attachment.execution,
  ]
}
