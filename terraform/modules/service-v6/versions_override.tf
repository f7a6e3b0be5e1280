# modules/service-v6 is modules/service (its *.tf files, copied by scripts/generate.sh, whose
# --check fails on a copy that differs) plus these override files, which Terraform merges into the
# copies: what only hashicorp/aws 6.x knows.
terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 6.21.0: aws_ecs_service's deployment_configuration with strategy BLUE_GREEN and
      # load_balancer.advanced_configuration (6.4.0), LINEAR and CANARY with their
      # linear_configuration and canary_configuration blocks (6.21.0) (hashicorp/terraform-provider-aws
      # CHANGELOG, pull requests 43434 and 44842).
      version = ">= 6.21.0, < 7.0"
    }
  }
}
