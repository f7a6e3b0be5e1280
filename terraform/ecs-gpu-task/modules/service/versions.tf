terraform {
  # 1.6: `terraform test`, optional() object attributes with defaults, preconditions with
  # references in their messages. Cross-variable and catalog checks are preconditions on the
  # resources (not variable validation blocks, which may reference other values only from 1.9).
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 5.16.2: instance_refresh.preferences.scale_in_protected_instances (added in 5.16.0, whose
      # empty default broke every refresh until 5.16.2).
      version = ">= 5.16.2, < 7.0"
    }
  }
}
