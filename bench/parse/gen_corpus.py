#!/usr/bin/env python3
"""Builds a deterministic corpus of realistic Terraform files for the parse benchmark.

usage: gen_corpus.py OUT_DIR [COUNT]

Every file is a seeded mix of AWS resources (EC2, launch templates with heredoc user data,
Auto Scaling groups, ECS clusters, capacity providers, services, jsonencode'd GPU task
definitions, IAM with jsonencode'd and heredoc policies, security groups with dynamic blocks,
load balancers, S3, CloudWatch), variables with validation, locals with for expressions and
conditionals, module calls and outputs. About 1 file in 100 also holds two constructs real code
has and a parser once missed (a duplicate key in a container definition, an object `for` value
over several lines).
The project's own Terraform module is copied in as well.
"""
import os
import random
import shutil
import sys

OUT = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 6000
rng = random.Random(20260601)

GPU_TYPES = ["g4dn.xlarge", "g4dn.12xlarge", "g5.xlarge", "g5.12xlarge", "g5.48xlarge",
             "g6.xlarge", "g6e.2xlarge", "p3.2xlarge", "p4d.24xlarge", "p5.48xlarge"]
CPU_TYPES = ["t3.micro", "t3.large", "m5.large", "m6i.xlarge", "c6i.2xlarge", "r6i.large"]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1"]
IMAGES = ["nvcr.io/nvidia/tritonserver:24.08-py3", "nvidia/cuda:12.4.1-runtime-ubuntu22.04",
          "public.ecr.aws/docker/library/nginx:1.27", "123456789012.dkr.ecr.us-east-1.amazonaws.com/app:v3",
          "vllm/vllm-openai:v0.6.3", "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"]
WORDS = ["app", "api", "web", "worker", "train", "infer", "batch", "etl", "gpu", "ml", "edge",
         "core", "data", "queue", "cache", "auth", "search", "video", "llm", "embed"]


def name():
    return "_".join(rng.sample(WORDS, rng.randint(1, 3)))


def dname():
    return name().replace("_", "-")


def tags(indent="  "):
    lines = [f'{indent}tags = merge(local.common_tags, {{']
    for key in rng.sample(["Name", "Team", "Service", "CostCenter"], rng.randint(1, 3)):
        lines.append(f'{indent}  {key} = "{dname()}"')
    lines.append(f"{indent}}})")
    return "\n".join(lines)


def variable():
    n = name()
    kind = rng.choice(["string", "number", "bool", "list", "map", "object"])
    if kind == "string":
        body = f'  type        = string\n  description = "The {n.replace("_", " ")}."\n  default     = "{dname()}"'
        if rng.random() < 0.4:
            body += (f'\n\n  validation {{\n    condition     = can(regex("^[a-z-]+$", var.{n}))\n'
                     f'    error_message = "Use lowercase letters and dashes."\n  }}')
    elif kind == "number":
        body = f"  type    = number\n  default = {rng.randint(0, 64)}"
        if rng.random() < 0.4:
            body += (f'\n\n  validation {{\n    condition     = var.{n} >= 0 && var.{n} <= 64\n'
                     f'    error_message = "Between 0 and 64."\n  }}')
    elif kind == "bool":
        body = f"  type    = bool\n  default = {rng.choice(['true', 'false'])}"
    elif kind == "list":
        items = ", ".join(f'"{t}"' for t in rng.sample(GPU_TYPES, 3))
        body = f"  type    = list(string)\n  default = [{items}]"
    elif kind == "map":
        body = "  type = map(string)\n  default = {\n" + "\n".join(
            f'    {w} = "{dname()}"' for w in rng.sample(WORDS, 3)) + "\n  }"
    else:
        body = ("  type = object({\n    cpu    = number\n    memory = number\n    gpus   = optional(number, 0)\n  })\n"
                f"  default = {{ cpu = {rng.choice([1024, 2048, 4096])}, memory = {rng.choice([4096, 8192, 16384])} }}")
    return f'variable "{n}" {{\n{body}\n}}\n'


def locals_block():
    n = name()
    parts = [
        f'  name_prefix = "${{var.environment}}-{dname()}"',
        '  common_tags = {\n    Environment = var.environment\n    ManagedBy   = "terraform"\n  }',
        f'  gpu_types   = [{", ".join(repr(t).replace(chr(39), chr(34)) for t in rng.sample(GPU_TYPES, 3))}]',
        f"  {n}_enabled = var.environment == \"prod\" ? true : false",
        f"  subnet_map  = {{ for i, s in var.subnet_ids : \"subnet-${{i}}\" => s }}",
        f"  upper_names = [for w in var.names : upper(w) if length(w) > 2]",
        f"  by_group    = {{ for k, v in var.services : v.group => k... }}",
        f"  port_list   = flatten([for svc in var.services : [for p in svc.ports : {{ service = svc.name, port = p }}]])",
        f"  desired     = max(1, min(var.max_size, var.desired_count * {rng.randint(1, 4)}))",
        f'  cidr        = cidrsubnet(var.vpc_cidr, 8, {rng.randint(0, 200)})',
    ]
    chosen = rng.sample(parts, rng.randint(3, len(parts)))
    return "locals {\n" + "\n".join(chosen) + "\n}\n"


def user_data():
    return f'''  user_data = base64encode(<<-EOT
    #!/bin/bash
    set -euo pipefail
    cat <<'EOF' >> /etc/ecs/ecs.config
    ECS_CLUSTER=${{aws_ecs_cluster.{name()}.name}}
    ECS_ENABLE_GPU_SUPPORT=true
    ECS_CONTAINER_INSTANCE_TAGS={{"team": "{dname()}"}}
    EOF
    %{{ for k, v in var.extra_config ~}}
    echo "${{k}}=${{v}}" >> /etc/ecs/ecs.config
    %{{ endfor ~}}
    systemctl restart ecs
  EOT
  )'''


def launch_template():
    n = name()
    return f'''data "aws_ssm_parameter" "{n}_ami" {{
  name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
}}

resource "aws_launch_template" "{n}" {{
  name_prefix   = "${{local.name_prefix}}-{dname()}-"
  image_id      = data.aws_ssm_parameter.{n}_ami.value
  instance_type = "{rng.choice(GPU_TYPES)}"

  iam_instance_profile {{
    arn = aws_iam_instance_profile.{name()}.arn
  }}

  metadata_options {{
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 2
  }}

  block_device_mappings {{
    device_name = "/dev/xvda"
    ebs {{
      volume_size           = {rng.choice([100, 200, 500])}
      volume_type           = "gp3"
      encrypted             = true
      delete_on_termination = true
    }}
  }}

{user_data()}

  tag_specifications {{
    resource_type = "instance"
{tags("    ")}
  }}
}}
'''


def asg():
    n = name()
    return f'''resource "aws_autoscaling_group" "{n}" {{
  name_prefix           = "${{local.name_prefix}}-"
  min_size              = {rng.randint(0, 2)}
  max_size              = var.max_size
  vpc_zone_identifier   = var.subnet_ids
  protect_from_scale_in = true

  launch_template {{
    id      = aws_launch_template.{name()}.id
    version = aws_launch_template.{name()}.latest_version
  }}

  instance_refresh {{
    strategy = "Rolling"
    preferences {{
      min_healthy_percentage       = 50
      instance_warmup              = {rng.choice([300, 600])}
      scale_in_protected_instances = "Refresh"
    }}
  }}

  tag {{
    key                 = "AmazonECSManaged"
    value               = true
    propagate_at_launch = true
  }}

  dynamic "tag" {{
    for_each = local.common_tags
    content {{
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }}
  }}

  lifecycle {{
    create_before_destroy = true
    ignore_changes        = [desired_capacity]
  }}
}}
'''


def ecs_cluster():
    n = name()
    return f'''resource "aws_ecs_cluster" "{n}" {{
  name = "${{local.name_prefix}}-{dname()}"

  setting {{
    name  = "containerInsights"
    value = "enabled"
  }}
{tags()}
}}

resource "aws_ecs_capacity_provider" "{n}" {{
  name = "{dname()}-cp"

  auto_scaling_group_provider {{
    auto_scaling_group_arn         = aws_autoscaling_group.{name()}.arn
    managed_termination_protection = "ENABLED"

    managed_scaling {{
      status                    = "ENABLED"
      target_capacity           = {rng.choice([80, 90, 100])}
      minimum_scaling_step_size = 1
      maximum_scaling_step_size = {rng.randint(1, 10)}
    }}
  }}
}}

resource "aws_ecs_cluster_capacity_providers" "{n}" {{
  cluster_name       = aws_ecs_cluster.{n}.name
  capacity_providers = [aws_ecs_capacity_provider.{n}.name]

  default_capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.{n}.name
    weight            = 1
    base              = 0
  }}
}}
'''


def container(gpu, quirky):
    env = [("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")] if gpu else []
    env += [(w.upper(), dname()) for w in rng.sample(WORDS, rng.randint(0, 3))]
    env_lines = ",\n".join(f'        {{ name = "{k}", value = "{v}" }}' for k, v in env)
    dup = "      environment = []\n" if quirky else ""
    rr = (f'      resourceRequirements = [\n        {{ type = "GPU", value = tostring(var.gpu_count) }},\n      ]\n'
          if gpu else "")
    return f'''    {{
      name      = "{dname()}"
      image     = "{rng.choice(IMAGES)}"
      essential = true
      cpu       = {rng.choice([1024, 2048, 4096])}
      memory    = {rng.choice([4096, 8192, 15000])}
{dup}      portMappings = [
        {{ containerPort = {rng.choice([80, 8000, 8080, 9000])}, protocol = "tcp" }},
      ]
      environment = [
{env_lines}
      ]
{rr}      logConfiguration = {{
        logDriver = "awslogs"
        options = {{
          "awslogs-group"         = aws_cloudwatch_log_group.{name()}.name
          "awslogs-region"        = "{rng.choice(REGIONS)}"
          "awslogs-stream-prefix" = "{dname()}"
        }}
      }}
      healthCheck = {{
        command  = ["CMD-SHELL", "curl -f http://localhost/health || exit 1"]
        interval = 30
        retries  = 3
      }}
    }}'''


def task_definition(quirky):
    n = name()
    gpu = rng.random() < 0.6
    containers = ",\n".join(container(gpu and i == 0, quirky and i == 0) for i in range(rng.randint(1, 3)))
    return f'''resource "aws_ecs_task_definition" "{n}" {{
  family                   = "${{local.name_prefix}}-{dname()}"
  requires_compatibilities = ["EC2"]
  network_mode             = "awsvpc"
  cpu                      = {rng.choice([2048, 4096, 8192])}
  memory                   = {rng.choice([8192, 15000, 30000])}
  execution_role_arn       = aws_iam_role.{name()}.arn
  task_role_arn            = aws_iam_role.{name()}.arn

  container_definitions = jsonencode([
{containers}
  ])

  placement_constraints {{
    type       = "memberOf"
    expression = "attribute:ecs.instance-type in [{", ".join(rng.sample(GPU_TYPES, 2))}]"
  }}
}}
'''


def service():
    n = name()
    return f'''resource "aws_ecs_service" "{n}" {{
  name            = "{dname()}"
  cluster         = aws_ecs_cluster.{name()}.id
  task_definition = aws_ecs_task_definition.{name()}.arn
  desired_count   = var.desired_count

  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.{name()}.name
    weight            = 1
  }}

  network_configuration {{
    subnets         = var.subnet_ids
    security_groups = [aws_security_group.{name()}.id]
  }}

  dynamic "load_balancer" {{
    for_each = var.target_group_arn == null ? [] : [var.target_group_arn]
    content {{
      target_group_arn = load_balancer.value
      container_name   = "{dname()}"
      container_port   = 8000
    }}
  }}

  deployment_circuit_breaker {{
    enable   = true
    rollback = true
  }}

  lifecycle {{
    ignore_changes = [desired_count]
  }}
}}

resource "aws_appautoscaling_target" "{n}" {{
  max_capacity       = var.max_size
  min_capacity       = 1
  resource_id        = "service/${{aws_ecs_cluster.{name()}.name}}/${{aws_ecs_service.{n}.name}}"
  scalable_dimension = "ecs:service:DesiredCount"
  service_namespace  = "ecs"
}}
'''


def iam():
    n = name()
    if rng.random() < 0.5:
        policy = f'''  assume_role_policy = jsonencode({{
    Version = "2012-10-17"
    Statement = [{{
      Effect    = "Allow"
      Principal = {{ Service = "{rng.choice(["ecs-tasks", "ec2", "lambda"])}.amazonaws.com" }}
      Action    = "sts:AssumeRole"
    }}]
  }})'''
    else:
        policy = f'''  assume_role_policy = <<-EOF
    {{
      "Version": "2012-10-17",
      "Statement": [
        {{
          "Effect": "Allow",
          "Principal": {{ "Service": "{rng.choice(["ecs-tasks", "ec2"])}.amazonaws.com" }},
          "Action": "sts:AssumeRole"
        }}
      ]
    }}
  EOF'''
    return f'''resource "aws_iam_role" "{n}" {{
  name_prefix = "{dname()}-"
{policy}
{tags()}
}}

resource "aws_iam_role_policy_attachment" "{n}" {{
  for_each   = toset(["arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role", "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"])
  role       = aws_iam_role.{n}.name
  policy_arn = each.value
}}

resource "aws_iam_instance_profile" "{n}" {{
  name_prefix = "{dname()}-"
  role        = aws_iam_role.{n}.name
}}
'''


def security_group():
    n = name()
    ports = rng.sample([22, 80, 443, 8000, 8080, 9090], 3)
    return f'''resource "aws_security_group" "{n}" {{
  name_prefix = "{dname()}-"
  description = "Traffic for the {n.replace("_", " ")} service"
  vpc_id      = var.vpc_id

  dynamic "ingress" {{
    for_each = toset([{", ".join(str(p) for p in ports)}])
    content {{
      from_port   = ingress.value
      to_port     = ingress.value
      protocol    = "tcp"
      cidr_blocks = [var.vpc_cidr]
      description = "port ${{ingress.value}}"
    }}
  }}

  egress {{
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }}
{tags()}
}}
'''


def misc():
    n = name()
    return rng.choice([
        f'''resource "aws_cloudwatch_log_group" "{n}" {{
  name              = "/ecs/{dname()}"
  retention_in_days = {rng.choice([7, 14, 30, 90])}
}}
''',
        f'''resource "aws_s3_bucket" "{n}" {{
  bucket_prefix = "{dname()}-"
  force_destroy = var.environment != "prod"
{tags()}
}}

resource "aws_s3_bucket_versioning" "{n}" {{
  bucket = aws_s3_bucket.{n}.id
  versioning_configuration {{
    status = "Enabled"
  }}
}}
''',
        f'''resource "aws_lb_target_group" "{n}" {{
  name_prefix = "{dname()[:6]}"
  port        = 8000
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = var.vpc_id

  health_check {{
    path                = "/v2/health/ready"
    healthy_threshold   = 2
    unhealthy_threshold = 5
    matcher             = "200-299"
  }}
}}
''',
        f'''resource "aws_instance" "{n}" {{
  count         = var.enabled ? {rng.randint(1, 3)} : 0
  ami           = data.aws_ami.{name()}.id
  instance_type = "{rng.choice(CPU_TYPES)}"
  subnet_id     = element(var.subnet_ids, count.index)

  root_block_device {{
    volume_size = 50
    encrypted   = true
  }}
{tags()}
}}
''',
    ])


def module_call():
    return f'''module "{name()}" {{
  source = "{rng.choice(["./modules/gpu-service", "../ecs-gpu-task", "terraform-aws-modules/ecs/aws"])}"

  name           = "{dname()}"
  instance_types = local.gpu_types
  gpu_count      = var.gpu_count
  subnet_ids     = var.subnet_ids
  containers = {{
    {name()} = {{ image = "{rng.choice(IMAGES)}", gpus = {rng.randint(1, 8)} }}
  }}
}}
'''


def output():
    n = name()
    return f'''output "{n}" {{
  description = "The {n.replace("_", " ")}."
  value       = {rng.choice([f"aws_ecs_service.{name()}.id", f"[for r in aws_iam_role.{name()} : r.arn]", f"aws_instance.{name()}[*].private_ip", f"try(module.{name()}.arn, null)"])}
}}
'''


def quirky_locals():
    return '''locals {
  ready = { for k, v in var.services : k =>
    v.enabled &&
    v.gpus > 0
  }
  sizes = { for k, v in var.services : k =>
    v.gpus > 4
    ? "large"
    : "small"
  }
}
'''


GENERATORS = [variable, locals_block, launch_template, asg, ecs_cluster, lambda: task_definition(False),
              service, iam, security_group, misc, misc, module_call, output]

os.makedirs(OUT, exist_ok=True)
quirky_files = 0
for i in range(COUNT):
    quirky = i % 100 == 42
    quirky_files += quirky
    blocks = [rng.choice(GENERATORS)() for _ in range(rng.randint(2, 6))]
    if quirky:
        blocks.append(task_definition(True))
        blocks.append(quirky_locals())
    with open(os.path.join(OUT, f"{i:05d}.tf"), "w") as f:
        f.write("\n".join(blocks))

# The project's own module and examples.
here = os.path.dirname(os.path.abspath(__file__))
module = os.path.join(here, "..", "..", "terraform")
copied = 0
for root, _, files in os.walk(module):
    for fn in sorted(files):
        if fn.endswith(".tf") and ".terraform" not in root:
            shutil.copy(os.path.join(root, fn), os.path.join(OUT, f"project-{copied:03d}-{fn}"))
            copied += 1
print(f"{COUNT} generated files ({quirky_files} with the two quirky constructs) and {copied} project files in {OUT}")
