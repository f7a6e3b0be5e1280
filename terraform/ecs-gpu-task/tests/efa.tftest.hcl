# EFA and cluster placement groups (`efa`): the launch template's EFA interface, the placement group,
# the security group's self rules, the task's EFA device, and the refusal of types without EFA.
# Needs Terraform >= 1.11.

mock_provider "aws" {
  override_during = plan

  mock_data "aws_ssm_parameter" {
    defaults = { value = "ami-0123456789abcdef0", arn = "arn:aws:ssm:us-east-1::parameter/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id" }
  }
  mock_data "aws_region" {
    defaults = { endpoint = "ec2.us-east-1.amazonaws.com" }
  }
  mock_data "aws_partition" {
    defaults = { partition = "aws" }
  }
  mock_data "aws_caller_identity" {
    defaults = { account_id = "123456789012" }
  }
  mock_resource "aws_launch_template" {
    defaults = { id = "lt-0123456789abcdef0", latest_version = 7 }
  }
  mock_resource "aws_autoscaling_group" {
    defaults = { arn = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:uuid:autoScalingGroupName/infer-1" }
  }
  mock_resource "aws_iam_instance_profile" {
    defaults = { arn = "arn:aws:iam::123456789012:instance-profile/infer-instance-1" }
  }
  mock_resource "aws_iam_role" {
    defaults = { arn = "arn:aws:iam::123456789012:role/infer-role-1" }
  }
  mock_resource "aws_security_group" {
    defaults = { id = "sg-0123456789abcdef0" }
  }
  mock_resource "aws_ecs_task_definition" {
    defaults = { arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/infer:3", revision = 3 }
  }
  mock_resource "aws_ecs_service" {
    defaults = { id = "arn:aws:ecs:us-east-1:123456789012:service/gpu/infer" }
  }
}

variables {
  name          = "train"
  cluster_name  = "gpu"
  vpc_id        = "vpc-0123456789abcdef0"
  subnet_ids    = ["subnet-0123456789abcdef0"]
  instance_type = "p5.48xlarge"
  gpu_count     = 8
  task_cpu      = 16384
  task_memory   = 65536
  ami_id        = "ami-0123456789abcdef0"
  efa           = true

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1"

  associate_capacity_provider = true
  capacity_provider_name      = "train-gpu"
  max_size                    = 2
}

run "efa_puts_an_efa_interface_in_a_cluster_placement_group" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition = (
      length(aws_launch_template.this.network_interfaces) == 1 &&
      aws_launch_template.this.network_interfaces[0].interface_type == "efa" &&
      aws_launch_template.this.network_interfaces[0].device_index == 0 &&
      aws_launch_template.this.network_interfaces[0].network_card_index == 0
    )
    error_message = "with efa the primary interface of the launch template is an EFA on network card 0"
  }
  assert {
    condition     = aws_launch_template.this.network_interfaces[0].security_groups == toset([aws_security_group.instance.id]) && aws_launch_template.this.vpc_security_group_ids == null
    error_message = "with an interface the security groups go on the interface, not on the template (EC2 refuses both)"
  }
  assert {
    condition     = aws_placement_group.efa[0].strategy == "cluster" && aws_autoscaling_group.this.placement_group == aws_placement_group.efa[0].name
    error_message = "the group launches into a cluster placement group"
  }
  assert {
    condition = (
      aws_vpc_security_group_ingress_rule.efa[0].ip_protocol == "-1" &&
      aws_vpc_security_group_ingress_rule.efa[0].referenced_security_group_id == aws_security_group.instance.id &&
      aws_vpc_security_group_egress_rule.efa[0].ip_protocol == "-1" &&
      aws_vpc_security_group_egress_rule.efa[0].referenced_security_group_id == aws_security_group.instance.id
    )
    error_message = "the instances' group allows all traffic to and from itself, in and out"
  }
}

run "without_efa_nothing_changes" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    efa = false
  }

  assert {
    condition     = length(aws_launch_template.this.network_interfaces) == 0 && length(aws_placement_group.efa) == 0 && length(aws_vpc_security_group_ingress_rule.efa) == 0 && aws_autoscaling_group.this.placement_group == null
    error_message = "without efa: no interface block, no placement group, no self rule"
  }
  assert {
    condition     = aws_launch_template.this.vpc_security_group_ids == toset([aws_security_group.instance.id])
    error_message = "without efa the groups stay on the template"
  }
}

run "efa_gives_the_gpu_containers_the_uverbs_device" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    additional_containers = {
      metrics = { image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/exporter:1", gpu_count = 0, memory = 512 }
    }
  }

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].linuxParameters.devices == [{ hostPath = "/dev/infiniband/uverbs0", containerPath = "/dev/infiniband/uverbs0", permissions = ["read", "write", "mknod"] }]
    error_message = "the GPU container gets the EFA device"
  }
  assert {
    condition     = !can(jsondecode(aws_ecs_task_definition.this.container_definitions)[1].linuxParameters.devices)
    error_message = "a container without GPUs gets no EFA device"
  }
}

run "the_root_module_wires_efa_through_both_submodules" {
  command = plan

  assert {
    condition     = jsondecode(module.service.container_definitions)[0].linuxParameters.devices[0].hostPath == "/dev/infiniband/uverbs0"
    error_message = "the root passes the capacity's efa to the service"
  }
  assert {
    condition     = output.placement_group_name == "train-${substr(sha1("gpu"), 0, 6)}-efa"
    error_message = "the root outputs the placement group"
  }
}

run "efa_on_a_type_without_efa" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g5.xlarge"
  }

  expect_failures = [aws_launch_template.this]
}

run "efa_with_a_mixed_type_without_efa" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g6e.8xlarge"
    mixed_instances = {
      additional_instance_types = ["g6e.xlarge"]
    }
  }

  expect_failures = [aws_launch_template.this]
}
