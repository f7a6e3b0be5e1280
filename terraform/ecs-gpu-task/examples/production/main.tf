# The production shape: two GPU services on one cluster.
#
# - vLLM serves a 70B model with tensor parallelism 4 on g6.12xlarge (4 x L4), behind the platform's
#   Application Load Balancer. Two tasks run On-Demand (the base); the autoscaler may add a third on
#   Spot, scaling on the GPUs' utilization. A rolling deployment keeps both tasks serving and starts
#   each new one on a spare instance: max_size 4 = the autoscaler's 3 + 1, which the module checks.
#   The deployment fails and rolls back when the target group's 5xx alarm fires.
# - An embedding service on g6.xlarge (1 x L4), with Spot above one On-Demand instance, reached by
#   vLLM through Service Connect.
#
# The cluster and its capacity provider list are in one place (modules/cluster); each service takes
# its provider's name from that list, so Terraform creates it only once its provider is on the
# cluster. No module call has a depends_on: the vLLM service waits for its listener rule by reference.

terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.100.0, < 7.0"
    }
  }
}

provider "aws" {
  region = var.region
}

module "cluster" {
  source = "../../../modules/cluster"

  name               = "gpu-prod"
  capacity_providers = [module.vllm.capacity_provider_name, module.embed.capacity_provider_name]
  tags               = var.tags
}

# Service Connect: vLLM calls the embedding service at http://embed:8080.
resource "aws_service_discovery_http_namespace" "gpu" {
  name        = "gpu-prod"
  description = "Service Connect namespace of the GPU services"
  tags        = var.tags
}

# --- vLLM behind the load balancer ------------------------------------------------------------------

resource "aws_lb_target_group" "vllm" {
  #checkov:skip=CKV_AWS_378:TLS ends at the load balancer's HTTPS listener (listener_arn); the hop to the task stays inside the VPC, allowed only from the load balancer's security group
  name        = "vllm-prod"
  port        = 8000
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = var.vpc_id
  tags        = var.tags

  # Long generations: drain a task for up to 10 minutes before it stops.
  deregistration_delay = 600

  health_check {
    path    = "/health"
    matcher = "200"
  }
}

resource "aws_lb_listener_rule" "vllm" {
  listener_arn = var.listener_arn
  priority     = 110
  tags         = var.tags

  action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.vllm.arn
  }

  condition {
    path_pattern {
      values = ["/v1/*"]
    }
  }
}

# A deployment whose tasks answer with errors is stopped and rolled back.
resource "aws_cloudwatch_metric_alarm" "vllm_5xx" {
  alarm_name          = "vllm-prod-target-5xx"
  alarm_description   = "vLLM answers 5xx through the load balancer: fails and rolls back an ECS deployment"
  namespace           = "AWS/ApplicationELB"
  metric_name         = "HTTPCode_Target_5XX_Count"
  dimensions          = { TargetGroup = aws_lb_target_group.vllm.arn_suffix, LoadBalancer = var.load_balancer_arn_suffix }
  statistic           = "Sum"
  period              = 60
  evaluation_periods  = 3
  threshold           = 10
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = var.alarm_topic_arn == null ? [] : [var.alarm_topic_arn]
  tags                = var.tags
}

module "vllm" {
  source = "../.."

  name                        = "vllm"
  cluster_name                = module.cluster.name
  associate_capacity_provider = false
  cluster_capacity_providers  = module.cluster.capacity_providers

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type        = "g6.12xlarge"
  root_volume_size_gib = 400 # the image and the weights of the model cache
  # Two On-Demand instances carry the two tasks the service keeps; above them, Spot.
  mixed_instances = {
    on_demand_base_capacity                  = 2
    on_demand_percentage_above_base_capacity = 0
  }
  instance_refresh_min_healthy_percentage = 100
  instance_refresh_max_healthy_percentage = 200 # launch each replacement before terminating

  gpu_count       = 4
  task_cpu        = 46080
  task_memory     = 184320
  container_image = var.vllm_image
  container_command = [
    "--model", var.model, "--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.90", "--port", "8000",
  ]
  container_environment   = { HF_HOME = "/models/huggingface" }
  container_secrets       = var.hf_token_secret_arn == null ? {} : { HF_TOKEN = var.hf_token_secret_arn }
  container_port_mappings = [{ container_port = 8000, name = "openai", app_protocol = "http" }]
  container_health_check = {
    command      = ["CMD-SHELL", "curl -fs http://localhost:8000/health || exit 1"]
    start_period = 300
  }
  linux_parameters = { shared_memory_size = 32768 } # NCCL across the 4 GPUs
  stop_timeout     = 120                            # drain in-flight requests
  model_cache      = { host_path = "/opt/ecs-gpu/models", container_path = "/models" }

  load_balancers = {
    public = {
      target_group_arn   = aws_lb_target_group.vllm.arn
      container_port     = 8000
      listener_arns      = [aws_lb_listener_rule.vllm.arn]
      security_group_ids = [var.alb_security_group_id]
    }
  }
  # Downloading and loading 140 GB of weights: a new task answers its first health check after minutes.
  health_check_grace_period_seconds = 900

  service_connect = {
    namespace = aws_service_discovery_http_namespace.gpu.arn
    services  = [{ port_name = "openai", client_aliases = [{ port = 8000, dns_name = "vllm" }] }]
  }

  gpu_metrics = {
    enabled    = true
    idle_alarm = { alarm_topic_arn = var.alarm_topic_arn }
  }
  autoscaling = {
    min_capacity = 2
    max_capacity = 3
    target_value = 70
    gpu_metric   = "utilization"
  }

  # Rolling, keeping both tasks serving: each new task needs a spare instance.
  deployment_minimum_healthy_percent = 100
  deployment_maximum_percent         = 150
  deployment_alarms                  = { alarm_names = [aws_cloudwatch_metric_alarm.vllm_5xx.alarm_name] }
  min_size                           = 2
  max_size                           = 4

  wait_for_steady_state = var.wait_for_steady_state
  tags                  = var.tags
}

# --- the embedding service, on Spot above one On-Demand instance -----------------------------------

module "embed" {
  source = "../.."

  name                        = "embed"
  cluster_name                = module.cluster.name
  associate_capacity_provider = false
  cluster_capacity_providers  = module.cluster.capacity_providers

  vpc_id     = var.vpc_id
  subnet_ids = var.private_subnet_ids

  instance_type = "g6.xlarge"
  mixed_instances = {
    additional_instance_types                = ["g6.2xlarge"] # the same L4, when EC2 has no g6.xlarge Spot
    on_demand_base_capacity                  = 1
    on_demand_percentage_above_base_capacity = 0
  }

  gpu_count               = 1
  task_cpu                = 3584
  task_memory             = 14336
  container_image         = var.embed_image
  container_port_mappings = [{ container_port = 8080, name = "http", app_protocol = "http" }]

  service_connect = {
    namespace = aws_service_discovery_http_namespace.gpu.arn
    services  = [{ port_name = "http", client_aliases = [{ port = 8080, dns_name = "embed" }] }]
  }
  ingress_rules = {
    vllm = { description = "Service Connect from the VPC", from_port = 8080, to_port = 8080, cidr_ipv4 = var.vpc_cidr }
  }

  desired_count = 2
  max_size      = 3

  wait_for_steady_state = var.wait_for_steady_state
  tags                  = var.tags
}
