# A caller's bare `mock_provider "aws" {}`, with no mocked values: the module must still plan.
# Needs Terraform >= 1.11.

mock_provider "aws" {}

variables {
  name            = "infer"
  cluster_name    = "gpu"
  vpc_id          = "vpc-0123456789abcdef0"
  subnet_ids      = ["subnet-0123456789abcdef0"]
  instance_types  = ["g5.xlarge"]
  task_cpu        = 4096
  task_memory     = 15000
  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

run "a_bare_mock_provider_plans" {
  command = plan

  assert {
    condition     = aws_ecs_capacity_provider.this.cluster == "gpu"
    error_message = "the module must plan under a bare mock provider, on an existing cluster"
  }
}
