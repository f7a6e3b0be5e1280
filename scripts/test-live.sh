#!/usr/bin/env bash
# Runs the live `ecs-gpu diagnose` and `ecs-gpu simulate` tests, and simulate's validation, against the GPU-faithful emulator: moto's server with
# scripts/ecs_gpu_emulator.py's patches (GPUs registered from the catalog, the ECS agent joining
# from user data, service tasks placed by ECS's rules; docs/emulator.md).
#
#   scripts/test-live.sh            # install moto if needed, start it, seed it, run the tests, stop it
#
# moto is installed from PyPI into .venv/moto (gitignored). The server listens on 127.0.0.1 on a free
# port and is stopped when this script exits, whether the tests pass or not. Nothing is sent anywhere
# but 127.0.0.1. Extra arguments go to `cargo test` (for example a test name filter).
set -euo pipefail

cd "$(dirname "$0")/.."
VENV=.venv/moto
MOTO_SPEC='moto[server]>=5.1,<6'

if [ ! -x "$VENV/bin/moto_server" ]; then
    echo "test-live: installing $MOTO_SPEC into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "$MOTO_SPEC"
fi

PORT=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ENDPOINT="http://127.0.0.1:$PORT"
LOG=$(mktemp -t ecs-gpu-moto.XXXXXX.log)

"$VENV/bin/python" scripts/ecs_gpu_emulator.py serve "$PORT" >"$LOG" 2>&1 &
MOTO_PID=$!
stop() {
    status=$?
    kill "$MOTO_PID" 2>/dev/null || true
    wait "$MOTO_PID" 2>/dev/null || true
    if [ "$status" -ne 0 ]; then
        echo "test-live: failed; the end of moto's log ($LOG):" >&2
        tail -n 40 "$LOG" >&2 || true
    else
        rm -f "$LOG"
    fi
    exit "$status"
}
trap stop EXIT

# Wait (at most 30 s) for the server to answer.
for _ in $(seq 1 60); do
    if "$VENV/bin/python" -c "import urllib.request, sys; urllib.request.urlopen('$ENDPOINT/moto-api/data.json', timeout=1)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$MOTO_PID" 2>/dev/null; then
        echo "test-live: moto exited; its log:" >&2
        cat "$LOG" >&2
        exit 1
    fi
    sleep 0.5
done

# The state the tests read, one cluster per case:
#   gpu       120 g5.xlarge container instances registered without GPU support (more than one
#             Describe batch of 100), service `train` asking for one GPU: gpu-registration fails;
#   healthy   an Auto Scaling group of 2 g5.xlarge launched from a launch template whose user data
#             joins the cluster with GPU support, a capacity provider with managed scaling, service
#             `infer` (1 task, 1 GPU, memberOf the instance type): healthy, with a GPU to spare;
#   packed    the same with 1 instance (the group at its max size) and 1 task: healthy, fully packed;
#   stuck     1 instance (max size 1) whose GPU service `embed` holds; service `train` cannot place
#             its task: gpus-available fails, naming `service:embed` and the max size;
#   scaling   a group at 0 of at most 2 under managed scaling: service `grow` makes the emulator
#             scale it out, and its task runs: healthy.
#   bluegreen 2 instances (max size 3), service `infer` (2 tasks) deployed blue/green, binpack.
ECS_GPU_SEED_ENDPOINT="$ENDPOINT" "$VENV/bin/python" - <<'PY'
import base64, json, os
import boto3

kw = dict(endpoint_url=os.environ["ECS_GPU_SEED_ENDPOINT"], region_name="us-east-1",
          aws_access_key_id="testing", aws_secret_access_key="testing")
ecs, asg, ec2 = (boto3.client(s, **kw) for s in ("ecs", "autoscaling", "ec2"))
ami = ec2.describe_images()["Images"][0]["ImageId"]


def task_definition(family):
    ecs.register_task_definition(family=family, requiresCompatibilities=["EC2"], networkMode="bridge",
                                 containerDefinitions=[{"name": "main", "image": family, "cpu": 1024, "memory": 4096,
                                                        "resourceRequirements": [{"type": "GPU", "value": "1"}]}])


def gpu_cluster(name, desired, max_size):
    """A cluster whose capacity provider's group launches g5.xlarge instances that join it."""
    ecs.create_cluster(clusterName=name)
    user_data = f"#!/bin/bash\necho ECS_CLUSTER={name} >> /etc/ecs/ecs.config\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\n"
    ec2.create_launch_template(LaunchTemplateName=f"{name}-lt", LaunchTemplateData={
        "ImageId": ami, "InstanceType": "g5.xlarge", "UserData": base64.b64encode(user_data.encode()).decode()})
    asg.create_auto_scaling_group(AutoScalingGroupName=f"{name}-asg",
                                  LaunchTemplate={"LaunchTemplateName": f"{name}-lt", "Version": "$Latest"},
                                  MinSize=0, MaxSize=max_size, DesiredCapacity=desired,
                                  AvailabilityZones=["us-east-1a"], NewInstancesProtectedFromScaleIn=True)
    arn = asg.describe_auto_scaling_groups(AutoScalingGroupNames=[f"{name}-asg"])["AutoScalingGroups"][0]["AutoScalingGroupARN"]
    ecs.create_capacity_provider(name=f"{name}-cp", autoScalingGroupProvider={
        "autoScalingGroupArn": arn, "managedTerminationProtection": "ENABLED",
        "managedScaling": {"status": "ENABLED", "targetCapacity": 100}})
    ecs.put_cluster_capacity_providers(cluster=name, capacityProviders=[f"{name}-cp"],
                                       defaultCapacityProviderStrategy=[{"capacityProvider": f"{name}-cp", "weight": 1}])


def service(cluster, name, family, count=1):
    ecs.create_service(cluster=cluster, serviceName=name, taskDefinition=family, desiredCount=count,
                       capacityProviderStrategy=[{"capacityProvider": f"{cluster}-cp", "weight": 1}],
                       placementConstraints=[{"type": "memberOf", "expression": "attribute:ecs.instance-type == g5.xlarge"}])


for family in ("train", "infer", "embed", "grow"):
    task_definition(family)

# gpu: instances registered by hand, without ECS_ENABLE_GPU_SUPPORT.
ec2.create_launch_template(LaunchTemplateName="gpu-lt",
                           LaunchTemplateData={"ImageId": ami, "InstanceType": "g5.xlarge"})
asg.create_auto_scaling_group(AutoScalingGroupName="gpu-asg",
                              LaunchTemplate={"LaunchTemplateName": "gpu-lt", "Version": "$Latest"},
                              MinSize=0, MaxSize=2, DesiredCapacity=0, AvailabilityZones=["us-east-1a"])
arn = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["gpu-asg"])["AutoScalingGroups"][0]["AutoScalingGroupARN"]
ecs.create_capacity_provider(name="gpu-cp", autoScalingGroupProvider={
    "autoScalingGroupArn": arn, "managedScaling": {"status": "ENABLED", "targetCapacity": 100}})
ecs.create_cluster(clusterName="gpu", capacityProviders=["gpu-cp"],
                   defaultCapacityProviderStrategy=[{"capacityProvider": "gpu-cp", "weight": 1}])
instances = ec2.run_instances(ImageId=ami, MinCount=120, MaxCount=120, InstanceType="g5.xlarge")["Instances"]
for i in instances:
    doc = json.dumps({"instanceId": i["InstanceId"], "instanceType": "g5.xlarge",
                      "region": "us-east-1", "availabilityZone": "us-east-1a"})
    ecs.register_container_instance(cluster="gpu", instanceIdentityDocument=doc)
ecs.create_service(cluster="gpu", serviceName="train", taskDefinition="train", desiredCount=1,
                   launchType="EC2")

gpu_cluster("healthy", desired=2, max_size=2)
service("healthy", "infer", "infer")
gpu_cluster("packed", desired=1, max_size=1)
service("packed", "infer", "infer")
gpu_cluster("stuck", desired=1, max_size=1)
service("stuck", "embed", "embed")
service("stuck", "train", "train")
gpu_cluster("scaling", desired=0, max_size=2)
service("scaling", "grow", "grow")
# bluegreen: service `infer` deployed blue/green and placed by binpack, which only the fields
# `diagnose --save` keeps for simulate say.
gpu_cluster("bluegreen", desired=2, max_size=3)
ecs.create_service(cluster="bluegreen", serviceName="infer", taskDefinition="infer", desiredCount=2,
                   capacityProviderStrategy=[{"capacityProvider": "bluegreen-cp", "weight": 1}],
                   deploymentConfiguration={"strategy": "BLUE_GREEN", "bakeTimeInMinutes": 5,
                                            "minimumHealthyPercent": 100, "maximumPercent": 200},
                   placementStrategy=[{"type": "binpack", "field": "memory"}])
PY

echo "test-live: the emulator (moto) on $ENDPOINT, seeded" >&2
ECS_GPU_TEST_ENDPOINT="$ENDPOINT" cargo test -p ecs-gpu --test diagnose_live --test simulate_live "$@" -- --nocapture

# Last, as it changes the emulator's state: simulate's answers against what the emulator does, on
# clusters of its own (docs/simulate.md, "Validation against the emulator").
BINARY="${CARGO_TARGET_DIR:-target}/debug/ecs-gpu"
"$VENV/bin/python" scripts/validate_simulate.py "$ENDPOINT" "$BINARY"
