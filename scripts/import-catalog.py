#!/usr/bin/env python3
"""Generate crates/ecs-gpu-catalog/data/catalog.json from the source data beside it.

The inputs, all in crates/ecs-gpu-catalog/data/sources/ (see its README.md):

- gpu-instance-types.json: the curated GPU instance table, every field with its source keys;
- describe-instance-types/*.json: EC2 DescribeInstanceTypes records (`aws ec2
  describe-instance-types` output, GPU types only), one file per source. A type the curated table
  lacks is added from them; a type it has is checked against them, and a disagreement stops the
  run. The EFA facts of every type come from them;
- ecs-gpu-families.json: the ECS documentation's GPU family lists and each family's ECS status;
  a family in neither is `unverified`;
- ec2-instance-types.json: every instance type name of the EC2 API (botocore);
- ecs-gpu-ami-drivers.json: the NVIDIA driver of each ECS GPU AMI release, derived from the
  amazon-ecs-ami repository at a pinned commit by scripts/derive-ami-drivers.py (the first step of
  scripts/generate.sh, which re-derives it when that repository is at hand);
- nvidia-drivers.json: the driver branches families can use, CUDA and its driver table, the
  compatibility rules, the CUDA of well-known images, the AMI releases after that commit;
- ecs-gpu-facts.md and ecs-gpu-2026-updates.md: the ECS facts below cite them by source key.

This script copies the facts ecs-gpu uses, keeps their source keys and adds nothing of its own.
Nothing outside the repository is read. After a change, run `scripts/generate.sh` (which runs this
script first, then every generator that reads the catalog) and `cargo test -p ecs-gpu-catalog`.
New instance types arrive through `scripts/refresh-catalog.py` (docs/catalog.md).

    python3 scripts/import-catalog.py           # write catalog.json
    python3 scripts/import-catalog.py --check   # exit 1 when catalog.json differs from what the sources give
"""
import difflib
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
data = root / "crates" / "ecs-gpu-catalog" / "data"
source_dir = data / "sources"


def load(path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path.relative_to(root)}: {e}")


src = load(source_dir / "gpu-instance-types.json")
fams = load(source_dir / "ecs-gpu-families.json")
ec2_names = load(source_dir / "ec2-instance-types.json")
ami_drivers = load(source_dir / "ecs-gpu-ami-drivers.json")
nvidia = load(source_dir / "nvidia-drivers.json")


def field_values(field):
    """The values of an `instanceRequirements` field of ECS Managed Instances (source keys ECS-MI-GPU, BOTO)."""
    for entry in src["ecs_facts"]["managed_instances_gpu"]["instanceRequirements_accelerator_fields"]:
        name, _, rest = entry.partition(" (")
        if name == field:
            return rest.rstrip(")").split("|")
    raise SystemExit(f"managed_instances_gpu: no values for {field}")


# Source keys of ecs-gpu-facts.md ("Source key" table), for the ECS facts.
MD_SOURCES = {
    "ECS-GPU": "ECS developer guide, task definitions for GPU workloads: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/ecs-gpu.html",
    "ECS-GPU-SPEC": "ECS developer guide, specifying GPUs in a task definition (fractional-GPU table): https://docs.aws.amazon.com/AmazonECS/latest/developerguide/ecs-gpu-specifying.html",
    "ECS-MI-GPU": "ECS developer guide, GPUs with ECS Managed Instances: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/managed-instances-gpu.html",
    "ECS-MEM": "ECS developer guide, memory management: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/memory-management.html",
    "ECS-2023": "archived ECS guide source, awsdocs/amazon-ecs-developer-guide @cf5e5811: cluster-query-language.md, task-placement-constraints.md, retrieve-ecs-optimized_AMI.md, task_definition_parameters.md",
    "BOTO": "AWS API models in botocore 1.44.8 (PyPI): ecs/2014-11-13, ec2/2016-11-15, batch/2016-08-10 service-2.json",
    "AMI": "ECS-optimized AMI build recipes, aws/amazon-ecs-ami @a2532d35 (2026-08-21)",
    "AGENT": "ECS container agent, aws/amazon-ecs-agent @8dfceca6 (2026-06-30)",
    "CDK": "aws-cdk packages/aws-cdk-lib/aws-ecs/lib/amis.ts @022da8d0",
    "NCT": "NVIDIA/nvidia-container-toolkit internal/config/image/capabilities.go @d34b3046",
    # Not in the fact files: the Auto Scaling defaults the checker and the plan explainer rely on.
    "ASG-API": "Amazon EC2 Auto Scaling API reference, RefreshPreferences: MinHealthyPercentage defaults to 90 (or the group's instance maintenance policy); InstanceWarmup defaults to the group's DefaultInstanceWarmup, else its HealthCheckGracePeriod",
    "TF-AWS": "hashicorp/terraform-provider-aws internal/service/autoscaling/group.go: health_check_grace_period Default 300, protect_from_scale_in Default false",
    # Not in the fact files: the ECS guide's warm-pool page (stored public copy, read 2026-12-03).
    "ECS-WARM": "ECS developer guide, warm pools for an ECS Auto Scaling group: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-warm-pool.html (set ECS_WARM_POOLS_CHECK=true in the launch template's user data; agent 1.59.0 and later; a warm pool of an Auto Scaling group for ECS cannot set the option that returns instances to the warm pool on scale in, ReuseOnScaleIn)",
    "AMI-RELEASES": "ECS-optimized AMI release notes, https://github.com/aws/amazon-ecs-ami/releases (for example tag 20240611): AMI names amzn2-ami-ecs-hvm-..., amzn2-ami-ecs-gpu-hvm-2.0.<version>-x86_64-ebs, al2023-ami-ecs-gpu-hvm-...",
    "karpenter-preview-efa": "aws/karpenter-provider-aws website/content/en/preview/reference/instance-types.md @692ccdd0: the resource vpc.amazonaws.com/efa of each type is EC2 DescribeInstanceTypes NetworkInfo.EfaInfo.MaximumEfaInterfaces (pkg/providers/instancetype/types.go efas); the generator omits zero quantities (hack/docs/instancetypes_gen/main.go), so a listed type without the row has no EFA",
    # Read from the current guide (stored public copy) on 2026-11-29 for the word forms of the ordering
    # operators, which the 2023 guide's table in ecs-gpu-facts.md does not list.
    "ECS-QL": "ECS developer guide, cluster query language: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/cluster-query-language.html (valid operators per subject, with word forms greater_than (>), greater_than_equal (>=), less_than (<), less_than_equal (<=))",
}

sources = {}
for key, s in src["sources"].items():
    where = s.get("url") or s.get("package") or f'{s.get("repo")} {s.get("path")} @{s.get("commit", "")[:8]}'
    sources[key] = f'{where}: {s["what"]}'
sources.update(MD_SOURCES)
sources.update(fams["sources"])
sources.update(nvidia["sources"])
sources[ami_drivers["Source"]["key"]] = ami_drivers["Source"]["what"]


def family_source(text):
    """Map a free-text family source of the curated table to a source key."""
    if text in sources:
        return text
    if text.startswith("amazon-ecs-ami"):
        return "AMI"
    raise SystemExit(f"unmapped family source: {text!r}")


FIELD_SOURCE = {
    "gpu_memory_mib": "gpu_memory_per_gpu_mib",
    "architecture": "cpu_architecture",
}
FIELDS = ["gpu_count", "gpu_fraction", "gpu_model", "gpu_memory_mib", "vcpus", "memory_mib", "architecture"]

instance_types = []
for t in src["instance_types"]:
    row = {
        "instance_type": t["instance_type"],
        "family": t["family"],
        "gpu_vendor": t["gpu_vendor"],
        "gpu_count": t["gpu_count"],
        "gpu_fraction": t["gpu_fraction"],
        "gpu_model": t["gpu_model"],
        "gpu_memory_mib": t["gpu_memory_per_gpu_mib"],
        "vcpus": t["vcpus"],
        "memory_mib": t["memory_mib"],
        "architecture": t["cpu_architecture"],
        "unverified": t.get("unverified_fields", []),
    }
    srcs = {}
    for field in FIELDS:
        keys = t["sources"].get(FIELD_SOURCE.get(field, field))
        if keys:
            srcs[field] = keys
    srcs["name"] = t["sources"].get("name", sorted({k for v in t["sources"].values() for k in v}))
    row["sources"] = srcs
    # What the EC2 API calls the GPU, as Karpenter writes it (lower kebab case), for the cross-check.
    row["_gpu_label"] = t.get("gpu_name_ec2_api_label")
    instance_types.append(row)


def kebab(s):
    """Karpenter's lowerKabobCase: how it writes EC2's GPU names and manufacturers."""
    return s.lower().replace(" ", "-")


def describe_row(rec, key, where):
    """A catalog row from one DescribeInstanceTypes record, or None when it has no GPU the catalog models."""
    name = rec["InstanceType"]
    gpus = (rec.get("GpuInfo") or {}).get("Gpus") or []
    if not gpus:
        return None
    if len(gpus) != 1:
        raise SystemExit(f"{where}: {name}: {len(gpus)} kinds of GPU in one type; the catalog models one")
    g = gpus[0]
    vendor = {"nvidia": "NVIDIA", "amd": "AMD"}.get(kebab(g.get("Manufacturer", "")))
    if vendor is None:
        print(f"note: {where}: {name}: GPU manufacturer {g.get('Manufacturer')!r} is not one the catalog models; skipped",
              file=sys.stderr)
        return None
    count, partition = g.get("Count"), g.get("GpuPartitionSize")
    unverified = []
    if partition is not None and 0 < partition < 1:
        gpu_count, gpu_fraction = 0, partition
    elif count:
        gpu_count, gpu_fraction = count, None
    else:
        # A count of 0 without a partition size says nothing about the GPU share.
        gpu_count, gpu_fraction = None, None
        unverified.append("gpu_count")
    archs = (rec.get("ProcessorInfo") or {}).get("SupportedArchitectures") or []
    arch = "arm64" if "arm64" in archs else "x86_64" if "x86_64" in archs else None
    row = {
        "instance_type": name,
        "family": name.split(".")[0],
        "gpu_vendor": vendor,
        "gpu_count": gpu_count,
        "gpu_fraction": gpu_fraction,
        "gpu_model": f'{vendor} {g["Name"]}' if g.get("Name") else None,
        "gpu_memory_mib": (g.get("MemoryInfo") or {}).get("SizeInMiB"),
        "vcpus": (rec.get("VCpuInfo") or {}).get("DefaultVCpus"),
        "memory_mib": (rec.get("MemoryInfo") or {}).get("SizeInMiB"),
        "architecture": arch,
    }
    unverified += [f for f in FIELDS if f not in ("gpu_count", "gpu_fraction") and row[f] is None]
    row["unverified"] = unverified
    row["sources"] = {f: [key] for f in FIELDS if row[f] is not None}
    row["sources"]["name"] = [key]
    row["_gpu_label"] = kebab(g["Name"]) if g.get("Name") else None
    row["_count"] = count
    return row


def cross_check(have, new, where):
    """A type both the curated table and a DescribeInstanceTypes record give must agree."""
    pairs = [
        ("GPU count", have["gpu_count"], new["_count"]),
        ("GPU memory (MiB)", have["gpu_memory_mib"], new["gpu_memory_mib"]),
        ("vCPUs", have["vcpus"], new["vcpus"]),
        ("memory (MiB)", have["memory_mib"], new["memory_mib"]),
        ("architecture", have["architecture"], new["architecture"]),
        ("GPU vendor", have["gpu_vendor"], new["gpu_vendor"]),
        ("GPU name", have["_gpu_label"], new["_gpu_label"]),
    ]
    wrong = [f"{what} is {b!r} there and {a!r} in the curated table" for what, a, b in pairs
             if a is not None and b is not None and a != b]
    if wrong:
        raise SystemExit(f"{where}: {have['instance_type']}: " + "; ".join(wrong)
                         + ". Find which source is right, then correct gpu-instance-types.json or the record")


# DescribeInstanceTypes records, one file per source: add the types the curated table lacks, check
# the others, and read every type's EFA support.
by_name = {r["instance_type"]: r for r in instance_types}
efa_facts = {}
efa_keys = set()
added = []
for path in sorted((source_dir / "describe-instance-types").glob("*.json")):
    where = str(path.relative_to(root))
    doc = load(path)
    meta = doc.get("Source") or {}
    key = meta.get("key")
    if not key:
        raise SystemExit(f"{where}: no Source.key (scripts/refresh-catalog.py writes it)")
    if key not in sources:
        if not meta.get("what"):
            raise SystemExit(f"{where}: source key {key!r} is not defined: give Source.what")
        sources[key] = meta["what"]
    efa_key = meta.get("efa_key", key)
    if efa_key not in sources:
        raise SystemExit(f"{where}: source key {efa_key!r} is not defined")
    for rec in doc.get("InstanceTypes", []):
        row = describe_row(rec, key, where)
        if row is None:
            continue
        name = row["instance_type"]
        if name in by_name:
            cross_check(by_name[name], row, where)
        else:
            by_name[name] = row
            added.append(row)
        net = rec.get("NetworkInfo") or {}
        if name not in efa_facts and "EfaSupported" in net:
            n = (net.get("EfaInfo") or {}).get("MaximumEfaInterfaces", 0) if net["EfaSupported"] else 0
            efa_facts[name] = n
            efa_keys.add(efa_key)
# Added types go after the curated ones, a family's sizes from the smallest, as the curated table orders them.
first_seen = list(dict.fromkeys(r["family"] for r in added))
added.sort(key=lambda r: (first_seen.index(r["family"]), r["vcpus"] or 0, r["memory_mib"] or 0, r["instance_type"]))
instance_types += added
for row in instance_types:
    for k in [k for k in row if k.startswith("_")]:
        del row[k]

unknown_names = sorted(set(by_name) - set(ec2_names["InstanceType"]))
if unknown_names:
    raise SystemExit(f"not in the EC2 API's instance type names (ec2-instance-types.json): {', '.join(unknown_names)}")


def status_of(family):
    """The ECS status of a family: ecs-gpu-families.json's word, else `supported` when an ECS GPU table lists
    it, else `unverified`."""
    entry = fams["families"].get(family)
    if entry:
        return entry["status"], entry.get("reason"), entry["sources"]
    for key, listed in fams["ecs_doc_tables"].items():
        if family in listed:
            return "supported", None, [key]
    return ("unverified",
            "not in the ECS GPU instance tables, and no source on its ECS GPU support is recorded",
            sorted(fams["ecs_doc_tables"]))


families = []
for name in list(dict.fromkeys(r["family"] for r in instance_types)) + [
        f for f in fams["families"] if f not in {r["family"] for r in instance_types}]:
    facts = src["family_facts"].get(name, {})
    entry = fams["families"].get(name, {})
    status, reason, keys = status_of(name)
    fam_sources = {family_source(s) for s in facts.get("sources", [])} | set(keys)
    families.append({
        "family": name,
        "status": status,
        "reason": reason,
        "available": entry.get("available"),
        "gpu": entry.get("gpu", facts.get("gpu")),
        "ecs_note": entry.get("ecs_note", facts.get("ecs_gpu_ami")),
        "sources": sorted(fam_sources),
    })



def branch(version):
    return int(version.split(".")[0])


def version_key(version):
    return tuple(int(p) for p in version.split("."))


# The ECS GPU AMI releases: derived ones, then the later ones the field notes give.
ami_releases = [dict(r, sources=[ami_drivers["Source"]["key"]]) for r in ami_drivers["releases"]]
derived_last = {}
for r in ami_releases:
    derived_last[r["variant"]] = max(derived_last.get(r["variant"], ""), r["release"])
later = nvidia["later_ami_releases"]
for r in later["releases"]:
    if r["release"] <= derived_last.get(r["variant"], ""):
        raise SystemExit(f"nvidia-drivers.json: later_ami_releases {r['release']} {r['variant']} is not after "
                         f"the derived releases (last {derived_last[r['variant']]})")
    ami_releases.append(dict(r, installs_exactly=None, sources=later["sources"]))
seen = set()
for r in ami_releases:
    key = (r["variant"], r["release"])
    if key in seen:
        raise SystemExit(f"ECS GPU AMI release {r['release']} {r['variant']} is listed twice")
    seen.add(key)
    r.pop("commit", None)
ami_releases.sort(key=lambda r: (r["variant"], r["release"]))
variants = ["al2023", "al2", "al2-kernel-5.10"]
newest = {v: max((r for r in ami_releases if r["variant"] == v), key=lambda r: r["release"]) for v in variants}


def cannot_drive(needs, driver):
    """Whether a family's driver needs say no for this driver (the known nos only)."""
    b = branch(driver)
    return (("min_branch" in needs and b < needs["min_branch"])
            or ("max_branch" in needs and b > needs["max_branch"])
            or b in needs.get("unsupported_branches", []))


# A family no ECS GPU AMI release can drive has the refusing status, and only such a family: the
# status written in ecs-gpu-families.json must agree with the driver data.
for name, needs in nvidia["families"].items():
    if name not in {f["family"] for f in families}:
        raise SystemExit(f"nvidia-drivers.json: family {name} is not in the catalog")
    for k in needs["sources"]:
        if k not in sources:
            raise SystemExit(f"nvidia-drivers.json: family {name}: source key {k} is not defined")
for f in families:
    needs = nvidia["families"].get(f["family"])
    refused = needs is not None and all(cannot_drive(needs, newest[v]["nvidia_driver"]) for v in variants)
    if refused and f["status"] in ("supported", "unverified"):
        raise SystemExit(f"{f['family']}: no ECS GPU AMI release can drive it (nvidia-drivers.json); give it the "
                         "status no-ecs-gpu-ami-driver in ecs-gpu-families.json")
    if f["status"] == "no-ecs-gpu-ami-driver" and not refused:
        raise SystemExit(f"{f['family']}: status no-ecs-gpu-ami-driver, but the newest ECS GPU AMI releases "
                         f"({', '.join(newest[v]['nvidia_driver'] for v in variants)}) are not known to fail it")
for image in nvidia["images"]:
    tags = [r["tag"] for r in image.get("releases", [])]
    if len(tags) != len(set(tags)):
        raise SystemExit(f"nvidia-drivers.json: image {image['repository']}: a release is listed twice")
    keys = image["sources"] + [k for r in image.get("releases", []) for k in r.get("sources", [])]
    for k in keys:
        if k not in sources:
            raise SystemExit(f"nvidia-drivers.json: image {image['repository']}: source key {k} is not defined")
rows = nvidia["cuda_toolkit_drivers"]["rows"]
if [version_key(r["cuda"]) for r in rows] != sorted((version_key(r["cuda"]) for r in rows), reverse=True):
    raise SystemExit("nvidia-drivers.json: cuda_toolkit_drivers rows must go from the newest CUDA down")

drivers = {
    "ami_releases": ami_releases,
    "ami_variants": nvidia["ami_variants"],
    "cuda_toolkit_drivers": nvidia["cuda_toolkit_drivers"],
    "minor_version_compatibility": nvidia["minor_version_compatibility"],
    "forward_compatibility": nvidia["forward_compatibility"],
    "container_requirement": nvidia["container_requirement"],
    "families": nvidia["families"],
    "images": nvidia["images"],
}

ecs = src["ecs_facts"]
ssm = ecs["ssm_parameters_gpu_ami"]
catalog = {
    "about": "ecs-gpu catalog: generated by scripts/import-catalog.py from crates/ecs-gpu-catalog/data/sources "
    "(gpu-instance-types.json built " + src["built"] + ", describe-instance-types/, ecs-gpu-families.json, "
    "ec2-instance-types.json of botocore " + ec2_names["botocore"] + ", ecs-gpu-ami-drivers.json, nvidia-drivers.json, "
    "ecs-gpu-facts.md, ecs-gpu-2026-updates.md, ecs-gpu-field-2026-12.md). "
    "Every fact names its source keys; the keys are defined in `sources`.",
    "sources": dict(sorted(sources.items())),
    "families": families,
    "instance_types": instance_types,
    "ami": {
        "ecs_parameter_prefix": "/aws/service/ecs/optimized-ami/",
        "gpu_parameters": [
            # name_prefix: the AMI name up to its version (AMI al2023gpu.pkr.hcl, al2gpu.pkr.hcl,
            # al2kernel5dot10gpu.pkr.hcl: `${ami_name_prefix}-gpu-hvm-...`, `...-kernel-5.10-gpu-hvm-...`).
            {"variant": "al2023", "parameter": ssm["al2023_x86_64_gpu"], "end_of_life": None,
             "name_prefix": "al2023-ami-ecs-gpu-hvm-", "sources": ["AMI", "CDK"]},
            {"variant": "al2", "parameter": ssm["al2_x86_64_gpu"], "end_of_life": "2026-06-30",
             "name_prefix": "amzn2-ami-ecs-gpu-hvm-", "sources": ["AMI", "ECS-2023"]},
            {"variant": "al2-kernel-5.10", "parameter": ssm["al2_kernel_5_10_x86_64_gpu"], "end_of_life": "2026-06-30",
             "name_prefix": "amzn2-ami-ecs-kernel-5.10-gpu-hvm-", "sources": ["AMI"]},
        ],
        "recommended_parameter": ssm["al2023_x86_64_gpu_image_id"],
        "version_pinned_form": "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/<version>",
        "arm64_gpu_parameter": None,
        "gpu_ami_name_prefixes": ["al2023-ami-ecs-gpu-hvm-", "amzn2-ami-ecs-gpu-hvm-", "amzn2-ami-ecs-kernel-5.10-gpu-hvm-"],
        # The ECS-optimized AMI name families; a name in them without the gpu infix is a non-GPU variant.
        "ecs_ami_name_prefixes": ["al2023-ami-ecs-", "amzn2-ami-ecs-"],
        "amazon_owner_alias": "amazon",
        "amazon_owner_alias_note": "BOTO (ec2 DescribeImagesRequest.Owners): the alias amazon scopes a lookup to images Amazon owns, and the ECS-optimized AMIs are Amazon's, published under the names in gpu_ami_name_prefixes and ecs_ami_name_prefixes (AMI-RELEASES). Another owner (self, an account ID, aws-marketplace) or none can match other images of the same name: the AMI recipe builds a private AMI in whatever account runs it (AMI README).",
        "note": ssm["notes"],
        "sources": ["AMI", "AMI-RELEASES", "BOTO", "CDK", "ECS-2023"],
    },
    "agent": {
        "gpu_support_variable": "ECS_ENABLE_GPU_SUPPORT",
        "gpu_support_default": ecs["agent_env"]["ECS_ENABLE_GPU_SUPPORT"]["default"],
        "gpu_ami_enables_gpu_support": True,
        "cluster_variable": "ECS_CLUSTER",
        "cluster_default": "default",
        "reserved_memory_variable": "ECS_RESERVED_MEMORY",
        "reserved_memory_default_mib": ecs["agent_env"]["ECS_RESERVED_MEMORY"]["default"],
        "registered_cpu": ecs["registered_resources"]["CPU"],
        "registered_memory": ecs["registered_resources"]["MEMORY"],
        "memory_example": ecs["registered_resources"]["doc_example"],
        # ECS-MEM: an m4.large (8192 MiB) whose MemTotal is 8373026816 bytes registers 7985 MiB, 207 MiB less
        # than its memory. Every GPU type has at least 8192 MiB and the kernel's share grows with memory, so
        # no GPU type registers more than memory_mib minus this.
        "min_unregistered_memory_mib": 8192 - 8373026816 // (1024 * 1024),
        # AGENT README: both default to false; ECS-WARM: set the first to true for warm pools.
        "warm_pools_check_variable": "ECS_WARM_POOLS_CHECK",
        "warm_pools_check_default": "false",
        "spot_draining_variable": "ECS_ENABLE_SPOT_INSTANCE_DRAINING",
        "spot_draining_default": "false",
        "gpu_attributes": ecs["gpu_attributes_added_by_agent"],
        "sources": ["AGENT", "AMI", "ECS-MEM", "ECS-WARM"],
    },
    "nvidia_driver_capabilities": {
        "names": ecs["nvidia_driver_capabilities"]["toolkit_supported"],
        "default": ecs["nvidia_driver_capabilities"]["toolkit_default"],
        "ecs_doc_values_for_non_cuda_images": ecs["nvidia_driver_capabilities"]["ecs_doc_values_for_non_cuda_images"],
        "sources": ["NCT", "ECS-GPU"],
    },
    "gpu_requirement": {
        "type": "GPU",
        "all": "ALL",
        "fractions": ["0.125", "0.25", "0.5"],
        "rules": ecs["gpu_resource_requirement"]["rules"],
        "mps": ecs["gpu_resource_requirement"]["sharingStrategy"]["nvidiaMps"],
        "mps_where": ecs["gpu_resource_requirement"]["sharingStrategy"]["where"],
        "sources": ["BOTO", "ECS-GPU-SPEC", "ECS-GPU"],
    },
    "task_cpu_units_range_ec2": ecs["ec2_task_cpu_units_range"],
    "fargate": {
        "gpu": False,
        # The capacity providers ECS creates for Fargate (the ECS API's names, source BOTO).
        "capacity_providers": ["FARGATE", "FARGATE_SPOT"],
        "combos_mib": ecs["fargate_task_sizes"]["combos_mib"],
        "windows_note": ecs["fargate_task_sizes"]["windows_note"],
        "sources": ["BOTO", "ECS-GPU", "ECS-2023"],
    },
    "query_language": {
        "constraint_types": ecs["placement"]["constraint_types"],
        "operators": ecs["placement"]["operators"],
        "operator_words": {"equals": "==", "not_equals": "!=", "not_exists": "!exists", "not_in": "!in",
                           "matches": "=~", "not_matches": "!~", "greater_than": ">", "greater_than_equal": ">=",
                           "less_than": "<", "less_than_equal": "<="},
        "boolean": ecs["placement"]["boolean"],
        "boolean_words": {"and": "&&", "or": "||", "not": "!"},
        "subjects": ecs["placement"]["subjects"],
        "builtin_attributes": ecs["builtin_attributes"],
        "example": ecs["placement"]["example"],
        "sources": ["ECS-2023", "AGENT", "ECS-QL"],
    },
    "ec2": {
        "instance_types": ec2_names["InstanceType"],
        # GPU families in the EC2 enum with no record in the sources: lookups of these are unknown, never
        # "no GPU".
        "families_with_gpus_not_detailed": list(fams["gpu_families_without_records"]),
        "sources": sorted({"BOTO", "botocore-ec2-model"}
                          | {k for f in fams["gpu_families_without_records"].values() for k in f["sources"]}),
    },
    "autoscaling": {
        "ecs_warm_pool_reuse_on_scale_in": False,
        "instance_refresh_min_healthy_percentage_default": 90,
        "instance_warmup_fallback": "default_instance_warmup, else health_check_grace_period",
        "health_check_grace_period_provider_default": 300,
        "protect_from_scale_in_provider_default": False,
        "sources": ["ASG-API", "ECS-WARM", "TF-AWS"],
    },
    "anywhere": {
        # ecs-gpu-facts.md section 4 and 5: register external instances with --enable-gpu; fractional GPUs and
        # MPS sharing are not available to EXTERNAL task definitions.
        "gpu_registration_flag": "--enable-gpu",
        "fractional_gpu": False,
        "mps_sharing": False,
        "sources": ["ECS-GPU", "ECS-GPU-SPEC", "BOTO"],
    },
    "managed_instances": {
        "doc_subset_families": ecs["managed_instances_gpu"]["doc_subset_families"],
        "drivers": ecs["managed_instances_gpu"]["drivers"],
        "fractional_gpu": ecs["managed_instances_gpu"]["fractional_gpu"],
        "neuron_device": ecs["managed_instances_gpu"]["NeuronDevice_resource"],
        # `instanceRequirements` fields with their values, as the source writes them:
        # "acceleratorTypes (gpu|fpga|inference)".
        "accelerator_types": field_values("acceleratorTypes"),
        "accelerator_manufacturers": field_values("acceleratorManufacturers"),
        # The `acceleratorNames` values of the API (BOTO) that name an NVIDIA GPU: those the curated
        # table gives as the EC2 name of an NVIDIA type's GPU. A name of the API no catalog type has
        # (k520, of the deprecated g2) is left out rather than assumed.
        "nvidia_accelerator_names": [
            n for n in src["ecs_facts"]["managed_instances_gpu"]["acceleratorNames_enum_botocore_1_44_8"]
            if n in {t.get("gpu_name_ec2_api_label") for t in src["instance_types"] if t["nvidia"]}
        ],
        "sources": ["ECS-MI-GPU", "ECS-GPU-SPEC", "BOTO"],
    },
    "market": {
        # BOTO: ec2 MarketType (spot | capacity-block | ...); autoscaling
        # InstancesDistribution.OnDemandPercentageAboveBaseCapacity "Default: 100".
        "spot_market_type": "spot",
        "capacity_block_market_type": "capacity-block",
        "on_demand_percentage_default": 100,
        "sources": ["BOTO"],
    },
    "efa": {
        "interface_types": ["efa", "efa-only"],
        # Per catalog type, from the DescribeInstanceTypes records: NetworkInfo.EfaSupported, and
        # EfaInfo.MaximumEfaInterfaces when it is supported.
        "max_interfaces": {r["instance_type"]: efa_facts[r["instance_type"]] for r in instance_types
                           if efa_facts.get(r["instance_type"])},
        "without": sorted(r["instance_type"] for r in instance_types if efa_facts.get(r["instance_type"]) == 0),
        "note": "Per instance type of the catalog, from the DescribeInstanceTypes records in "
        "crates/ecs-gpu-catalog/data/sources/describe-instance-types/ (NetworkInfo.EfaSupported and "
        "EfaInfo.MaximumEfaInterfaces); a catalog type in none of them ("
        + ", ".join(r["instance_type"] for r in instance_types if r["instance_type"] not in efa_facts)
        + ") is unknown. The interface types that request an EFA come from the EC2 API "
        "(LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.InterfaceType: interface | efa | efa-only).",
        "sources": sorted(efa_keys) + ["BOTO"],
    },
    # The fractional (vGPU) families on ECS on EC2: the AMI, release and settings they need.
    "vgpu": fams["vgpu"],
    # NVIDIA drivers: per AMI release, per family, CUDA and images (docs/drivers.md).
    "drivers": drivers,
}

out = data / "catalog.json"
text = json.dumps(catalog, indent=1, ensure_ascii=False) + "\n"
if sys.argv[1:] == ["--check"]:
    have = out.read_text(encoding="utf-8") if out.exists() else ""
    if have != text:
        diff = difflib.unified_diff(have.splitlines(), text.splitlines(), "catalog.json (committed)",
                                    "catalog.json (from data/sources)", lineterm="", n=1)
        print("\n".join(list(diff)[:60]), file=sys.stderr)
        raise SystemExit(f"{out.relative_to(root)} differs from what its sources give: run scripts/import-catalog.py")
    print(f"{out.relative_to(root)} matches its sources")
elif sys.argv[1:]:
    raise SystemExit("usage: scripts/import-catalog.py [--check]")
else:
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out.relative_to(root)}: {len(instance_types)} instance types, {len(families)} families")
