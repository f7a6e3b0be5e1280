"""Seeds moto for scripts/test-e2e.sh and checks what `terraform apply` created, through the API.

    e2e_check.py seed                         # network, existing cluster, load balancer, AMIs -> JSON
    e2e_check.py check <example> <outputs>    # the created resources of one example
    e2e_check.py effects <effects.json> <kind>  # `ecs-gpu plan --format json` reports <kind>
    e2e_check.py diagnose <diagnose.json> <status>
    e2e_check.py moves <plan.json>            # a plan of the old layout's state only moves resources
    e2e_check.py service-moved <plan.json>    # autoscaling switched on with the README's moved block
    e2e_check.py production <outputs> <alb security group id>
                                              # examples/production: two GPU services on one cluster
    e2e_check.py module-untouched <plan.json> <baseline.json> <address>...
                                              # an edit changes only <address>es, nothing inside a
                                              # module call, against a plan without the edit
    e2e_check.py gpu-metrics <outputs>        # the agent in the user data, its policy, the scaling
                                              # policy's metric math, the idle alarm, the dashboard
    e2e_check.py empty                        # nothing of the module is left after destroy

Talks only to the moto server at $ECS_GPU_E2E_ENDPOINT. Exits non-zero with one line per failed
check.
"""

import base64
import json
import os
import sys

import boto3

ENDPOINT = os.environ.get("ECS_GPU_E2E_ENDPOINT", "")
REGION = "us-east-1"
failures = []


def client(service):
    return boto3.client(
        service,
        endpoint_url=ENDPOINT,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def expect(condition, message):
    if condition:
        print(f"  ok: {message}")
    else:
        print(f"  FAILED: {message}")
        failures.append(message)


def seed():
    ec2 = client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=cidr, AvailabilityZone=az)["Subnet"]["SubnetId"]
        for cidr, az in (("10.0.1.0/24", "us-east-1a"), ("10.0.2.0/24", "us-east-1b"))
    ]
    # Two AMIs registered from moto's own images, so that the pinned ID and the bump exist.
    base = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
    instance = ec2.run_instances(ImageId=base, MinCount=1, MaxCount=1, SubnetId=subnets[0])["Instances"][0]
    amis = [ec2.create_image(InstanceId=instance["InstanceId"], Name=f"ecs-gpu-e2e-{n}")["ImageId"] for n in (1, 2)]
    ec2.terminate_instances(InstanceIds=[instance["InstanceId"]])

    sg = ec2.create_security_group(GroupName="alb", Description="alb", VpcId=vpc)["GroupId"]
    elb = client("elbv2")
    lb = elb.create_load_balancer(Name="e2e", Subnets=subnets, SecurityGroups=[sg])["LoadBalancers"][0]
    tg = elb.create_target_group(Name="e2e-default", Protocol="HTTP", Port=80, VpcId=vpc, TargetType="ip")
    listener = elb.create_listener(
        LoadBalancerArn=lb["LoadBalancerArn"],
        Protocol="HTTP",
        Port=80,
        DefaultActions=[{"Type": "forward", "TargetGroupArn": tg["TargetGroups"][0]["TargetGroupArn"]}],
    )["Listeners"][0]["ListenerArn"]

    client("ecs").create_cluster(clusterName="shared-gpu")
    # examples/existing-cluster: the platform's cluster, whose capacity provider list the example
    # owns, and the platform's own task role.
    client("ecs").create_cluster(clusterName="platform")
    trust = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ecs-tasks.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
    task_role = client("iam").create_role(RoleName="platform-embeddings", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    print(
        json.dumps(
            {
                "vpc_id": vpc,
                "subnet_a": subnets[0],
                "subnet_b": subnets[1],
                "ami_1": amis[0],
                "ami_2": amis[1],
                "alb_security_group_id": sg,
                "listener_arn": listener,
                "cluster_name": "shared-gpu",
                "platform_cluster": "platform",
                "task_role_arn": task_role,
            }
        )
    )


# What each example must have created: cluster, service, the GPU share of each container.
EXAMPLES = {
    "basic": {"cluster": "gpu-inference", "service": "inference", "gpus": {"app": "1"}, "type": "g5.xlarge"},
    "autoscaling": {"cluster": "shared-gpu", "service": "inference-as", "gpus": {"app": "1"}, "type": "g6.xlarge"},
    "vllm": {
        "cluster": "gpu-vllm",
        "service": "vllm",
        "gpus": {"vllm-a": "2", "vllm-b": "2"},
        "type": "g6.12xlarge",
        "shm": 16384,
        "cache": "/opt/ecs-gpu/models",
        "task_gpus": 4,  # 2 + 2
    },
    # The submodules called directly; the task runs with the platform's role (bring your own).
    "existing-cluster": {
        "cluster": "platform",
        "service": "embed",
        "gpus": {"app": "1"},
        "type": "g5.2xlarge",
        "task_role": "arn:aws:iam::123456789012:role/platform-embeddings",
        "other_providers": ["FARGATE"],
    },
    # Three L4 types in one group, Spot above one On-Demand instance.
    "mixed-spot": {
        "cluster": "gpu-batch",
        "service": "batch",
        "gpus": {"app": "1"},
        "type": "g6.xlarge",
        "constraint": "attribute:ecs.instance-type in [g6.xlarge, g6.2xlarge, gr6.4xlarge]",
        "mixed": {"types": ["g6.xlarge", "g6.2xlarge", "gr6.4xlarge"], "base": 1, "percentage": 0},
        "ecs_config": ["ECS_ENABLE_SPOT_INSTANCE_DRAINING=true"],
    },
    # A Capacity Block: the launch template's market type and reservation target.
    "capacity-block": {
        "cluster": "gpu-train",
        "service": "train",
        "gpus": {"app": "8"},
        "type": "p5.48xlarge",
        "capacity_block": "cr-0123456789abcdef0",
        "efa": True,
    },
    # A Stopped warm pool of one instance, and the agent told to wait for service.
    "warm-pool": {
        "cluster": "gpu-chat",
        "service": "chat",
        "gpus": {"app": "1"},
        "type": "g6e.xlarge",
        "cache": "/opt/ecs-gpu/models",
        "warm_pool": {"PoolState": "Stopped", "MinSize": 1},
        "ecs_config": ["ECS_WARM_POOLS_CHECK=true"],
    },
    # GPU metrics: the agent, target tracking on GPU utilization, the idle alarm, the dashboard.
    "gpu-metrics": {"cluster": "gpu-scaled", "service": "gpu-scaled", "gpus": {"app": "1"}, "type": "g6.xlarge"},
}


def created_service(name):
    """The body of the last CreateService request for `name`, from moto's recording."""
    found = {}
    with open(os.environ["ECS_GPU_E2E_RECORDING"]) as recording:
        for line in recording:
            entry = json.loads(line)
            if "CreateService" not in entry.get("headers", {}).get("X-Amz-Target", ""):
                continue
            body = entry.get("body") or ""
            if entry.get("body_encoded"):
                body = base64.b64decode(body).decode()
            request = json.loads(body)
            if request.get("serviceName") == name:
                found = request
    return found


def check(example, outputs_path):
    want = EXAMPLES[example]
    print(f"checks of examples/{example} through the API")
    ecs, asg, ec2 = client("ecs"), client("autoscaling"), client("ec2")

    service = ecs.describe_services(cluster=want["cluster"], services=[want["service"]])["services"]
    expect(len(service) == 1, f"service {want['service']} exists in {want['cluster']}")
    service = service[0]
    # What the provider sent, from moto's recorder: the emulator keeps the strategy and the
    # constraints, but the request is what the module wrote.
    sent = created_service(want["service"])
    strategy = sent.get("capacityProviderStrategy", [])
    expect(len(strategy) == 1, f"service strategy names one capacity provider: {strategy}")
    provider_name = strategy[0]["capacityProvider"] if strategy else None
    constraints = sent.get("placementConstraints", [])
    expression = want.get("constraint", f"attribute:ecs.instance-type == {want['type']}")
    expect(
        constraints == [{"type": "memberOf", "expression": expression}],
        f"service placement constraint is `{expression}`: {constraints}",
    )

    providers = ecs.describe_capacity_providers(capacityProviders=[provider_name])["capacityProviders"]
    expect(len(providers) == 1, f"capacity provider {provider_name} exists")
    provider = providers[0]["autoScalingGroupProvider"]
    expect(provider["managedTerminationProtection"] == "ENABLED", "managed termination protection is on")
    expect(provider["managedScaling"]["status"] == "ENABLED", "managed scaling is on")
    cluster = ecs.describe_clusters(clusters=[want["cluster"]])["clusters"][0]
    expect(provider_name in cluster.get("capacityProviders", []), f"{provider_name} is on the cluster")

    group_name = provider["autoScalingGroupArn"].split("autoScalingGroupName/")[-1]
    group = asg.describe_auto_scaling_groups(AutoScalingGroupNames=[group_name])["AutoScalingGroups"]
    expect(len(group) == 1, f"Auto Scaling group {group_name} exists")
    group = group[0]
    expect(group["NewInstancesProtectedFromScaleIn"] is True, "new instances are protected from scale-in")
    tags = {t["Key"]: t["Value"] for t in group.get("Tags", [])}
    expect(tags.get("AmazonECSManaged") == "true", "the group carries AmazonECSManaged")
    # moto does not keep the group's instance_refresh block (it is not an attribute of the group
    # in the API either); the refresh settings are asserted in the plan instead (see README).

    if "mixed" in want:
        policy = group.get("MixedInstancesPolicy", {})
        overrides = [o.get("InstanceType") for o in policy.get("LaunchTemplate", {}).get("Overrides", [])]
        expect(overrides == want["mixed"]["types"], f"the group's overrides are {want['mixed']['types']}: {overrides}")
        distribution = policy.get("InstancesDistribution", {})
        expect(
            distribution.get("OnDemandBaseCapacity") == want["mixed"]["base"]
            and distribution.get("OnDemandPercentageAboveBaseCapacity") == want["mixed"]["percentage"],
            f"the On-Demand/Spot split is as given: {distribution}",
        )
        template_id = policy["LaunchTemplate"]["LaunchTemplateSpecification"]["LaunchTemplateId"]
    else:
        template_id = group["LaunchTemplate"]["LaunchTemplateId"]
    if "warm_pool" in want:
        pool = asg.describe_warm_pool(AutoScalingGroupName=group_name).get("WarmPoolConfiguration", {})
        for key, value in want["warm_pool"].items():
            expect(pool.get(key) == value, f"the warm pool's {key} is {value}: {pool.get(key)}")
    version = ec2.describe_launch_template_versions(LaunchTemplateId=template_id, Versions=["$Latest"])
    data = version["LaunchTemplateVersions"][0]["LaunchTemplateData"]
    user_data = base64.b64decode(data["UserData"]).decode()
    expect(f"ECS_CLUSTER={want['cluster']}" in user_data, "user data sets ECS_CLUSTER")
    expect("ECS_ENABLE_GPU_SUPPORT=true" in user_data, "user data enables GPU support")
    if "cache" in want:
        expect(f"mkdir -p {want['cache']}" in user_data, "user data creates the model cache")
    for line in want.get("ecs_config", []):
        expect(line in user_data.splitlines(), f"user data sets {line}")
    if "capacity_block" in want:
        market = data.get("InstanceMarketOptions", {}).get("MarketType")
        expect(market == "capacity-block", f"the launch template's market type is capacity-block: {market}")
        target = data.get("CapacityReservationSpecification", {}).get("CapacityReservationTarget", {})
        expect(target.get("CapacityReservationId") == want["capacity_block"], f"the launch template targets the block: {target}")
    if want.get("efa"):
        interfaces = data.get("NetworkInterfaces", [])
        expect(
            [(i.get("InterfaceType"), i.get("DeviceIndex"), i.get("NetworkCardIndex")) for i in interfaces] == [("efa", 0, 0)],
            f"the launch template's primary interface is an EFA on network card 0: {interfaces}",
        )
        group_sg = interfaces[0].get("Groups", []) if interfaces else []
        expect(len(group_sg) >= 1 and not data.get("SecurityGroupIds"), f"the groups are on the EFA interface, not the template: {group_sg}")
        placement = group.get("PlacementGroup")
        groups = ec2.describe_placement_groups(GroupNames=[placement])["PlacementGroups"] if placement else []
        expect(len(groups) == 1 and groups[0]["Strategy"] == "cluster", f"the group launches into a cluster placement group: {placement} {groups}")
        rules = ec2.describe_security_group_rules(Filters=[{"Name": "group-id", "Values": group_sg[:1]}])["SecurityGroupRules"] if group_sg else []
        for egress in (False, True):
            expect(
                any(
                    r["IsEgress"] == egress and r["IpProtocol"] == "-1" and r.get("ReferencedGroupInfo", {}).get("GroupId") == group_sg[0]
                    for r in rules
                ),
                f"the instances' group allows all {'outbound' if egress else 'inbound'} traffic with itself",
            )
    expect(data["InstanceType"] == want["type"], f"launch template instance type is {want['type']}")
    expect(data["MetadataOptions"]["HttpTokens"] == "required", "IMDSv2 only")

    task_definition = ecs.describe_task_definition(taskDefinition=service["taskDefinition"])["taskDefinition"]
    containers = {c["name"]: c for c in task_definition["containerDefinitions"]}
    for name, count in want["gpus"].items():
        requirements = containers.get(name, {}).get("resourceRequirements", [])
        expect(
            requirements == [{"type": "GPU", "value": count}],
            f"container {name} asks for {count} GPU(s) as a string inside the container: {requirements}",
        )
        limits = containers.get(name, {}).get("ulimits", [])
        expect({"name": "memlock", "softLimit": -1, "hardLimit": -1} in limits, f"container {name} has memlock unlimited")
        if "shm" in want:
            shm = containers.get(name, {}).get("linuxParameters", {}).get("sharedMemorySize")
            expect(shm == want["shm"], f"container {name} has {want['shm']} MiB of /dev/shm: {shm}")
        if want.get("efa"):
            devices = containers.get(name, {}).get("linuxParameters", {}).get("devices", [])
            expect(
                [d.get("hostPath") for d in devices] == ["/dev/infiniband/uverbs0"],
                f"container {name} gets the EFA device: {devices}",
            )
        if "cache" in want:
            mounts = containers.get(name, {}).get("mountPoints", [])
            expect(any(m.get("sourceVolume") == "model-cache" for m in mounts), f"container {name} mounts the model cache")
    expect(task_definition.get("requiresCompatibilities") == ["EC2"], "the task definition is EC2 only")
    if "task_role" in want:
        expect(task_definition.get("taskRoleArn") == want["task_role"], f"the task runs with the caller's role: {task_definition.get('taskRoleArn')}")
    for other in want.get("other_providers", []):
        expect(other in cluster.get("capacityProviders", []), f"the cluster keeps its provider {other}")

    placed(ecs, want, service)

    outputs = json.load(open(outputs_path))
    if "task_gpus" in want:
        expect(outputs["task_gpus"]["value"] == want["task_gpus"], f"the task's GPUs are {want['task_gpus']}")


def gpu_metrics(outputs_path):
    """What `gpu_metrics` and `autoscaling.gpu_metric` created, read back from moto."""
    print("checks of examples/gpu-metrics' GPU metrics through the API")
    outputs = json.load(open(outputs_path))
    metrics = outputs["gpu_metrics"]["value"]
    group_name = outputs["autoscaling_group_name"]["value"]
    expect(metrics["autoscaling_group_name"] == group_name, f"the metrics are published for the group {group_name}")

    # The agent: its configuration in the launch template's user data, and the role's policy.
    asg, ec2, iam = client("autoscaling"), client("ec2"), client("iam")
    group = asg.describe_auto_scaling_groups(AutoScalingGroupNames=[group_name])["AutoScalingGroups"][0]
    template_id = group["LaunchTemplate"]["LaunchTemplateId"]
    data = ec2.describe_launch_template_versions(LaunchTemplateId=template_id, Versions=["$Latest"])["LaunchTemplateVersions"][0]["LaunchTemplateData"]
    user_data = base64.b64decode(data["UserData"]).decode()
    config = json.loads(metrics["agent_config"])
    expect(metrics["agent_config"] in user_data.splitlines(), "the user data writes the agent configuration")
    expect(
        config["metrics"]["metrics_collected"]["nvidia_gpu"]["measurement"] == ["utilization_gpu", "utilization_memory", "memory_used", "memory_total"],
        "the agent collects the nvidia_gpu measurements",
    )
    expect(config["metrics"]["aggregation_dimensions"] == [["AutoScalingGroupName"]], "the agent aggregates over the group")
    expect("amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s" in user_data, "the user data starts the agent")
    profile_arn = data["IamInstanceProfile"]["Arn"]
    profiles = iam.list_instance_profiles()["InstanceProfiles"]
    role = next((p["Roles"][0]["RoleName"] for p in profiles if p["Arn"] == profile_arn and p["Roles"]), None)
    attached = [a["PolicyName"] for a in iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"]] if role else []
    expect("CloudWatchAgentServerPolicy" in attached, f"the instance role has CloudWatchAgentServerPolicy: {attached}")

    # The target tracking policy: Application Auto Scaling keeps the metric math as sent.
    aas = client("application-autoscaling")
    policies = aas.describe_scaling_policies(ServiceNamespace="ecs", ResourceId="service/gpu-scaled/gpu-scaled")["ScalingPolicies"]
    expect(len(policies) == 1, f"one scaling policy on the service: {[p['PolicyName'] for p in policies]}")
    spec = policies[0].get("TargetTrackingScalingPolicyConfiguration", {}).get("CustomizedMetricSpecification", {}) if policies else {}
    queries = spec.get("Metrics", [])
    stat = queries[0].get("MetricStat", {}) if len(queries) == 1 else {}
    expect(
        stat.get("Metric", {}).get("MetricName") == "nvidia_smi_utilization_gpu"
        and stat.get("Stat") == "Average"
        and stat.get("Metric", {}).get("Dimensions") == [{"Name": "AutoScalingGroupName", "Value": group_name}]
        and queries[0].get("ReturnData") is True,
        f"the policy tracks the group's average GPU utilization: {queries}",
    )

    # The alarm: GPUs idle while tasks pend.
    cloudwatch = client("cloudwatch")
    alarms = cloudwatch.describe_alarms(AlarmNamePrefix=metrics["idle_alarm_arn"].split(":alarm:")[-1])["MetricAlarms"]
    expect(len(alarms) == 1, f"the idle alarm exists: {[a['AlarmName'] for a in alarms]}")
    alarm = alarms[0] if alarms else {}
    by_id = {q["Id"]: q for q in alarm.get("Metrics", [])}
    expect(by_id.get("idle_while_pending", {}).get("Expression") == "IF(pending > 0 AND utilization < 10, 1, 0)", f"the alarm's expression: {by_id.get('idle_while_pending')}")
    pending = by_id.get("pending", {}).get("MetricStat", {}).get("Metric", {})
    expect(
        pending.get("Namespace") == "ECS/ContainerInsights" and pending.get("MetricName") == "PendingTaskCount"
        and sorted((d["Name"], d["Value"]) for d in pending.get("Dimensions", [])) == [("ClusterName", "gpu-scaled"), ("ServiceName", "gpu-scaled")],
        f"the alarm reads the service's PendingTaskCount: {pending}",
    )
    expect(alarm.get("AlarmActions") == ["arn:aws:sns:us-east-1:123456789012:gpu-oncall"], f"the alarm notifies the topic: {alarm.get('AlarmActions')}")

    # The dashboard.
    body = json.loads(cloudwatch.get_dashboard(DashboardName=metrics["dashboard_name"])["DashboardBody"])
    expect(len(body.get("widgets", [])) == 4, f"the dashboard has its 4 widgets: {len(body.get('widgets', []))}")


def mps(family_prefix, apply_status, apply_log):
    """examples/mps: a provider whose AWS SDK knows `sharingStrategy` sends it, and the apply
    succeeds; one that does not (5.100.0) drops it already in the plan, and the module's
    postcondition must then stop the apply with its message, before anything is registered."""
    print("checks of examples/mps through the API")
    # moto keeps the container definitions as the provider sent them. ListTaskDefinitions'
    # familyPrefix is a whole family name; the family carries the module's suffix.
    ecs = client("ecs")
    arns = [a for a in ecs.list_task_definitions()["taskDefinitionArns"] if a.split("/")[-1].startswith(f"{family_prefix}-")]
    sent = [ecs.describe_task_definition(taskDefinition=a)["taskDefinition"]["containerDefinitions"][0].get("resourceRequirements", []) for a in arns]
    log = " ".join(open(apply_log).read().split())
    if apply_status == "0":
        expect(
            sent[-1:] == [[{"type": "GPU", "sharingStrategy": {"nvidiaMps": {"memory": 11264, "maxComputePercent": 25}}}]],
            f"the GPU container asks for an MPS share and no GPU count: {sent}",
        )
    else:
        expect(
            "dropped the GPU container's `sharingStrategy`" in log,
            "the module's postcondition names the dropped sharingStrategy",
        )
        expect(sent == [], f"nothing was registered without the sharing strategy: {sent}")
        print("  the provider dropped sharingStrategy in its plan; the module's postcondition stopped the apply")


def effects(path, kind):
    report = json.load(open(path))
    kinds = [e.get("kind") for e in report.get("effects", [])]
    print(f"ecs-gpu plan reports {kinds}")
    expect(kind in kinds, f"ecs-gpu plan reports a {kind} on the real plan")


def placed(ecs, want, service):
    """The emulator placed the service's tasks as ECS would: as many RUNNING as desired (at least
    one), each container's GPUs pinned by ID, on an instance of the example's type."""
    desired, running = service.get("desiredCount", 0), service.get("runningCount", 0)
    expect(desired >= 1 and running == desired, f"service {want['service']} runs {running} of {desired} desired tasks")
    arns = ecs.list_tasks(cluster=want["cluster"], serviceName=want["service"], desiredStatus="RUNNING")["taskArns"]
    tasks = ecs.describe_tasks(cluster=want["cluster"], tasks=arns)["tasks"] if arns else []
    expect(len(tasks) == desired, f"{len(tasks)} RUNNING task(s) of {want['service']} listed")
    for task in tasks:
        pinned = {c["name"]: len(c.get("gpuIds", [])) for c in task.get("containers", [])}
        asked = {name: int(count) for name, count in want["gpus"].items()}
        expect(pinned == asked, f"task {task['taskArn'].rsplit('/', 1)[-1]} holds GPUs by ID per container as asked {asked}: {pinned}")
    instances = {t["containerInstanceArn"] for t in tasks}
    if instances:
        described = ecs.describe_container_instances(cluster=want["cluster"], containerInstances=sorted(instances))["containerInstances"]
        types = sorted({a.get("value") for i in described for a in i.get("attributes", []) if a["name"] == "ecs.instance-type"})
        allowed = want.get("mixed", {}).get("types", [want["type"]])
        expect(types and all(t in allowed for t in types), f"the tasks run on {allowed}: {types}")


def diagnose(path, status):
    """diagnose of examples/basic, live: the emulator placed its one GPU task, so the verdict is
    healthy (exit status 0), with no step failing."""
    text = open(path).read()
    try:
        report = json.loads(text)
    except ValueError:
        report = None
    expect(isinstance(report, dict), "diagnose printed a JSON report")
    report = report if isinstance(report, dict) else {}
    verdict = report.get("verdict", {})
    expect(status == "0", f"diagnose exits 0 on a healthy service (exit status {status})")
    expect(verdict.get("step") == "healthy" and verdict.get("status") == "pass", f"the verdict is healthy: {verdict}")
    expect(
        verdict.get("message") == "service `inference` runs 1 of 1 desired tasks and no step fails",
        f"the verdict says the service runs its task: {verdict.get('message')}",
    )
    failed = [step.get("id") for step in report.get("steps", []) if step.get("status") == "fail"]
    expect(failed == [], f"no step fails: {failed}")


def moves(path):
    """The plan of the split module over state written by the single-module layout: every resource
    of the old layout moves to a submodule, and nothing is destroyed or replaced."""
    plan = json.load(open(path))
    changes = plan.get("resource_changes", [])
    moved = [c for c in changes if c.get("previous_address")]
    destroyed = [c["address"] for c in changes if "delete" in c["change"]["actions"]]
    created = [c["address"] for c in changes if c["change"]["actions"] == ["create"]]
    print(f"{len(moved)} moved, destroyed {destroyed}, created {created}")
    for c in changes:
        if c["change"]["actions"] == ["update"]:
            before, after = c["change"].get("before") or {}, c["change"].get("after") or {}
            keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            print(f"  updated in place: {c['address']}: {', '.join(keys)}")
    expect(len(moved) >= 10, f"the old layout's resources move into the submodules ({len(moved)} moves)")
    expect(all(".module." in f".{c['address']}" for c in moved), "every move lands in a submodule")
    expect(destroyed == [], f"nothing is destroyed or replaced: {destroyed}")
    # A terraform_data resource lives only in the state (the capacity's gate that orders the
    # cluster check after the cluster's creation): creating it touches nothing in AWS.
    in_aws = [a for a in created if not a.split(".")[-2].startswith("terraform_data")]
    expect(in_aws == [], f"nothing is created in AWS: {in_aws}")


def service_moved(path):
    """Autoscaling switched on in examples/basic, with the README's `moved` block: the service moves
    from `aws_ecs_service.this[0]` to `aws_ecs_service.autoscaled[0]` and nothing is destroyed."""
    plan = json.load(open(path))
    changes = plan.get("resource_changes", [])
    source = "module.inference.module.service.aws_ecs_service.this[0]"
    target = "module.inference.module.service.aws_ecs_service.autoscaled[0]"
    moved = {c["address"]: c.get("previous_address") for c in changes if c.get("previous_address")}
    destroyed = [c["address"] for c in changes if "delete" in c["change"]["actions"]]
    created = sorted(c["address"] for c in changes if c["change"]["actions"] == ["create"])
    print(f"moved {moved}, destroyed {destroyed}, created {created}")
    expect(moved.get(target) == source, f"the service moves from {source} to {target}")
    expect(destroyed == [], f"nothing is destroyed or replaced: {destroyed}")
    expect(
        all(".aws_appautoscaling_" in a for a in created) and created,
        f"only the Application Auto Scaling target and policy are created: {created}",
    )


def production(outputs_path, alb_security_group_id):
    """examples/production: two GPU services on one cluster, read back from the emulator."""
    print("checks of examples/production through the API")
    ecs, ec2, elb = client("ecs"), client("ec2"), client("elbv2")
    outputs = json.load(open(outputs_path))
    cluster = ecs.describe_clusters(clusters=["gpu-prod"])["clusters"]
    expect(len(cluster) == 1 and cluster[0]["status"] == "ACTIVE", "cluster gpu-prod is active")
    on_cluster = cluster[0].get("capacityProviders", []) if cluster else []
    listed = outputs["capacity_providers"]["value"]
    expect(len(listed) == 2 and sorted(on_cluster) == sorted(listed), f"the cluster has the two capacity providers: {on_cluster}")
    providers = {}

    # What each service must have: its own capacity provider, its tasks placed with their GPUs.
    want = {"vllm": {"type": "g6.12xlarge", "gpus": 4, "count": 2}, "embed": {"type": "g6.xlarge", "gpus": 1, "count": 2}}
    services = {s["serviceName"]: s for s in ecs.describe_services(cluster="gpu-prod", services=list(want))["services"]}
    for name, w in want.items():
        service = services.get(name, {})
        expect(service.get("status") == "ACTIVE", f"service {name} is active")
        strategy = [p["capacityProvider"] for p in service.get("capacityProviderStrategy", [])]
        providers[name] = strategy[0] if len(strategy) == 1 else None
        expect(providers[name] in listed, f"service {name}'s strategy names one of the cluster's providers: {strategy}")
        expect(
            service.get("runningCount") == w["count"] == service.get("desiredCount"),
            f"service {name} runs {w['count']} tasks: running {service.get('runningCount')} of {service.get('desiredCount')}",
        )
        tasks = ecs.list_tasks(cluster="gpu-prod", serviceName=name)["taskArns"]
        described = ecs.describe_tasks(cluster="gpu-prod", tasks=tasks)["tasks"] if tasks else []
        gpu_ids = [g for t in described for c in t.get("containers", []) for g in c.get("gpuIds", [])]
        expect(
            len(described) == w["count"] and len(gpu_ids) == w["count"] * w["gpus"] and len(set(gpu_ids)) == len(gpu_ids),
            f"each {name} task holds {w['gpus']} GPU(s) of its own: {len(described)} tasks, {len(gpu_ids)} GPU IDs",
        )
        instances = {t["containerInstanceArn"] for t in described}
        found = ecs.describe_container_instances(cluster="gpu-prod", containerInstances=list(instances))["containerInstances"] if instances else []
        expect(found and len(found) == len(instances), f"the instances of {name}'s tasks are registered: {len(found)} of {len(instances)}")
        for instance in found:
            attributes = {a["name"]: a.get("value") for a in instance.get("attributes", [])}
            gpus = [r for r in instance.get("registeredResources", []) if r["name"] == "GPU"]
            registered = len(gpus[0].get("stringSetValue", [])) if gpus else 0
            expect(
                attributes.get("ecs.instance-type") == w["type"] and instance.get("capacityProviderName") == providers[name],
                f"a task of {name} runs on a {w['type']} of its capacity provider: {attributes.get('ecs.instance-type')} {instance.get('capacityProviderName')}",
            )
            expect(registered == {"g6.12xlarge": 4, "g6.xlarge": 1}[w["type"]], f"the {w['type']} registered its GPUs: {registered}")

    vllm = services.get("vllm", {})
    deployment = vllm.get("deploymentConfiguration", {})
    expect(
        (deployment.get("minimumHealthyPercent"), deployment.get("maximumPercent")) == (100, 150),
        f"vllm deploys at 100% to 150%: {deployment}",
    )
    # The emulator keeps the deployment configuration as sent; the alarm's own existence is read from
    # CloudWatch.
    alarms = deployment.get("alarms", {})
    expect(alarms.get("alarmNames") == ["vllm-prod-target-5xx"] and alarms.get("enable"), f"vllm's deployment watches the 5xx alarm: {alarms}")
    cloudwatch = client("cloudwatch")
    found_alarms = [a["AlarmName"] for a in cloudwatch.describe_alarms(AlarmNames=["vllm-prod-target-5xx"])["MetricAlarms"]]
    expect(found_alarms == ["vllm-prod-target-5xx"], f"the 5xx alarm exists: {found_alarms}")
    balancers = vllm.get("loadBalancers", [])
    target_group = elb.describe_target_groups(Names=["vllm-prod"])["TargetGroups"][0]["TargetGroupArn"]
    expect(
        [(b.get("targetGroupArn"), b.get("containerName"), b.get("containerPort")) for b in balancers] == [(target_group, "app", 8000)],
        f"vllm is registered in its target group on 8000: {balancers}",
    )
    # The rule from the load balancer's group into the tasks' group, on the service's port.
    groups = vllm.get("networkConfiguration", {}).get("awsvpcConfiguration", {}).get("securityGroups", [])
    rules = ec2.describe_security_group_rules(Filters=[{"Name": "group-id", "Values": groups}])["SecurityGroupRules"] if groups else []
    from_lb = [r for r in rules if not r["IsEgress"] and r.get("ReferencedGroupInfo", {}).get("GroupId") == alb_security_group_id]
    expect(
        [(r["FromPort"], r["ToPort"]) for r in from_lb] == [(8000, 8000)],
        f"the tasks' group lets the load balancer in on 8000 only: {[(r['FromPort'], r['ToPort']) for r in from_lb]}",
    )
    # Service Connect: moto keeps no serviceConnectConfiguration, so it is read from the request the
    # provider sent (moto's recorder).
    for name, port in (("vllm", 8000), ("embed", 8080)):
        connect = created_service(name).get("serviceConnectConfiguration", {})
        services_sent = connect.get("services", [])
        timeout = services_sent[0].get("timeout", {}) if services_sent else {}
        expect(
            connect.get("enabled") is True and connect.get("namespace", "").startswith("arn:")
            and [a.get("port") for s in services_sent for a in s.get("clientAliases", [])] == [port],
            f"{name} joins the Service Connect namespace on {port}: {connect}",
        )
        expect(timeout.get("perRequestTimeoutSeconds", 0) > 15, f"{name}'s per-request timeout is above 15 s: {timeout}")
    expect(providers["vllm"] != providers["embed"], f"each service has its own capacity provider: {providers}")
    scaling = client("application-autoscaling").describe_scalable_targets(
        ServiceNamespace="ecs", ResourceIds=["service/gpu-prod/vllm"]
    )["ScalableTargets"]
    expect(
        [(t["MinCapacity"], t["MaxCapacity"]) for t in scaling] == [(2, 3)],
        f"vllm scales between 2 and 3 tasks: {[(t['MinCapacity'], t['MaxCapacity']) for t in scaling]}",
    )


def module_untouched(path, baseline_path, *changed):
    """A plan after an edit outside the module calls, against a plan of the same state without it:
    the edit adds exactly the `changed` addresses, and every other change (moto reads back less than
    it was given, so a refreshed plan shows some) is the same in both, to the value; nothing is
    destroyed and nothing is deferred."""
    plan, baseline = json.load(open(path)), json.load(open(baseline_path))

    def changes(p):
        return {c["address"]: c["change"] for c in p.get("resource_changes", []) if c["change"]["actions"] != ["no-op"]}

    edited, drift = changes(plan), changes(baseline)
    inside = [c["address"] for c in plan.get("resource_changes", []) if c["address"].startswith("module.")]
    print(f"changed by the edit: {sorted(set(edited) - set(drift))}; moto's read-back drift, in both plans: {sorted(drift)}")
    expect(sorted(set(edited) - set(drift)) == sorted(changed), f"the edit changes only {sorted(changed)}")
    differ = [
        a for a in drift
        if a not in edited or any(edited[a].get(k) != drift[a].get(k) for k in ("actions", "after", "after_unknown"))
    ]
    expect(differ == [], f"every other change is the same with and without the edit: {differ}")
    destroyed = [a for a, c in edited.items() if "delete" in c["actions"]]
    expect(destroyed == [], f"nothing is destroyed or replaced: {destroyed}")
    expect(len(inside) > 20, f"the plan covers the module calls' resources ({len(inside)})")
    deferred = [c["address"] for c in plan.get("deferred_changes", [])]
    expect(deferred == [], f"nothing is deferred: {deferred}")


def plan_actions(path):
    """Print every change of a plan, one line each (address, actions, values after), sorted: the
    upgrade mode of test-e2e.sh compares these lines between the plans of two versions of the
    modules. Nothing for a plan that changes nothing."""
    plan = json.load(open(path))
    lines = [
        json.dumps([c["address"], c["change"]["actions"], c["change"].get("after"), c["change"].get("after_unknown")], sort_keys=True)
        for c in plan.get("resource_changes", [])
        if c["change"]["actions"] != ["no-op"]
    ]
    lines += [
        json.dumps(["output." + name, c["actions"], c.get("after"), c.get("after_unknown")], sort_keys=True)
        for name, c in plan.get("output_changes", {}).items()
        if c["actions"] != ["no-op"]
    ]
    lines += [json.dumps(["deferred", c["resource_change"]["address"]]) for c in plan.get("deferred_changes", [])]
    for line in sorted(lines):
        print(line)


def empty():
    ecs = client("ecs")
    arns = [a for a in ecs.list_clusters()["clusterArns"] if not a.endswith(("/shared-gpu", "/platform"))]
    # moto keeps a deleted cluster in the list, INACTIVE, as DescribeClusters shows it on AWS.
    clusters = ecs.describe_clusters(clusters=arns)["clusters"] if arns else []
    left = [c["clusterName"] for c in clusters if c["status"] != "INACTIVE"]
    expect(left == [], f"no cluster of the examples is left: {left}")
    groups = client("autoscaling").describe_auto_scaling_groups()["AutoScalingGroups"]
    expect(groups == [], f"no Auto Scaling group is left: {[g['AutoScalingGroupName'] for g in groups]}")
    cloudwatch = client("cloudwatch")
    alarms = [a["AlarmName"] for a in cloudwatch.describe_alarms()["MetricAlarms"]]
    expect(alarms == [], f"no alarm is left: {alarms}")
    dashboards = [d["DashboardName"] for d in cloudwatch.list_dashboards()["DashboardEntries"]]
    expect(dashboards == [], f"no dashboard is left: {dashboards}")


def serve(port):
    """moto's server, with Application Auto Scaling's ListTagsForResource answered (moto does not
    implement it, and the provider retries it until its timeout), and placement groups (moto has
    none)."""
    from moto.applicationautoscaling.responses import ApplicationAutoScalingResponse
    from moto.server import main as moto_main

    def list_tags_for_resource(self):
        return json.dumps({"Tags": {}})

    ApplicationAutoScalingResponse.list_tags_for_resource = list_tags_for_resource

    # moto has no placement groups: a minimal store, enough for the provider to create, read and
    # delete the module's cluster placement group (`efa`), and for the checks to read it back.
    from moto.core.responses import ActionResult
    from moto.ec2.responses import EC2Response

    placement_groups = {}

    def create_placement_group(self):
        name = self._get_param("GroupName")
        placement_groups[name] = {
            "GroupName": name,
            "GroupId": "pg-" + format(abs(hash(name)) % (1 << 68), "017x"),
            "GroupArn": f"arn:aws:ec2:{self.region}:{self.current_account}:placement-group/{name}",
            "Strategy": self._get_param("Strategy"),
            "State": "available",
            "Tags": [],
        }
        return ActionResult({"PlacementGroup": placement_groups[name]})

    def describe_placement_groups(self):
        names = self._get_param("GroupNames", []) or []
        ids = self._get_param("GroupIds", []) or []
        found = [
            g for g in placement_groups.values()
            if (not names and not ids) or g["GroupName"] in names or g["GroupId"] in ids
        ]
        return ActionResult({"PlacementGroups": found})

    def delete_placement_group(self):
        placement_groups.pop(self._get_param("GroupName"), None)
        return ActionResult({})

    EC2Response.create_placement_group = create_placement_group
    EC2Response.describe_placement_groups = describe_placement_groups
    EC2Response.delete_placement_group = delete_placement_group
    moto_main(["-H", "127.0.0.1", "-p", port])


def main():
    command = sys.argv[1]
    if command == "serve":
        serve(sys.argv[2])
        return
    if command == "seed":
        seed()
        return
    commands = {
        "check": check,
        "effects": effects,
        "diagnose": diagnose,
        "moves": moves,
        "mps": mps,
        "gpu-metrics": gpu_metrics,
        "service-moved": service_moved,
        "production": production,
        "module-untouched": module_untouched,
        "plan-actions": plan_actions,
    }
    commands.get(command, lambda *a: empty())(*sys.argv[2:])
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
