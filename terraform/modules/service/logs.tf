resource "aws_cloudwatch_log_group" "this" {
  #checkov:skip=CKV_AWS_158:KMS encryption is the input log_group_kms_key_arn; without it CloudWatch Logs encrypts the group with its own keys, and a module default key would need a key policy only the caller can decide
  #checkov:skip=CKV_AWS_338:retention is the input log_retention_days (default 30 days for service logs); a one-year minimum is a compliance choice for the caller, not a module default
  name              = local.log_group_name
  retention_in_days = var.log_retention_days
  kms_key_id        = var.log_group_kms_key_arn
  tags              = local.tags
}
