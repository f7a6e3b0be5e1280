#!/usr/bin/env python3
"""Project ../shared/data into crates/ecs-gpu-catalog/data/catalog.json.

The shared data holds every fact with its sources; this script copies the facts
ecs-gpu uses, keeps their source keys, and adds nothing of its own except the
ECS status of each family, which it derives from the family notes and
ecs-gpu-facts.md section 3 (cited per family). Run it when ../shared/data
changes, then run `cargo test -p ecs-gpu-catalog` and regenerate the Terraform
locals (`scripts/gen-terraform-locals.sh`).

    python3 scripts/import-catalog.py [SHARED_DATA_DIR]
"""
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

root = pathlib.Path(__file__).resolve().parent.parent
shared = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root.parent / "shared" / "data"
src = json.loads((shared / "gpu-instance-types.json").read_text())


def ec2_instance_type_enum():
    """The EC2 InstanceType enum of botocore 1.44.8 (source key BOTO), the version the shared data cites."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", tmp, "botocore==1.44.8"],
                       check=True)
        wheel = next(pathlib.Path(tmp).glob("botocore-1.44.8-*.whl"))
        model = json.loads(gzip.decompress(zipfile.ZipFile(wheel).read("botocore/data/ec2/2016-11-15/service-2.json.gz")))
    return sorted(model["shapes"]["InstanceType"]["enum"])


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
    # Not in ../shared/data: read from the current guide (stored public copy) on 2026-11-29 for the word
    # forms of the ordering operators, which the 2023 guide's table in ecs-gpu-facts.md does not list.
    # Not in ../shared/data: the Auto Scaling defaults the checker and the plan explainer rely on.
    "ASG-API": "Amazon EC2 Auto Scaling API reference, RefreshPreferences: MinHealthyPercentage defaults to 90 (or the group's instance maintenance policy); InstanceWarmup defaults to the group's DefaultInstanceWarmup, else its HealthCheckGracePeriod",
    "TF-AWS": "hashicorp/terraform-provider-aws internal/service/autoscaling/group.go: health_check_grace_period Default 300, protect_from_scale_in Default false",
    # Not in ../shared/data: the ECS guide's warm-pool page (stored public copy, read 2026-12-03).
    "ECS-WARM": "ECS developer guide, warm pools for an ECS Auto Scaling group: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-warm-pool.html (set ECS_WARM_POOLS_CHECK=true in the launch template's user data; agent 1.59.0 and later)",
    "AMI-RELEASES": "ECS-optimized AMI release notes, https://github.com/aws/amazon-ecs-ami/releases (for example tag 20240611): AMI names amzn2-ami-ecs-hvm-..., amzn2-ami-ecs-gpu-hvm-2.0.<version>-x86_64-ebs, al2023-ami-ecs-gpu-hvm-...",
    "karpenter-preview-efa": "aws/karpenter-provider-aws website/content/en/preview/reference/instance-types.md @692ccdd0: the resource vpc.amazonaws.com/efa of each type is EC2 DescribeInstanceTypes NetworkInfo.EfaInfo.MaximumEfaInterfaces (pkg/providers/instancetype/types.go efas); the generator omits zero quantities (hack/docs/instancetypes_gen/main.go), so a listed type without the row has no EFA",
    "ECS-QL": "ECS developer guide, cluster query language: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/cluster-query-language.html (valid operators per subject, with word forms greater_than (>), greater_than_equal (>=), less_than (<), less_than_equal (<=))",
}

sources = {}
for key, s in src["sources"].items():
    where = s.get("url") or s.get("package") or f'{s.get("repo")} {s.get("path")} @{s.get("commit", "")[:8]}'
    sources[key] = f'{where}: {s["what"]}'
sources.update(MD_SOURCES)


def family_source(text):
    """Map a free-text family source of the shared JSON to a source key."""
    if text in sources:
        return text
    if text.startswith("amazon-ecs-ami"):
        return "AMI"
    raise SystemExit(f"unmapped family source: {text!r}")


# ECS status of each family (ecs-gpu-facts.md section 3). Families not named here are supported.
STATUS = {
    "g2": ("deprecated", "ECS GPU support for g2 is deprecated", ["ECS-GPU"]),
    "p2": ("restricted", "only ECS GPU-optimized AMIs earlier than 20230912 (last: 20230906) support p2; newer AMIs ship NVIDIA 535+ and CUDA 12", ["ECS-GPU", "AMI"]),
    "g4ad": ("not-nvidia", "AMD Radeon Pro V520: ECS GPU support is for NVIDIA GPUs only", ["karpenter-preview", "ECS-GPU"]),
    "g5g": ("no-ecs-gpu-ami", "arm64 (Graviton2): every ECS GPU-optimized AMI recipe is x86_64 and no arm64 GPU SSM parameter exists", ["AMI", "BOTO"]),
    "p6e-gb200": ("unverified", "no EC2-API-derived record: GPU count, model, memory, vCPUs and architecture are unknown", ["botocore-ec2-model"]),
}

families = []
seen = set()
for t in src["instance_types"]:
    f = t["family"]
    if f in seen:
        continue
    seen.add(f)
    facts = src["family_facts"].get(f, {})
    fam_sources = {family_source(s) for s in facts.get("sources", [])}
    if f in STATUS:
        status, reason, keys = STATUS[f]
    elif fam_sources & {"ecs-doc-gpu", "ecs-doc-gpu-specifying"}:
        status, reason, keys = "supported", None, []
    else:
        # Not in the ECS GPU table seen: the AL2023 GPU AMI loads the open NVIDIA kernel module for every
        # NVIDIA GPU but P3/P3dn/G3 (amazon-ecs-ami nvidia-kmod-load.sh).
        status, reason, keys = "supported", "not in the ECS GPU instance table; the AL2023 ECS GPU AMI loads the NVIDIA driver for it", ["amazon-ecs-ami-kmod-load"]
    fam_sources = sorted(fam_sources | set(keys))
    families.append({
        "family": f,
        "status": status,
        "reason": reason,
        "gpu": facts.get("gpu"),
        "ecs_note": facts.get("ecs_gpu_ami"),
        "sources": fam_sources,
    })
# g2 has no instance type in the catalog (no current EC2 record) but its status is a fact.
families.append({
    "family": "g2",
    "status": "deprecated",
    "reason": STATUS["g2"][1],
    "gpu": None,
    "ecs_note": "ECS GPU support for g2 is deprecated; the ECS GPU AMIs from 20230912 on are incompatible with p2 and g2",
    "sources": ["ECS-GPU", "batch-doc-gpu-ami-zh"],
})

FIELD_SOURCE = {
    "gpu_memory_mib": "gpu_memory_per_gpu_mib",
    "architecture": "cpu_architecture",
}

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
    for field in ["gpu_count", "gpu_fraction", "gpu_model", "gpu_memory_mib", "vcpus", "memory_mib", "architecture"]:
        keys = t["sources"].get(FIELD_SOURCE.get(field, field))
        if keys:
            srcs[field] = keys
    srcs["name"] = t["sources"].get("name", sorted({k for v in t["sources"].values() for k in v}))
    row["sources"] = srcs
    instance_types.append(row)

ecs = src["ecs_facts"]
ssm = ecs["ssm_parameters_gpu_ami"]
catalog = {
    "about": "ecs-gpu catalog: generated by scripts/import-catalog.py from ../shared/data (gpu-instance-types.json built "
    + src["built"]
    + ", ecs-gpu-facts.md). Every fact names its source keys; the keys are defined in `sources`.",
    "sources": dict(sorted(sources.items())),
    "families": families,
    "instance_types": instance_types,
    "ami": {
        "ecs_parameter_prefix": "/aws/service/ecs/optimized-ami/",
        "gpu_parameters": [
            {"variant": "al2023", "parameter": ssm["al2023_x86_64_gpu"], "end_of_life": None,
             "sources": ["AMI", "CDK"]},
            {"variant": "al2", "parameter": ssm["al2_x86_64_gpu"], "end_of_life": "2026-06-30",
             "sources": ["AMI", "ECS-2023"]},
            {"variant": "al2-kernel-5.10", "parameter": ssm["al2_kernel_5_10_x86_64_gpu"], "end_of_life": "2026-06-30",
             "sources": ["AMI"]},
        ],
        "recommended_parameter": ssm["al2023_x86_64_gpu_image_id"],
        "version_pinned_form": "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/<version>",
        "arm64_gpu_parameter": None,
        "gpu_ami_name_prefixes": ["al2023-ami-ecs-gpu-hvm-", "amzn2-ami-ecs-gpu-hvm-"],
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
        "instance_types": ec2_instance_type_enum(),
        # NVIDIA families in the EC2 enum that the catalog does not detail (shared data:
        # other_nvidia_families_in_ec2_enum_not_in_brief), and cg1, a previous-generation GPU family with no
        # record in the sources: lookups of these are unknown, never "no GPU".
        "families_with_gpus_not_detailed": ["g7", "g7e", "cg1"],
        "sources": ["BOTO", "botocore-ec2-model", "karpenter-preview"],
    },
    "autoscaling": {
        "instance_refresh_min_healthy_percentage_default": 90,
        "instance_warmup_fallback": "default_instance_warmup, else health_check_grace_period",
        "health_check_grace_period_provider_default": 300,
        "protect_from_scale_in_provider_default": False,
        "sources": ["ASG-API", "TF-AWS"],
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
        # Read from the karpenter-preview-efa table for the catalog's instance types: the `vpc.amazonaws.com/efa`
        # quantity of each type listed there, and the listed types without it.
        "max_interfaces": {"p3dn.24xlarge": 1, "p4d.24xlarge": 4, "p4de.24xlarge": 4, "p5.4xlarge": 1, "p5.48xlarge": 32, "p5e.48xlarge": 32, "p5en.48xlarge": 16, "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 16, "g4dn.8xlarge": 1, "g4dn.12xlarge": 1, "g4dn.16xlarge": 1, "g4dn.metal": 1, "g5.8xlarge": 1, "g5.12xlarge": 1, "g5.16xlarge": 1, "g5.24xlarge": 1, "g5.48xlarge": 1, "g6.8xlarge": 1, "g6.12xlarge": 1, "g6.16xlarge": 1, "g6.24xlarge": 1, "g6.48xlarge": 1, "g6e.8xlarge": 1, "g6e.12xlarge": 1, "g6e.16xlarge": 1, "g6e.24xlarge": 2, "g6e.48xlarge": 4, "gr6.8xlarge": 1},
        "without": ["g4ad.16xlarge", "g4ad.2xlarge", "g4ad.4xlarge", "g4ad.8xlarge", "g4ad.xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.xlarge", "g5.2xlarge", "g5.4xlarge", "g5.xlarge", "g5g.16xlarge", "g5g.2xlarge", "g5g.4xlarge", "g5g.8xlarge", "g5g.metal", "g5g.xlarge", "g6.2xlarge", "g6.4xlarge", "g6.xlarge", "g6e.2xlarge", "g6e.4xlarge", "g6e.xlarge", "g6f.2xlarge", "g6f.4xlarge", "g6f.large", "g6f.xlarge", "gr6.4xlarge", "gr6f.4xlarge"],
        "note": "Per instance type of the catalog, from the Karpenter reference generated from DescribeInstanceTypes in us-east-1, us-east-2 and us-west-2; a catalog type not listed there (p2, p3, g3, g3s, p6e-gb200) is unknown. The interface types that request an EFA come from the EC2 API (LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.InterfaceType: interface | efa | efa-only).",
        "sources": ["karpenter-preview-efa", "BOTO"],
    },
}

out = root / "crates" / "ecs-gpu-catalog" / "data" / "catalog.json"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {out.relative_to(root)}: {len(instance_types)} instance types, {len(families)} families")
