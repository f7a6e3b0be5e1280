resource "aws_ecs_cluster" "gpu" {
  name = "${var.name}-gpu"
}

# Looks right, but this is the standard ECS AMI: it has no NVIDIA driver.
data "aws_ssm_parameter" "ecs_ami" {
  name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
}

data "aws_iam_policy_document" "assume_ec2" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "instance" {
  name_prefix        = "${var.name}-instance-"
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
}

resource "aws_iam_role_policy_attachment" "instance" {
  role       = aws_iam_role.instance.name
  policy_arn = "arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"
}

resource "aws_iam_instance_profile" "instance" {
  name_prefix = "${var.name}-instance-"
  role        = aws_iam_role.instance.name
}

resource "aws_launch_template" "gpu" {
  name_prefix   = "${var.name}-gpu-"
  image_id      = data.aws_ssm_parameter.ecs_ami.value
  instance_type = "g5.xlarge"

  iam_instance_profile {
    arn = aws_iam_instance_profile.instance.arn
  }

  metadata_options {
    http_tokens = "required"
  }

  # Enables GPU support, but never says which cluster to join.
  user_data = base64encode(<<-EOT
    #!/bin/bash
    echo "ECS_ENABLE_GPU_SUPPORT=true" >> /etc/ecs/ecs.config
  EOT
  )
}

resource "aws_autoscaling_group" "gpu" {
  name_prefix         = "${var.name}-gpu-"
  min_size            = 0
  max_size            = 4
  vpc_zone_identifier = var.subnet_ids

  launch_template {
    id      = aws_launch_template.gpu.id
    version = aws_launch_template.gpu.latest_version
  }

  tag {
    key                 = "AmazonECSManaged"
    value               = "true"
    propagate_at_launch = true
  }

  lifecycle {
    ignore_changes = [desired_capacity]
  }
}

resource "aws_ecs_capacity_provider" "gpu" {
  name = "${var.name}-gpu"

  auto_scaling_group_provider {
    auto_scaling_group_arn         = aws_autoscaling_group.gpu.arn
    managed_termination_protection = "ENABLED"

    managed_scaling {
      status          = "ENABLED"
      target_capacity = 100
    }
  }
}

resource "aws_ecs_cluster_capacity_providers" "gpu" {
  cluster_name       = aws_ecs_cluster.gpu.name
  capacity_providers = [aws_ecs_capacity_provider.gpu.name]

  default_capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.gpu.name
    weight            = 1
  }
}
