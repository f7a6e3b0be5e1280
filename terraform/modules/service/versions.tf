terraform {
  # 1.6: `terraform test`, optional() object attributes with defaults, preconditions with
  # references in their messages. Cross-variable and catalog checks are preconditions on the
  # resources (not variable validation blocks, which may reference other values only from 1.9).
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 5.100.0, the last 5.x release: the oldest this module is tested with (scripts/test-terraform.sh
      # runs its tests with it). It uses arguments added during 5.x, such as the instance refresh's
      # max_healthy_percentage (5.32.0) and the service's ECS managed EBS volume_configuration.
      version = ">= 5.100.0, < 7.0"
    }
  }
}
