# The instances' security group, with no ingress: the ECS agent and the container runtime need HTTPS
# out (ECS, ECR, S3, CloudWatch Logs). The tasks' group (awsvpc) is the service module's.
# Rules are separate resources, so that rules you add to the group elsewhere are not removed.

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
