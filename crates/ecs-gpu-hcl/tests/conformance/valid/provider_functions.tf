# conformance: fmt-only — the offline aws provider stand-in serves no provider functions
terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

locals {
  parsed = provider::aws::arn_parse("arn:aws:iam::444455556666:role/example")
}
