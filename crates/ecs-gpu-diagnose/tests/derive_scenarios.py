#!/usr/bin/env python3
"""Writes the scenarios derived from others under scenarios/: each starts from a scenario written
from the AWS CLI's documented output shapes and changes only what the case is about. Rerun after
editing a source scenario: python3 derive_scenarios.py (scripts/generate.sh runs it); with --check
it writes nothing, names each derived file that differs, and exits 1.
"""

import copy
import json
import os
import sys

CHECK = sys.argv[1:] == ["--check"]
if sys.argv[1:] and not CHECK:
    sys.exit("usage: derive_scenarios.py [--check]")
# The derived files that differ from what this script writes (--check).
DIFFER = []

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios")
FILES = [
    "describe-services.json",
    "describe-task-definition.json",
    "describe-container-instances.json",
    "describe-tasks.json",
    "describe-capacity-providers.json",
    "describe-auto-scaling-groups.json",
    "describe-scaling-activities.json",
    "list-container-instances.json",
]


def load(name):
    out = {}
    for f in FILES:
        p = os.path.join(HERE, name, f)
        if os.path.exists(p):
            with open(p) as fh:
                out[f] = json.load(fh)
    return out


def save(name, files):
    d = os.path.join(HERE, name)
    if not CHECK:
        os.makedirs(d, exist_ok=True)
    for f, v in files.items():
        path = os.path.join(d, f)
        text = "" if v is EMPTY else json.dumps(v, indent=4) + "\n"
        if CHECK:
            try:
                with open(path) as fh:
                    same = fh.read() == text
            except OSError:
                same = False
            if not same:
                DIFFER.append(path)
            continue
        with open(path, "w") as fh:
            fh.write(text)


# A file saved empty: what `aws ... > file` leaves when the call fails before printing.
EMPTY = object()


def res(items, name):
    return next(r for r in items if r["name"] == name)


def attr(inst, name, value):
    for a in inst["attributes"]:
        if a["name"] == name:
            a["value"] = value
            return
    inst["attributes"].append({"name": name, "value": value})


def gpu_ids(n):
    return [f"GPU-0{k}00a1b2-c3d4-e5f6-a7b8-c9d0e1f2a3b4" for k in range(1, n + 1)]


def packed_one_instance():
    """1 g5.xlarge, 1 of 1 task running, steady: healthy; the group is at its max (1)."""
    s = load("healthy")
    ci = s["describe-container-instances.json"]
    ci["containerInstances"] = ci["containerInstances"][:1]
    keep = ci["containerInstances"][0]["ec2InstanceId"]
    g = s["describe-auto-scaling-groups.json"]["AutoScalingGroups"][0]
    g["Instances"] = [i for i in g["Instances"] if i["InstanceId"] == keep]
    g["DesiredCapacity"] = 1
    g["MaxSize"] = 1
    save("healthy-packed-one-instance", s)


def packed_g5_12xlarge():
    """1 g5.12xlarge (4 GPUs), 4 of 4 tasks running, steady: healthy; the group can grow to 3."""
    s = load("healthy")
    ci = s["describe-container-instances.json"]
    ci["containerInstances"] = ci["containerInstances"][:1]
    inst = ci["containerInstances"][0]
    attr(inst, "ecs.instance-type", "g5.12xlarge")
    inst["runningTasksCount"] = 4
    reg, rem = inst["registeredResources"], inst["remainingResources"]
    res(reg, "CPU")["integerValue"] = 49152
    res(reg, "MEMORY")["integerValue"] = 189138
    res(rem, "CPU")["integerValue"] = 49152 - 4 * 4096
    res(rem, "MEMORY")["integerValue"] = 189138 - 4 * 15000
    res(reg, "GPU")["stringSetValue"] = gpu_ids(4)
    res(rem, "GPU")["stringSetValue"] = []
    svc = s["describe-services.json"]["services"][0]
    svc["desiredCount"] = svc["runningCount"] = 4
    d = svc["deployments"][0]
    d["desiredCount"] = d["runningCount"] = 4
    svc["placementConstraints"] = []
    tasks = s["describe-tasks.json"]["tasks"]
    first = tasks[0]
    s["describe-tasks.json"]["tasks"] = []
    for k in range(4):
        t = copy.deepcopy(first)
        t["taskArn"] = t["taskArn"][:-1] + str(k)
        t["containers"][0]["gpuIds"] = [gpu_ids(4)[k]]
        s["describe-tasks.json"]["tasks"].append(t)
    g = s["describe-auto-scaling-groups.json"]["AutoScalingGroups"][0]
    g["Instances"] = g["Instances"][:1]
    g["Instances"][0]["InstanceType"] = "g5.12xlarge"
    g["DesiredCapacity"] = 1
    g["MaxSize"] = 3
    save("healthy-packed-g5-12xlarge", s)


def mixed_cluster():
    """A connected CPU instance (m5.large) next to the GPU instance whose agent is disconnected:
    capacity fails on the GPU instance and says what the CPU instance is."""
    s = load("capacity-agent-disconnected")
    ci = s["describe-container-instances.json"]
    cpu = copy.deepcopy(ci["containerInstances"][0])
    cpu["containerInstanceArn"] = cpu["containerInstanceArn"][:-2] + "99"
    cpu["ec2InstanceId"] = "i-0cpu5a7b9c1d2e4f6"
    cpu["agentConnected"] = True
    cpu["status"] = "ACTIVE"
    attr(cpu, "ecs.instance-type", "m5.large")
    cpu["attributes"] = [a for a in cpu["attributes"] if "nvidia" not in a["name"]]
    for side in ("registeredResources", "remainingResources"):
        cpu[side] = [r for r in cpu[side] if r["name"] != "GPU"]
        res(cpu[side], "CPU")["integerValue"] = 2048
        res(cpu[side], "MEMORY")["integerValue"] = 7680
    ci["containerInstances"].append(cpu)
    save("capacity-mixed-cpu-instance-connected", s)


def valid_type_not_a_typo():
    """`in [g5.xlarge, g5.2xlarge]` on a cluster of g5.12xlarge: no instance matches, and no
    "did you mean `g5.12xlarge`" (both names are real types)."""
    s = load("placement-constraint-typo")
    for inst in s["describe-container-instances.json"]["containerInstances"]:
        attr(inst, "ecs.instance-type", "g5.12xlarge")
        for side in ("registeredResources", "remainingResources"):
            res(inst[side], "GPU")["stringSetValue"] = gpu_ids(4)
            res(inst[side], "CPU")["integerValue"] = 49152
            res(inst[side], "MEMORY")["integerValue"] = 189138
    svc = s["describe-services.json"]["services"][0]
    svc["placementConstraints"] = [
        {"type": "memberOf", "expression": "attribute:ecs.instance-type in [g5.xlarge, g5.2xlarge]"}
    ]
    for g in s.get("describe-auto-scaling-groups.json", {}).get("AutoScalingGroups", []):
        for i in g["Instances"]:
            i["InstanceType"] = "g5.12xlarge"
    save("placement-constraint-real-type-not-a-typo", s)


def desired_zero_managed_scaling():
    """No instance; the group wants 0 while its capacity provider's managed scaling is ENABLED and
    the service uses it: the help must not say to turn managed scaling on."""
    s = load("healthy")
    s["describe-container-instances.json"]["containerInstances"] = []
    g = s["describe-auto-scaling-groups.json"]["AutoScalingGroups"][0]
    g["Instances"] = []
    g["DesiredCapacity"] = 0
    svc = s["describe-services.json"]["services"][0]
    svc["runningCount"] = 0
    svc["deployments"][0]["runningCount"] = 0
    svc["deployments"][0]["rolloutState"] = "IN_PROGRESS"
    s["describe-tasks.json"]["tasks"] = []
    save("capacity-desired-zero-managed-scaling", s)


def empty_cluster():
    """The stock-out scenario as the documented recipe saves it on a cluster with no container
    instance: DescribeContainerInstances cannot be called, so `list-container-instances.json` (an
    empty list) says there is none; and the same with the empty file an older recipe left."""
    s = load("capacity-stockout")
    del s["describe-container-instances.json"]
    s["list-container-instances.json"] = {"containerInstanceArns": []}
    save("capacity-empty-cluster-listed", s)
    s = load("capacity-stockout")
    s["describe-container-instances.json"] = EMPTY
    save("capacity-empty-cluster-empty-file", s)


def held_by_another_service():
    """The one GPU is held by a task of another service; this service runs none of its one task,
    and its group is at its max size."""
    s = load("gpus-available-pinned")
    svc = s["describe-services.json"]["services"][0]
    svc["desiredCount"] = 1
    svc["runningCount"] = 0
    for d in svc["deployments"]:
        d["desiredCount"] = 1
        d["runningCount"] = 0
    task = s["describe-tasks.json"]["tasks"][0]
    task["group"] = "service:embed"
    task["taskDefinitionArn"] = "arn:aws:ecs:us-east-1:123456789012:task-definition/embed:7"
    task["startedBy"] = "ecs-svc/9876543210987654321"
    save("gpus-available-held-by-another-service", s)
    # The same with the constraint the module writes: the placement step then judges the instance
    # whose GPU is taken, and the CPU and memory step must not call it free.
    svc["placementConstraints"] = [{"type": "memberOf", "expression": "attribute:ecs.instance-type == g5.xlarge"}]
    save("gpus-available-held-constrained", s)


def managed_scaling_adds():
    """Every GPU taken, the group below its max size, managed scaling ENABLED at target capacity
    100 on the capacity provider the service places through: the group will grow."""
    s = load("gpus-available-pinned")
    g = s["describe-auto-scaling-groups.json"]["AutoScalingGroups"][0]
    g["MaxSize"] = 3
    save("gpus-available-managed-scaling-adds", s)


if __name__ == "__main__":
    desired_zero_managed_scaling()
    packed_one_instance()
    packed_g5_12xlarge()
    mixed_cluster()
    valid_type_not_a_typo()
    empty_cluster()
    held_by_another_service()
    managed_scaling_adds()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    for path in DIFFER:
        print(f"{os.path.relpath(path, root)} differs from what derive_scenarios.py writes", file=sys.stderr)
    if DIFFER:
        sys.exit(1)
