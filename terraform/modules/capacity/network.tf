# The instances' security group, with no ingress by default: the ECS agent and Docker need HTTPS
# out (ECS, ECR, S3, CloudWatch Logs). Rules are separate resources, so that rules you add to the
# group elsewhere are not removed.

resource "aws_security_group" "instance" {
  name_prefix = "${var.name}-instance-"
  description = "GPU container instances of ${var.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.tags, { Name = "${var.name}-instance" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_egress_rule" "instance" {
  for_each = var.instance_egress_rules

  security_group_id            = aws_security_group.instance.id
  description                  = each.value.description
  ip_protocol                  = each.value.ip_protocol
  from_port                    = each.value.from_port
  to_port                      = each.value.to_port
  cidr_ipv4                    = each.value.cidr_ipv4
  referenced_security_group_id = each.value.referenced_security_group_id
  tags                         = local.tags
}

# EFA traffic: all protocols to and from the instances' own security group, in and out (the AWS Batch
# EFA page, after the EC2 User Guide's EFA page). Only with `efa`.
resource "aws_vpc_security_group_ingress_rule" "efa" {
  count = var.efa ? 1 : 0

  security_group_id            = aws_security_group.instance.id
  description                  = "EFA: all traffic from the GPU instances of ${var.name}"
  ip_protocol                  = "-1"
  referenced_security_group_id = aws_security_group.instance.id
  tags                         = local.tags
}

resource "aws_vpc_security_group_egress_rule" "efa" {
  count = var.efa ? 1 : 0

  security_group_id            = aws_security_group.instance.id
  description                  = "EFA: all traffic to the GPU instances of ${var.name}"
  ip_protocol                  = "-1"
  referenced_security_group_id = aws_security_group.instance.id
  tags                         = local.tags
}
