# GPU metrics (`gpu_metrics`): the CloudWatch agent's configuration and its place in the user data,
# the instance role's policy, the target tracking on GPU metrics with its metric math, the alarm for
# GPUs idle while tasks pend, the dashboard, and every refusal. Needs Terraform >= 1.11
# (`override_during = plan` in the mock provider).

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
    defaults = {
      arn  = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:uuid:autoScalingGroupName/infer-20261203"
      name = "infer-20261203"
    }
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
    defaults = { arn = "arn:aws:cloudwatch:us-east-1:123456789012:alarm:infer-gpus-idle-while-tasks-pend" }
  }
}

variables {
  name           = "infer"
  cluster_name   = "gpu"
  create_cluster = true

  # Inputs of the submodules, for the runs that plan modules/capacity or modules/service alone.
  associate_capacity_provider = true
  capacity_provider_name      = "infer-gpu"
  max_size                    = 5 # autoscaling.max_capacity 4, plus one for a rolling deployment
  vpc_id                      = "vpc-0123456789abcdef0"
  subnet_ids                  = ["subnet-0123456789abcdef0"]
  instance_type               = "g5.xlarge"
  task_cpu                    = 3072
  task_memory                 = 14000

  container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/infer:1"
}

# --- off by default ------------------------------------------------------------------------------

run "off_by_default_installs_nothing" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  assert {
    condition     = !strcontains(output.user_data, "amazon-cloudwatch-agent")
    error_message = "without gpu_metrics the user data must not install the CloudWatch agent"
  }
  assert {
    condition     = !contains(aws_iam_role_policy_attachment.instance[*].policy_arn, "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy")
    error_message = "without gpu_metrics the instance role must not get CloudWatchAgentServerPolicy"
  }
  assert {
    condition     = output.gpu_metrics == null
    error_message = "the gpu_metrics output is null when off"
  }
  # Byte for byte the user data of the module before gpu_metrics: turned off, it adds not even an
  # empty line (a changed user data is a new launch template version and a refresh of every instance).
  assert {
    condition     = output.user_data == "#!/bin/bash\nset -euo pipefail\nmkdir -p /etc/ecs\ncat >> /etc/ecs/ecs.config <<'ECSCONFIG'\nECS_CLUSTER=gpu\nECS_ENABLE_GPU_SUPPORT=true\nECSCONFIG\n\n\n"
    error_message = "without gpu_metrics the user data must stay as it was"
  }
}

run "off_by_default_creates_no_alarm_nor_dashboard" {
  command = plan

  module {
    source = "../modules/service"
  }

  assert {
    condition     = length(aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend) == 0 && length(aws_cloudwatch_dashboard.gpu) == 0
    error_message = "without gpu_metrics there is no alarm and no dashboard"
  }
}

# --- the agent ------------------------------------------------------------------------------------

run "agent_configuration_is_rendered_and_written_by_the_user_data" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    gpu_metrics = { enabled = true, interval = 30 }
  }

  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.metrics_collected.nvidia_gpu.measurement == ["utilization_gpu", "utilization_memory", "memory_used", "memory_total"]
    error_message = "the agent collects GPU utilization, memory utilization, memory used and memory total"
  }
  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.metrics_collected.nvidia_gpu.metrics_collection_interval == 30 && jsondecode(output.gpu_metrics.agent_config).agent.metrics_collection_interval == 30
    error_message = "the agent collects every `interval` seconds"
  }
  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.namespace == "CWAgent"
    error_message = "the namespace defaults to CWAgent"
  }
  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.append_dimensions == { AutoScalingGroupName = "$${aws:AutoScalingGroupName}", InstanceId = "$${aws:InstanceId}", InstanceType = "$${aws:InstanceType}" }
    error_message = "the agent appends the group, instance and type, from the agent's own $${aws:...} placeholders"
  }
  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.aggregation_dimensions == [["AutoScalingGroupName"]]
    error_message = "the agent publishes the aggregate over the Auto Scaling group"
  }
  assert {
    condition     = strcontains(output.user_data, "cat > /opt/aws/amazon-cloudwatch-agent/etc/ecs-gpu-task.json <<'CWAGENTCONFIG'\n${output.gpu_metrics.agent_config}\nCWAGENTCONFIG\n")
    error_message = "the user data writes the rendered configuration verbatim (quoted heredoc: no shell expansion of $${aws:...})"
  }
  assert {
    condition     = strcontains(output.user_data, "yum install -y amazon-cloudwatch-agent") && strcontains(output.user_data, "amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s -c file:/opt/aws/amazon-cloudwatch-agent/etc/ecs-gpu-task.json")
    error_message = "the user data installs the agent and starts it with the module's configuration"
  }
  assert {
    condition     = aws_iam_role_policy_attachment.instance[length(aws_iam_role_policy_attachment.instance) - 1].policy_arn == "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy"
    error_message = "the instance role gets CloudWatchAgentServerPolicy, last (no other attachment shifts)"
  }
}

run "agent_keeps_the_other_user_data_options" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    gpu_metrics      = { enabled = true, namespace = "GPU/Inference" }
    warm_pool        = { pool_state = "Stopped", min_size = 1 }
    extra_user_data  = "echo custom-user-data"
    extra_ecs_config = { ECS_IMAGE_PULL_BEHAVIOR = "prefer-cached" }
  }

  assert {
    condition     = contains(split("\n", output.user_data), "ECS_WARM_POOLS_CHECK=true") && contains(split("\n", output.user_data), "ECS_IMAGE_PULL_BEHAVIOR=prefer-cached")
    error_message = "the warm pool check and the extra ECS configuration stay"
  }
  assert {
    condition     = startswith(output.user_data, "#!/bin/bash\nset -euo pipefail\n")
    error_message = "the user data stays one bash script"
  }
  assert {
    condition     = strcontains(output.user_data, "ECSCONFIG") && length(split("ECS_CLUSTER=gpu", output.user_data)[0]) < length(split("amazon-cloudwatch-agent", output.user_data)[0]) && length(split("amazon-cloudwatch-agent", output.user_data)[0]) < length(split("echo custom-user-data", output.user_data)[0])
    error_message = "order: the ECS configuration first, then the agent, then the caller's extra user data"
  }
  assert {
    condition     = jsondecode(output.gpu_metrics.agent_config).metrics.namespace == "GPU/Inference"
    error_message = "the namespace is the caller's"
  }
  assert {
    condition     = strcontains(output.user_data, "systemctl enable amazon-cloudwatch-agent.service")
    error_message = "the agent starts again when a Stopped warm pool instance starts"
  }
}

# --- scaling on the GPUs ------------------------------------------------------------------------

run "target_tracking_on_gpu_utilization" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203" }
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70, gpu_metric = "utilization" }
  }

  assert {
    condition     = length(aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].predefined_metric_specification) == 0
    error_message = "a GPU metric replaces the predefined one"
  }
  assert {
    condition = [
      for m in aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metrics :
      "${m.id} returned=${m.return_data}: ${m.metric_stat[0].stat}(${m.metric_stat[0].metric[0].namespace}/${m.metric_stat[0].metric[0].metric_name}) ${join(",", [for d in m.metric_stat[0].metric[0].dimensions : "${d.name}=${d.value}"])}"
    ] == ["gpu_utilization returned=true: Average(CWAgent/nvidia_smi_utilization_gpu) AutoScalingGroupName=infer-20261203"]
    error_message = "the policy tracks the Average of nvidia_smi_utilization_gpu over the group's aggregate"
  }
  assert {
    condition     = aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].target_value == 70
    error_message = "the target is the caller's percentage"
  }
}

run "target_tracking_on_gpu_memory_is_metric_math" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203", namespace = "GPU/Inference" }
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 80, gpu_metric = "memory" }
  }

  assert {
    condition = {
      for m in aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metrics :
      m.id => m.expression != null ? "${m.expression} (returned: ${m.return_data})" : "${m.metric_stat[0].stat}(${m.metric_stat[0].metric[0].namespace}/${m.metric_stat[0].metric[0].metric_name}) (returned: ${m.return_data})"
      } == {
      used                    = "Sum(GPU/Inference/nvidia_smi_memory_used) (returned: false)"
      total                   = "Sum(GPU/Inference/nvidia_smi_memory_total) (returned: false)"
      gpu_memory_used_percent = "100 * used / total (returned: true)"
    }
    error_message = "the memory policy is 100 * used / total over the group's sums, and returns only the expression"
  }
}

run "customized_gpu_metric_with_the_agent_on_is_kept" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203" }
    autoscaling = {
      min_capacity      = 1
      max_capacity      = 4
      target_value      = 40
      customized_metric = { metric_name = "nvidia_smi_utilization_memory", namespace = "CWAgent", dimensions = { AutoScalingGroupName = "infer-20261203" } }
    }
  }

  assert {
    condition     = aws_appautoscaling_policy.this[0].target_tracking_scaling_policy_configuration[0].customized_metric_specification[0].metric_name == "nvidia_smi_utilization_memory"
    error_message = "a customized nvidia_smi_* metric is tracked when the agent publishes it"
  }
}

# --- the alarm and the dashboard ----------------------------------------------------------------

run "alarm_for_gpus_idle_while_tasks_pend" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = {
      enabled                = true
      interval               = 120
      autoscaling_group_name = "infer-20261203"
      idle_alarm             = { utilization_threshold = 5, evaluation_periods = 3, alarm_topic_arn = "arn:aws:sns:us-east-1:123456789012:gpu-oncall" }
    }
  }

  assert {
    condition     = one([for q in aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].metric_query : q.expression if q.return_data]) == "IF(pending > 0 AND utilization < 5, 1, 0)"
    error_message = "the alarm returns 1 when tasks pend while the GPUs average under the threshold"
  }
  assert {
    condition = {
      for q in aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].metric_query : q.id => "${q.metric[0].namespace}/${q.metric[0].metric_name} ${q.metric[0].stat} ${q.metric[0].period}s ${jsonencode(q.metric[0].dimensions)}" if length(q.metric) > 0
      } == {
      pending     = "ECS/ContainerInsights/PendingTaskCount Maximum 120s {\"ClusterName\":\"gpu\",\"ServiceName\":\"infer\"}"
      utilization = "CWAgent/nvidia_smi_utilization_gpu Average 120s {\"AutoScalingGroupName\":\"infer-20261203\"}"
    }
    error_message = "the alarm reads the service's PendingTaskCount and the group's GPU utilization, one interval per period"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].evaluation_periods == 3 && aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].threshold == 1 && aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].treat_missing_data == "notBreaching"
    error_message = "the alarm fires after the given periods, and not on missing data (no instance yet)"
  }
  assert {
    condition     = aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].alarm_actions == toset(["arn:aws:sns:us-east-1:123456789012:gpu-oncall"])
    error_message = "the alarm notifies the SNS topic"
  }
  assert {
    condition     = length(jsondecode(aws_cloudwatch_dashboard.gpu[0].dashboard_body).widgets) == 4 && strcontains(aws_cloudwatch_dashboard.gpu[0].dashboard_body, "100 * used / total")
    error_message = "the dashboard shows utilization, memory used, the tasks and the alarm"
  }
}

run "period_is_at_least_a_minute" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, interval = 10, autoscaling_group_name = "infer-20261203", dashboard = false, idle_alarm = { alarm_topic_arn = null } }
  }

  assert {
    condition     = alltrue([for q in aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].metric_query : q.metric[0].period == 60 if length(q.metric) > 0])
    error_message = "Container Insights publishes per minute: the alarm's period is at least 60 s"
  }
  assert {
    condition     = length(aws_cloudwatch_metric_alarm.gpus_idle_while_tasks_pend[0].alarm_actions) == 0 && length(aws_cloudwatch_dashboard.gpu) == 0
    error_message = "no topic, no action; dashboard = false, no dashboard"
  }
}

run "root_wires_the_group_to_the_service" {
  command = plan

  variables {
    gpu_metrics = { enabled = true }
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70, gpu_metric = "utilization" }
  }

  assert {
    condition     = output.gpu_metrics.autoscaling_group_name == "infer-20261203" && output.gpu_metrics.namespace == "CWAgent" && output.gpu_metrics.interval == 60
    error_message = "the root reports the group whose aggregate the policy and the alarm read"
  }
  assert {
    condition     = output.gpu_metrics.idle_alarm_arn != null && startswith(output.gpu_metrics.dashboard_name, "infer-") && endswith(output.gpu_metrics.dashboard_name, "-gpu")
    error_message = "the root creates the alarm and the dashboard by default"
  }
}

# --- refusals -------------------------------------------------------------------------------------

run "gpu_metric_without_gpu_metrics_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70, gpu_metric = "utilization" }
  }

  expect_failures = [aws_appautoscaling_policy.this[0]]
}

run "customized_nvidia_smi_metric_without_gpu_metrics_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = {
      min_capacity      = 1
      max_capacity      = 4
      target_value      = 70
      customized_metric = { metric_name = "nvidia_smi_utilization_gpu", namespace = "CWAgent" }
    }
  }

  expect_failures = [aws_appautoscaling_policy.this[0]]
}

run "gpu_metric_without_the_group_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, idle_alarm = { enabled = false } }
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70, gpu_metric = "utilization" }
  }

  expect_failures = [aws_appautoscaling_policy.this[0]]
}

run "gpu_target_above_100_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203" }
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 150, gpu_metric = "utilization" }
  }

  expect_failures = [var.autoscaling]
}

run "gpu_target_below_1_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203" }
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 0.5, gpu_metric = "memory" }
  }

  expect_failures = [var.autoscaling]
}

run "unknown_gpu_metric_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = { min_capacity = 1, max_capacity = 4, target_value = 70, gpu_metric = "temperature" }
  }

  expect_failures = [var.autoscaling]
}

run "gpu_metric_and_customized_metric_together_are_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    autoscaling = {
      min_capacity      = 1
      max_capacity      = 4
      target_value      = 70
      gpu_metric        = "utilization"
      customized_metric = { metric_name = "DCGM_FI_DEV_GPU_UTIL", namespace = "CWAgent" }
    }
  }

  expect_failures = [var.autoscaling]
}

run "bad_interval_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    gpu_metrics = { enabled = true, interval = 45 }
  }

  expect_failures = [var.gpu_metrics]
}

run "interval_above_an_hour_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, interval = 7200, autoscaling_group_name = "infer-20261203" }
  }

  expect_failures = [var.gpu_metrics]
}

run "aws_namespace_is_refused" {
  command = plan

  module {
    source = "../modules/capacity"
  }

  variables {
    gpu_metrics = { enabled = true, namespace = "AWS/EC2" }
  }

  expect_failures = [var.gpu_metrics]
}

run "idle_threshold_out_of_range_is_refused" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203", idle_alarm = { utilization_threshold = 0 } }
  }

  expect_failures = [var.gpu_metrics]
}

run "idle_evaluation_periods_must_be_whole" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203", idle_alarm = { evaluation_periods = 2.5 } }
  }

  expect_failures = [var.gpu_metrics]
}

run "alarm_topic_must_be_an_sns_topic" {
  command = plan

  module {
    source = "../modules/service"
  }

  variables {
    gpu_metrics = { enabled = true, autoscaling_group_name = "infer-20261203", idle_alarm = { alarm_topic_arn = "arn:aws:sqs:us-east-1:123456789012:queue" } }
  }

  expect_failures = [var.gpu_metrics]
}

run "idle_alarm_without_container_insights_is_refused" {
  command = plan

  variables {
    gpu_metrics                = { enabled = true }
    cluster_container_insights = "disabled"
  }

  expect_failures = [aws_ecs_cluster.this[0]]
}

run "no_idle_alarm_without_container_insights_is_accepted" {
  command = plan

  variables {
    gpu_metrics                = { enabled = true, idle_alarm = { enabled = false } }
    cluster_container_insights = "disabled"
  }

  assert {
    condition     = output.gpu_metrics.idle_alarm_arn == null
    error_message = "idle_alarm.enabled = false creates no alarm"
  }
}
