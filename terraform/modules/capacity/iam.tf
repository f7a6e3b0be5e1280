# The instance role and profile: the ECS agent on the GPU instances (register, poll, pull from ECR,
# write logs). Created unless you bring your own profile (`instance_profile_arn`); policies are
# attached only to the role the module creates.

locals {
  instance_managed_policy_arns = var.create_instance_profile ? concat(
    ["arn:${local.partition}:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"],
    var.enable_ssm ? ["arn:${local.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"] : [],
    var.instance_role_policy_arns,
    # The CloudWatch agent's permissions (cloudwatch:PutMetricData among them): "make sure that the
    # IAM role attached to the instance has the CloudWatchAgentServerPolicy attached"
    # (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/install-CloudWatch-Agent-commandline-fleet.html).
    # Last in the list, so that turning it on shifts no other attachment.
    local.gpu_metrics ? ["arn:${local.partition}:iam::aws:policy/CloudWatchAgentServerPolicy"] : [],
  ) : []

  instance_profile_arn = var.create_instance_profile ? aws_iam_instance_profile.instance[0].arn : var.instance_profile_arn

  # Policies are written with jsonencode rather than aws_iam_policy_document: the JSON is then known
  # at plan time under any provider, a caller's mock provider included (hashicorp/aws validates
  # assume_role_policy as JSON when it plans).
  instance_assume_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Action    = "sts:AssumeRole"
      Principal = { Service = "ec2.amazonaws.com" }
    }]
  })
}

resource "aws_iam_role" "instance" {
  count = var.create_instance_profile ? 1 : 0

  name_prefix          = "${var.name}-instance-"
  path                 = var.iam_role_path
  permissions_boundary = var.iam_permissions_boundary
  description          = "ECS container instances of ${var.name} (GPU)"
  assume_role_policy   = local.instance_assume_policy
  tags                 = local.tags
}

resource "aws_iam_role_policy_attachment" "instance" {
  count = length(local.instance_managed_policy_arns)

  role       = aws_iam_role.instance[0].name
  policy_arn = local.instance_managed_policy_arns[count.index]
}

resource "aws_iam_instance_profile" "instance" {
  count = var.create_instance_profile ? 1 : 0

  name_prefix = "${var.name}-instance-"
  path        = var.iam_role_path
  role        = aws_iam_role.instance[0].name
  tags        = local.tags
}
