output "capacity_provider_name" {
  description = "Name of the capacity provider, for the service's capacity provider strategy. With `associate_capacity_provider = true` it is read from the cluster association, so a service that refers to it is created only once the provider is on the cluster. With false, add the provider to your cluster's `aws_ecs_cluster_capacity_providers` and give the service the name from that resource instead (see examples/existing-cluster)."
  value = (
    var.associate_capacity_provider == true
    ? one([for n in aws_ecs_cluster_capacity_providers.this[0].capacity_providers : n if n == aws_ecs_capacity_provider.this.name])
    : aws_ecs_capacity_provider.this.name
  )
}

output "capacity_provider_arn" {
  description = "ARN of the capacity provider."
  value       = aws_ecs_capacity_provider.this.arn
}

output "cluster_name" {
  description = "Name of the cluster the instances register with."
  value       = var.cluster_name
}

output "instance_type" {
  description = "The GPU instance type (give it to the service's `instance_type`)."
  value       = var.instance_type
}

output "additional_instance_types" {
  description = "The group's other instance types (`mixed_instances`; empty with one type): give them to the service's `additional_instance_types`, for its placement constraint and fit checks."
  value       = var.mixed_instances == null ? [] : var.mixed_instances.additional_instance_types
}

output "instance" {
  description = "What the catalog (or `instance_type_facts`) says of the instance type: GPUs, vCPUs, memory, the most CPU and memory a task may ask for. `known` is false for a type neither knows."
  value       = local.instance
}

output "max_size" {
  description = "Maximum number of instances of the group (give it to the service's `max_size`, for the check of the task count)."
  value       = var.max_size
}

output "autoscaling_group_name" {
  description = "Name of the Auto Scaling group of the GPU instances."
  value       = aws_autoscaling_group.this.name
}

output "autoscaling_group_arn" {
  description = "ARN of the Auto Scaling group of the GPU instances."
  value       = aws_autoscaling_group.this.arn
}

output "launch_template_id" {
  description = "ID of the launch template."
  value       = aws_launch_template.this.id
}

output "launch_template_latest_version" {
  description = "Latest version of the launch template (the one the Auto Scaling group uses)."
  value       = aws_launch_template.this.latest_version
}

output "user_data" {
  description = "The instances' user data script (plain text), for review."
  value       = local.user_data
}

output "ami_id" {
  description = "The GPU AMI the launch template uses (from the SSM parameter, or pinned)."
  value       = local.ami_id
}

output "ami_ssm_parameter" {
  description = "The SSM parameter the AMI was read from (null when ami_id is pinned)."
  value       = var.ami_id == null ? local.ami_ssm_parameter : null
}

output "instance_role_arn" {
  description = "ARN of the GPU instances' IAM role (null with your own instance profile)."
  value       = try(aws_iam_role.instance[0].arn, null)
}

output "instance_role_name" {
  description = "Name of the GPU instances' IAM role, to attach more policies (null with your own instance profile)."
  value       = try(aws_iam_role.instance[0].name, null)
}

output "instance_profile_arn" {
  description = "ARN of the GPU instances' instance profile (the module's, or yours)."
  value       = local.instance_profile_arn
}

output "instance_profile_name" {
  description = "Name of the instance profile the module created (null with your own)."
  value       = try(aws_iam_instance_profile.instance[0].name, null)
}

output "instance_security_group_id" {
  description = "ID of the GPU instances' security group."
  value       = aws_security_group.instance.id
}

output "efa" {
  description = "Whether the instances have an Elastic Fabric Adapter (the `efa` input): pass it to ../service's `efa`, which gives the GPU containers the EFA device."
  value       = var.efa
}

output "placement_group_name" {
  description = "The cluster placement group of the EFA instances (null without `efa`)."
  value       = try(aws_placement_group.efa[0].name, null)
}

output "gpu_metrics" {
  description = "GPU metrics (`gpu_metrics`): whether the agent publishes them, its namespace and interval, the Auto Scaling group the aggregate is published for, and the agent configuration written to each instance (JSON). null when off."
  value = local.gpu_metrics ? {
    namespace              = var.gpu_metrics.namespace
    interval               = var.gpu_metrics.interval
    autoscaling_group_name = aws_autoscaling_group.this.name
    agent_config           = local.cloudwatch_agent_config
    agent_config_path      = local.cloudwatch_agent_config_path
  } : null
}

output "availability_zones" {
  description = "Availability Zones of subnet_ids, where the instances run (give them to the service's `capacity_availability_zones`: awsvpc tasks' subnets must be in them)."
  value       = distinct(data.aws_subnet.instances[*].availability_zone)
}
