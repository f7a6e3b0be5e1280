# A caller's bare `mock_provider "aws" {}`, with no mocked values: the module must still plan (the
# region falls back when the mocked endpoint is not an EC2 endpoint). Needs Terraform >= 1.11.

mock_provider "aws" {}

variables {
  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true
  vpc_id         = "vpc-0123456789abcdef0"
  subnet_ids     = ["subnet-0123456789abcdef0"]
  instance_type  = "g5.xlarge"
  task_cpu       = 4096
  task_memory    = 15000
  ami_id         = "ami-0123456789abcdef0"

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

run "a_bare_mock_provider_plans" {
  command = plan

  assert {
    condition     = aws_launch_template.this.instance_type == "g5.xlarge"
    error_message = "the module must plan under a bare mock provider"
  }
}
