# The GPU capacity: launch template, Auto Scaling group, capacity provider, and the capacity
# provider's association with the cluster.

locals {
  # ECS_CLUSTER: without it the agent registers in the cluster named "default".
  # ECS_ENABLE_GPU_SUPPORT=true: without it the agent registers no GPU resource, and a task that
  # requires a GPU is never placed. The GPU AMI writes it to /var/lib/ecs/ecs.config at build time;
  # writing it here too keeps the contract in the configuration, whatever the AMI does.
  # ECS_WARM_POOLS_CHECK=true: an instance launched into the warm pool does not register with the
  # cluster until it is placed in service (ECS using-warm-pool page; AGENT README).
  # ECS_ENABLE_SPOT_INSTANCE_DRAINING=true: on a Spot interruption notice the agent sets the
  # instance DRAINING, so the service starts the tasks elsewhere (AGENT README).
  ecs_config_lines = concat(
    [
      "ECS_CLUSTER=${var.cluster_name}",
      "ECS_ENABLE_GPU_SUPPORT=true",
    ],
    var.warm_pool == null ? [] : ["ECS_WARM_POOLS_CHECK=true"],
    local.spot ? ["ECS_ENABLE_SPOT_INSTANCE_DRAINING=true"] : [],
    [for k in sort(keys(var.extra_ecs_config)) : "${k}=${var.extra_ecs_config[k]}"],
  )

  # Spot instances are possible when anything above the On-Demand base is not all On-Demand.
  spot           = var.mixed_instances != null && try(var.mixed_instances.on_demand_percentage_above_base_capacity < 100, false)
  instance_types = concat([var.instance_type], var.mixed_instances == null ? [] : var.mixed_instances.additional_instance_types)
  # Capacity Rebalancing: Auto Scaling launches a Spot replacement when EC2 signals an elevated risk of
  # interruption, then terminates the old instance (Auto Scaling API, CreateAutoScalingGroup
  # CapacityRebalance), which ECS managed instance draining (on by default since 2024-01) drains first.
  capacity_rebalance = local.spot ? coalesce(try(var.mixed_instances.capacity_rebalance, null), true) : null

  # The optional parts join on one line: an option that is off adds no line, so that upgrading the
  # module does not change the user data (a new launch template version refreshes every instance).
  user_data = <<-EOT
    #!/bin/bash
    set -euo pipefail
    mkdir -p /etc/ecs
    cat >> /etc/ecs/ecs.config <<'ECSCONFIG'
    ${join("\n", local.ecs_config_lines)}
    ECSCONFIG
    ${local.model_cache_user_data}${local.gpu_metrics_user_data}
    ${var.extra_user_data}
  EOT
}

resource "aws_launch_template" "this" {
  name_prefix            = "${var.name}-"
  description            = "GPU container instances of ${var.name} (${var.instance_type})"
  image_id               = local.ami_id
  instance_type          = var.instance_type
  user_data              = base64encode(local.user_data)
  update_default_version = true
  ebs_optimized          = true

  # The instances' groups: here, or on the EFA interface with `efa`. The module's own group is
  # named here rather than through a local: checkov's graph drops an edge that goes through a local
  # when this module and the cluster module take each other's outputs (examples/production), and
  # then reports the group as attached to nothing (CKV2_AWS_5).
  vpc_security_group_ids = var.efa ? null : concat([aws_security_group.instance.id], var.instance_security_group_ids)

  iam_instance_profile {
    arn = local.instance_profile_arn
  }

  # EFA: the primary interface is an EFA (EC2 takes the groups on the interface then, not on the
  # template); the subnet comes from the group's vpc_zone_identifier.
  dynamic "network_interfaces" {
    for_each = var.efa ? [1] : []
    content {
      device_index          = 0
      network_card_index    = 0
      interface_type        = "efa"
      security_groups       = concat([aws_security_group.instance.id], var.instance_security_group_ids)
      delete_on_termination = true
    }
  }

  # IMDSv2 only.
  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = var.imds_hop_limit
    instance_metadata_tags      = "disabled"
  }

  block_device_mappings {
    device_name = var.root_volume_device_name
    ebs {
      volume_size           = var.root_volume_size_gib
      volume_type           = "gp3"
      encrypted             = true
      kms_key_id            = var.root_volume_kms_key_id
      delete_on_termination = true
    }
  }

  monitoring {
    enabled = true
  }

  # A Capacity Block is launched into with the market type "capacity-block" and the block's ID; an
  # On-Demand Capacity Reservation with its ID or its resource group (EC2 capacity-blocks-launch page).
  dynamic "instance_market_options" {
    for_each = try(var.capacity_reservation.capacity_block, false) ? [1] : []
    content {
      market_type = "capacity-block"
    }
  }

  dynamic "capacity_reservation_specification" {
    for_each = var.capacity_reservation == null ? [] : [var.capacity_reservation]
    content {
      capacity_reservation_target {
        capacity_reservation_id                 = capacity_reservation_specification.value.capacity_reservation_id
        capacity_reservation_resource_group_arn = capacity_reservation_specification.value.resource_group_arn
      }
    }
  }

  tag_specifications {
    resource_type = "instance"
    tags          = merge(local.tags, { Name = "${var.name}-gpu" })
  }

  tag_specifications {
    resource_type = "volume"
    tags          = merge(local.tags, { Name = "${var.name}-gpu" })
  }

  tags = local.tags

  lifecycle {
    # The plan-time refusals of an instance type or AMI source that would be accepted and never run.
    precondition {
      condition     = local.instance.known || (local.instance.family_known && local.instance.status != "supported")
      error_message = "instance_type ${var.instance_type} is not in the module's GPU catalog (modules/facts/catalog.tf); nearest: ${join(", ", slice(local.instance.nearest_types, 0, min(12, length(local.instance.nearest_types))))}. For a type the catalog lacks, set instance_type_facts (its GPUs, vCPUs and memory)."
    }
    precondition {
      condition     = local.instance.status == "supported" || (!local.instance.known && !local.instance.family_known)
      error_message = "instance_type ${var.instance_type} cannot run ECS GPU tasks (${local.instance.status}): ${local.instance.status_reason}."
    }
    precondition {
      condition     = local.instance.architecture == null || local.instance.architecture == "x86_64"
      error_message = "instance_type ${var.instance_type} is ${coalesce(local.instance.architecture, "unknown")}: every ECS GPU-optimized AMI is x86_64."
    }
    precondition {
      condition     = var.ami_id != null || local.ami_parameter_key != null
      error_message = "ami_ssm_parameter ${local.ami_ssm_parameter} is not an ECS GPU-optimized AMI parameter: use one of ${join(", ", [for p in values(module.facts.ami_parameters) : p.parameter])} or a parameter under its gpu/ path (such as .../recommended/image_id)."
    }
    precondition {
      condition     = var.ami_id == null || var.ami_ssm_parameter == null
      error_message = "Set ami_id or ami_ssm_parameter, not both."
    }
    precondition {
      condition     = var.create_instance_profile != (var.instance_profile_arn != null)
      error_message = var.create_instance_profile ? "Set create_instance_profile = false to use instance_profile_arn: the module either creates the instances' role and profile or uses yours, not both." : "With create_instance_profile = false, set instance_profile_arn to the instance profile the GPU instances use (its role needs AmazonEC2ContainerServiceforEC2Role or the same permissions)."
    }
    precondition {
      condition     = var.create_instance_profile || length(var.instance_role_policy_arns) == 0
      error_message = "instance_role_policy_arns are attached only to the instance role the module creates: with instance_profile_arn, attach them to your own role."
    }
    # EFA on a type without one: EC2 refuses the launch, and the group never has an instance.
    precondition {
      condition     = !var.efa || local.instance.efa != false
      error_message = "efa = true on ${var.instance_type}, which has no Elastic Fabric Adapter (catalog, karpenter-preview-efa): EC2 would refuse every launch; use an EFA type (p4d, p5, g6e.8xlarge and larger...) or set efa = false."
    }
    precondition {
      condition     = !var.efa || length(local.instance.additional_types_without_efa) == 0
      error_message = "efa = true with mixed_instances types that have no Elastic Fabric Adapter: ${join(", ", local.instance.additional_types_without_efa)}; EC2 would refuse to launch them. Remove them, or set efa = false."
    }
  }
}

# EFA needs every instance in one cluster placement group (AWS Batch EFA page, EC2 EFA page).
resource "aws_placement_group" "efa" {
  count = var.efa ? 1 : 0

  name     = "${module.facts.unique_name}-efa"
  strategy = "cluster"
  tags     = local.tags
}

resource "aws_autoscaling_group" "this" {
  name_prefix         = "${var.name}-"
  vpc_zone_identifier = var.subnet_ids
  min_size            = var.min_size
  max_size            = var.max_size
  # Scale-in protection would otherwise keep a destroy waiting on instances that cannot terminate.
  force_delete = var.force_delete
  # No desired_capacity: ECS managed scaling sets it. Setting it here would fight the capacity
  # provider on every apply.

  # Required by managed termination protection: ECS removes an instance's protection only once it
  # runs no task, so scale-in never stops a GPU task.
  protect_from_scale_in = true

  health_check_type         = "EC2"
  health_check_grace_period = var.instance_warmup
  capacity_rebalance        = local.capacity_rebalance

  # EFA instances talk to each other through a cluster placement group (one Availability Zone).
  placement_group = var.efa ? aws_placement_group.efa[0].name : null

  dynamic "launch_template" {
    for_each = var.mixed_instances == null ? [1] : []
    content {
      id      = aws_launch_template.this.id
      version = aws_launch_template.this.latest_version
    }
  }

  # Several types: the launch template with one override per type, the first type first.
  dynamic "mixed_instances_policy" {
    for_each = var.mixed_instances == null ? [] : [var.mixed_instances]
    content {
      instances_distribution {
        on_demand_base_capacity                  = mixed_instances_policy.value.on_demand_base_capacity
        on_demand_percentage_above_base_capacity = mixed_instances_policy.value.on_demand_percentage_above_base_capacity
        on_demand_allocation_strategy            = mixed_instances_policy.value.on_demand_allocation_strategy
        spot_allocation_strategy                 = mixed_instances_policy.value.spot_allocation_strategy
      }
      launch_template {
        launch_template_specification {
          launch_template_id = aws_launch_template.this.id
          version            = aws_launch_template.this.latest_version
        }
        dynamic "override" {
          for_each = local.instance_types
          content {
            instance_type = override.value
          }
        }
      }
    }
  }

  # Pre-initialized instances; the user data sets ECS_WARM_POOLS_CHECK=true for them.
  dynamic "warm_pool" {
    for_each = var.warm_pool == null ? [] : [var.warm_pool]
    content {
      pool_state                  = warm_pool.value.pool_state
      min_size                    = warm_pool.value.min_size
      max_group_prepared_capacity = warm_pool.value.max_group_prepared_capacity
      instance_reuse_policy {
        reuse_on_scale_in = false
      }
    }
  }

  # A launch template change (new AMI, user data, instance type...) reaches running instances only
  # through this refresh: a rolling replacement, triggered by the version change above.
  instance_refresh {
    strategy = "Rolling"
    preferences {
      min_healthy_percentage = var.instance_refresh_min_healthy_percentage
      max_healthy_percentage = var.instance_refresh_max_healthy_percentage
      instance_warmup        = tostring(var.instance_warmup)
      skip_matching          = true
      # The instances are scale-in protected; without "Refresh" a refresh waits an hour on them
      # and fails.
      scale_in_protected_instances = "Refresh"
    }
  }

  # ECS adds this tag when the capacity provider is created; declaring it keeps every apply from
  # stripping it.
  tag {
    key                 = "AmazonECSManaged"
    value               = "true"
    propagate_at_launch = true
  }

  tag {
    key                 = "Name"
    value               = "${var.name}-gpu"
    propagate_at_launch = true
  }

  dynamic "tag" {
    for_each = { for k, v in local.tags : k => v if !contains(["AmazonECSManaged", "Name"], k) }
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }

  lifecycle {
    create_before_destroy = true

    precondition {
      condition     = var.min_size <= var.max_size
      error_message = "min_size (${var.min_size}) must not exceed max_size (${var.max_size})."
    }
    # Several types: each must give a task the same GPUs (GPU count, fraction and model, from the catalog).
    precondition {
      condition     = var.mixed_instances == null || !try(contains(var.mixed_instances.additional_instance_types, var.instance_type), false)
      error_message = "mixed_instances.additional_instance_types must not repeat instance_type ${var.instance_type}: it is the group's first type already."
    }
    precondition {
      condition     = length(local.instance.unknown_additional_types) == 0
      error_message = "mixed_instances.additional_instance_types ${join(", ", local.instance.unknown_additional_types)} not in the module's GPU catalog: every type of the group must be one the fit checks know."
    }
    precondition {
      condition     = length(local.instance.mismatched_additional_types) == 0
      error_message = "mixed_instances: every type must have the GPU count of ${var.instance_type} (${coalesce(local.instance.gpus, 0)} x ${coalesce(local.instance.gpu_model, "unknown model")}, ${coalesce(local.instance.gpu_memory_mib, 0)} MiB each), at least its memory per GPU, and run ECS GPU tasks, or a task sized for one would not fit the other and managed scaling would size the group on the wrong one; these differ: ${join(", ", local.instance.mismatched_additional_types)}."
    }
    precondition {
      condition     = length(local.instance.other_model_additional_types) == 0 || try(var.mixed_instances.allow_other_gpu_models, false)
      error_message = "mixed_instances: ${join(", ", local.instance.other_model_additional_types)} have another GPU model than ${var.instance_type} (${coalesce(local.instance.gpu_model, "unknown model")}), with the same GPU count and enough memory per GPU. If the task's image runs on both (CUDA kernels for both architectures, no FP8 on an Ampere GPU...), set mixed_instances.allow_other_gpu_models = true; otherwise remove them."
    }
    precondition {
      condition     = var.instance_refresh_max_healthy_percentage == null || coalesce(var.instance_refresh_max_healthy_percentage, 100) - var.instance_refresh_min_healthy_percentage <= 100
      error_message = "instance_refresh_max_healthy_percentage ${coalesce(var.instance_refresh_max_healthy_percentage, 100)} and instance_refresh_min_healthy_percentage ${var.instance_refresh_min_healthy_percentage} must be at most 100 apart (Auto Scaling API, RefreshPreferences)."
    }
    precondition {
      condition     = length(local.types_not_offered) == 0
      error_message = "instance type(s) ${join(", ", local.types_not_offered)} not offered in the Availability Zones of subnet_ids (${join(", ", distinct(local.subnet_zones))}), per EC2 DescribeInstanceTypeOfferings: the group could never launch them. Choose subnets in zones that offer them, or another type (aws ec2 describe-instance-type-offerings --location-type availability-zone --filters Name=instance-type,Values=<type>)."
    }
    # PutWarmPool "cannot be called on an Auto Scaling group that has a mixed instances policy or a
    # launch template or launch configuration that requests Spot Instances" (Auto Scaling API).
    precondition {
      condition     = var.warm_pool == null || var.mixed_instances == null
      error_message = "warm_pool cannot be used with mixed_instances: Auto Scaling refuses a warm pool on a group with a mixed instances policy."
    }
    # A reservation is of one instance type: other types would launch outside it, or not at all.
    precondition {
      condition     = var.capacity_reservation == null || var.mixed_instances == null
      error_message = "capacity_reservation targets one instance type: remove mixed_instances (the reservation's type is instance_type)."
    }
    # Instance-store data is lost when an instance stops, and the user data that formats and mounts
    # it runs at first boot only: a Stopped warm pool would start instances without their cache.
    precondition {
      condition     = var.warm_pool == null || try(var.warm_pool.pool_state != "Stopped", false) || !try(var.model_cache.instance_store, false)
      error_message = "model_cache.instance_store with a Stopped warm_pool: an instance's instance-store disks are wiped when it stops in the pool and the user data that mounts them does not run again; use the root volume (instance_store = false) or pool_state = \"Running\"."
    }
  }

  # The instances register with ECS at boot: the role must have its policies, and the cluster must
  # exist, by then.
  depends_on = [aws_iam_role_policy_attachment.instance, data.aws_ecs_clusters.all]
}

resource "aws_ecs_capacity_provider" "this" {
  name = module.facts.unique_name
  tags = local.tags

  auto_scaling_group_provider {
    auto_scaling_group_arn         = aws_autoscaling_group.this.arn
    managed_termination_protection = "ENABLED"

    managed_scaling {
      status                    = "ENABLED"
      target_capacity           = var.target_capacity
      minimum_scaling_step_size = var.minimum_scaling_step_size
      maximum_scaling_step_size = var.maximum_scaling_step_size
      instance_warmup_period    = var.instance_warmup
    }
  }

  lifecycle {
    precondition {
      condition     = var.minimum_scaling_step_size <= var.maximum_scaling_step_size
      error_message = "minimum_scaling_step_size (${var.minimum_scaling_step_size}) must not exceed maximum_scaling_step_size (${var.maximum_scaling_step_size})."
    }
    # Not silently taking over an existing cluster's capacity provider list (see the README).
    precondition {
      condition     = var.associate_capacity_provider != null
      error_message = "With an existing cluster, set associate_capacity_provider explicitly: true makes this module own the cluster's whole capacity provider list (this provider plus additional_cluster_capacity_providers; any other is removed), false leaves the list to you (add the capacity_provider_name output to it)."
    }
  }
}

# aws_ecs_cluster_capacity_providers owns the cluster's WHOLE capacity provider list: it is created
# only on an explicit choice (associate_capacity_provider), and then the list is this module's
# provider plus additional_cluster_capacity_providers. See the README.
resource "aws_ecs_cluster_capacity_providers" "this" {
  count = var.associate_capacity_provider == true ? 1 : 0

  cluster_name       = var.cluster_name
  capacity_providers = distinct(concat([aws_ecs_capacity_provider.this.name], var.additional_cluster_capacity_providers))

  dynamic "default_capacity_provider_strategy" {
    for_each = var.default_capacity_provider_strategy
    content {
      capacity_provider = default_capacity_provider_strategy.value.capacity_provider
      weight            = default_capacity_provider_strategy.value.weight
      base              = default_capacity_provider_strategy.value.base
    }
  }
}
