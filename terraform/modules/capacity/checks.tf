# Warnings that do not stop a plan. Refusals are preconditions on the resources (capacity.tf,
# task.tf): a precondition fails `terraform plan`, a check block only warns.

check "ami_end_of_life" {
  assert {
    condition     = var.ami_id != null || local.ami_parameter_end_of_life == null
    error_message = "The AMI parameter ${local.ami_ssm_parameter} belongs to an ECS GPU-optimized AMI family that reached end of life on ${coalesce(local.ami_parameter_end_of_life, "?")}: it gets no more driver or security updates. Use the Amazon Linux 2023 GPU parameter (the default)."
  }
}
