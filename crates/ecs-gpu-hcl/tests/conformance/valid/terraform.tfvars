region         = "us-east-1"
instance_types = ["g5.xlarge", "g6.xlarge"]
gpu_count      = 1
enabled        = true
tags = {
  Team    = "ml"
  Project = "inference"
}
user_data = <<-EOT
  #!/bin/bash
  echo ECS_CLUSTER=gpu >> /etc/ecs/ecs.config
EOT
