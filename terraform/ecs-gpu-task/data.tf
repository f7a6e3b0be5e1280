data "aws_partition" "current" {}

data "aws_region" "current" {}

data "aws_caller_identity" "current" {}

# The GPU AMI, resolved at plan time from the ECS GPU-optimized AMI parameter (never a hard-coded
# ID). Skipped when an AMI ID is pinned with `ami_id`.
data "aws_ssm_parameter" "ami" {
  count = var.ami_id == null ? 1 : 0

  name = local.ami_ssm_parameter
}
