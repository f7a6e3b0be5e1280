# GPU metrics (`gpu_metrics`): the CloudWatch agent on every instance publishes per-GPU utilization and
# memory, and an aggregate over the Auto Scaling group that the service's scaling policy and alarm read
# (modules/service/metrics.tf).

locals {
  gpu_metrics = var.gpu_metrics.enabled

  # The agent's `nvidia_gpu` measurements, published as nvidia_smi_<measurement> with the dimensions
  # index, name and host (CloudWatch User Guide, "Collect NVIDIA GPU metrics",
  # https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Agent-NVIDIA-GPU.html):
  # utilization_gpu (percent of time a kernel ran), utilization_memory (percent of time device memory
  # was read or written), memory_used and memory_total (MB).
  gpu_measurements = ["utilization_gpu", "utilization_memory", "memory_used", "memory_total"]

  # The agent configuration (templates/cloudwatch-agent.json.tftpl), normalised through jsondecode so
  # that a broken template fails the plan. `append_dimensions` adds AutoScalingGroupName, InstanceId
  # and InstanceType to every metric, and `aggregation_dimensions` [["AutoScalingGroupName"]] makes the
  # agent also publish each metric with the group name alone: one series over every GPU of the group
  # (CloudWatch User Guide, "Manually create or edit the CloudWatch agent configuration file", metrics
  # section, https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Agent-Configuration-File-Details.html).
  # The namespace defaults to CWAgent there too.
  cloudwatch_agent_config = jsonencode(jsondecode(templatefile("${path.module}/templates/cloudwatch-agent.json.tftpl", {
    interval     = var.gpu_metrics.interval
    namespace    = var.gpu_metrics.namespace
    measurements = local.gpu_measurements
  })))
  cloudwatch_agent_config_path = "/opt/aws/amazon-cloudwatch-agent/etc/ecs-gpu-task.json"

  # Install, configure and start the agent, as the CloudWatch User Guide's "Installing and running the
  # CloudWatch agent on your servers" does it
  # (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/install-CloudWatch-Agent-commandline-fleet.html):
  # the package `amazon-cloudwatch-agent` is in the Amazon Linux 2 repository ("sudo yum install
  # amazon-cloudwatch-agent"), and `amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s -c
  # file:<path>` loads the file and starts the agent. The package is in Amazon Linux 2023's repository
  # too (since AL2022 release 2022.0.20220728, https://github.com/amazonlinux/amazon-linux-2023/issues/132),
  # where `yum` is dnf.
  # A failure here is reported and does not stop the rest of the user data: an instance without GPU
  # metrics still serves its tasks (the policy then has no data and does not scale; see the README).
  gpu_metrics_user_data = !local.gpu_metrics ? "" : <<-EOT
    # GPU metrics: the CloudWatch agent's nvidia_gpu input (gpu_metrics).
    mkdir -p ${dirname(local.cloudwatch_agent_config_path)}
    cat > ${local.cloudwatch_agent_config_path} <<'CWAGENTCONFIG'
    ${local.cloudwatch_agent_config}
    CWAGENTCONFIG
    if rpm -q amazon-cloudwatch-agent >/dev/null 2>&1 || yum install -y amazon-cloudwatch-agent; then
      /opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s -c file:${local.cloudwatch_agent_config_path} \
        || echo "ecs-gpu-task: the CloudWatch agent did not start: no GPU metrics from this instance"
      # Started again at each boot (an instance stopped in a warm pool and started later).
      systemctl enable amazon-cloudwatch-agent.service || true
    else
      echo "ecs-gpu-task: amazon-cloudwatch-agent could not be installed (no package repository reachable?): no GPU metrics from this instance"
    fi
  EOT
}
