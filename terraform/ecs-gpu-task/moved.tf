# State written before the split into modules/capacity and modules/service moves to the new
# addresses on the next plan, with no destroy. The roles and the instance profile became optional
# (bring your own), hence their [0].

moved {
  from = aws_launch_template.this
  to   = module.capacity.aws_launch_template.this
}

moved {
  from = aws_autoscaling_group.this
  to   = module.capacity.aws_autoscaling_group.this
}

moved {
  from = aws_ecs_capacity_provider.this
  to   = module.capacity.aws_ecs_capacity_provider.this
}

moved {
  from = aws_ecs_cluster_capacity_providers.this
  to   = module.capacity.aws_ecs_cluster_capacity_providers.this
}

moved {
  from = aws_security_group.instance
  to   = module.capacity.aws_security_group.instance
}

moved {
  from = aws_vpc_security_group_egress_rule.instance
  to   = module.capacity.aws_vpc_security_group_egress_rule.instance
}

moved {
  from = aws_iam_role.instance
  to   = module.capacity.aws_iam_role.instance[0]
}

moved {
  from = aws_iam_role_policy_attachment.instance
  to   = module.capacity.aws_iam_role_policy_attachment.instance
}

moved {
  from = aws_iam_instance_profile.instance
  to   = module.capacity.aws_iam_instance_profile.instance[0]
}

moved {
  from = aws_security_group.task
  to   = module.service.aws_security_group.task
}

moved {
  from = aws_vpc_security_group_ingress_rule.task
  to   = module.service.aws_vpc_security_group_ingress_rule.task
}

moved {
  from = aws_vpc_security_group_egress_rule.task
  to   = module.service.aws_vpc_security_group_egress_rule.task
}

moved {
  from = aws_iam_role.execution
  to   = module.service.aws_iam_role.execution[0]
}

moved {
  from = aws_iam_role_policy_attachment.execution
  to   = module.service.aws_iam_role_policy_attachment.execution[0]
}

moved {
  from = aws_iam_role_policy.execution_secrets
  to   = module.service.aws_iam_role_policy.execution_secrets
}

moved {
  from = aws_iam_role.task
  to   = module.service.aws_iam_role.task[0]
}

moved {
  from = aws_iam_role_policy_attachment.task
  to   = module.service.aws_iam_role_policy_attachment.task
}

moved {
  from = aws_iam_role_policy.task_exec
  to   = module.service.aws_iam_role_policy.task_exec
}

moved {
  from = aws_iam_role_policy.task_efs
  to   = module.service.aws_iam_role_policy.task_efs
}

moved {
  from = aws_cloudwatch_log_group.this
  to   = module.service.aws_cloudwatch_log_group.this
}

moved {
  from = aws_ecs_task_definition.this
  to   = module.service.aws_ecs_task_definition.this
}

moved {
  from = aws_ecs_service.this
  to   = module.service.aws_ecs_service.this
}

moved {
  from = aws_ecs_service.autoscaled
  to   = module.service.aws_ecs_service.autoscaled
}

moved {
  from = aws_appautoscaling_target.this
  to   = module.service.aws_appautoscaling_target.this
}

moved {
  from = aws_appautoscaling_policy.this
  to   = module.service.aws_appautoscaling_policy.this
}
