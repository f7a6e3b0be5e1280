#!/usr/bin/env python3
"""Writes a plan of N GPU stacks, each in its own module instance, in the shape of `terraform show
-json` (the hostile suite's `gpu_plan`, crates/ecs-gpu/tests/hostile_plan_diagnose.rs): a task
definition replaced and the service that deploys it (`deploy`), or only the service's
`desired_count` going from 2 to 3 (`scale`); a launch template, an Auto Scaling group behind a
capacity provider with managed scaling.

Usage: plan.py OUT.json N deploy|scale
"""

import json
import sys


def stack(m, scale):
    module = f"module.svc_{m:04d}"
    family = f"svc-{m:04d}"
    td_arn = f"arn:aws:ecs:us-east-1:123456789012:task-definition/{family}:17"

    def containers(tag):
        return json.dumps([{"name": family, "image": f"example/{family}:{tag}", "cpu": 4096,
                            "memory": 15000, "essential": True,
                            "resourceRequirements": [{"type": "GPU", "value": "1"}]}])

    td_before = {"arn": td_arn, "family": family, "revision": 17, "container_definitions": containers("1.4"),
                 "network_mode": "awsvpc", "requires_compatibilities": ["EC2"]}
    td_after = dict(td_before)
    if not scale:
        td_after["container_definitions"] = containers("1.5")
        del td_after["arn"], td_after["revision"]
    svc_before = {"name": family, "task_definition": td_arn, "desired_count": 2,
                  "deployment_minimum_healthy_percent": 100, "deployment_maximum_percent": 200,
                  "capacity_provider_strategy": [{"capacity_provider": f"gpu-{m:04d}", "weight": 1, "base": 0}]}
    svc_after = dict(svc_before)
    if scale:
        svc_after["desired_count"] = 3
    else:
        del svc_after["task_definition"]
    asg_arn = f"arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:x:autoScalingGroupName/gpu-{m:04d}"
    lt = {"id": f"lt-{m:017x}", "name": f"gpu-{m:04d}", "image_id": "ami-0111aaaa", "instance_type": "g5.xlarge",
          "latest_version": 4}
    asg = {"arn": asg_arn, "name": f"gpu-{m:04d}", "desired_capacity": 2, "min_size": 0, "max_size": 4,
           "launch_template": [{"id": f"lt-{m:017x}", "name": "", "version": "$Latest"}],
           "protect_from_scale_in": True}
    cp = {"name": f"gpu-{m:04d}", "auto_scaling_group_provider": [{"auto_scaling_group_arn": asg_arn,
          "managed_termination_protection": "ENABLED",
          "managed_scaling": [{"status": "ENABLED", "target_capacity": 100}]}]}

    def change(t, name, actions, before, after, unknown):
        return {"address": f"{module}.{t}.{name}", "module_address": module, "mode": "managed", "type": t,
                "name": name, "change": {"actions": actions, "before": before, "after": after,
                                         "after_unknown": unknown, "before_sensitive": {},
                                         "after_sensitive": {}}}

    if scale:
        changes = [change("aws_ecs_task_definition", "app", ["no-op"], td_before, td_before, {}),
                   change("aws_ecs_service", "app", ["update"], svc_before, svc_after, {})]
    else:
        changes = [change("aws_ecs_task_definition", "app", ["delete", "create"], td_before, td_after,
                          {"arn": True, "revision": True}),
                   change("aws_ecs_service", "app", ["update"], svc_before, svc_after, {"task_definition": True})]
    changes += [change("aws_launch_template", "gpu", ["no-op"], lt, lt, {}),
                change("aws_autoscaling_group", "gpu", ["no-op"], asg, asg, {}),
                change("aws_ecs_capacity_provider", "gpu", ["no-op"], cp, cp, {})]

    def refs(*r):
        return {"references": list(r)}

    call = {"source": "./modules/svc", "module": {"resources": [
        {"address": "aws_ecs_service.app", "mode": "managed", "type": "aws_ecs_service", "name": "app",
         "expressions": {"task_definition": refs("aws_ecs_task_definition.app.arn", "aws_ecs_task_definition.app")}},
        {"address": "aws_autoscaling_group.gpu", "mode": "managed", "type": "aws_autoscaling_group", "name": "gpu",
         "expressions": {"launch_template": [{"id": refs("aws_launch_template.gpu.id", "aws_launch_template.gpu")}]}},
        {"address": "aws_ecs_capacity_provider.gpu", "mode": "managed", "type": "aws_ecs_capacity_provider",
         "name": "gpu", "expressions": {"auto_scaling_group_provider": [
             {"auto_scaling_group_arn": refs("aws_autoscaling_group.gpu.arn", "aws_autoscaling_group.gpu")}]}}]}}
    return changes, call


def main():
    out, n, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    d = lambda o: json.dumps(o, separators=(",", ":"))
    with open(out, "w") as f:
        f.write('{"format_version":"1.2","terraform_version":"1.11.4","resource_changes":[')
        calls = []
        for m in range(n):
            changes, call = stack(m, kind == "scale")
            f.write(("," if m else "") + ",".join(d(c) for c in changes))
            calls.append((f"svc_{m:04d}", call))
        f.write('],"configuration":{"root_module":{"module_calls":{')
        f.write(",".join(f'"{k}":{d(v)}' for k, v in calls))
        f.write('}}},"applyable":true,"complete":true,"errored":false}\n')


if __name__ == "__main__":
    main()
