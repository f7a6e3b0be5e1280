# GPU capacity outside capacity providers (a group and a standalone instance of GPU types whose
# user data configures the ECS agent), where every other value a rule reads is a variable
# without a value: it is GPU capacity, but nothing about it is known, so nothing may be reported.
variable "u" {}
variable "n" {}

resource "aws_launch_template" "gpu" {
  image_id      = var.u
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=${var.u} >> /etc/ecs/ecs.config\n")
  iam_instance_profile {
    arn = var.u
  }
  metadata_options {
    http_tokens   = var.u
    http_endpoint = var.u
  }
}

resource "aws_autoscaling_group" "gpu" {
  name                  = var.u
  min_size              = var.n
  max_size              = var.n
  desired_capacity      = var.n
  protect_from_scale_in = var.u
  max_instance_lifetime = var.n
  launch_template {
    id      = aws_launch_template.gpu.id
    version = var.u
  }
}

resource "aws_instance" "gpu" {
  ami                  = var.u
  instance_type        = "g4dn.xlarge"
  iam_instance_profile = var.u
  user_data            = "#!/bin/bash\necho ECS_ENABLE_GPU_SUPPORT=${var.u} >> /etc/ecs/ecs.config\n"
  metadata_options {
    http_tokens = var.u
  }
}
