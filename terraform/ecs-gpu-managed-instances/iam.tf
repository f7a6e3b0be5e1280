# The two roles of the capacity, each with only what its holder needs (the execution and task roles
# are the service module's):
# - the infrastructure role: ECS itself, to launch, manage and terminate the instances;
# - the instance role (in the instance profile): the ECS agent on the instances.
#
# Sources: the infrastructure role and its managed policy AmazonECSInfrastructureRolePolicyForManagedInstances,
# https://docs.aws.amazon.com/AmazonECS/latest/developerguide/infrastructure_IAM_role.html; the instance
# profile, its role and AmazonECSInstanceRolePolicyForManagedInstances,
# https://docs.aws.amazon.com/AmazonECS/latest/developerguide/managed-instances-instance-profile.html.

locals {
  partition = data.aws_partition.current.partition
  # AmazonECSInfrastructureRolePolicyForManagedInstances lets ECS pass only roles named
  # ecsInstanceRole* (the instance profile page): the instance role's name starts with it, and the
  # infrastructure role also may pass exactly this role (below), whatever its name.
  instance_role_prefix = "ecsInstanceRole-${substr(var.name, 0, 20)}-"
}

# --- infrastructure role ---------------------------------------------------------------------------

data "aws_iam_policy_document" "infrastructure_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ecs.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "infrastructure" {
  name_prefix          = "${var.name}-infra-"
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS Managed Instances infrastructure role of ${var.name}: launches and terminates the GPU instances"
  assume_role_policy   = data.aws_iam_policy_document.infrastructure_assume.json
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "infrastructure" {
  role       = aws_iam_role.infrastructure.name
  policy_arn = "arn:${local.partition}:iam::aws:policy/AmazonECSInfrastructureRolePolicyForManagedInstances"
}

data "aws_iam_policy_document" "infrastructure_pass_instance_role" {
  statement {
    sid       = "PassTheInstanceRole"
    actions   = ["iam:PassRole"]
    resources = [aws_iam_role.instance.arn]
    condition {
      test     = "StringEquals"
      variable = "iam:PassedToService"
      values   = ["ec2.amazonaws.com"]
    }
  }
}

resource "aws_iam_role_policy" "infrastructure_pass_instance_role" {
  name   = "pass-instance-role"
  role   = aws_iam_role.infrastructure.id
  policy = data.aws_iam_policy_document.infrastructure_pass_instance_role.json
}

# --- instance role and profile ---------------------------------------------------------------------

data "aws_iam_policy_document" "instance_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "instance" {
  name_prefix          = local.instance_role_prefix
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS Managed Instances of ${var.name} (GPU): the ECS agent"
  assume_role_policy   = data.aws_iam_policy_document.instance_assume.json
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "instance" {
  role       = aws_iam_role.instance.name
  policy_arn = "arn:${local.partition}:iam::aws:policy/AmazonECSInstanceRolePolicyForManagedInstances"
}

resource "aws_iam_instance_profile" "instance" {
  name_prefix = local.instance_role_prefix
  role        = aws_iam_role.instance.name
  tags        = local.tags
}
