# Two security groups, neither with ingress by default:
# - the instances' group: the ECS agent and the container runtime need HTTPS out (ECS, ECR, S3,
#   CloudWatch Logs);
# - the tasks' group: each task's own network interface (awsvpc).
# Rules are separate resources, so that rules you add to these groups elsewhere are not removed.

resource "aws_security_group" "instance" {
  #checkov:skip=CKV2_AWS_5:attached to the instances through the capacity provider's managed_instances_provider network_configuration, which checkov does not follow
  name_prefix = "${var.name}-instance-"
  description = "ECS Managed Instances of ${var.name} (GPU)"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${var.name}-instance" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_egress_rule" "instance_https" {
  security_group_id = aws_security_group.instance.id
  description       = "HTTPS to anywhere (ECS, ECR, S3, CloudWatch Logs)"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
  tags              = local.tags
}

resource "aws_security_group" "task" {
  name_prefix = "${var.name}-task-"
  description = "Tasks of ${var.name} (awsvpc)"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${var.name}-task" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "task" {
  for_each = var.ingress_rules

  security_group_id            = aws_security_group.task.id
  description                  = each.value.description
  ip_protocol                  = each.value.ip_protocol
  from_port                    = each.value.from_port
  to_port                      = each.value.to_port
  cidr_ipv4                    = each.value.cidr_ipv4
  referenced_security_group_id = each.value.referenced_security_group_id
  tags                         = local.tags
}

resource "aws_vpc_security_group_egress_rule" "task_https" {
  security_group_id = aws_security_group.task.id
  description       = "HTTPS to anywhere (model downloads, AWS APIs)"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
  tags              = local.tags
}
