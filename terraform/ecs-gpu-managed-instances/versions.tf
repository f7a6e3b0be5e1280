terraform {
  # 1.6: `terraform test`, optional() object attributes with defaults, preconditions with
  # references in their messages (the same floor as terraform/ecs-gpu-task).
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 6.15.0: aws_ecs_capacity_provider's `managed_instances_provider` and its `cluster` argument
      # (hashicorp/terraform-provider-aws pull request 44509, released in 6.15.0 as
      # terraform-aws-modules/terraform-aws-ecs issue 359 records). Provider 5.x has neither.
      version = ">= 6.15.0, < 7.0"
    }
  }
}
