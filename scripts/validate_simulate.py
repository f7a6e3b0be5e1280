#!/usr/bin/env python3
"""Validates `ecs-gpu simulate` against what the GPU-faithful emulator does.

For each scenario: a fresh cluster is seeded, `ecs-gpu simulate --cluster` answers (live,
read-only), then the event is applied to the emulator through the ECS API and what the emulator did
is read back. The script prints one line per scenario and fails when the two disagree on what both
model (whether every task ends up placed; how many instances the group runs at the end).

    scripts/validate_simulate.py ENDPOINT BINARY

scripts/test-live.sh runs it after the read-only tests (it changes the emulator's state). The
results are recorded in docs/simulate.md ("Validation against the emulator").
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import boto3

ENDPOINT, BINARY = sys.argv[1], sys.argv[2]
KW = dict(endpoint_url=ENDPOINT, region_name="us-east-1",
          aws_access_key_id="testing", aws_secret_access_key="testing")
ecs, asg, ec2 = (boto3.client(s, **KW) for s in ("ecs", "autoscaling", "ec2"))
AMI = ec2.describe_images()["Images"][0]["ImageId"]


def task_definition(family, gpus=1):
    ecs.register_task_definition(
        family=family, requiresCompatibilities=["EC2"], networkMode="bridge",
        containerDefinitions=[{"name": "main", "image": family, "cpu": 1024, "memory": 4096,
                               "resourceRequirements": [{"type": "GPU", "value": str(gpus)}]}])


def cluster(name, desired, max_size):
    """A capacity provider with managed scaling over a group of g5.xlarge that join the cluster."""
    ecs.create_cluster(clusterName=name)
    user_data = (f"#!/bin/bash\necho ECS_CLUSTER={name} >> /etc/ecs/ecs.config\n"
                 "echo ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\n")
    ec2.create_launch_template(LaunchTemplateName=f"{name}-lt", LaunchTemplateData={
        "ImageId": AMI, "InstanceType": "g5.xlarge",
        "UserData": base64.b64encode(user_data.encode()).decode()})
    asg.create_auto_scaling_group(
        AutoScalingGroupName=f"{name}-asg",
        LaunchTemplate={"LaunchTemplateName": f"{name}-lt", "Version": "$Latest"},
        MinSize=0, MaxSize=max_size, DesiredCapacity=desired,
        AvailabilityZones=["us-east-1a"], NewInstancesProtectedFromScaleIn=True)
    arn = asg.describe_auto_scaling_groups(AutoScalingGroupNames=[f"{name}-asg"])["AutoScalingGroups"][0]["AutoScalingGroupARN"]
    # The step sizes and warmup as AWS fills them in when they are not given.
    ecs.create_capacity_provider(name=f"{name}-cp", autoScalingGroupProvider={
        "autoScalingGroupArn": arn, "managedTerminationProtection": "ENABLED",
        "managedScaling": {"status": "ENABLED", "targetCapacity": 100, "minimumScalingStepSize": 1,
                           "maximumScalingStepSize": 10000, "instanceWarmupPeriod": 300}})
    ecs.put_cluster_capacity_providers(
        cluster=name, capacityProviders=[f"{name}-cp"],
        defaultCapacityProviderStrategy=[{"capacityProvider": f"{name}-cp", "weight": 1}])


def service(cluster_name, name, family, count, minimum=100, maximum=200):
    ecs.create_service(
        cluster=cluster_name, serviceName=name, taskDefinition=family, desiredCount=count,
        capacityProviderStrategy=[{"capacityProvider": f"{cluster_name}-cp", "weight": 1}],
        deploymentConfiguration={"minimumHealthyPercent": minimum, "maximumPercent": maximum})


def simulate(cluster_name, *event):
    out = subprocess.run(
        [BINARY, "simulate", "--cluster", cluster_name, "--region", "us-east-1",
         "--endpoint-url", ENDPOINT, "--format", "json", *event],
        capture_output=True, text=True, check=False,
        env={**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
             "AWS_EC2_METADATA_DISABLED": "true"})
    if out.returncode != 0:
        sys.exit(f"validate-simulate: simulate {cluster_name} {event} exited {out.returncode}: {out.stderr}")
    answer = json.loads(out.stdout)["answers"][0]
    group = answer["groups"][0]
    return answer["verdict"]["status"], group["instances_after"], answer["verdict"].get("reason", "")


def emulator(cluster_name, service_name):
    """What the emulator ran after the event: tasks running of desired, the group's instances,
    the newest deployment's state, the newest event."""
    for _ in range(3):  # every ECS call lets the emulator schedule and scale once more
        s = ecs.describe_services(cluster=cluster_name, services=[service_name])["services"][0]
    group = asg.describe_auto_scaling_groups(AutoScalingGroupNames=[f"{cluster_name}-asg"])["AutoScalingGroups"][0]
    primary = next(d for d in s["deployments"] if d["status"] == "PRIMARY")
    placed_all = s["runningCount"] >= s["desiredCount"] and primary.get("rolloutState") == "COMPLETED" \
        and primary.get("runningCount", 0) >= s["desiredCount"]
    event = s["events"][0]["message"] if s.get("events") else ""
    return placed_all, len(group["Instances"]), s["runningCount"], s["desiredCount"], primary.get("rolloutState"), event


failed = False


def compare(title, cluster_name, service_name, event_args, act):
    global failed
    verdict, instances, reason = simulate(cluster_name, *event_args)
    act()
    placed_all, ran, running, desired, rollout, event = emulator(cluster_name, service_name)
    agree = (verdict == "completes") == placed_all and instances == ran
    failed = failed or not agree
    print(f"{title}\n  simulate: {verdict}, {instances} instance(s) after{': ' + reason if reason else ''}\n"
          f"  emulator: {running} of {desired} running, {ran} instance(s), rollout {rollout}; {event}\n"
          f"  {'agree' if agree else 'DISAGREE'}")


for family in ("vinfer", "vtrain", "vspare"):
    task_definition(family)

# 1. Scale beyond the free GPUs under managed scaling, up to max_size: 1 of 2 instances runs a
#    task; 4 tasks need 4 GPUs, the group stops at 2.
cluster("vscale", desired=2, max_size=2)
service("vscale", "infer", "vinfer", 1)
compare("scale `infer` from 1 to 4 on 2 g5.xlarge (max_size 2)", "vscale", "infer",
        ["--scale", "infer=4"],
        lambda: ecs.update_service(cluster="vscale", service="infer", desiredCount=4))

# 2. Scale out under managed scaling within max_size: the group grows from 1 to 3.
cluster("vgrow", desired=1, max_size=4)
service("vgrow", "infer", "vinfer", 1)
compare("scale `infer` from 1 to 3 on 1 g5.xlarge (max_size 4)", "vgrow", "infer",
        ["--scale", "infer=3"],
        lambda: ecs.update_service(cluster="vgrow", service="infer", desiredCount=3))

# 3. Deploy with maximumPercent 200 and minimumHealthyPercent 100 on a full group: no new task fits
#    and no old task may stop first.
cluster("vfull", desired=2, max_size=2)
service("vfull", "train", "vtrain", 2, minimum=100, maximum=200)


def deploy_train():
    task_definition("vtrain")
    ecs.update_service(cluster="vfull", service="train", taskDefinition="vtrain")


compare("deploy `train` (2 tasks, minimum healthy 100%, maximum 200%) on a full group of 2", "vfull",
        "train", ["--deploy", "train"], deploy_train)

# 4. The same with minimumHealthyPercent 50: one old task stops first, the deployment completes.
cluster("vhalf", desired=2, max_size=2)
service("vhalf", "train", "vspare", 2, minimum=50, maximum=200)


def deploy_half():
    task_definition("vspare")
    ecs.update_service(cluster="vhalf", service="train", taskDefinition="vspare")


compare("deploy `train` (2 tasks, minimum healthy 50%, maximum 200%) on a full group of 2", "vhalf",
        "train", ["--deploy", "train"], deploy_half)

sys.exit(1 if failed else 0)
