terraform {
  # 1.6: `terraform test`, optional() object attributes with defaults, preconditions with
  # references in their messages. Cross-variable and catalog checks are preconditions on the
  # resources (not variable validation blocks, which may reference other values only from 1.9).
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0, < 7.0"
    }
  }
}
