# The examples plan as written (each is a root module; the run blocks load it in place of this
# module). Needs Terraform >= 1.11 (`override_during = plan` in the mock provider).

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
  mock_resource "aws_cloudwatch_metric_alarm" {
    defaults = { arn = "arn:aws:cloudwatch:us-east-1:123456789012:alarm:gpu-scaled-gpus-idle-while-tasks-pend" }
  }
}

run "basic_example_plans_one_g5_xlarge_service" {
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
    condition     = output.placement_expression == "attribute:ecs.instance-type == g5.xlarge"
    error_message = "the basic example pins its tasks to g5.xlarge"
  }
  assert {
    condition     = output.ami_id == "ami-0123456789abcdef0" && output.service_name == "inference" && output.log_group_name == "/ecs/inference-f7e863"
    error_message = "the basic example's outputs must come from the module"
  }
}

run "autoscaling_example_gives_desired_count_to_application_auto_scaling" {
  command = plan

  module {
    source = "./examples/autoscaling"
  }

  variables {
    cluster_name             = "shared"
    other_capacity_providers = ["FARGATE"]
    vpc_id                   = "vpc-0123456789abcdef0"
    private_subnet_ids       = ["subnet-0123456789abcdef0"]
    listener_arn             = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/web/0123456789abcdef/0123456789abcdef"
    alb_security_group_id    = "sg-0aaaaaaaaaaaaaaaa"
    image                    = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1"
    secrets                  = { HF_TOKEN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf" }
  }

  assert {
    condition     = output.desired_count_owner == "application-autoscaling" && output.service_name == "inference-as"
    error_message = "the autoscaling example must give desired_count to Application Auto Scaling"
  }
  assert {
    condition     = output.capacity_provider_name == "inference-as-d18aac"
    error_message = "the autoscaling example must create its capacity provider"
  }
}

run "vllm_example_plans_two_gpu_containers_on_a_g6_12xlarge" {
  command = plan

  module {
    source = "./examples/vllm"
  }

  variables {
    vpc_id             = "vpc-0123456789abcdef0"
    vpc_cidr           = "10.0.0.0/16"
    private_subnet_ids = ["subnet-0123456789abcdef0"]
    image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-openai:v0.9"
  }

  assert {
    condition     = output.task_gpus == 4 && output.service_name == "vllm"
    error_message = "the vLLM example asks for 2 + 2 GPUs"
  }
}

run "existing_cluster_example_composes_the_submodules" {
  command = plan

  module {
    source = "./examples/existing-cluster"
  }

  variables {
    cluster_name             = "platform"
    other_capacity_providers = ["FARGATE"]
    vpc_id                   = "vpc-0123456789abcdef0"
    vpc_cidr                 = "10.0.0.0/16"
    private_subnet_ids       = ["subnet-0123456789abcdef0"]
    task_role_arn            = "arn:aws:iam::123456789012:role/platform/embeddings"
    image                    = "123456789012.dkr.ecr.us-east-1.amazonaws.com/embed:1"
  }

  assert {
    condition     = aws_ecs_cluster_capacity_providers.platform.capacity_providers == toset(["FARGATE", "embed-3c72ab"])
    error_message = "the platform's list must hold its own providers and the GPU one"
  }
  assert {
    condition     = output.service_name == "embed" && output.task_gpus == 1 && output.tasks_per_instance == 1
    error_message = "the example plans one GPU per task, one task per g5.2xlarge"
  }
}

run "mixed_spot_example_spreads_one_l4_over_three_types" {
  command = plan

  module {
    source = "./examples/mixed-spot"
  }

  variables {
    vpc_id             = "vpc-0123456789abcdef0"
    private_subnet_ids = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/embed-worker:1"
  }

  assert {
    condition     = output.placement_expression == "attribute:ecs.instance-type in [g6.xlarge, g6.2xlarge, gr6.4xlarge]" && output.max_task_memory_mib == 15153
    error_message = "the example admits its three types and fits the smallest"
  }
}

run "capacity_block_example_plans_a_p5_block" {
  command = plan

  module {
    source = "./examples/capacity-block"
  }

  variables {
    vpc_id            = "vpc-0123456789abcdef0"
    block_subnet_id   = "subnet-0123456789abcdef0"
    capacity_block_id = "cr-0123456789abcdef0"
    image             = "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1"
  }

  assert {
    condition     = output.task_gpus == 8
    error_message = "the example's task takes a whole p5.48xlarge"
  }
}

run "warm_pool_example_plans" {
  command = plan

  module {
    source = "./examples/warm-pool"
  }

  variables {
    vpc_id             = "vpc-0123456789abcdef0"
    vpc_cidr           = "10.0.0.0/16"
    private_subnet_ids = ["subnet-0123456789abcdef0"]
    image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/chat:1"
  }

  assert {
    condition     = output.service_name == "chat"
    error_message = "the warm pool example plans its service"
  }
}

run "mps_example_shares_one_l40s_between_four_tasks" {
  command = plan

  module {
    source = "./examples/mps"
  }

  variables {
    vpc_id             = "vpc-0123456789abcdef0"
    vpc_cidr           = "10.0.0.0/16"
    private_subnet_ids = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/embeddings:1"
  }

  assert {
    condition     = output.tasks_per_instance == 4
    error_message = "four MPS shares of 11264 MiB fit the 45776 MiB of a g6e.xlarge's GPU (and its CPU and memory)"
  }
  assert {
    condition     = jsondecode(output.container_definitions)[0].resourceRequirements == [{ type = "GPU", sharingStrategy = { nvidiaMps = { memory = 11264, maxComputePercent = 25 } } }]
    error_message = "the mps example's task must ask for an MPS share and no GPU count"
  }
}

run "gpu_metrics_example_scales_on_gpu_utilization" {
  command = plan

  module {
    source = "./examples/gpu-metrics"
  }

  variables {
    vpc_id             = "vpc-0123456789abcdef0"
    vpc_cidr           = "10.0.0.0/16"
    private_subnet_ids = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1"
    alarm_topic_arn    = "arn:aws:sns:us-east-1:123456789012:gpu-oncall"
  }

  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.metrics_collected.nvidia_gpu.metrics_collection_interval == 60 && output.gpu_metrics.namespace == "CWAgent"
    error_message = "the example publishes the GPU metrics every minute in CWAgent"
  }
  assert {
    condition     = output.gpu_metrics.idle_alarm_arn == "arn:aws:cloudwatch:us-east-1:123456789012:alarm:gpu-scaled-gpus-idle-while-tasks-pend" && output.gpu_metrics.dashboard_name == "gpu-scaled-ffe04d-gpu"
    error_message = "the example has the idle alarm and the dashboard"
  }
}

run "production_example_two_gpu_services_on_one_cluster" {
  command = plan

  module {
    source = "./examples/production"
  }

  variables {
    vpc_id                   = "vpc-0123456789abcdef0"
    vpc_cidr                 = "10.0.0.0/16"
    private_subnet_ids       = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
    listener_arn             = "arn:aws:elasticloadbalancing:us-east-1:123456789012:listener/app/web/0123456789abcdef/0123456789abcdef"
    load_balancer_arn_suffix = "app/web/0123456789abcdef"
    alb_security_group_id    = "sg-0aaaaaaaaaaaaaaaa"
    vllm_image               = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-openai:v0.9"
    embed_image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/embed:1"
  }

  assert {
    condition     = output.capacity_providers == toset(["vllm-93f0e8", "embed-93f0e8"])
    error_message = "one list names both services' capacity providers"
  }
  assert {
    # The autoscaler's 3 tasks at 100/150 %: 3 keep serving and the first new one needs a 4th
    # instance, which max_size 4 holds.
    condition     = output.vllm_deployment_capacity == { strategy = "ROLLING", deploy_count = 3, needed_tasks = 4, peak_tasks = 4, capacity_tasks = 4, task_gpus = 4 }
    error_message = "the rolling deployment fits the capacity"
  }
  assert {
    condition     = output.embed_placement_expression == "attribute:ecs.instance-type in [g6.xlarge, g6.2xlarge]"
    error_message = "the embedding tasks run on both L4 types"
  }
  assert {
    condition     = output.vllm_gpu_metrics.namespace == "CWAgent" && output.vllm_gpu_metrics.dashboard_name == "vllm-93f0e8-gpu"
    error_message = "vLLM publishes GPU metrics and has its dashboard"
  }
}
