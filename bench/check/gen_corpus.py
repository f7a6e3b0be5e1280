#!/usr/bin/env python3
"""Builds the deterministic corpus of `ecs-gpu check`'s benchmark.

usage: gen_corpus.py OUT_DIR [STACKS]

The corpus is a tree of Terraform root modules, as a monorepo of infrastructure looks:
  - the project's own module (terraform/ecs-gpu-task with its examples) and the shipped example
    (examples/broken-gpu-chain), copied in several times;
  - STACKS generated stacks (default 360), each a folder of 8 to 12 files: versions, variables with
    validation, locals with for expressions and conditionals, a VPC with counted subnets and a
    security group with dynamic blocks, IAM with jsonencode and heredoc policies, a launch template
    with heredoc user data, an Auto Scaling group, an ECS cluster, capacity provider, task
    definitions (GPU and not) and services, S3, RDS, Lambda, an ALB, CloudWatch, outputs; about
    one stack in six calls a local module.
Every choice comes from one seeded random generator: the same STACKS gives the same bytes.
"""
import os
import random
import shutil
import sys

OUT = sys.argv[1]
STACKS = int(sys.argv[2]) if len(sys.argv) > 2 else 360
rng = random.Random(20261129)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

GPU_TYPES = ["g4dn.xlarge", "g4dn.2xlarge", "g4dn.12xlarge", "g5.xlarge", "g5.2xlarge", "g5.12xlarge",
             "g5.48xlarge", "g6.xlarge", "g6.12xlarge", "g6e.2xlarge", "g6f.2xlarge", "p3.2xlarge",
             "p4d.24xlarge", "p5.48xlarge"]
CPU_TYPES = ["t3.micro", "t3.large", "m5.large", "m6i.xlarge", "c6i.2xlarge", "r6i.large", "m7g.large"]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1"]
IMAGES = ["nvcr.io/nvidia/tritonserver:24.08-py3", "nvidia/cuda:12.4.1-runtime-ubuntu22.04",
          "public.ecr.aws/docker/library/nginx:1.27", "123456789012.dkr.ecr.us-east-1.amazonaws.com/app:v3",
          "vllm/vllm-openai:v0.6.3", "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
          "public.ecr.aws/docker/library/redis:7.2", "grafana/grafana:11.1.0"]
WORDS = ["app", "api", "web", "worker", "train", "infer", "batch", "etl", "gpu", "ml", "edge", "core",
         "data", "queue", "cache", "auth", "search", "video", "llm", "embed", "render", "billing"]
AMI_PARAMS = ["/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id",
              "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id",
              "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id"]


def word():
    return rng.choice(WORDS)


def name():
    return "_".join(rng.sample(WORDS, rng.randint(1, 2)))


def dname():
    return name().replace("_", "-")


def versions(region):
    return f'''terraform {{
  required_version = ">= 1.5"
  required_providers {{
    aws = {{
      source  = "hashicorp/aws"
      version = "~> 5.60"
    }}
  }}
  backend "s3" {{
    bucket = "tfstate-{dname()}"
    key    = "{dname()}/terraform.tfstate"
    region = "{region}"
  }}
}}

provider "aws" {{
  region = var.region
  default_tags {{
    tags = {{
      ManagedBy = "terraform"
      Stack     = var.name
    }}
  }}
}}
'''


def variables(region, stack):
    out = [f'''variable "region" {{
  type    = string
  default = "{region}"
}}

variable "name" {{
  type    = string
  default = "{stack}"
  validation {{
    condition     = can(regex("^[a-z][a-z0-9-]{{2,30}}$", var.name))
    error_message = "The name must be lowercase letters, digits and dashes."
  }}
}}

variable "environment" {{
  type    = string
  default = "{rng.choice(["dev", "staging", "prod"])}"
}}

variable "vpc_cidr" {{
  type    = string
  default = "10.{rng.randint(0, 250)}.0.0/16"
}}

variable "azs" {{
  type    = list(string)
  default = ["{region}a", "{region}b", "{region}c"]
}}
''']
    for i in range(rng.randint(2, 6)):
        kind = rng.choice(["number", "bool", "map(string)", "list(string)", "string"])
        default = {"number": str(rng.randint(1, 64)), "bool": rng.choice(["true", "false"]),
                   "map(string)": '{ team = "' + word() + '", owner = "' + word() + '" }',
                   "list(string)": '["' + word() + '", "' + word() + '"]',
                   "string": '"' + dname() + '"'}[kind]
        out.append(f'''variable "{name()}_{i}" {{
  type        = {kind}
  description = "The {word()} {word()} setting."
  default     = {default}
}}
''')
    return "\n".join(out)


def locals_tf():
    return f'''locals {{
  prefix = "${{var.name}}-${{var.environment}}"
  is_prod = var.environment == "prod"
  common_tags = {{
    Environment = var.environment
    Team        = "{word()}"
    CostCenter  = "{rng.randint(1000, 9999)}"
  }}
  subnet_cidrs = [for i, az in var.azs : cidrsubnet(var.vpc_cidr, 8, i)]
  private_cidrs = {{ for i, az in var.azs : az => cidrsubnet(var.vpc_cidr, 8, i + 10) }}
  retention_days = local.is_prod ? 365 : {rng.choice([7, 14, 30])}
  ports = [{", ".join(str(p) for p in rng.sample([22, 80, 443, 5432, 6379, 8000, 8080, 9090], 3))}]
  upper_names = [for n in ["{word()}", "{word()}", "{word()}"] : upper(n) if length(n) > 2]
}}
'''


def network():
    return f'''resource "aws_vpc" "main" {{
  cidr_block           = var.vpc_cidr
  enable_dns_hostnames = true
  enable_dns_support   = true
  tags                 = merge(local.common_tags, {{ Name = "${{local.prefix}}-vpc" }})
}}

resource "aws_subnet" "private" {{
  count             = length(var.azs)
  vpc_id            = aws_vpc.main.id
  cidr_block        = local.subnet_cidrs[count.index]
  availability_zone = var.azs[count.index]
  tags              = merge(local.common_tags, {{ Name = "${{local.prefix}}-private-${{count.index}}" }})
}}

resource "aws_security_group" "service" {{
  name_prefix = "${{local.prefix}}-"
  vpc_id      = aws_vpc.main.id

  dynamic "ingress" {{
    for_each = local.ports
    content {{
      from_port   = ingress.value
      to_port     = ingress.value
      protocol    = "tcp"
      cidr_blocks = [var.vpc_cidr]
    }}
  }}

  egress {{
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }}

  lifecycle {{
    create_before_destroy = true
  }}
}}
'''


def iam():
    actions = rng.sample(["s3:GetObject", "s3:PutObject", "logs:CreateLogStream", "logs:PutLogEvents",
                          "ecr:GetAuthorizationToken", "ssm:GetParameters", "kms:Decrypt",
                          "sqs:ReceiveMessage", "dynamodb:GetItem"], 4)
    return f'''data "aws_iam_policy_document" "assume_ecs_tasks" {{
  statement {{
    actions = ["sts:AssumeRole"]
    principals {{
      type        = "Service"
      identifiers = ["ecs-tasks.amazonaws.com"]
    }}
  }}
}}

resource "aws_iam_role" "task" {{
  name_prefix        = "${{local.prefix}}-task-"
  assume_role_policy = data.aws_iam_policy_document.assume_ecs_tasks.json
}}

resource "aws_iam_role_policy" "task" {{
  role = aws_iam_role.task.id
  policy = jsonencode({{
    Version = "2012-10-17"
    Statement = [
      {{
        Effect   = "Allow"
        Action   = {actions!r}
        Resource = "*"
      }},
    ]
  }})
}}

resource "aws_iam_role" "instance" {{
  name_prefix        = "${{local.prefix}}-instance-"
  assume_role_policy = <<-EOF
    {{
      "Version": "2012-10-17",
      "Statement": [{{
        "Effect": "Allow",
        "Principal": {{ "Service": "ec2.amazonaws.com" }},
        "Action": "sts:AssumeRole"
      }}]
    }}
  EOF
}}

resource "aws_iam_role_policy_attachment" "instance" {{
  role       = aws_iam_role.instance.name
  policy_arn = "arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"
}}

resource "aws_iam_instance_profile" "instance" {{
  name_prefix = "${{local.prefix}}-"
  role        = aws_iam_role.instance.name
}}
'''.replace("'", '"')


def compute(gpu, itype):
    refresh = rng.random() < 0.6
    tokens = rng.choice(["required", "required", "optional"])
    ami = rng.choice(AMI_PARAMS) if gpu else "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
    s = f'''data "aws_ssm_parameter" "ami" {{
  name = "{ami}"
}}

resource "aws_launch_template" "node" {{
  name_prefix   = "${{local.prefix}}-"
  image_id      = data.aws_ssm_parameter.ami.value
  instance_type = "{itype}"

  iam_instance_profile {{
    arn = aws_iam_instance_profile.instance.arn
  }}

  metadata_options {{
    http_endpoint = "enabled"
    http_tokens   = "{tokens}"
  }}

  vpc_security_group_ids = [aws_security_group.service.id]

  user_data = base64encode(<<-EOT
    #!/bin/bash
    set -euo pipefail
    cat >> /etc/ecs/ecs.config <<'CONFIG'
    ECS_CLUSTER=${{local.prefix}}
    ECS_ENABLE_CONTAINER_METADATA=true
    %{{if {str(gpu).lower()}~}}
    ECS_ENABLE_GPU_SUPPORT=true
    %{{endif~}}
    CONFIG
  EOT
  )

  tag_specifications {{
    resource_type = "instance"
    tags          = merge(local.common_tags, {{ Name = "${{local.prefix}}-node" }})
  }}
}}

resource "aws_autoscaling_group" "node" {{
  name_prefix           = "${{local.prefix}}-"
  min_size              = 0
  max_size              = {rng.randint(2, 20)}
  vpc_zone_identifier   = aws_subnet.private[*].id
  protect_from_scale_in = true

  launch_template {{
    id      = aws_launch_template.node.id
    version = aws_launch_template.node.latest_version
  }}
'''
    if refresh:
        s += f'''
  instance_refresh {{
    strategy = "Rolling"
    preferences {{
      min_healthy_percentage       = {rng.choice([50, 66, 90])}
      instance_warmup              = {rng.choice([120, 300, 600])}
      scale_in_protected_instances = "Refresh"
    }}
  }}
'''
    s += '''
  tag {
    key                 = "AmazonECSManaged"
    value               = "true"
    propagate_at_launch = true
  }

  lifecycle {
    ignore_changes = [desired_capacity]
  }
}

resource "aws_ecs_capacity_provider" "node" {
  name = local.prefix

  auto_scaling_group_provider {
    auto_scaling_group_arn         = aws_autoscaling_group.node.arn
    managed_termination_protection = "ENABLED"

    managed_scaling {
      status          = "ENABLED"
      target_capacity = 100
    }
  }
}
'''
    return s


def container(gpu, i):
    img = rng.choice(IMAGES)
    env = [f'{{ name = "{w.upper()}_{i}", value = "{dname()}" }}' for w in rng.sample(WORDS, rng.randint(1, 4))]
    if gpu and rng.random() < 0.5:
        env.append('{ name = "NVIDIA_DRIVER_CAPABILITIES", value = "compute,utility" }')
    lines = [
        "    {",
        f'      name      = "{word()}-{i}"',
        f'      image     = "{img}"',
        f"      essential = {'true' if i == 0 else 'false'}",
        f"      memory    = {rng.choice([512, 1024, 2048, 4096])}",
        f"      cpu       = {rng.choice([256, 512, 1024])}",
        "      portMappings = [",
        f"        {{ containerPort = {rng.choice([80, 8000, 8080, 9000])}, protocol = \"tcp\" }},",
        "      ]",
        "      environment = [",
    ]
    lines += [f"        {e}," for e in env]
    lines += ["      ]"]
    if gpu and i == 0:
        lines.append('      resourceRequirements = [{ type = "GPU", value = "1" }]')
    lines += [
        "      logConfiguration = {",
        '        logDriver = "awslogs"',
        "        options = {",
        "          awslogs-group         = aws_cloudwatch_log_group.service.name",
        "          awslogs-region        = var.region",
        f'          awslogs-stream-prefix = "{word()}"',
        "        }",
        "      }",
        "    },",
    ]
    return "\n".join(lines)


def ecs(gpu):
    n = rng.randint(1, 3)
    containers = "\n".join(container(gpu, i) for i in range(n))
    return f'''resource "aws_ecs_cluster" "main" {{
  name = local.prefix

  setting {{
    name  = "containerInsights"
    value = local.is_prod ? "enabled" : "disabled"
  }}
}}

resource "aws_ecs_cluster_capacity_providers" "main" {{
  cluster_name       = aws_ecs_cluster.main.name
  capacity_providers = [aws_ecs_capacity_provider.node.name]

  default_capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.node.name
    weight            = 1
  }}
}}

resource "aws_ecs_task_definition" "service" {{
  family                   = local.prefix
  requires_compatibilities = ["EC2"]
  network_mode             = "awsvpc"
  task_role_arn            = aws_iam_role.task.arn

  container_definitions = jsonencode([
{containers}
  ])
}}

resource "aws_ecs_service" "service" {{
  name            = local.prefix
  cluster         = aws_ecs_cluster.main.id
  task_definition = aws_ecs_task_definition.service.arn
  desired_count   = {rng.randint(1, 6)}

  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.node.name
    weight            = 1
  }}

  network_configuration {{
    subnets         = aws_subnet.private[*].id
    security_groups = [aws_security_group.service.id]
  }}

  deployment_circuit_breaker {{
    enable   = true
    rollback = true
  }}
}}
'''


def storage():
    s = f'''resource "aws_s3_bucket" "data" {{
  bucket_prefix = "${{local.prefix}}-{word()}-"
  force_destroy = !local.is_prod
}}

resource "aws_s3_bucket_versioning" "data" {{
  bucket = aws_s3_bucket.data.id
  versioning_configuration {{
    status = "Enabled"
  }}
}}

resource "aws_s3_bucket_server_side_encryption_configuration" "data" {{
  bucket = aws_s3_bucket.data.id
  rule {{
    apply_server_side_encryption_by_default {{
      sse_algorithm = "aws:kms"
    }}
  }}
}}
'''
    if rng.random() < 0.4:
        s += f'''
resource "aws_db_instance" "main" {{
  identifier_prefix       = "${{local.prefix}}-"
  engine                  = "postgres"
  engine_version          = "{rng.choice(["15.7", "16.3"])}"
  instance_class          = "db.{rng.choice(["t4g.medium", "r6g.large", "m6g.large"])}"
  allocated_storage       = {rng.choice([20, 50, 100])}
  username                = "app"
  manage_master_user_password = true
  storage_encrypted       = true
  backup_retention_period = local.is_prod ? 14 : 1
  skip_final_snapshot     = !local.is_prod
}}
'''
    return s


def monitoring():
    alarms = rng.randint(1, 4)
    return f'''resource "aws_cloudwatch_log_group" "service" {{
  name              = "/ecs/${{local.prefix}}"
  retention_in_days = local.retention_days
}}

resource "aws_cloudwatch_metric_alarm" "cpu" {{
  count               = {alarms}
  alarm_name          = "${{local.prefix}}-cpu-${{count.index}}"
  comparison_operator = "GreaterThanThreshold"
  evaluation_periods  = {rng.randint(1, 5)}
  metric_name         = "CPUUtilization"
  namespace           = "AWS/ECS"
  period              = 60
  statistic           = "Average"
  threshold           = {rng.choice([60, 70, 80, 90])} + count.index
  dimensions = {{
    ClusterName = aws_ecs_cluster.main.name
    ServiceName = aws_ecs_service.service.name
  }}
}}
'''


def lambda_tf():
    return f'''data "archive_file" "handler" {{
  type        = "zip"
  source_file = "${{path.module}}/handler.py"
  output_path = "${{path.module}}/handler.zip"
}}

resource "aws_lambda_function" "handler" {{
  function_name    = "${{local.prefix}}-{word()}"
  role             = aws_iam_role.task.arn
  handler          = "handler.main"
  runtime          = "python3.12"
  filename         = data.archive_file.handler.output_path
  source_code_hash = data.archive_file.handler.output_base64sha256
  timeout          = {rng.choice([10, 30, 60, 300])}
  environment {{
    variables = {{
      BUCKET = aws_s3_bucket.data.id
      STAGE  = var.environment
    }}
  }}
}}
'''


def alb():
    return f'''resource "aws_lb" "main" {{
  name_prefix        = "{word()[:5]}"
  internal           = {rng.choice(["true", "false"])}
  load_balancer_type = "application"
  subnets            = aws_subnet.private[*].id
  security_groups    = [aws_security_group.service.id]
}}

resource "aws_lb_target_group" "service" {{
  name_prefix = "{word()[:5]}"
  port        = 8000
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = aws_vpc.main.id
  health_check {{
    path    = "/health"
    matcher = "200-299"
  }}
}}

resource "aws_lb_listener" "http" {{
  load_balancer_arn = aws_lb.main.arn
  port              = 80
  protocol          = "HTTP"
  default_action {{
    type             = "forward"
    target_group_arn = aws_lb_target_group.service.arn
  }}
}}
'''


def outputs():
    return '''output "cluster_name" {
  value = aws_ecs_cluster.main.name
}

output "service_name" {
  value = aws_ecs_service.service.name
}

output "subnet_ids" {
  value = aws_subnet.private[*].id
}

output "summary" {
  value = {
    for k, v in {
      cluster = aws_ecs_cluster.main.name
      region  = var.region
    } : k => v
  }
}
'''


def local_module(path):
    os.makedirs(os.path.join(path, "modules", "queue"), exist_ok=True)
    with open(os.path.join(path, "modules", "queue", "main.tf"), "w") as f:
        f.write('''variable "name" {
  type = string
}

variable "visibility_timeout" {
  type    = number
  default = 30
}

resource "aws_sqs_queue" "this" {
  name                       = var.name
  visibility_timeout_seconds = var.visibility_timeout
  sqs_managed_sse_enabled    = true
}

output "arn" {
  value = aws_sqs_queue.this.arn
}
''')
    return f'''module "queue" {{
  source             = "./modules/queue"
  name               = "${{local.prefix}}-{word()}"
  visibility_timeout = {rng.choice([30, 60, 120])}
}}
'''


def stack(path, i):
    os.makedirs(path, exist_ok=True)
    region = rng.choice(REGIONS)
    st = f"{dname()}-{i}"
    gpu = rng.random() < 0.5
    itype = rng.choice(GPU_TYPES if gpu else CPU_TYPES)
    files = {
        "versions.tf": versions(region),
        "variables.tf": variables(region, st),
        "locals.tf": locals_tf(),
        "network.tf": network(),
        "iam.tf": iam(),
        "compute.tf": compute(gpu, itype),
        "ecs.tf": ecs(gpu),
        "storage.tf": storage(),
        "monitoring.tf": monitoring(),
        "outputs.tf": outputs(),
    }
    if rng.random() < 0.5:
        files["lambda.tf"] = lambda_tf()
    if rng.random() < 0.5:
        files["alb.tf"] = alb()
    if rng.random() < 1 / 6:
        files["queue.tf"] = local_module(path)
    for fn, text in files.items():
        with open(os.path.join(path, fn), "w") as f:
            f.write(text)


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    ignore = shutil.ignore_patterns(".terraform", ".terraform.lock.hcl", "*.tfstate*")
    for k in range(4):
        shutil.copytree(os.path.join(ROOT, "terraform"), os.path.join(OUT, f"project-{k}", "terraform"), ignore=ignore)
        shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(OUT, f"project-{k}", "examples"), ignore=ignore)
    for i in range(STACKS):
        team = WORDS[i % len(WORDS)]
        stack(os.path.join(OUT, "stacks", team, f"stack-{i:04d}"), i)
    files = sum(1 for _, _, fs in os.walk(OUT) for f in fs if f.endswith(".tf"))
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(OUT) for f in fs)
    print(f"corpus: {OUT}: {files} .tf files, {size} bytes")


main()
