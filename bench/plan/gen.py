#!/usr/bin/env python3
"""Writes a large, deterministic `terraform show -json` plan (format 1.2) for the benchmark.

Usage: gen.py OUT.json [MODULES [NOISE]]

MODULES (default 400) module instances of 100 resources each: 95 resources outside the GPU stack
(IAM policies, security group rules, alarms, S3 objects, DNS records) and a GPU stack (a replaced
task definition, a service that deploys it, a launch template with a new AMI, an Auto Scaling group
on `$Latest` and a capacity provider). Every resource appears, as in a real plan, in
`resource_changes`, `planned_values`, `prior_state` and `configuration`. 400 modules make 40,000
resources and about 110 MB. NOISE (default 95) sets the resources outside the GPU stack per module:
`gen.py OUT.json 4200 0` makes the GPU-heavy shape (21,000 GPU-stack resources, no others) that
bounds the reader's memory. Nothing is random: the same arguments give the same bytes.
"""

import json
import sys

ACCOUNT = "123456789012"
REGION = "us-east-1"
NOISE_TYPES = ["aws_iam_role_policy", "aws_security_group_rule", "aws_cloudwatch_metric_alarm",
               "aws_s3_object", "aws_route53_record"]


def noise_values(m, i):
    t = NOISE_TYPES[i % len(NOISE_TYPES)]
    policy = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:ListBucket"],
         "Resource": [f"arn:aws:s3:::bucket-{m}-{i}", f"arn:aws:s3:::bucket-{m}-{i}/*"]},
        {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/ecs/svc-{m}:*"}]})
    return t, {
        "id": f"{t}-{m:04d}-{i:03d}", "name": f"res-{m:04d}-{i:03d}",
        "arn": f"arn:aws:iam::{ACCOUNT}:policy/res-{m:04d}-{i:03d}",
        "description": f"resource {i} of module {m}, generated for the ecs-gpu plan benchmark",
        "policy": policy,
        "tags": {"team": "ml-platform", "env": "prod", "module": f"svc_{m:04d}"},
        "tags_all": {"team": "ml-platform", "env": "prod", "module": f"svc_{m:04d}", "managed-by": "terraform"},
    }


def gpu_stack(m):
    fam = f"svc-{m:04d}"
    td_arn = f"arn:aws:ecs:{REGION}:{ACCOUNT}:task-definition/{fam}:17"
    cont = json.dumps([{"name": fam, "image": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/{fam}:1.4.{m}",
                        "cpu": 4096, "memory": 15000, "essential": True,
                        "resourceRequirements": [{"type": "GPU", "value": "1"}]}])
    td_b = {"arn": td_arn, "family": fam, "revision": 17, "container_definitions": cont,
            "network_mode": "awsvpc", "requires_compatibilities": ["EC2"], "skip_destroy": False,
            "tags": {"team": "ml"}, "tags_all": {"team": "ml"}}
    td_a = dict(td_b, container_definitions=cont.replace("1.4.", "1.5."))
    del td_a["arn"], td_a["revision"]
    svc_b = {"name": fam, "cluster": f"arn:aws:ecs:{REGION}:{ACCOUNT}:cluster/gpu", "task_definition": td_arn,
             "desired_count": 2, "deployment_circuit_breaker": [{"enable": True, "rollback": True}],
             "deployment_minimum_healthy_percent": 100, "deployment_maximum_percent": 200,
             "capacity_provider_strategy": [{"capacity_provider": f"gpu-{m:04d}", "weight": 1, "base": 0}],
             "network_configuration": [{"subnets": ["subnet-0a1", "subnet-0b2"], "security_groups": ["sg-0ecs"], "assign_public_ip": False}],
             "tags": {"team": "ml"}, "tags_all": {"team": "ml"}}
    svc_a = dict(svc_b)
    del svc_a["task_definition"]
    lt_id = f"lt-{m:017x}"
    lt_b = {"id": lt_id, "name": f"gpu-{m:04d}", "image_id": "ami-0111aaaa", "instance_type": "g5.xlarge",
            "latest_version": 4, "update_default_version": False, "tags": {"team": "ml"}, "tags_all": {"team": "ml"}}
    lt_a = dict(lt_b, image_id="ami-0222bbbb")
    del lt_a["latest_version"]
    asg_arn = f"arn:aws:autoscaling:{REGION}:{ACCOUNT}:autoScalingGroup:x:autoScalingGroupName/gpu-{m:04d}"
    asg_v = {"arn": asg_arn, "name": f"gpu-{m:04d}", "desired_capacity": 2, "min_size": 0, "max_size": 4,
             "launch_template": [{"id": lt_id, "name": "", "version": "$Latest"}], "instance_refresh": [],
             "protect_from_scale_in": True}
    cp_v = {"name": f"gpu-{m:04d}", "arn": f"arn:aws:ecs:{REGION}:{ACCOUNT}:capacity-provider/gpu-{m:04d}",
            "auto_scaling_group_provider": [{"auto_scaling_group_arn": asg_arn, "managed_termination_protection": "ENABLED",
                                             "managed_scaling": [{"status": "ENABLED", "target_capacity": 100}]}]}
    ref = lambda *r: {"references": list(r)}
    return [
        ("aws_ecs_task_definition", "app", td_b, td_a, ["delete", "create"], {"arn": True, "revision": True}, {}),
        ("aws_ecs_service", "app", svc_b, svc_a, ["update"], {"task_definition": True},
         {"task_definition": ref("aws_ecs_task_definition.app.arn", "aws_ecs_task_definition.app")}),
        ("aws_launch_template", "gpu", lt_b, lt_a, ["update"], {"latest_version": True},
         {"image_id": ref("data.aws_ssm_parameter.ami.insecure_value", "data.aws_ssm_parameter.ami")}),
        ("aws_autoscaling_group", "gpu", asg_v, asg_v, ["no-op"], {},
         {"launch_template": [{"id": ref("aws_launch_template.gpu.id", "aws_launch_template.gpu"), "version": {"constant_value": "$Latest"}}]}),
        ("aws_ecs_capacity_provider", "gpu", cp_v, cp_v, ["no-op"], {},
         {"auto_scaling_group_provider": [{"auto_scaling_group_arn": ref("aws_autoscaling_group.gpu.arn", "aws_autoscaling_group.gpu")}]}),
    ]


def module_resources(m, noise=95):
    out = []
    for i in range(noise):
        t, v = noise_values(m, i)
        after = dict(v, tags=dict(v["tags"], revision=str(i % 3))) if i % 10 == 0 else v
        out.append((t, f"r{i:03d}", v, after, ["update"] if i % 10 == 0 else ["no-op"], {},
                    {"name": {"constant_value": v["name"]}, "policy": {"references": ["data.aws_iam_policy_document.p"]}}))
    out.extend(gpu_stack(m))
    return out


def main():
    path = sys.argv[1]
    modules = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    noise = int(sys.argv[3]) if len(sys.argv) > 3 else 95
    all_mods = [(m, module_resources(m, noise)) for m in range(modules)]
    d = lambda o: json.dumps(o, separators=(",", ":"))
    with open(path, "w") as f:
        f.write('{"format_version":"1.2","terraform_version":"1.11.4","variables":{"environment":{"value":"prod"}},')
        # planned_values
        f.write('"planned_values":{"root_module":{"child_modules":[')
        for k, (m, rs) in enumerate(all_mods):
            mod = f"module.svc_{m:04d}"
            f.write(("," if k else "") + '{"resources":[')
            f.write(",".join(d({"address": f"{mod}.{t}.{n}", "mode": "managed", "type": t, "name": n,
                                "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0,
                                "values": {kk: vv for kk, vv in a.items() if unk.get(kk) is not True},
                                "sensitive_values": {}})
                             for (t, n, b, a, acts, unk, ex) in rs))
            f.write(f'],"address":"{mod}"}}')
        f.write("]}},")
        # resource_changes
        f.write('"resource_changes":[')
        first = True
        for m, rs in all_mods:
            mod = f"module.svc_{m:04d}"
            for (t, n, b, a, acts, unk, ex) in rs:
                f.write(("" if first else ",") + d({
                    "address": f"{mod}.{t}.{n}", "module_address": mod, "mode": "managed", "type": t, "name": n,
                    "provider_name": "registry.terraform.io/hashicorp/aws",
                    "change": {"actions": acts, "before": b,
                               "after": {kk: vv for kk, vv in a.items() if unk.get(kk) is not True},
                               "after_unknown": unk, "before_sensitive": {}, "after_sensitive": {}}}))
                first = False
        f.write("],")
        # prior_state
        f.write('"prior_state":{"format_version":"1.0","terraform_version":"1.11.4","values":{"root_module":{"child_modules":[')
        for k, (m, rs) in enumerate(all_mods):
            mod = f"module.svc_{m:04d}"
            f.write(("," if k else "") + '{"resources":[')
            f.write(",".join(d({"address": f"{mod}.{t}.{n}", "mode": "managed", "type": t, "name": n,
                                "provider_name": "registry.terraform.io/hashicorp/aws", "schema_version": 0,
                                "values": b, "sensitive_values": {}})
                             for (t, n, b, a, acts, unk, ex) in rs))
            f.write(f'],"address":"{mod}"}}')
        f.write("]}}},")
        # configuration
        f.write('"configuration":{"provider_config":{"aws":{"name":"aws","full_name":"registry.terraform.io/hashicorp/aws"}},"root_module":{"module_calls":{')
        for k, (m, rs) in enumerate(all_mods):
            f.write(("," if k else "") + f'"svc_{m:04d}":{{"source":"./modules/svc","module":{{"resources":[')
            f.write(",".join(d({"address": f"{t}.{n}", "mode": "managed", "type": t, "name": n,
                                "provider_config_key": "aws", "expressions": ex, "schema_version": 0})
                             for (t, n, b, a, acts, unk, ex) in rs))
            f.write("]}}")
        f.write("}}},")
        f.write('"timestamp":"2026-11-29T15:04:05Z","applyable":true,"complete":true,"errored":false}\n')


if __name__ == "__main__":
    main()
