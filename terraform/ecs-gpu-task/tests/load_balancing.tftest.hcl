# Load balancers and Service Connect on the service (modules/service): several target groups, the
# wait for their listeners by reference, the rule from the load balancer's groups into the tasks, the
# refusals of a port the task does not map, and Service Connect's timeouts. Needs Terraform >= 1.11.
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
  name                   = "infer"
  cluster_name           = "gpu"
  capacity_provider_name = "infer-gpu"
  max_size               = 4
  vpc_id                 = "vpc-0123456789abcdef0"
  subnet_ids             = ["subnet-0123456789abcdef0"]
  instance_type          = "g6.12xlarge"
  task_cpu               = 46080
  task_memory            = 184320
  gpu_count              = 4

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:1"
  container_port_mappings = [
    { container_port = 8000, name = "openai", app_protocol = "http" },
    { container_port = 9090, name = "metrics" },
  ]
}

run "two_target_groups_wait_for_their_listeners" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    load_balancers = {
      public = {
        target_group_arn   = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm/0123456789abcdef"
        container_port     = 8000
        listener_arns      = ["arn:aws:elasticloadbalancing:us-east-1:123456789012:listener-rule/app/web/0123456789abcdef/0123456789abcdef/0123456789abcdef"]
        security_group_ids = ["sg-0aaaaaaaaaaaaaaaa"]
      }
      metrics = {
        target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm-metrics/0123456789abcdef"
        container_port   = 9090
        listener_arns    = ["arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/internal/0123456789abcdef/0123456789abcdef"]
      }
    }
  }

  assert {
    condition     = toset([for lb in aws_ecs_service.this[0].load_balancer : "${lb.container_name}:${lb.container_port}"]) == toset(["app:8000", "app:9090"])
    error_message = "both target groups are attached to the GPU container's ports"
  }
  assert {
    condition     = length(terraform_data.load_balancer_listeners) == 1 && length(terraform_data.load_balancer_listeners[0].input) == 2
    error_message = "the service waits for both listeners through terraform_data.load_balancer_listeners"
  }
  assert {
    condition = (
      aws_vpc_security_group_ingress_rule.load_balancer["public-0"].referenced_security_group_id == "sg-0aaaaaaaaaaaaaaaa" &&
      aws_vpc_security_group_ingress_rule.load_balancer["public-0"].from_port == 8000 &&
      aws_vpc_security_group_ingress_rule.load_balancer["public-0"].to_port == 8000 &&
      length(aws_vpc_security_group_ingress_rule.load_balancer) == 1
    )
    error_message = "the load balancer's group is allowed into the tasks on its container port only"
  }
  assert {
    condition     = aws_ecs_service.this[0].health_check_grace_period_seconds == 600
    error_message = "a load-balanced GPU service gets 600 s of grace for its cold start by default"
  }
}

run "the_shorthand_and_the_map_add_up" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    load_balancer  = { target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/a/0123456789abcdef", container_port = 8000 }
    load_balancers = { metrics = { target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/b/0123456789abcdef", container_port = 9090 } }
  }

  assert {
    condition     = length(aws_ecs_service.this[0].load_balancer) == 2 && length(terraform_data.load_balancer_listeners[0].input) == 0
    error_message = "load_balancer is one more entry of load_balancers"
  }
}

run "a_load_balanced_port_the_task_does_not_map_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    load_balancers = { public = { target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm/0123456789abcdef", container_port = 8080 } }
  }

  expect_failures = [aws_ecs_service.this]
}

run "a_load_balanced_container_the_task_does_not_have_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    load_balancers = { public = { target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm/0123456789abcdef", container_port = 8000, container_name = "vllm" } }
  }

  expect_failures = [aws_ecs_service.this]
}

run "a_load_balancer_group_in_bridge_mode_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    network_mode   = "bridge"
    load_balancers = { public = { target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/vllm/0123456789abcdef", container_port = 8000, security_group_ids = ["sg-0aaaaaaaaaaaaaaaa"] } }
  }

  expect_failures = [aws_ecs_service.this]
}

run "health_check_grace_must_be_whole_seconds" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    health_check_grace_period_seconds = -1
  }

  expect_failures = [var.health_check_grace_period_seconds]
}

# --- Service Connect ---------------------------------------------------------------------------------

run "service_connect_raises_the_15_second_request_timeout" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    service_connect = {
      namespace = "arn:aws:servicediscovery:us-east-1:123456789012:namespace/ns-0123456789abcdef"
      services = [
        { port_name = "openai", client_aliases = [{ port = 8000, dns_name = "vllm" }] },
        { port_name = "metrics", idle_timeout_seconds = 120 },
      ]
    }
  }

  assert {
    condition     = aws_ecs_service.this[0].service_connect_configuration[0].enabled && aws_ecs_service.this[0].service_connect_configuration[0].namespace == "arn:aws:servicediscovery:us-east-1:123456789012:namespace/ns-0123456789abcdef"
    error_message = "Service Connect is on, in the namespace given"
  }
  assert {
    condition = (
      aws_ecs_service.this[0].service_connect_configuration[0].service[0].timeout[0].per_request_timeout_seconds == 600 &&
      aws_ecs_service.this[0].service_connect_configuration[0].service[0].timeout[0].idle_timeout_seconds == 600 &&
      aws_ecs_service.this[0].service_connect_configuration[0].service[0].client_alias[0].dns_name == "vllm"
    )
    error_message = "an http port gets 600 s per request and 600 s idle by default, not the proxy's 15 s"
  }
  assert {
    condition     = aws_ecs_service.this[0].service_connect_configuration[0].service[1].timeout[0].per_request_timeout_seconds == null && aws_ecs_service.this[0].service_connect_configuration[0].service[1].timeout[0].idle_timeout_seconds == 120
    error_message = "a TCP port (no app_protocol) takes the idle timeout only"
  }
  assert {
    condition     = aws_ecs_service.this[0].service_connect_configuration[0].log_configuration[0].options["awslogs-stream-prefix"] == "service-connect"
    error_message = "the proxy logs to the module's log group"
  }
}

run "service_connect_on_a_port_without_a_name_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    service_connect = { services = [{ port_name = "http" }] }
  }

  expect_failures = [aws_ecs_service.this]
}

run "service_connect_per_request_timeout_on_tcp_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    service_connect = { services = [{ port_name = "metrics", per_request_timeout_seconds = 300 }] }
  }

  expect_failures = [aws_ecs_service.this]
}

# --- the tasks' subnets and the capacity's zones ------------------------------------------------------

run "task_subnets_in_the_capacity_zones" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    capacity_availability_zones = ["us-east-1a", "us-east-1b"]
  }

  override_data {
    target = data.aws_subnet.tasks[0]
    values = { availability_zone = "us-east-1b" }
  }

  assert {
    condition     = length(data.aws_subnet.tasks) == 1
    error_message = "the tasks' subnet is looked up"
  }
}

run "task_subnets_outside_the_capacity_zones_are_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    capacity_availability_zones = ["us-east-1a"]
  }

  override_data {
    target = data.aws_subnet.tasks[0]
    values = { availability_zone = "us-east-1c" }
  }

  expect_failures = [aws_ecs_service.this]
}

run "an_empty_image_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    container_image = " "
  }

  expect_failures = [var.container_image]
}
