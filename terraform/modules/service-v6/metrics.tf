# What the service does with the GPU metrics the capacity publishes (modules/capacity/metrics.tf): the
# target tracking on them (`autoscaling.gpu_metric`, in service.tf), a dashboard, and an alarm for GPUs
# idle while the service's tasks pend.

locals {
  gpu_metrics       = var.gpu_metrics.enabled
  gpu_metrics_group = var.gpu_metrics.autoscaling_group_name
  idle_alarm        = var.gpu_metrics.idle_alarm == null ? { enabled = false, utilization_threshold = 10, evaluation_periods = 5, alarm_topic_arn = null } : var.gpu_metrics.idle_alarm

  # One period covers whole agent intervals, and at least a minute: Container Insights publishes
  # PendingTaskCount per minute.
  gpu_metrics_period = max(60, var.gpu_metrics.interval)

  # The series the agent publishes with the group name alone (its `aggregation_dimensions`): every GPU
  # of every instance of the group in one series. Metric names: the agent's nvidia_smi_<measurement>
  # (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Agent-NVIDIA-GPU.html).
  gpu_metrics_group_label = coalesce(local.gpu_metrics_group, "unknown")
  gpu_group_dimensions    = { AutoScalingGroupName = local.gpu_metrics_group_label }

  # The target tracking metric of `autoscaling.gpu_metric`, as Application Auto Scaling metric math
  # (https://docs.aws.amazon.com/autoscaling/application/userguide/application-auto-scaling-target-tracking-metric-math.html):
  # - utilization: the group's Average of nvidia_smi_utilization_gpu, i.e. the mean over every GPU
  #   sample of the period (the aggregate already is that mean; no further math);
  # - memory: 100 * Sum(memory_used) / Sum(memory_total) over the group, the share of the group's GPU
  #   memory in use. Both sums cover the same GPU samples, so their ratio is the share whatever the
  #   number of instances.
  gpu_policy_queries = {
    utilization = [
      { id = "gpu_utilization", metric_name = "nvidia_smi_utilization_gpu", stat = "Average", expression = null, label = "GPU utilization of the group (%)", return_data = true },
    ]
    memory = [
      { id = "used", metric_name = "nvidia_smi_memory_used", stat = "Sum", expression = null, label = null, return_data = false },
      { id = "total", metric_name = "nvidia_smi_memory_total", stat = "Sum", expression = null, label = null, return_data = false },
      { id = "gpu_memory_used_percent", metric_name = null, stat = null, expression = "100 * used / total", label = "GPU memory used by the group (%)", return_data = true },
    ]
  }
  gpu_policy_metric = try(var.autoscaling.gpu_metric, null)

  # GPUs idle while tasks pend: 1 in a period where the service has a PENDING task (Container Insights'
  # PendingTaskCount, ECS/ContainerInsights, dimensions ClusterName and ServiceName,
  # https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Container-Insights-metrics-ECS.html)
  # while the group's GPUs average under the threshold. Tasks that pend because the group is still
  # launching instances do not count: with no instance, there is no utilization, no data point, and
  # the alarm treats missing data as not breaching.
  idle_expression = "IF(pending > 0 AND utilization < ${local.idle_alarm.utilization_threshold}, 1, 0)"
}

resource "aws_cloudwatch_metric_alarm" "gpus_idle_while_tasks_pend" {
  count = local.gpu_metrics && local.idle_alarm.enabled ? 1 : 0

  alarm_name          = "${module.facts.unique_name}-gpus-idle-while-tasks-pend"
  alarm_description   = "Tasks of ECS service ${var.name} (cluster ${local.cluster_name}) pend while the GPUs of Auto Scaling group ${local.gpu_metrics_group_label} average under ${local.idle_alarm.utilization_threshold}% utilization: the tasks do not fit the instances that are there (CPU, memory, GPUs held by other tasks, placement constraints, ENIs). `ecs-gpu diagnose` walks the placement."
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  evaluation_periods  = local.idle_alarm.evaluation_periods
  datapoints_to_alarm = local.idle_alarm.evaluation_periods
  treat_missing_data  = "notBreaching"
  alarm_actions       = local.idle_alarm.alarm_topic_arn == null ? [] : [local.idle_alarm.alarm_topic_arn]
  ok_actions          = local.idle_alarm.alarm_topic_arn == null ? [] : [local.idle_alarm.alarm_topic_arn]
  tags                = local.tags

  metric_query {
    id          = "pending"
    return_data = false
    metric {
      namespace   = "ECS/ContainerInsights"
      metric_name = "PendingTaskCount"
      period      = local.gpu_metrics_period
      stat        = "Maximum"
      dimensions  = { ClusterName = local.cluster_name, ServiceName = var.name }
    }
  }

  metric_query {
    id          = "utilization"
    return_data = false
    metric {
      namespace   = var.gpu_metrics.namespace
      metric_name = "nvidia_smi_utilization_gpu"
      period      = local.gpu_metrics_period
      stat        = "Average"
      dimensions  = local.gpu_group_dimensions
    }
  }

  metric_query {
    id          = "idle_while_pending"
    expression  = local.idle_expression
    label       = "GPUs idle while tasks pend"
    return_data = true
  }

  lifecycle {
    precondition {
      condition     = local.gpu_metrics_group != null
      error_message = "gpu_metrics.autoscaling_group_name is required with gpu_metrics.enabled: the alarm reads the GPU utilization the agent aggregates over that group (the capacity's autoscaling_group_name output)."
    }
  }
}

resource "aws_cloudwatch_dashboard" "gpu" {
  count = local.gpu_metrics && var.gpu_metrics.dashboard ? 1 : 0

  dashboard_name = "${module.facts.unique_name}-gpu"
  dashboard_body = jsonencode({
    widgets = concat(
      [
        {
          type = "metric", x = 0, y = 0, width = 12, height = 6
          properties = {
            title  = "GPU utilization of the group (%)"
            region = local.region
            period = local.gpu_metrics_period
            stat   = "Average"
            yAxis  = { left = { min = 0, max = 100 } }
            metrics = [
              [var.gpu_metrics.namespace, "nvidia_smi_utilization_gpu", "AutoScalingGroupName", local.gpu_metrics_group_label, { label = "group average" }],
            ]
          }
        },
        {
          type = "metric", x = 12, y = 0, width = 12, height = 6
          properties = {
            title  = "GPU memory used by the group (%)"
            region = local.region
            period = local.gpu_metrics_period
            yAxis  = { left = { min = 0, max = 100 } }
            metrics = [
              [var.gpu_metrics.namespace, "nvidia_smi_memory_used", "AutoScalingGroupName", local.gpu_metrics_group_label, { id = "used", stat = "Sum", visible = false }],
              [var.gpu_metrics.namespace, "nvidia_smi_memory_total", "AutoScalingGroupName", local.gpu_metrics_group_label, { id = "total", stat = "Sum", visible = false }],
              [{ expression = "100 * used / total", id = "memory_used_percent", label = "GPU memory used (%)" }],
            ]
          }
        },
        {
          type = "metric", x = 0, y = 6, width = 12, height = 6
          properties = {
            title  = "Tasks of ${var.name} (Container Insights)"
            region = local.region
            period = 60
            stat   = "Maximum"
            metrics = [
              ["ECS/ContainerInsights", "RunningTaskCount", "ClusterName", local.cluster_name, "ServiceName", var.name],
              ["ECS/ContainerInsights", "PendingTaskCount", "ClusterName", local.cluster_name, "ServiceName", var.name],
              ["ECS/ContainerInsights", "DesiredTaskCount", "ClusterName", local.cluster_name, "ServiceName", var.name],
            ]
          }
        },
      ],
      local.idle_alarm.enabled ? [
        {
          type = "alarm", x = 12, y = 6, width = 12, height = 6
          properties = {
            title  = "GPUs idle while tasks pend"
            alarms = [aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].arn]
          }
        },
      ] : [],
    )
  })
}
