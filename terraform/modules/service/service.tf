# The service, in one of two mutually exclusive forms selected by count, because
# lifecycle.ignore_changes cannot be conditional:
# - aws_ecs_service.this (no `autoscaling`): Terraform owns desired_count;
# - aws_ecs_service.autoscaled (`autoscaling` set): Application Auto Scaling owns desired_count,
#   Terraform sets it only at creation and ignores it afterwards.
# The two bodies must stay identical apart from desired_count and the lifecycle block.
# Switching modes replaces the service; a `moved` block in the calling module avoids that (see the README).
#
# modules/service-v6 is this module, copied, plus override files that add what only hashicorp/aws 6.x
# knows (the `deployment_configuration` block, a load balancer's `advanced_configuration`): a block
# the provider's schema lacks fails every plan, even in a dynamic block with nothing to expand.

locals {
  # --- load balancers ------------------------------------------------------------------------
  # `load_balancer` is the shorthand of one entry of `load_balancers`, without listeners, security
  # groups or advanced configuration. No try() here: try() of a list with an element known only
  # after apply (a security group created in the same root) returns an unknown list, whose length
  # is then unknown too, and the ingress rules' for_each below fails the first plan.
  load_balancers = merge(
    var.load_balancer == null ? {} : {
      load_balancer = {
        target_group_arn       = var.load_balancer.target_group_arn
        container_port         = var.load_balancer.container_port
        container_name         = coalesce(var.load_balancer.container_name, var.container_name)
        listener_arns          = tolist([])
        security_group_ids     = tolist([])
        advanced_configuration = null
      }
    },
    { for k, lb in var.load_balancers : k => {
      target_group_arn       = lb.target_group_arn
      container_port         = lb.container_port
      container_name         = coalesce(lb.container_name, var.container_name)
      listener_arns          = lb.listener_arns
      security_group_ids     = lb.security_group_ids
      advanced_configuration = lb.advanced_configuration
    } },
  )
  # The listeners the service waits for (terraform_data.load_balancer_listeners): their ARNs flow in by
  # reference, so the caller's module call needs no depends_on.
  # concat, not flatten: flatten cannot tell an unknown ARN from a list, and the list's length must
  # stay known.
  listener_arns = concat([], [for lb in values(local.load_balancers) : lb.listener_arns]...)
  # One ingress rule per load balancer security group, keyed by position: the groups' IDs may be
  # known only after apply, and a for_each key must be known at plan.
  load_balancer_ingress = merge({}, [
    for k, lb in local.load_balancers : { for i, sg in lb.security_group_ids : "${k}-${i}" => { security_group_id = sg, port = lb.container_port, load_balancer = k } }
  ]...)
  # Each container's port mappings: a load balancer's container port must be one of them.
  # Grouped by name (`...`): a name given twice is refused on the task definition, not here.
  container_ports = {
    for name, ports in merge(
      { for c in local.containers : c.name => [for p in c.port_mappings : p.container_port]... },
      { for c in var.sidecar_containers : c.name => [for p in try(c.portMappings, []) : p.containerPort]... },
    ) : name => flatten(ports)
  }
  unmapped_load_balancers = [
    for k, lb in local.load_balancers : "`${k}` (${lb.container_name}:${lb.container_port})"
    if !contains(lookup(local.container_ports, lb.container_name, []), lb.container_port)
  ]

  # --- deployments -----------------------------------------------------------------------------
  strategy = var.deployment_strategy.strategy
  # This module writes no `deployment_configuration` (hashicorp/aws 5.x has none); modules/service-v6
  # overrides this local to true.
  writes_deployment_configuration = false
  advanced_without_provider_6     = [for k, lb in local.load_balancers : k if lb.advanced_configuration != null]
  lbs_without_advanced            = [for k, lb in local.load_balancers : k if lb.advanced_configuration == null]

  # Will the capacity ever hold a deployment? ECS (DeploymentConfiguration, ECS API reference): a rolling
  # deployment keeps at least desired x minimumHealthyPercent / 100 tasks RUNNING, rounded up, and runs at
  # most desired x maximumPercent / 100 tasks, rounded down. With the minimum at the desired count, new
  # tasks start only beside all the old ones: the first needs room for one more task. BLUE_GREEN, LINEAR
  # and CANARY start the new revision at full size beside the old one ("plan for sufficient cluster
  # capacity to handle both environments during deployment", ECS blue-green-deployment-implementation
  # page; crates/ecs-gpu-catalog/data/sources/ecs-gpu-2026-updates.md 1.5): twice the tasks. The count is desired_count, or
  # autoscaling.max_capacity (a deployment may come when the service is at its largest).
  deploy_count      = local.autoscaling_enabled ? var.autoscaling.max_capacity : var.desired_count
  deploy_count_name = local.autoscaling_enabled ? "autoscaling.max_capacity" : "desired_count"
  both_revisions    = local.strategy != "ROLLING"
  min_running       = ceil(local.deploy_count * var.deployment_minimum_healthy_percent / 100)
  max_running       = floor(local.deploy_count * var.deployment_maximum_percent / 100)
  keeps_all_running = !local.both_revisions && local.min_running >= local.deploy_count
  deploy_needed_tasks = (
    local.both_revisions ? 2 * local.deploy_count :
    local.keeps_all_running ? local.deploy_count + 1 : local.deploy_count
  )
  deploy_peak_tasks = local.both_revisions ? 2 * local.deploy_count : max(local.deploy_count, local.max_running)
  capacity_tasks    = try(var.max_size * local.tasks_per_instance, null)
  # A rolling deployment that must keep every task and may run none beyond them never starts.
  rolling_can_start = local.both_revisions || local.deploy_count == 0 || !local.keeps_all_running || local.max_running > local.deploy_count
  deployment_fits   = local.capacity_tasks == null || local.deploy_count == 0 || local.deploy_needed_tasks <= coalesce(local.capacity_tasks, 0)
  deployment_capacity_message = local.deployment_fits ? "" : join("", [
    "max_size ${coalesce(var.max_size, 0)} can never hold a ${local.strategy} deployment of ${local.deploy_count_name} ${local.deploy_count} task(s): ",
    local.both_revisions
    ? "${local.strategy} starts the new revision at full size beside the old one, 2 x ${local.deploy_count} = ${local.deploy_needed_tasks} tasks"
    : "deployment_minimum_healthy_percent ${var.deployment_minimum_healthy_percent} keeps ceil(${local.deploy_count} x ${var.deployment_minimum_healthy_percent} / 100) = ${local.min_running} running, so the first new task needs room beside them: ${local.deploy_count} + 1 = ${local.deploy_needed_tasks} tasks",
    " x ${local.task_gpus} GPU(s) = ${local.deploy_needed_tasks * local.task_gpus} GPUs, while ${coalesce(var.max_size, 0)} instance(s) x ${coalesce(local.tasks_per_instance, 0)} task(s) per ${var.instance_type}",
    " (the least over its ${coalesce(local.instance.gpus_per_instance, 0)} GPUs, CPU and memory) hold ${coalesce(local.capacity_tasks, 0)} tasks = ${coalesce(local.capacity_tasks, 0) * local.task_gpus} GPUs. ",
    "Raise max_size to ${ceil(local.deploy_needed_tasks / max(coalesce(local.tasks_per_instance, 1), 1))}",
    local.both_revisions ? ", or deploy with strategy \"ROLLING\"." : ", or lower deployment_minimum_healthy_percent below 100 (old tasks then stop before new ones start: fewer tasks serve during the deployment).",
  ])

  # --- Service Connect ---------------------------------------------------------------------------
  # Named port mappings of the task (ECS requires the names to be unique in a task).
  named_ports = { for p in flatten([for c in local.containers : c.port_mappings]) : p.name => p... if p.name != null }
  service_connect_services = var.service_connect == null ? [] : [
    for s in var.service_connect.services : merge(s, {
      # The proxy's per-request timeout applies to HTTP, HTTP/2 and gRPC ports only (ECS API TimeoutConfiguration).
      http = contains(["http", "http2", "grpc"], lower(coalesce(try(local.named_ports[s.port_name][0].app_protocol, null), "tcp")))
    })
  ]
  unknown_service_connect_ports = [for s in local.service_connect_services : s.port_name if !contains(keys(local.named_ports), s.port_name)]
  tcp_per_request_timeouts      = [for s in local.service_connect_services : s.port_name if !s.http && s.per_request_timeout_seconds != null]

  # --- subnets --------------------------------------------------------------------------------
  task_subnet_zones = data.aws_subnet.tasks[*].availability_zone
  # A real zone name is a region and a letter (us-east-1a, us-west-2-lax-1a); only a mock provider
  # yields anything else (random strings), and the check is then skipped.
  zone_names_are_real = alltrue([
    for z in concat(local.task_subnet_zones, coalesce(var.capacity_availability_zones, [])) : can(regex("^[a-z]{2}(-[a-z0-9]+)+[a-z]$", z))
  ])
  subnets_outside_capacity = var.capacity_availability_zones == null || !local.zone_names_are_real ? [] : [
    for i, z in local.task_subnet_zones : "${var.subnet_ids[i]} (${z})" if !contains(var.capacity_availability_zones, z)
  ]
}

# The tasks' subnets' Availability Zones, compared with the capacity's (awsvpc: a task's network interface
# is in its subnet, so its instance must be in the same zone).
data "aws_subnet" "tasks" {
  count = local.is_awsvpc && var.capacity_availability_zones != null ? length(var.subnet_ids) : 0

  id = var.subnet_ids[count.index]
}

# The listeners and listener rules that forward to the target groups. ECS refuses to attach a target
# group that no load balancer uses, so the service must come after them: it depends on this resource,
# whose input is their ARNs, taken by reference. A change of a listener's other arguments reaches
# neither this resource nor the service.
resource "terraform_data" "load_balancer_listeners" {
  count = length(local.load_balancers) > 0 ? 1 : 0

  input = local.listener_arns
}

resource "aws_ecs_service" "this" {
  count = local.autoscaling_enabled ? 0 : 1

  name                               = var.name
  cluster                            = local.cluster_name
  task_definition                    = aws_ecs_task_definition.this.arn
  desired_count                      = var.desired_count
  deployment_minimum_healthy_percent = var.deployment_minimum_healthy_percent
  deployment_maximum_percent         = var.deployment_maximum_percent
  health_check_grace_period_seconds  = length(local.load_balancers) == 0 ? null : var.health_check_grace_period_seconds
  enable_execute_command             = var.enable_execute_command
  enable_ecs_managed_tags            = true
  propagate_tags                     = "SERVICE"
  wait_for_steady_state              = var.wait_for_steady_state
  force_new_deployment               = var.force_new_deployment
  triggers                           = var.deployment_triggers
  tags                               = local.tags

  capacity_provider_strategy {
    capacity_provider = var.capacity_provider_name
    weight            = 1
    base              = 0
  }

  dynamic "network_configuration" {
    for_each = local.is_awsvpc ? [1] : []
    content {
      subnets          = local.service_subnet_ids
      security_groups  = concat([aws_security_group.task[0].id], var.security_group_ids)
      assign_public_ip = false
    }
  }

  dynamic "placement_constraints" {
    for_each = var.placement_constraint_instance_type ? [1] : []
    content {
      type       = "memberOf"
      expression = local.placement_expression
    }
  }

  # An ECS managed EBS volume per task (`ebs_volume`), created at launch.
  dynamic "volume_configuration" {
    for_each = var.ebs_volume == null ? [] : [var.ebs_volume]
    content {
      name = "scratch"
      managed_ebs_volume {
        role_arn         = volume_configuration.value.infrastructure_role_arn
        size_in_gb       = volume_configuration.value.size_in_gb
        volume_type      = volume_configuration.value.volume_type
        iops             = volume_configuration.value.iops
        throughput       = volume_configuration.value.throughput
        file_system_type = volume_configuration.value.file_system_type
        encrypted        = true
        kms_key_id       = volume_configuration.value.kms_key_id
      }
    }
  }

  deployment_circuit_breaker {
    enable   = var.deployment_circuit_breaker.enable
    rollback = var.deployment_circuit_breaker.rollback
  }

  dynamic "alarms" {
    for_each = var.deployment_alarms == null ? [] : [var.deployment_alarms]
    content {
      alarm_names = alarms.value.alarm_names
      enable      = true
      rollback    = alarms.value.rollback
    }
  }

  # modules/service-v6 overrides these blocks to add `advanced_configuration`.
  dynamic "load_balancer" {
    for_each = local.load_balancers
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = load_balancer.value.container_name
      container_port   = load_balancer.value.container_port
    }
  }

  dynamic "service_connect_configuration" {
    for_each = var.service_connect == null ? [] : [var.service_connect]
    content {
      enabled   = true
      namespace = service_connect_configuration.value.namespace

      dynamic "service" {
        for_each = local.service_connect_services
        content {
          port_name      = service.value.port_name
          discovery_name = service.value.discovery_name

          dynamic "client_alias" {
            for_each = service.value.client_aliases
            content {
              port     = client_alias.value.port
              dns_name = client_alias.value.dns_name
            }
          }

          # Service Connect's proxy ends a request after 15 s by default (zenn.dev/moozaru, cited in
          # crates/ecs-gpu-catalog/data/sources/ecs-gpu-2026-updates.md 1.5), which cuts a long generation. The module's
          # default is 600 s for both timeouts (the connection closes at the shorter one, ECS API
          # TimeoutConfiguration); a TCP port takes the idle timeout only.
          timeout {
            per_request_timeout_seconds = service.value.http ? coalesce(service.value.per_request_timeout_seconds, 600) : null
            idle_timeout_seconds        = coalesce(service.value.idle_timeout_seconds, 600)
          }
        }
      }

      log_configuration {
        log_driver = "awslogs"
        options = {
          "awslogs-group"         = aws_cloudwatch_log_group.this.name
          "awslogs-region"        = local.region
          "awslogs-stream-prefix" = "service-connect"
        }
      }
    }
  }

  lifecycle {
    # The plan-time refusals of a service that would be accepted and never deploy or serve.
    precondition {
      condition     = length(local.unmapped_load_balancers) == 0
      error_message = "load balancer ${join(", ", local.unmapped_load_balancers)} is not a port mapping of the task (its containers map ${jsonencode(local.container_ports)}): ECS would register no target. Add the port to the container's port mappings, or fix container_name/container_port."
    }
    precondition {
      condition     = local.is_awsvpc || length(local.load_balancer_ingress) == 0
      error_message = "load_balancers' security_group_ids open the tasks' security group, which exists in awsvpc mode only: in bridge mode allow the load balancer into the instances (instance_security_group_ids) on the dynamic host ports."
    }
    precondition {
      condition     = local.strategy == "ROLLING" || local.writes_deployment_configuration
      error_message = "deployment_strategy ${local.strategy} needs the `deployment_configuration` block of hashicorp/aws 6.x (BLUE_GREEN from 6.4.0, LINEAR and CANARY from 6.21.0), which modules/service does not write so that it plans with hashicorp/aws 5.x too (5.100.0 has no such block). Call modules/service-v6 (the same inputs; it requires hashicorp/aws >= 6.21.0), or keep strategy \"ROLLING\"."
    }
    precondition {
      condition     = local.writes_deployment_configuration || length(local.advanced_without_provider_6) == 0
      error_message = "load_balancers ${join(", ", local.advanced_without_provider_6)} set advanced_configuration, which hashicorp/aws 5.x cannot send (the block came with 6.4.0): call modules/service-v6, or remove it."
    }
    precondition {
      condition     = local.strategy == "ROLLING" || length(local.lbs_without_advanced) == 0
      error_message = "deployment_strategy ${local.strategy} shifts the load balancers' traffic between two target groups: load_balancers ${join(", ", local.lbs_without_advanced)} need advanced_configuration (the alternate target group, the production listener rule and the role ECS uses)."
    }
    precondition {
      condition     = local.rolling_can_start
      error_message = "a rolling deployment of ${local.deploy_count_name} ${local.deploy_count} task(s) never starts: deployment_minimum_healthy_percent ${var.deployment_minimum_healthy_percent} keeps all ${local.min_running} running and deployment_maximum_percent ${var.deployment_maximum_percent} allows floor(${local.deploy_count} x ${var.deployment_maximum_percent} / 100) = ${local.max_running}, no task beside them. Raise deployment_maximum_percent (200 starts one new task per old one), or lower deployment_minimum_healthy_percent."
    }
    precondition {
      condition     = local.deployment_fits
      error_message = local.deployment_capacity_message
    }
    precondition {
      condition     = length(local.unknown_service_connect_ports) == 0
      error_message = "service_connect names port(s) ${join(", ", local.unknown_service_connect_ports)}, which no port mapping of the task is named (named: ${join(", ", keys(local.named_ports))}): give the port mapping a `name`."
    }
    precondition {
      condition     = length(local.tcp_per_request_timeouts) == 0
      error_message = "service_connect sets per_request_timeout_seconds on TCP port(s) ${join(", ", local.tcp_per_request_timeouts)}: ECS takes a per-request timeout only for app_protocol http, http2 or grpc. Set the port mapping's app_protocol, or unset the timeout (the idle timeout applies)."
    }
    precondition {
      condition     = length(local.subnets_outside_capacity) == 0
      error_message = "the tasks' subnets ${join(", ", local.subnets_outside_capacity)} are outside the capacity's Availability Zones (${join(", ", coalesce(var.capacity_availability_zones, []))}): an awsvpc task's network interface is in its subnet, so no instance could run it. Give the tasks subnets in those zones (service_subnet_ids), or add subnets of that zone to the capacity."
    }
    precondition {
      condition     = length(var.deployment_triggers) == 0 || var.force_new_deployment
      error_message = "deployment_triggers start a deployment only with force_new_deployment = true (hashicorp/aws `triggers`)."
    }
    precondition {
      condition     = local.tasks_per_instance == null || var.max_size == null || var.desired_count <= coalesce(var.max_size, 0) * coalesce(local.tasks_per_instance, 0)
      error_message = "desired_count ${var.desired_count} is more than the group can hold: max_size ${coalesce(var.max_size, 0)} x ${coalesce(local.tasks_per_instance, 0)} task(s) per ${var.instance_type} (the least over its GPUs, CPU and memory); the rest would pend forever."
    }
  }

  # The roles must have their policies before the first task starts, and the target groups must be on a
  # load balancer. (The capacity provider is on the cluster before the service is created:
  # `capacity_provider_name` comes from the association.)
  depends_on = [
    aws_iam_role_policy_attachment.execution,
    aws_iam_role_policy.execution_secrets,
    aws_iam_role_policy.task_exec,
    aws_iam_role_policy.task_efs,
    terraform_data.load_balancer_listeners,
  ]
}

resource "aws_ecs_service" "autoscaled" {
  count = local.autoscaling_enabled ? 1 : 0

  name                               = var.name
  cluster                            = local.cluster_name
  task_definition                    = aws_ecs_task_definition.this.arn
  desired_count                      = var.autoscaling.min_capacity
  deployment_minimum_healthy_percent = var.deployment_minimum_healthy_percent
  deployment_maximum_percent         = var.deployment_maximum_percent
  health_check_grace_period_seconds  = length(local.load_balancers) == 0 ? null : var.health_check_grace_period_seconds
  enable_execute_command             = var.enable_execute_command
  enable_ecs_managed_tags            = true
  propagate_tags                     = "SERVICE"
  wait_for_steady_state              = var.wait_for_steady_state
  force_new_deployment               = var.force_new_deployment
  triggers                           = var.deployment_triggers
  tags                               = local.tags

  capacity_provider_strategy {
    capacity_provider = var.capacity_provider_name
    weight            = 1
    base              = 0
  }

  dynamic "network_configuration" {
    for_each = local.is_awsvpc ? [1] : []
    content {
      subnets          = local.service_subnet_ids
      security_groups  = concat([aws_security_group.task[0].id], var.security_group_ids)
      assign_public_ip = false
    }
  }

  dynamic "placement_constraints" {
    for_each = var.placement_constraint_instance_type ? [1] : []
    content {
      type       = "memberOf"
      expression = local.placement_expression
    }
  }

  # An ECS managed EBS volume per task (`ebs_volume`), created at launch.
  dynamic "volume_configuration" {
    for_each = var.ebs_volume == null ? [] : [var.ebs_volume]
    content {
      name = "scratch"
      managed_ebs_volume {
        role_arn         = volume_configuration.value.infrastructure_role_arn
        size_in_gb       = volume_configuration.value.size_in_gb
        volume_type      = volume_configuration.value.volume_type
        iops             = volume_configuration.value.iops
        throughput       = volume_configuration.value.throughput
        file_system_type = volume_configuration.value.file_system_type
        encrypted        = true
        kms_key_id       = volume_configuration.value.kms_key_id
      }
    }
  }

  deployment_circuit_breaker {
    enable   = var.deployment_circuit_breaker.enable
    rollback = var.deployment_circuit_breaker.rollback
  }

  dynamic "alarms" {
    for_each = var.deployment_alarms == null ? [] : [var.deployment_alarms]
    content {
      alarm_names = alarms.value.alarm_names
      enable      = true
      rollback    = alarms.value.rollback
    }
  }

  # modules/service-v6 overrides these blocks to add `advanced_configuration`.
  dynamic "load_balancer" {
    for_each = local.load_balancers
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = load_balancer.value.container_name
      container_port   = load_balancer.value.container_port
    }
  }

  dynamic "service_connect_configuration" {
    for_each = var.service_connect == null ? [] : [var.service_connect]
    content {
      enabled   = true
      namespace = service_connect_configuration.value.namespace

      dynamic "service" {
        for_each = local.service_connect_services
        content {
          port_name      = service.value.port_name
          discovery_name = service.value.discovery_name

          dynamic "client_alias" {
            for_each = service.value.client_aliases
            content {
              port     = client_alias.value.port
              dns_name = client_alias.value.dns_name
            }
          }

          # Service Connect's proxy ends a request after 15 s by default (zenn.dev/moozaru, cited in
          # crates/ecs-gpu-catalog/data/sources/ecs-gpu-2026-updates.md 1.5), which cuts a long generation. The module's
          # default is 600 s for both timeouts (the connection closes at the shorter one, ECS API
          # TimeoutConfiguration); a TCP port takes the idle timeout only.
          timeout {
            per_request_timeout_seconds = service.value.http ? coalesce(service.value.per_request_timeout_seconds, 600) : null
            idle_timeout_seconds        = coalesce(service.value.idle_timeout_seconds, 600)
          }
        }
      }

      log_configuration {
        log_driver = "awslogs"
        options = {
          "awslogs-group"         = aws_cloudwatch_log_group.this.name
          "awslogs-region"        = local.region
          "awslogs-stream-prefix" = "service-connect"
        }
      }
    }
  }

  lifecycle {
    # Application Auto Scaling owns the task count.
    ignore_changes = [desired_count]
    # The plan-time refusals of a service that would be accepted and never deploy or serve.
    precondition {
      condition     = length(local.unmapped_load_balancers) == 0
      error_message = "load balancer ${join(", ", local.unmapped_load_balancers)} is not a port mapping of the task (its containers map ${jsonencode(local.container_ports)}): ECS would register no target. Add the port to the container's port mappings, or fix container_name/container_port."
    }
    precondition {
      condition     = local.is_awsvpc || length(local.load_balancer_ingress) == 0
      error_message = "load_balancers' security_group_ids open the tasks' security group, which exists in awsvpc mode only: in bridge mode allow the load balancer into the instances (instance_security_group_ids) on the dynamic host ports."
    }
    precondition {
      condition     = local.strategy == "ROLLING" || local.writes_deployment_configuration
      error_message = "deployment_strategy ${local.strategy} needs the `deployment_configuration` block of hashicorp/aws 6.x (BLUE_GREEN from 6.4.0, LINEAR and CANARY from 6.21.0), which modules/service does not write so that it plans with hashicorp/aws 5.x too (5.100.0 has no such block). Call modules/service-v6 (the same inputs; it requires hashicorp/aws >= 6.21.0), or keep strategy \"ROLLING\"."
    }
    precondition {
      condition     = local.writes_deployment_configuration || length(local.advanced_without_provider_6) == 0
      error_message = "load_balancers ${join(", ", local.advanced_without_provider_6)} set advanced_configuration, which hashicorp/aws 5.x cannot send (the block came with 6.4.0): call modules/service-v6, or remove it."
    }
    precondition {
      condition     = local.strategy == "ROLLING" || length(local.lbs_without_advanced) == 0
      error_message = "deployment_strategy ${local.strategy} shifts the load balancers' traffic between two target groups: load_balancers ${join(", ", local.lbs_without_advanced)} need advanced_configuration (the alternate target group, the production listener rule and the role ECS uses)."
    }
    precondition {
      condition     = local.rolling_can_start
      error_message = "a rolling deployment of ${local.deploy_count_name} ${local.deploy_count} task(s) never starts: deployment_minimum_healthy_percent ${var.deployment_minimum_healthy_percent} keeps all ${local.min_running} running and deployment_maximum_percent ${var.deployment_maximum_percent} allows floor(${local.deploy_count} x ${var.deployment_maximum_percent} / 100) = ${local.max_running}, no task beside them. Raise deployment_maximum_percent (200 starts one new task per old one), or lower deployment_minimum_healthy_percent."
    }
    precondition {
      condition     = local.deployment_fits
      error_message = local.deployment_capacity_message
    }
    precondition {
      condition     = length(local.unknown_service_connect_ports) == 0
      error_message = "service_connect names port(s) ${join(", ", local.unknown_service_connect_ports)}, which no port mapping of the task is named (named: ${join(", ", keys(local.named_ports))}): give the port mapping a `name`."
    }
    precondition {
      condition     = length(local.tcp_per_request_timeouts) == 0
      error_message = "service_connect sets per_request_timeout_seconds on TCP port(s) ${join(", ", local.tcp_per_request_timeouts)}: ECS takes a per-request timeout only for app_protocol http, http2 or grpc. Set the port mapping's app_protocol, or unset the timeout (the idle timeout applies)."
    }
    precondition {
      condition     = length(local.subnets_outside_capacity) == 0
      error_message = "the tasks' subnets ${join(", ", local.subnets_outside_capacity)} are outside the capacity's Availability Zones (${join(", ", coalesce(var.capacity_availability_zones, []))}): an awsvpc task's network interface is in its subnet, so no instance could run it. Give the tasks subnets in those zones (service_subnet_ids), or add subnets of that zone to the capacity."
    }
    precondition {
      condition     = length(var.deployment_triggers) == 0 || var.force_new_deployment
      error_message = "deployment_triggers start a deployment only with force_new_deployment = true (hashicorp/aws `triggers`)."
    }
    precondition {
      condition     = local.tasks_per_instance == null || var.max_size == null || var.autoscaling.max_capacity <= coalesce(var.max_size, 0) * coalesce(local.tasks_per_instance, 0)
      error_message = "autoscaling.max_capacity ${var.autoscaling.max_capacity} is more than the group can hold: max_size ${coalesce(var.max_size, 0)} x ${coalesce(local.tasks_per_instance, 0)} task(s) per ${var.instance_type} (the least over its GPUs, CPU and memory); the tasks above it would pend forever."
    }
  }

  # The roles must have their policies before the first task starts, and the target groups must be on a
  # load balancer. (The capacity provider is on the cluster before the service is created:
  # `capacity_provider_name` comes from the association.)
  depends_on = [
    aws_iam_role_policy_attachment.execution,
    aws_iam_role_policy.execution_secrets,
    aws_iam_role_policy.task_exec,
    aws_iam_role_policy.task_efs,
    terraform_data.load_balancer_listeners,
  ]
}

locals {
  service = local.autoscaling_enabled ? aws_ecs_service.autoscaled[0] : aws_ecs_service.this[0]
}

# --- Application Auto Scaling (only with `autoscaling`) -------------------------------------------

resource "aws_appautoscaling_target" "this" {
  count = local.autoscaling_enabled ? 1 : 0

  service_namespace  = "ecs"
  resource_id        = "service/${local.cluster_name}/${aws_ecs_service.autoscaled[0].name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = var.autoscaling.min_capacity
  max_capacity       = var.autoscaling.max_capacity
  tags               = local.tags
}

resource "aws_appautoscaling_policy" "this" {
  count = local.autoscaling_enabled ? 1 : 0

  name               = "${var.name}-target-tracking"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.this[0].service_namespace
  resource_id        = aws_appautoscaling_target.this[0].resource_id
  scalable_dimension = aws_appautoscaling_target.this[0].scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = var.autoscaling.target_value
    scale_in_cooldown  = var.autoscaling.scale_in_cooldown
    scale_out_cooldown = var.autoscaling.scale_out_cooldown
    disable_scale_in   = var.autoscaling.disable_scale_in

    dynamic "predefined_metric_specification" {
      for_each = var.autoscaling.customized_metric == null && local.gpu_policy_metric == null ? [1] : []
      content {
        predefined_metric_type = var.autoscaling.predefined_metric_type
        resource_label         = var.autoscaling.resource_label
      }
    }

    dynamic "customized_metric_specification" {
      for_each = var.autoscaling.customized_metric == null ? [] : [var.autoscaling.customized_metric]
      content {
        metric_name = customized_metric_specification.value.metric_name
        namespace   = customized_metric_specification.value.namespace
        statistic   = customized_metric_specification.value.statistic
        unit        = customized_metric_specification.value.unit

        dynamic "dimensions" {
          for_each = customized_metric_specification.value.dimensions
          content {
            name  = dimensions.key
            value = dimensions.value
          }
        }
      }
    }

    # `gpu_metric`: the GPUs of the service's group, as metric math over the agent's aggregate
    # (metrics.tf: local.gpu_policy_queries).
    dynamic "customized_metric_specification" {
      for_each = local.gpu_policy_metric == null ? [] : [local.gpu_policy_queries[local.gpu_policy_metric]]
      content {
        dynamic "metrics" {
          for_each = customized_metric_specification.value
          content {
            id          = metrics.value.id
            expression  = metrics.value.expression
            label       = metrics.value.label
            return_data = metrics.value.return_data

            dynamic "metric_stat" {
              for_each = metrics.value.metric_name == null ? [] : [metrics.value]
              content {
                stat = metric_stat.value.stat
                metric {
                  namespace   = var.gpu_metrics.namespace
                  metric_name = metric_stat.value.metric_name
                  dimensions {
                    name  = "AutoScalingGroupName"
                    value = local.gpu_metrics_group_label
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  lifecycle {
    # Tracking a GPU metric nothing publishes would never scale: refuse it.
    precondition {
      condition     = local.gpu_policy_metric == null || local.gpu_metrics
      error_message = "autoscaling.gpu_metric = \"${coalesce(local.gpu_policy_metric, "-")}\" tracks the GPU metrics of the CloudWatch agent, which nothing publishes: set gpu_metrics = { enabled = true }."
    }
    precondition {
      condition     = local.gpu_policy_metric == null || local.gpu_metrics_group != null
      error_message = "autoscaling.gpu_metric needs gpu_metrics.autoscaling_group_name: the policy tracks the agent's aggregate over that group (the capacity's autoscaling_group_name output)."
    }
    # The agent's nvidia_gpu metrics are named nvidia_smi_* (CloudWatch-Agent-NVIDIA-GPU page, see
    # metrics.tf): a customized metric of that name, with the module's agent off, is one nothing
    # publishes unless you run an agent yourself.
    precondition {
      condition     = !startswith(try(var.autoscaling.customized_metric.metric_name, ""), "nvidia_smi_") || local.gpu_metrics
      error_message = "autoscaling.customized_metric tracks ${try(var.autoscaling.customized_metric.metric_name, "")}, a CloudWatch agent nvidia_gpu metric, but gpu_metrics is off and nothing publishes it: set gpu_metrics = { enabled = true } and autoscaling.gpu_metric = \"utilization\" (or \"memory\") instead."
    }
  }
}
