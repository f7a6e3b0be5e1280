terraform {
  # 1.6: `terraform test`, optional() object attributes with defaults, preconditions with
  # references in their messages (the same floor as terraform/ecs-gpu-task).
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 6.66.0: the release whose schema the module is tested with (terraform-offline's stand-in). It
      # uses aws_ecs_capacity_provider's managed_instances_provider and cluster (6.15.0, pull request
      # 44509), modules/service-v6's deployment_configuration (6.21.0), capacity_option_type (6.28.0,
      # pull request 45667) and capacity_reservations (after 6.31.0, pull request 48813; the exact
      # release was not determined here).
      version = ">= 6.66.0, < 7.0"
    }
  }
}
