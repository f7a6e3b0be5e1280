# The examples plan as written (each is a root module; the run blocks load it in place of this
# module). Needs Terraform >= 1.11 (`override_during = plan` in the mock provider).


mock_provider "aws" {
  override_during = plan

  mock_data "aws_region" {
    defaults = { region = "us-east-1", endpoint = "ec2.us-east-1.amazonaws.com" }
  }
  mock_data "aws_partition" {
    defaults = { partition = "aws" }
  }
  mock_data "aws_caller_identity" {
    defaults = { account_id = "123456789012" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/ecsInstanceRole-infer-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/ecsInstanceRole-infer-1" }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3" }
  }
}

run "basic_example_plans_a_one_gpu_service_on_g6_or_g5" {
  command = plan

  module {
    source = "./examples/basic"
  }

  variables {
    vpc_id             = "vpc-0123456789abcdef0"
    vpc_cidr           = "10.0.0.0/16"
    private_subnet_ids = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1"
  }

  assert {
    condition     = output.tasks_per_instance == { "g6.xlarge" = 1, "g5.xlarge" = 1 }
    error_message = "one task per instance of either type"
  }
  assert {
    condition     = output.service_name == "inference"
    error_message = "the service is named after the module call"
  }
}
