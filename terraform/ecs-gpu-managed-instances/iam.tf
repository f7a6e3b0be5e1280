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
  # A real partition is aws or aws-<name>; only a caller's bare mock provider yields anything else
  # (a random string), which the provider would refuse in every ARN: the plan then goes on in "aws".
  partition = can(regex("^aws(-[a-z]+)*$", data.aws_partition.current.partition)) ? data.aws_partition.current.partition : "aws"
  # AmazonECSInfrastructureRolePolicyForManagedInstances lets ECS pass only roles named
  # ecsInstanceRole* (the instance profile page): the instance role's name starts with it, and the
  # infrastructure role also may pass exactly this role (below), whatever its name.
  instance_role_prefix = "ecsInstanceRole-${substr(var.name, 0, 20)}-"

  # Policies are written with jsonencode rather than aws_iam_policy_document: the JSON is then known
  # at plan time under any provider, a caller's mock provider included (hashicorp/aws validates
  # assume_role_policy as JSON when it plans).
  infrastructure_assume_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "ecs.amazonaws.com" } }]
  })
  instance_assume_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = "sts:AssumeRole", Principal = { Service = "ec2.amazonaws.com" } }]
  })
}

# --- infrastructure role ---------------------------------------------------------------------------

resource "aws_iam_role" "infrastructure" {
  name_prefix          = "${var.name}-infra-"
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS Managed Instances infrastructure role of ${var.name}: launches and terminates the GPU instances"
  assume_role_policy   = local.infrastructure_assume_policy
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "infrastructure" {
  role       = aws_iam_role.infrastructure.name
  policy_arn = "arn:${local.partition}:iam::aws:policy/AmazonECSInfrastructureRolePolicyForManagedInstances"
}

resource "aws_iam_role_policy" "infrastructure_pass_instance_role" {
  name = "pass-instance-role"
  role = aws_iam_role.infrastructure.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "PassTheInstanceRole"
      Effect    = "Allow"
      Action    = "iam:PassRole"
      Resource  = aws_iam_role.instance.arn
      Condition = { StringEquals = { "iam:PassedToService" = "ec2.amazonaws.com" } }
    }]
  })
}

# --- instance role and profile ---------------------------------------------------------------------

resource "aws_iam_role" "instance" {
  name_prefix          = local.instance_role_prefix
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS Managed Instances of ${var.name} (GPU): the ECS agent"
  assume_role_policy   = local.instance_assume_policy
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
