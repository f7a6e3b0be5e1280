# A caller's bare `mock_provider "aws" {}`, with no mocked values: the module must still plan (the
# region falls back when the mocked endpoint is not an EC2 endpoint). Needs Terraform >= 1.11.

mock_provider "aws" {}

variables {
  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true

  # Inputs of the submodules, for the runs that plan modules/capacity or modules/service alone (the
  # root ignores them): the root passes the association choice it derives from create_cluster, and
  # the capacity's provider name and group size.
  associate_capacity_provider = true
  capacity_provider_name      = "infer-gpu"
  max_size                    = 2
  vpc_id                      = "vpc-0123456789abcdef0"
  subnet_ids                  = ["subnet-0123456789abcdef0"]
  instance_type               = "g5.xlarge"
  task_cpu                    = 4096
  task_memory                 = 15000
  ami_id                      = "ami-0123456789abcdef0"

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

run "a_bare_mock_provider_plans" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = aws_launch_template.this.instance_type == "g5.xlarge"
    error_message = "the module must plan under a bare mock provider"
  }
}
