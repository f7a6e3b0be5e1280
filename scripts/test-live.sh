#!/usr/bin/env bash
# Runs the live `ecs-gpu diagnose` tests against a local AWS API emulator (moto's server).
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

"$VENV/bin/moto_server" -H 127.0.0.1 -p "$PORT" >"$LOG" 2>&1 &
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

# The state the tests read: a GPU cluster whose default strategy is a capacity provider backed by an
# Auto Scaling group, 120 container instances (more than one Describe batch of 100), a service and
# its task definition asking for one GPU.
ECS_GPU_SEED_ENDPOINT="$ENDPOINT" "$VENV/bin/python" - <<'PY'
import json, os
import boto3

kw = dict(endpoint_url=os.environ["ECS_GPU_SEED_ENDPOINT"], region_name="us-east-1",
          aws_access_key_id="testing", aws_secret_access_key="testing")
ecs, asg, ec2 = (boto3.client(s, **kw) for s in ("ecs", "autoscaling", "ec2"))

ami = ec2.describe_images()["Images"][0]["ImageId"]
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
ecs.register_task_definition(family="train", requiresCompatibilities=["EC2"], networkMode="bridge",
                             containerDefinitions=[{"name": "trainer", "image": "trainer", "cpu": 1024, "memory": 1024,
                                                    "resourceRequirements": [{"type": "GPU", "value": "1"}]}])
instances = ec2.run_instances(ImageId=ami, MinCount=120, MaxCount=120, InstanceType="g5.xlarge")["Instances"]
for i in instances:
    doc = json.dumps({"instanceId": i["InstanceId"], "instanceType": "g5.xlarge",
                      "region": "us-east-1", "availabilityZone": "us-east-1a"})
    ecs.register_container_instance(cluster="gpu", instanceIdentityDocument=doc)
ecs.create_service(cluster="gpu", serviceName="train", taskDefinition="train", desiredCount=1)
PY

echo "test-live: moto on $ENDPOINT, seeded" >&2
ECS_GPU_TEST_ENDPOINT="$ENDPOINT" cargo test -p ecs-gpu --test diagnose_live "$@" -- --nocapture
