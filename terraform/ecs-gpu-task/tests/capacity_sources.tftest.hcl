# Where the GPU instances come from (modules/capacity, and the service's view of it): several types
# in one group with an On-Demand/Spot split, Capacity Blocks and On-Demand Capacity Reservations,
# and warm pools. Needs Terraform >= 1.11.

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
  name          = "infer"
  cluster_name  = "gpu"
  vpc_id        = "vpc-0123456789abcdef0"
  subnet_ids    = ["subnet-0123456789abcdef0"]
  instance_type = "g5.xlarge"
  task_cpu      = 4096
  task_memory   = 15000
  ami_id        = "ami-0123456789abcdef0"

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"

  associate_capacity_provider = true
  capacity_provider_name      = "infer-gpu"
  max_size                    = 4
}

# --- several types, On-Demand and Spot ------------------------------------------------------------

run "three_a10g_sizes_in_one_group_with_spot_above_the_base" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = {
      additional_instance_types                = ["g5.2xlarge", "g5.4xlarge"]
      on_demand_base_capacity                  = 1
      on_demand_percentage_above_base_capacity = 25
    }
  }

  assert {
    condition     = length(aws_autoscaling_group.this.launch_template) == 0 && length(aws_autoscaling_group.this.mixed_instances_policy) == 1
    error_message = "several types use a mixed instances policy instead of the plain launch template"
  }
  assert {
    condition     = [for o in aws_autoscaling_group.this.mixed_instances_policy[0].launch_template[0].override : o.instance_type] == ["g5.xlarge", "g5.2xlarge", "g5.4xlarge"]
    error_message = "one override per type, instance_type first"
  }
  assert {
    condition = (
      aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].on_demand_base_capacity == 1 &&
      aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].on_demand_percentage_above_base_capacity == 25 &&
      aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].on_demand_allocation_strategy == "prioritized" &&
      aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].spot_allocation_strategy == "price-capacity-optimized"
    )
    error_message = "the On-Demand/Spot split and the strategies are as given"
  }
  assert {
    condition     = contains(split("\n", base64decode(aws_launch_template.this.user_data)), "ECS_ENABLE_SPOT_INSTANCE_DRAINING=true")
    error_message = "with Spot the agent drains an instance on its interruption notice"
  }
  assert {
    # The least over the types: g5.xlarge (4 vCPUs, 16177 MiB registrable) minus the 1024 MiB margin.
    condition     = output.instance.max_task_cpu == 4096 && output.instance.max_task_memory == 15153 && output.instance.gpus_per_instance == 1
    error_message = "the fit figures are the smallest type's"
  }
}

run "all_on_demand_sets_no_spot_draining" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g5.2xlarge"] }
  }

  assert {
    condition     = !strcontains(base64decode(aws_launch_template.this.user_data), "SPOT")
    error_message = "no Spot, no Spot draining line"
  }
}

run "service_admits_every_type_and_fits_the_smallest" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type             = "g5.4xlarge"
    additional_instance_types = ["g5.xlarge"]
    task_cpu                  = 4096
  }

  assert {
    condition     = output.placement_expression == "attribute:ecs.instance-type in [g5.4xlarge, g5.xlarge]"
    error_message = "the placement constraint admits every type of the group"
  }
  assert {
    condition     = output.tasks_per_instance == 1 && output.max_task_memory_mib == 15153
    error_message = "the fit checks use the smallest type"
  }
}

run "service_refuses_a_task_the_smallest_type_cannot_hold" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    instance_type             = "g5.4xlarge"
    additional_instance_types = ["g5.xlarge"]
    task_cpu                  = 8192
  }

  expect_failures = [aws_ecs_task_definition.this]
}

run "types_with_another_gpu_model_are_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g6.xlarge"] } # L4, not A10G
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "types_with_another_gpu_count_are_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g5.12xlarge"] } # 4 GPUs, not 1
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "an_unknown_additional_type_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g5.2xlarg"] }
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "instance_type_is_not_repeated_in_the_additional_types" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g5.xlarge", "g5.2xlarge"] }
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "spot_on_one_type_above_an_on_demand_base" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { on_demand_base_capacity = 1, on_demand_percentage_above_base_capacity = 0 }
  }

  assert {
    condition     = [for o in aws_autoscaling_group.this.mixed_instances_policy[0].launch_template[0].override : o.instance_type] == ["g5.xlarge"]
    error_message = "Spot on instance_type alone: one override"
  }
  assert {
    condition     = aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].on_demand_base_capacity == 1 && aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].on_demand_percentage_above_base_capacity == 0
    error_message = "one On-Demand instance, Spot above it"
  }
  assert {
    condition     = aws_autoscaling_group.this.capacity_rebalance == true
    error_message = "with Spot, Capacity Rebalancing replaces an at-risk Spot instance before its interruption notice"
  }
  assert {
    condition     = contains(split("\n", base64decode(aws_launch_template.this.user_data)), "ECS_ENABLE_SPOT_INSTANCE_DRAINING=true")
    error_message = "with Spot the agent drains an instance on its interruption notice"
  }
}

run "capacity_rebalance_can_be_turned_off_and_is_unset_without_spot" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { on_demand_percentage_above_base_capacity = 0, capacity_rebalance = false }
  }

  assert {
    condition     = aws_autoscaling_group.this.capacity_rebalance == false
    error_message = "capacity_rebalance = false is kept"
  }
}

# --- the issue's fallback pair: 4 x L4 with 4 x A10G, both 22888 MiB per GPU ------------------------

run "another_gpu_model_with_the_same_count_and_memory_is_refused_without_the_opt_in" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type   = "g6.12xlarge"
    mixed_instances = { additional_instance_types = ["g5.12xlarge"] }
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "another_gpu_model_with_the_same_count_and_memory_is_allowed_with_the_opt_in" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g6.12xlarge"
    mixed_instances = {
      additional_instance_types                = ["g5.12xlarge"]
      allow_other_gpu_models                   = true
      on_demand_base_capacity                  = 1
      on_demand_percentage_above_base_capacity = 0
    }
  }

  assert {
    condition     = [for o in aws_autoscaling_group.this.mixed_instances_policy[0].launch_template[0].override : o.instance_type] == ["g6.12xlarge", "g5.12xlarge"]
    error_message = "both 4-GPU types are in the group"
  }
}

run "less_gpu_memory_per_gpu_is_refused_even_with_the_opt_in" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type = "g6e.12xlarge" # 4 x L40S, 45776 MiB each
    mixed_instances = {
      additional_instance_types = ["g6.12xlarge"] # 4 x L4, 22888 MiB each: the model may not fit
      allow_other_gpu_models    = true
    }
  }

  expect_failures = [aws_autoscaling_group.this]
}

# --- instance refresh: launch before terminate ---------------------------------------------------

run "instance_refresh_launches_before_it_terminates" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_refresh_min_healthy_percentage = 100
    instance_refresh_max_healthy_percentage = 200
  }

  assert {
    condition     = aws_autoscaling_group.this.instance_refresh[0].preferences[0].min_healthy_percentage == 100 && aws_autoscaling_group.this.instance_refresh[0].preferences[0].max_healthy_percentage == 200
    error_message = "min 100 / max 200: each replacement is launched before its instance is terminated"
  }
}

run "instance_refresh_percentages_more_than_100_apart" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_refresh_min_healthy_percentage = 90
    instance_refresh_max_healthy_percentage = 200
  }

  expect_failures = [aws_autoscaling_group.this]
}

# --- instance types EC2 does not offer in the subnets' zones ------------------------------------

run "a_type_the_zones_do_not_offer_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  override_data {
    target = data.aws_subnet.instances
    values = { availability_zone = "us-east-1e" }
  }
  override_data {
    target = data.aws_ec2_instance_type_offerings.zones
    values = { instance_types = ["g4dn.xlarge", "m5.large"], locations = ["us-east-1e", "us-east-1e"] }
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "a_type_the_zones_offer_is_accepted" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  override_data {
    target = data.aws_subnet.instances
    values = { availability_zone = "us-east-1a" }
  }
  override_data {
    target = data.aws_ec2_instance_type_offerings.zones
    values = { instance_types = ["g5.xlarge", "m5.large"], locations = ["us-east-1a", "us-east-1a"] }
  }

  assert {
    condition     = output.availability_zones == tolist(["us-east-1a"])
    error_message = "the capacity's zones are its subnets'"
  }
}

run "on_demand_percentage_range" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g5.2xlarge"], on_demand_percentage_above_base_capacity = 120 }
  }

  expect_failures = [var.mixed_instances]
}

run "allocation_strategy_names" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    mixed_instances = { additional_instance_types = ["g5.2xlarge"], spot_allocation_strategy = "diversified" }
  }

  expect_failures = [var.mixed_instances]
}

# --- Capacity Blocks and On-Demand Capacity Reservations -------------------------------------------

run "capacity_block_sets_the_market_type_and_the_reservation" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    instance_type        = "p5.48xlarge"
    capacity_reservation = { capacity_block = true, capacity_reservation_id = "cr-0123456789abcdef0" }
  }

  assert {
    condition     = aws_launch_template.this.instance_market_options[0].market_type == "capacity-block"
    error_message = "a Capacity Block is launched into with the market type capacity-block"
  }
  assert {
    condition     = aws_launch_template.this.capacity_reservation_specification[0].capacity_reservation_target[0].capacity_reservation_id == "cr-0123456789abcdef0"
    error_message = "the launch template targets the block's reservation"
  }
}

run "on_demand_reservation_group_is_targeted_without_a_market_type" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    capacity_reservation = { resource_group_arn = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcrs" }
  }

  assert {
    condition = (
      length(aws_launch_template.this.instance_market_options) == 0 &&
      aws_launch_template.this.capacity_reservation_specification[0].capacity_reservation_target[0].capacity_reservation_resource_group_arn == "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcrs"
    )
    error_message = "an On-Demand Capacity Reservation group is a target, On-Demand market"
  }
}

run "capacity_block_needs_its_reservation_id" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    capacity_reservation = { capacity_block = true, resource_group_arn = "arn:aws:resource-groups:us-east-1:123456789012:group/blocks" }
  }

  expect_failures = [var.capacity_reservation]
}

run "reservation_needs_one_target" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    capacity_reservation = { capacity_reservation_id = "cr-0123456789abcdef0", resource_group_arn = "arn:aws:resource-groups:us-east-1:123456789012:group/gpu-odcrs" }
  }

  expect_failures = [var.capacity_reservation]
}

run "reservation_id_shape" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    capacity_reservation = { capacity_reservation_id = "reservation-1" }
  }

  expect_failures = [var.capacity_reservation]
}

run "reservation_with_several_types_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    capacity_reservation = { capacity_reservation_id = "cr-0123456789abcdef0" }
    mixed_instances      = { additional_instance_types = ["g5.2xlarge"] }
  }

  expect_failures = [aws_autoscaling_group.this]
}

# --- warm pools ------------------------------------------------------------------------------------

run "warm_pool_is_stopped_and_the_agent_waits_for_service" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    warm_pool = { min_size = 1 }
  }

  assert {
    condition = (
      aws_autoscaling_group.this.warm_pool[0].pool_state == "Stopped" &&
      aws_autoscaling_group.this.warm_pool[0].min_size == 1 &&
      aws_autoscaling_group.this.warm_pool[0].instance_reuse_policy[0].reuse_on_scale_in == false
    )
    error_message = "a Stopped warm pool of one instance, not reused on scale-in"
  }
  assert {
    condition     = contains(split("\n", base64decode(aws_launch_template.this.user_data)), "ECS_WARM_POOLS_CHECK=true")
    error_message = "the user data must set ECS_WARM_POOLS_CHECK=true (ECS's documented warm pool pattern)"
  }
}

run "no_warm_pool_no_warm_pool_check" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = length(aws_autoscaling_group.this.warm_pool) == 0 && !strcontains(base64decode(aws_launch_template.this.user_data), "ECS_WARM_POOLS_CHECK")
    error_message = "without a warm pool, neither the pool nor the agent setting"
  }
}

run "warm_pool_reuse_on_scale_in_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    warm_pool = { reuse_on_scale_in = true }
  }

  expect_failures = [var.warm_pool]
}

run "warm_pool_state_names" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    warm_pool = { pool_state = "Hibernated" }
  }

  expect_failures = [var.warm_pool]
}

run "warm_pool_with_several_types_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    warm_pool       = {}
    mixed_instances = { additional_instance_types = ["g5.2xlarge"] }
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "stopped_warm_pool_with_an_instance_store_cache_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    warm_pool   = {}
    model_cache = { instance_store = true }
  }

  expect_failures = [aws_autoscaling_group.this]
}

run "root_passes_the_capacity_sources_through" {
  command = plan

  variables {
    create_cluster = true
    warm_pool      = { pool_state = "Running", min_size = 2 }
  }

  assert {
    condition     = output.placement_expression == "attribute:ecs.instance-type == g5.xlarge"
    error_message = "one type keeps the == constraint"
  }
}

run "root_mixed_instances_reach_the_service" {
  command = plan

  variables {
    create_cluster  = true
    mixed_instances = { additional_instance_types = ["g5.2xlarge"] }
  }

  assert {
    condition     = output.placement_expression == "attribute:ecs.instance-type in [g5.xlarge, g5.2xlarge]"
    error_message = "the root gives the service the group's types"
  }
}
