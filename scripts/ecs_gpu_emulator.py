#!/usr/bin/env python3
"""A GPU-faithful Amazon ECS on top of moto's server, for the live and end-to-end tests.

moto (PyPI `moto[server]`) answers the ECS, EC2 and Auto Scaling APIs, but it registers no GPU on a
container instance, never runs a service's tasks, and drops a service's capacity provider strategy
and placement constraints when it is read back. This wrapper patches moto in process so that those
parts answer as ECS does; everything else is moto's.

Entry points:

    python scripts/ecs_gpu_emulator.py serve PORT      # moto's server on 127.0.0.1:PORT, emulated
    python -c 'import ecs_gpu_emulator as e; e.install(); ...'   # patch moto, then start it yourself

`install()` is idempotent and must run before moto serves its first request. `serve(port)` calls it
and starts moto's server on 127.0.0.1 only. `scripts/test-live.sh` and `scripts/test-e2e.sh` start
the server this way; docs/emulator.md says what is emulated and what is not.

What it emulates (each rule names the ECS behaviour it follows):

* The ECS agent joining a cluster: a running EC2 instance whose user data sets `ECS_CLUSTER=<name>`
  (as `/etc/ecs/ecs.config` lines, however the user data writes them) registers as a container
  instance of that cluster, as the agent does at boot; `RegisterContainerInstance` also works. An
  instance that is terminated or stopped is deregistered, and its tasks stop.
* Registered resources: CPU = vCPUs x 1024 and MEMORY = memory in MiB less `ECS_RESERVED_MEMORY`
  (the agent's rules, catalog `agent`), vCPUs and memory of GPU types from the project's catalog
  (crates/ecs-gpu-catalog/data/catalog.json), of other types from moto's EC2 instance type data.
* GPUs: an instance of a type with whole NVIDIA GPUs (catalog `gpu_count`) whose user data sets
  `ECS_ENABLE_GPU_SUPPORT=true` registers a `GPU` resource with one ID per GPU and the driver
  attributes the agent adds. Without the setting it registers none (the emulator cannot tell an ECS
  GPU-optimized AMI, which sets it by itself, from another AMI).
* The instance's capacity provider: an instance launched by an Auto Scaling group gets the name of
  the capacity provider over that group (`capacityProviderName`).
* Services keep `capacityProviderStrategy`, `placementConstraints`, `placementStrategy`,
  `availabilityZoneRebalancing`, `enableECSManagedTags` and `deploymentConfiguration` (with ECS's defaults, 100% and 200%) and read them back.
* Service scheduling, at every ECS call: the service's tasks are placed by ECS's rules — whole GPUs
  per task (the sum over containers, pinned by ID), CPU and memory (task level, else the sum of the
  containers), host ports, the instances of the strategy's capacity providers only, `memberOf`
  constraints of the service and the task definition evaluated on the instance's attributes, and
  `distinctInstance`. A deployment (new task definition, `forceNewDeployment`) starts new tasks up
  to `maximumPercent` and stops old ones down to `minimumHealthyPercent`, as the rolling update
  does; a lower desired count stops tasks. The service's `runningCount`, `deployments`
  (`rolloutState` COMPLETED or IN_PROGRESS) and `events` (steady state, "unable to place a task ...
  insufficient GPU available") say what happened.
* Managed scaling: when a service's tasks cannot be placed and its capacity provider has managed
  scaling ENABLED and is attached to the cluster, the Auto Scaling group's desired capacity is raised
  (up to its max size) by the instances the tasks need; moto launches them and they join.
* Launch templates: the template's own tags are not read back as part of its data (moto mixes
  them into the first version's tag specifications; EC2 keeps them apart).
* Managed termination protection: while it is ENABLED, the instances that run tasks are protected
  from scale-in in the Auto Scaling group, and the others are not.

What it does not emulate: task and instance start-up time (a placed task is RUNNING at once),
PROVISIONING tasks (a task that cannot be placed does not exist; the service event says why),
health checks and load balancers, the capacity provider's step sizes and the reservation of two
instances when scaling from zero, fractional GPUs (g6f, gr6f register no GPU), `ALL`, MPS sharing,
Fargate, the `spread`/`binpack` placement strategies beyond the order they pick instances in, and
the cluster query language beyond `==`, `!=`, `in`, `not_in`, `exists`, `!exists`, `=~`, `!~`,
the numeric comparisons, `and`/`&&`, `or`/`||`, `not`/`!` and parentheses.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import sys
import threading
import traceback
import types
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "crates" / "ecs-gpu-catalog" / "data" / "catalog.json"

# The driver version the emulated agent reports: the one of the saved healthy cluster in
# crates/ecs-gpu-diagnose/tests/scenarios/healthy (a real ECS GPU-optimized AMI's driver).
DRIVER_VERSION = "580.159.03"

_LOCK = threading.RLock()
_INSTALLED = False


# ---------------------------------------------------------------------------------- instance facts


def _catalog():
    with open(CATALOG) as f:
        return json.load(f)


_GPU_TYPES = None


def gpu_types():
    """Instance type -> the catalog's entry, for the GPU types."""
    global _GPU_TYPES
    if _GPU_TYPES is None:
        _GPU_TYPES = {t["instance_type"]: t for t in _catalog()["instance_types"]}
    return _GPU_TYPES


def whole_gpus(instance_type):
    """Whole NVIDIA GPUs of a type (catalog), 0 for a type without them or with a GPU partition."""
    t = gpu_types().get(instance_type)
    if not t or t.get("gpu_vendor") != "NVIDIA" or t.get("gpu_fraction"):
        return 0
    return int(t.get("gpu_count") or 0)


def _moto_instance_type(instance_type):
    from moto.ec2.models.instance_types import INSTANCE_TYPES

    return INSTANCE_TYPES.get(instance_type) or {}


def vcpus_and_memory(instance_type):
    """(vCPUs, memory MiB): the catalog's for GPU types, moto's EC2 data for the others."""
    t = gpu_types().get(instance_type)
    if t:
        return int(t["vcpus"]), int(t["memory_mib"])
    m = _moto_instance_type(instance_type)
    vcpus = (m.get("VCpuInfo") or {}).get("DefaultVCpus")
    memory = (m.get("MemoryInfo") or {}).get("SizeInMiB")
    if vcpus and memory:
        return int(vcpus), int(memory)
    # moto's own defaults for a container instance of an unknown type.
    return 4, 7482


def architecture(instance_type):
    t = gpu_types().get(instance_type)
    if t and t.get("architecture"):
        return t["architecture"]
    archs = ((_moto_instance_type(instance_type).get("ProcessorInfo") or {}).get("SupportedArchitectures")) or []
    return "arm64" if archs == ["arm64"] else "x86_64"


# ------------------------------------------------------------------------------------- user data


def user_data_text(instance):
    """The user data of a moto EC2 instance as text ("" when none or unreadable)."""
    raw = getattr(instance, "user_data", None)
    if isinstance(raw, list):
        raw = raw[0] if raw else None
    if raw is None:
        return ""
    if hasattr(raw, "as_bytes"):
        raw = raw.as_bytes()
    if isinstance(raw, str):
        raw = raw.encode()
    data = raw
    try:
        data = base64.b64decode(raw, validate=True)
    except Exception:
        pass
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:
            return ""
    return data.decode("utf-8", "replace")


_ECS_SETTING = re.compile(r"\b(ECS_[A-Z0-9_]+)=([^\s\"'>|;&]*)")


def ecs_config(instance):
    """The `ECS_*=value` settings its user data writes (the last one of each wins, as in a file)."""
    return dict(_ECS_SETTING.findall(user_data_text(instance)))


# --------------------------------------------------------------------------- the query language


class QueryError(ValueError):
    pass


_TOKEN = re.compile(r"\s*(\(|\)|\[|\]|,|&&|\|\||!=|==|>=|<=|=~|!~|>|<|!|[^\s()\[\],!=<>~&|]+)")


def _tokens(expr):
    pos, out = 0, []
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise QueryError(f"cannot read {expr[pos:]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


def evaluate(expr, facts):
    """Whether a `memberOf` expression holds for an instance. `facts(subject)` gives the values of a
    subject: a list of strings (empty when the instance does not have it)."""
    toks = _tokens(expr)
    pos = 0

    def peek():
        return toks[pos].lower() if pos < len(toks) else None

    def take():
        nonlocal pos
        if pos >= len(toks):
            raise QueryError("the expression ends early")
        pos += 1
        return toks[pos - 1]

    def disjunction():
        v = conjunction()
        while peek() in ("||", "or"):
            take()
            r = conjunction()
            v = v or r
        return v

    def conjunction():
        v = unary()
        while peek() in ("&&", "and"):
            take()
            r = unary()
            v = v and r
        return v

    def unary():
        if peek() in ("!", "not"):
            take()
            return not unary()
        if peek() == "(":
            take()
            v = disjunction()
            if take() != ")":
                raise QueryError("a parenthesis is not closed")
            return v
        return comparison()

    def values_list():
        if take() != "[":
            raise QueryError("expected a list")
        vals = []
        while peek() != "]":
            vals.append(take())
            if peek() == ",":
                take()
        take()
        return vals

    def number(s):
        try:
            return float(s)
        except ValueError:
            return None

    def comparison():
        subject = take()
        op = take().lower()
        have = facts(subject)
        if op == "exists":
            return bool(have)
        if op in ("!exists", "not_exists"):
            return not have
        if op in ("in", "!in", "not_in"):
            vals = values_list()
            hit = any(h in vals for h in have)
            return hit if op == "in" else not hit
        value = take()
        if op in ("==", "equals"):
            return value in have
        if op in ("!=", "not_equals"):
            return value not in have
        if op in ("=~", "matches"):
            return any(re.fullmatch(value, h) for h in have)
        if op in ("!~", "not_matches"):
            return not any(re.fullmatch(value, h) for h in have)
        if op in (">", ">=", "<", "<="):
            want = number(value)
            for h in have:
                n = number(h)
                if n is None or want is None:
                    continue
                if {">": n > want, ">=": n >= want, "<": n < want, "<=": n <= want}[op]:
                    return True
            return False
        raise QueryError(f"operator {op!r} is not emulated")

    result = disjunction()
    if pos != len(toks):
        raise QueryError(f"unexpected {toks[pos]!r}")
    return result


# ----------------------------------------------------------------------------------- the patches


def _backends(ecs):
    from moto.autoscaling.models import autoscaling_backends
    from moto.ec2.models import ec2_backends

    return ec2_backends[ecs.account_id][ecs.region_name], autoscaling_backends[ecs.account_id][ecs.region_name]


def _resource(ci, which, name):
    for r in getattr(ci, which):
        if r.get("name") == name:
            return r
    return None


def _configure_instance(ecs, ci):
    """Registered resources, GPUs, attributes and capacity provider of a new container instance, as
    the agent and ECS set them."""
    ec2, asg_backend = _backends(ecs)
    try:
        instance = ec2.get_instance(ci.ec2_instance_id)
    except Exception:
        return
    itype = instance.instance_type
    config = ecs_config(instance)
    vcpus, memory = vcpus_and_memory(itype)
    try:
        reserved = int(config.get("ECS_RESERVED_MEMORY", "0") or 0)
    except ValueError:
        reserved = 0
    cpu, mem = vcpus * 1024, max(memory - reserved, 0)
    for which in ("registered_resources", "remaining_resources"):
        _resource(ci, which, "CPU")["integerValue"] = cpu
        _resource(ci, which, "MEMORY")["integerValue"] = mem
    gpus = whole_gpus(itype)
    if gpus and config.get("ECS_ENABLE_GPU_SUPPORT", "").lower() == "true":
        ids = [f"GPU-{uuid.uuid5(uuid.NAMESPACE_OID, f'{ci.ec2_instance_id}/{i}')}" for i in range(gpus)]
        for which in ("registered_resources", "remaining_resources"):
            getattr(ci, which).append(
                {"name": "GPU", "type": "STRINGSET", "doubleValue": 0.0, "longValue": 0, "integerValue": 0, "stringSetValue": list(ids)}
            )
        ci.attributes[f"ecs.capability.nvidia-driver-version.{DRIVER_VERSION}"] = None
        ci.attributes["ecs.capability.gpu-driver-version"] = DRIVER_VERSION
    ci.attributes["ecs.os-family"] = "LINUX"
    ci.attributes["ecs.cpu-architecture"] = architecture(itype)
    ci.capacity_provider_name = None
    group = getattr(instance, "autoscaling_group", None)
    if group is not None:
        for cp in ecs.capacity_providers.values():
            arn = (cp.auto_scaling_group_provider or {}).get("autoScalingGroupArn", "")
            if arn == group.arn or arn.endswith(f"autoScalingGroupName/{group.name}") or arn == group.name:
                ci.capacity_provider_name = cp.name
                break


def _sync_instances(ecs):
    """The agent's side: running instances whose user data names a cluster join it; instances that
    are no longer running leave, and their tasks stop."""
    ec2, _ = _backends(ecs)
    registered = {}
    for cluster_name, cis in ecs.container_instances.items():
        for ci_id, ci in cis.items():
            registered[ci.ec2_instance_id] = (cluster_name, ci_id, ci)
    for instance in ec2.all_instances():
        state = instance._state.name
        if instance.id in registered:
            cluster_name, ci_id, ci = registered[instance.id]
            if state not in ("running", "pending"):
                _deregister(ecs, cluster_name, ci_id, ci, f"Host EC2 (instance {instance.id}) {state}.")
            continue
        if state != "running":
            continue
        cluster = ecs_config(instance).get("ECS_CLUSTER")
        if cluster and cluster in ecs.clusters and ecs.clusters[cluster].status == "ACTIVE":
            ecs.register_container_instance(cluster, instance.id)


def _deregister(ecs, cluster_name, ci_id, ci, reason):
    for task in list(ecs.tasks.get(cluster_name, {}).values()):
        if task.container_instance_arn == ci.container_instance_arn and task.desired_status == "RUNNING":
            _stop(ecs, task, reason, free=False)
    del ecs.container_instances[cluster_name][ci_id]
    cluster = ecs.clusters.get(cluster_name)
    if cluster is not None:
        cluster.registered_container_instances_count = len(ecs.container_instances[cluster_name])


class _Container:
    """A task's container as DescribeTasks prints it (moto keeps only the first definition)."""

    def __init__(self, task, definition, gpu_ids):
        self.container_arn = f"{task.task_arn.replace(':task/', ':container/')}/{uuid.uuid4()}"
        self.task_arn = task.task_arn
        self.name = definition.get("name")
        self.image = definition.get("image")
        self.last_status = "RUNNING"
        self.gpu_ids = gpu_ids
        self.cpu = str(definition.get("cpu", 0))
        self.memory = str(definition["memory"]) if definition.get("memory") else None
        self.memory_reservation = str(definition["memoryReservation"]) if definition.get("memoryReservation") else None
        self.network_interfaces = []
        self.network_bindings = []


def _needs(task_def):
    """What one task of a task definition takes on an instance: CPU units, MiB, whole GPUs per
    container, host ports."""
    containers = task_def.container_definitions
    cpu = int(task_def.cpu) if str(task_def.cpu or "").isdigit() else sum(int(c.get("cpu") or 0) for c in containers)
    if str(task_def.memory or "").isdigit():
        memory = int(task_def.memory)
    else:
        memory = sum(int(c.get("memory") or c.get("memoryReservation") or 0) for c in containers)
    gpus = []
    for c in containers:
        n = 0
        for r in c.get("resourceRequirements") or []:
            if r.get("type") == "GPU" and str(r.get("value", "")).isdigit():
                n += int(r["value"])
        gpus.append(n)
    ports = [str(p["hostPort"]) for c in containers for p in c.get("portMappings") or [] if p.get("hostPort")]
    return cpu, memory, gpus, ports


def _free(ci, name):
    r = _resource(ci, "remaining_resources", name)
    if r is None:
        return None
    if r.get("type") == "STRINGSET":
        return list(r.get("stringSetValue") or [])
    return int(r.get("integerValue") or 0)


def _facts(ci, tasks_on):
    def facts(subject):
        s = subject.strip()
        if s.startswith("attribute:"):
            name = s[len("attribute:") :]
            if name not in ci.attributes:
                return []
            v = ci.attributes[name]
            return [v if v is not None else ""]
        if s == "ec2InstanceId":
            return [ci.ec2_instance_id]
        if s == "agentConnected":
            return [str(ci.agent_connected).lower()]
        if s == "agentVersion":
            return [ci.version_info.get("agentVersion", "")]
        if s == "runningTasksCount":
            return [str(ci.running_tasks_count)]
        if s == "task:group":
            return sorted({t.group for t in tasks_on})
        raise QueryError(f"subject {s!r} is not emulated")

    return facts


def _why_not(ecs, cluster_name, ci, task_def, service, constraints):
    """Why a task cannot go on an instance, in the words of ECS's service events, or None."""
    cpu, memory, gpus, ports = _needs(task_def)
    running = [t for t in ecs.tasks.get(cluster_name, {}).values() if t.container_instance_arn == ci.container_instance_arn and t.desired_status == "RUNNING"]
    for c in constraints:
        kind = c.get("type")
        if kind == "distinctInstance" and any(t.group == f"service:{service.name}" for t in running):
            return 'encountered error "DistinctInstance placement constraint unsatisfied."'
        if kind == "memberOf" and not evaluate(c.get("expression", ""), _facts(ci, running)):
            return 'encountered error "MemberOf placement constraint unsatisfied."'
    free_gpus = _free(ci, "GPU") or []
    if sum(gpus) > len(free_gpus):
        return "has insufficient GPU available"
    if cpu > (_free(ci, "CPU") or 0):
        return "has insufficient CPU units available"
    if memory > (_free(ci, "MEMORY") or 0):
        return "has insufficient memory available"
    used = set(_free(ci, "PORTS") or [])
    if any(p in used for p in ports):
        return "is already using a port required by your task"
    return None


def _take(ci, cpu, memory, gpus, ports, sign):
    for r in ci.remaining_resources:
        if r["name"] == "CPU":
            r["integerValue"] -= sign * cpu
        elif r["name"] == "MEMORY":
            r["integerValue"] -= sign * memory
        elif r["name"] == "PORTS":
            for p in ports:
                if sign > 0:
                    r["stringSetValue"].append(p)
                elif p in r["stringSetValue"]:
                    r["stringSetValue"].remove(p)
        elif r["name"] == "GPU":
            if sign > 0:
                for g in gpus:
                    r["stringSetValue"].remove(g)
            else:
                r["stringSetValue"].extend(g for g in gpus if g not in r["stringSetValue"])
    ci.running_tasks_count += sign


def _start(ecs, cluster, ci, task_def, service, deployment_id):
    from moto.ecs.models import Task

    cpu, memory, gpus, ports = _needs(task_def)
    free = _free(ci, "GPU") or []
    # moto's own awsvpc path fails on a VPC without DNS host names: the task is made as a bridge
    # task and given its network interface here.
    as_bridge = types.SimpleNamespace(
        arn=task_def.arn, network_mode="bridge", container_definitions=task_def.container_definitions
    )
    task = Task(
        cluster,
        as_bridge,
        ci.container_instance_arn,
        {"CPU": cpu, "MEMORY": memory, "PORTS": ports, "PORTS_UDP": []},
        backend=ecs,
        group=f"service:{service.name}",
        launch_type=service.launch_type or "",
        started_by=deployment_id,
        capacity_provider_name=ci.capacity_provider_name,
    )
    if task_def.network_mode == "awsvpc":
        _attach_interface(ecs, task, service)
    # A placed task stays RUNNING: moto advances a task's status each time it is described.
    task._transitions = [("RUNNING", "RUNNING")]
    task.status = "RUNNING"
    task.desired_status = "RUNNING"
    task.container_instance_arn = ci.container_instance_arn
    held, containers = [], []
    for definition, n in zip(task_def.container_definitions, gpus):
        mine = free[len(held) : len(held) + n]
        held.extend(mine)
        containers.append(_Container(task, definition, mine))
    task.containers = containers
    task._ecs_gpu = {"deployment": deployment_id, "gpus": held, "cpu": cpu, "memory": memory, "ports": ports}
    _take(ci, cpu, memory, held, ports, +1)
    ecs.tasks.setdefault(cluster.name, {})[task.task_arn] = task
    return task


def _attach_interface(ecs, task, service):
    """An awsvpc task's network interface, in the first subnet of the service's configuration."""
    config = (service.network_configuration or {}).get("awsvpcConfiguration") or {}
    subnets = config.get("subnets") or []
    if not subnets:
        return
    ec2, _ = _backends(ecs)
    try:
        eni = ec2.create_network_interface(
            subnet=subnets[0], private_ip_address=None, group_ids=config.get("securityGroups") or [], description="moto ECS"
        )
    except Exception:
        return
    eni.status = "in-use"
    task.network_configuration = {"awsvpcConfiguration": config}
    task.attachments = [
        {
            "id": str(uuid.uuid4()),
            "type": "ElasticNetworkInterface",
            "status": "ATTACHED",
            "details": [
                {"name": "subnetId", "value": subnets[0]},
                {"name": "networkInterfaceId", "value": eni.id},
                {"name": "macAddress", "value": eni.mac_address},
                {"name": "privateIPv4Address", "value": eni.private_ip_address},
            ],
        }
    ]


def _stop(ecs, task, reason, free=True):
    task.desired_status = "STOPPED"
    task.status = "STOPPED"
    task.stopped_reason = reason
    task.stop_code = "ServiceSchedulerInitiated"
    for c in task.containers:
        c.last_status = "STOPPED"
    info = getattr(task, "_ecs_gpu", None)
    if free and info and task.container_instance_arn:
        for cis in ecs.container_instances.values():
            for ci in cis.values():
                if ci.container_instance_arn == task.container_instance_arn:
                    _take(ci, info["cpu"], info["memory"], info["gpus"], info["ports"], -1)


def _event(service, message):
    from moto.core.utils import utcnow

    message = f"(service {service.name}) {message}"
    # The same event again (for another closest instance) is not news.
    same = message.split(" The closest matching")[0]
    if service.events and service.events[0]["message"].split(" The closest matching")[0] == same:
        return
    service.events.insert(0, {"id": str(uuid.uuid4()), "createdAt": utcnow(), "message": message})
    del service.events[100:]


def _strategy(service, cluster):
    if service.launch_type:
        return []
    return [s["capacityProvider"] for s in (service.capacity_provider_strategy or cluster.default_capacity_provider_strategy or [])]


def _place_one(ecs, cluster, service, task_def, deployment_id):
    """Places one task of the service, or says why not (the closest instance's reason)."""
    providers = _strategy(service, cluster)
    constraints = list(service.placement_constraints or []) + list(task_def.placement_constraints or [])
    instances = [
        ci
        for ci in ecs.container_instances.get(cluster.name, {}).values()
        if ci.status == "ACTIVE" and ci.agent_connected and (not providers or ci.capacity_provider_name in providers)
    ]
    if not instances:
        return None, "was unable to place a task because no container instance met all of its requirements. Reason: No Container Instances were found in your cluster. For more information, see the Troubleshooting section."
    tasks = [t for t in ecs.tasks.get(cluster.name, {}).values() if t.desired_status == "RUNNING"]

    def mine_on(ci):
        return sum(1 for t in tasks if t.container_instance_arn == ci.container_instance_arn and t.group == f"service:{service.name}")

    def order(ci):
        # The default spread over availability zones, then over instances; binpack on memory packs.
        strategies = service.placement_strategy or [{"type": "spread", "field": "attribute:ecs.availability-zone"}, {"type": "spread", "field": "instanceId"}]
        key = []
        for s in strategies:
            if s.get("type") == "binpack":
                key.append(_free(ci, "CPU" if (s.get("field") or "").lower() == "cpu" else "MEMORY") or 0)
            elif s.get("type") == "spread":
                field = s.get("field") or "instanceId"
                if field.startswith("attribute:"):
                    v = ci.attributes.get(field[len("attribute:") :])
                    key.append(sum(mine_on(o) for o in instances if o.attributes.get(field[len("attribute:") :]) == v))
                else:
                    key.append(mine_on(ci))
        return (*key, ci.container_instance_arn)

    reasons = []
    for ci in sorted(instances, key=order):
        why = _why_not(ecs, cluster.name, ci, task_def, service, constraints)
        if why is None:
            return _start(ecs, cluster, ci, task_def, service, deployment_id), None
        reasons.append((ci, why))
    ci, why = reasons[0]
    ci_id = ci.container_instance_arn.rsplit("/", 1)[-1]
    return None, f"was unable to place a task because no container instance met all of its requirements. The closest matching container-instance {ci_id} {why}. For more information, see the Troubleshooting section."


def _deployment(service, task_definition_arn, desired):
    from moto.core.utils import utcnow
    from moto.moto_api._internal import mock_random

    now = utcnow()
    return {
        "id": f"ecs-svc/{mock_random.randint(0, 32**12)}",
        "status": "PRIMARY",
        "taskDefinition": task_definition_arn,
        "desiredCount": desired,
        "pendingCount": 0,
        "runningCount": 0,
        "failedTasks": 0,
        "createdAt": now,
        "updatedAt": now,
        "launchType": service.launch_type,
        "capacityProviderStrategy": service.capacity_provider_strategy or None,
        "rolloutState": "IN_PROGRESS",
        "rolloutStateReason": "ECS deployment in progress.",
    }


def _schedule(ecs, service):
    """One pass of the service scheduler: a rolling update of the primary deployment, then the
    counts, deployments and events it leads to. Returns the tasks it could not place."""
    cluster = ecs.clusters.get(service.cluster_name)
    if cluster is None:
        return 0
    group = f"service:{service.name}"
    tasks = [t for t in ecs.tasks.get(cluster.name, {}).values() if t.group == group and t.desired_status == "RUNNING"]
    if service.status != "ACTIVE":
        for t in tasks:
            _stop(ecs, t, "Service deleted")
        service.running_count = service.pending_count = 0
        return 0
    if not service.deployments or service.deployments[0].get("taskDefinition") != service.task_definition or getattr(service, "_ecs_gpu_force", False):
        service._ecs_gpu_force = False
        for d in service.deployments:
            d["status"] = "ACTIVE"
        service.deployments.insert(0, _deployment(service, service.task_definition, service.desired_count))
    primary = service.deployments[0]
    primary["desiredCount"] = service.desired_count
    task_def = ecs.describe_task_definition(primary["taskDefinition"])
    config = service.deployment_configuration
    desired = service.desired_count
    max_tasks = math.floor(desired * config["maximumPercent"] / 100)
    min_healthy = math.ceil(desired * config["minimumHealthyPercent"] / 100)
    new = [t for t in tasks if t.started_by == primary["id"]]
    old = [t for t in tasks if t.started_by != primary["id"]]
    reason = None
    while True:
        progress = False
        # A lower desired count: the newest tasks stop.
        while len(new) > desired:
            _stop(ecs, new.pop(), "Scaling activity initiated by (deployment %s)" % primary["id"])
            progress = True
        # New tasks start while the service stays at or under maximumPercent...
        while len(new) < desired and len(old) + len(new) < max_tasks:
            task, why = _place_one(ecs, cluster, service, task_def, primary["id"])
            if task is None:
                reason = why
                break
            new.append(task)
            progress = True
        # ...and old ones stop while the healthy tasks stay at or above minimumHealthyPercent.
        while old and len(old) - 1 + len(new) >= min_healthy:
            _stop(ecs, old.pop(0), "Scaling activity initiated by (deployment %s)" % primary["id"])
            progress = True
        if not progress:
            break
    unplaced = desired - len(new)
    service.running_count = len(new) + len(old)
    service.pending_count = 0
    primary["runningCount"] = len(new)
    for d in service.deployments[1:]:
        d["runningCount"] = sum(1 for t in old if t.started_by == d["id"])
    service.deployments = [primary] + [d for d in service.deployments[1:] if d["runningCount"] > 0]
    if unplaced == 0 and not old:
        if primary["rolloutState"] != "COMPLETED":
            primary["rolloutState"] = "COMPLETED"
            primary["rolloutStateReason"] = "ECS deployment completed."
        _event(service, "has reached a steady state.")
    elif reason:
        _event(service, reason)
    return unplaced


def _managed_scaling(ecs, service, unplaced):
    """ECS managed scaling: more instances for tasks that cannot be placed, up to the max size."""
    cluster = ecs.clusters.get(service.cluster_name)
    providers = _strategy(service, cluster) if cluster else []
    if not unplaced or not providers:
        return False
    _, asg_backend = _backends(ecs)
    grew = False
    for name in providers:
        cp = ecs.capacity_providers.get(name)
        if cp is None or name not in (cluster.capacity_providers or []):
            continue
        provider = cp.auto_scaling_group_provider or {}
        if (provider.get("managedScaling") or {}).get("status") != "ENABLED":
            continue
        arn = provider.get("autoScalingGroupArn", "")
        group = next((g for g in asg_backend.autoscaling_groups.values() if g.arn == arn or arn.endswith(f"autoScalingGroupName/{g.name}")), None)
        if group is None or group.desired_capacity >= group.max_size:
            continue
        task_def = ecs.describe_task_definition(service.task_definition)
        per_instance = _tasks_per_instance(group.instance_type, task_def)
        if per_instance == 0:
            continue
        want = min(group.max_size, group.desired_capacity + math.ceil(unplaced / per_instance))
        group.set_desired_capacity(want)
        grew = True
    return grew


def _tasks_per_instance(instance_type, task_def):
    cpu, memory, gpus, _ = _needs(task_def)
    vcpus, mem = vcpus_and_memory(instance_type)
    limits = [vcpus * 1024 // cpu if cpu else None, mem // memory if memory else None, whole_gpus(instance_type) // sum(gpus) if sum(gpus) else None]
    fits = [n for n in limits if n is not None]
    return min(fits) if fits else 1


def _termination_protection(ecs):
    """Managed termination protection: the instances that run tasks are protected from scale-in."""
    _, asg_backend = _backends(ecs)
    busy = set()
    for cis in ecs.container_instances.values():
        for ci in cis.values():
            if ci.running_tasks_count > 0:
                busy.add(ci.ec2_instance_id)
    for cp in ecs.capacity_providers.values():
        provider = cp.auto_scaling_group_provider or {}
        if provider.get("managedTerminationProtection") != "ENABLED":
            continue
        arn = provider.get("autoScalingGroupArn", "")
        for group in asg_backend.autoscaling_groups.values():
            if group.arn == arn or arn.endswith(f"autoScalingGroupName/{group.name}"):
                for state in group.instance_states:
                    state.protected_from_scale_in = state.instance.id in busy


def reconcile(ecs):
    """Everything the agent, the scheduler and managed scaling would have done by now."""
    with _LOCK:
        for _ in range(5):
            _sync_instances(ecs)
            grew = False
            for service in list(ecs.services.values()):
                # One service the emulator cannot schedule must not fail the API call that
                # triggered the pass: it is logged, and the others are scheduled.
                try:
                    if not isinstance(getattr(service, "deployment_configuration", None), dict):
                        _adopt(service, {})
                    unplaced = _schedule(ecs, service)
                    grew = _managed_scaling(ecs, service, unplaced) or grew
                except Exception:
                    sys.stderr.write(f"ecs_gpu_emulator: service {service.name}: {traceback.format_exc()}")
            _termination_protection(ecs)
            if not grew:
                break
        for cluster in ecs.clusters.values():
            tasks = [t for t in ecs.tasks.get(cluster.name, {}).values() if t.desired_status == "RUNNING"]
            cluster.running_tasks_count = len(tasks)
            cluster.pending_tasks_count = 0
            cluster.registered_container_instances_count = len(ecs.container_instances.get(cluster.name, {}))
            cluster.active_services_count = sum(1 for s in ecs.services.values() if s.cluster_name == cluster.name and s.status == "ACTIVE")


def _adopt(service, params):
    """Keeps what CreateService and UpdateService were given that moto drops."""
    if params.get("capacityProviderStrategy") is not None:
        service.capacity_provider_strategy = params["capacityProviderStrategy"]
        service.launch_type = None
    elif not hasattr(service, "capacity_provider_strategy"):
        service.capacity_provider_strategy = []
    if params.get("placementConstraints") is not None:
        service.placement_constraints = params["placementConstraints"]
    elif not isinstance(getattr(service, "placement_constraints", None), list):
        service.placement_constraints = []
    if params.get("placementStrategy") is not None:
        service.placement_strategy = params["placementStrategy"]
    elif not isinstance(getattr(service, "placement_strategy", None), list):
        service.placement_strategy = []
    config = getattr(service, "deployment_configuration", None)
    if not isinstance(config, dict):
        config = {}
    config.update({k: v for k, v in (params.get("deploymentConfiguration") or {}).items() if v is not None})
    config.setdefault("maximumPercent", 200)
    config.setdefault("minimumHealthyPercent", 100)
    config.setdefault("deploymentCircuitBreaker", {"enable": False, "rollback": False})
    service.deployment_configuration = config
    if params.get("availabilityZoneRebalancing") is not None:
        service.availability_zone_rebalancing = params["availabilityZoneRebalancing"]
    if params.get("enableECSManagedTags") is not None:
        service.enable_ecs_managed_tags = params["enableECSManagedTags"] in (True, "true")
    if params.get("forceNewDeployment"):
        service._ecs_gpu_force = True
    # ECS leaves out the network configuration of a service without one; moto answers `{}`, which
    # the provider cannot read.
    if not getattr(service, "network_configuration", None):
        service.network_configuration = None


def install():
    """Patches moto's ECS so that it answers as described in this module's docstring."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    from moto.ecs.models import EC2ContainerServiceBackend as Backend
    from moto.ecs.responses import EC2ContainerServiceResponse as Response
    from moto.moto_api import state_manager

    # Tasks this module does not start (RunTask) keep moto's behaviour; its own tasks never advance.
    state_manager.set_transition(model_name="ecs::task", transition={"progression": "manual", "times": 10**9})

    register = Backend.register_container_instance

    def register_container_instance(self, cluster_str, ec2_instance_id):
        with _LOCK:
            ci = register(self, cluster_str, ec2_instance_id)
            _configure_instance(self, ci)
            return ci

    Backend.register_container_instance = register_container_instance

    # An Auto Scaling group above its desired capacity terminates instances as soon as their
    # scale-in protection is removed (moto scales in only when the desired capacity changes).
    from moto.autoscaling.models import AutoScalingBackend

    protect = AutoScalingBackend.set_instance_protection

    def set_instance_protection(self, group_name, instance_ids, protected_from_scale_in):
        protect(self, group_name, instance_ids, protected_from_scale_in)
        group = self.autoscaling_groups[group_name]
        if not protected_from_scale_in and len(group.active_instances()) > (group.desired_capacity or 0):
            group.set_desired_capacity(group.desired_capacity)

    AutoScalingBackend.set_instance_protection = set_instance_protection

    # EC2 keeps a launch template's own tags (CreateLaunchTemplate's TagSpecifications, resource
    # type launch-template) apart from its data; moto adds them to the data of version 1, which the
    # provider then reads back as a tag specification the configuration never had.
    from moto.ec2.models.launch_templates import LaunchTemplateBackend

    create_template = LaunchTemplateBackend.create_launch_template

    def create_launch_template(self, name, description, template_data, tag_spec):
        specs = template_data.get("TagSpecifications")
        if specs:
            template_data["TagSpecifications"] = [t for t in specs if t.get("ResourceType") != "launch-template"]
        return create_template(self, name, description, template_data, tag_spec)

    LaunchTemplateBackend.create_launch_template = create_launch_template

    # Every read and write of the scheduler's state first brings it up to date.
    for name in (
        "list_container_instances",
        "describe_container_instances",
        "describe_services",
        "list_tasks",
        "describe_tasks",
        "describe_clusters",
        "list_services",
    ):
        original = getattr(Backend, name)

        def wrapped(self, *args, __original=original, **kwargs):
            reconcile(self)
            return __original(self, *args, **kwargs)

        setattr(Backend, name, wrapped)

    list_tasks = Backend.list_tasks

    def list_tasks_by_service(self, cluster_str=None, container_instance=None, family=None, started_by=None, service_name=None, desiredStatus=None):
        tasks = list_tasks(self, cluster_str, container_instance, family, started_by, None, desiredStatus)
        if service_name:
            name = service_name.rsplit("/", 1)[-1]
            tasks = [t for t in tasks if t.group == f"service:{name}"]
        return tasks

    Backend.list_tasks = list_tasks_by_service

    for name in ("create_service", "update_service", "delete_service"):
        handler = getattr(Response, name)

        def wrapped_handler(self, __handler=handler, __name=name):
            params = {
                k: self._get_param(k)
                for k in (
                    "launchType",
                    "capacityProviderStrategy",
                    "placementConstraints",
                    "placementStrategy",
                    "deploymentConfiguration",
                    "availabilityZoneRebalancing",
                    "forceNewDeployment",
                    "taskDefinition",
                    "enableECSManagedTags",
                )
            }
            # Read before moto's handler runs: UpdateService pops them from the parameters.
            wanted = (self._get_param("serviceName") or self._get_param("service") or "").rsplit("/", 1)[-1]
            cluster = (self._get_param("cluster") or "default").rsplit("/", 1)[-1]
            result = __handler(self)
            backend = self.ecs_backend
            service = next((s for s in backend.services.values() if s.name == wanted and s.cluster_name == cluster), None)
            if service is not None:
                with _LOCK:
                    if __name == "delete_service":
                        service.desired_count = 0
                    if __name == "create_service" and not params["launchType"] and not params["capacityProviderStrategy"]:
                        # Neither given: the cluster's default capacity provider strategy, if it has one.
                        default = backend.clusters[service.cluster_name].default_capacity_provider_strategy
                        if default:
                            params["capacityProviderStrategy"] = default
                    if params["taskDefinition"]:
                        # ECS answers with the revision's ARN, whatever form it was given in.
                        service.task_definition = backend.describe_task_definition(params["taskDefinition"]).arn
                    _adopt(service, params)
                    reconcile(backend)
            return result

        setattr(Response, name, wrapped_handler)


def serve(port):
    """moto's server on 127.0.0.1:`port`, emulated."""
    install()
    from moto.server import main as moto_main

    moto_main(["-H", "127.0.0.1", "-p", str(port)])


def main(argv):
    if len(argv) == 3 and argv[1] == "serve":
        serve(argv[2])
        return 0
    sys.stderr.write("usage: ecs_gpu_emulator.py serve PORT\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
