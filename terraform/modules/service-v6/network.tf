# The tasks' security group (awsvpc mode only), with no ingress by default: each task's own network
# interface. Rules are separate resources, so that rules you add to the group elsewhere are not
# removed.

resource "aws_security_group" "task" {
  count = local.is_awsvpc ? 1 : 0

  name_prefix = "${var.name}-task-"
  description = "Tasks of ${var.name} (awsvpc)"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${var.name}-task" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "task" {
  for_each = local.is_awsvpc ? var.ingress_rules : {}

  security_group_id            = aws_security_group.task[0].id
  description                  = each.value.description
  ip_protocol                  = each.value.ip_protocol
  from_port                    = each.value.from_port
  to_port                      = each.value.to_port
  cidr_ipv4                    = each.value.cidr_ipv4
  referenced_security_group_id = each.value.referenced_security_group_id
  tags                         = local.tags
}

resource "aws_vpc_security_group_egress_rule" "task" {
  for_each = local.is_awsvpc ? var.egress_rules : {}

  security_group_id            = aws_security_group.task[0].id
  description                  = each.value.description
  ip_protocol                  = each.value.ip_protocol
  from_port                    = each.value.from_port
  to_port                      = each.value.to_port
  cidr_ipv4                    = each.value.cidr_ipv4
  referenced_security_group_id = each.value.referenced_security_group_id
  tags                         = local.tags
}

# The load balancers' security groups into the tasks, on each target group's container port.
resource "aws_vpc_security_group_ingress_rule" "load_balancer" {
  for_each = local.is_awsvpc ? local.load_balancer_ingress : {}

  security_group_id            = aws_security_group.task[0].id
  description                  = "From load balancer ${each.value.load_balancer} to the tasks of ${var.name}"
  ip_protocol                  = "tcp"
  from_port                    = each.value.port
  to_port                      = each.value.port
  referenced_security_group_id = each.value.security_group_id
  tags                         = local.tags
}
