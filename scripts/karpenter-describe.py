#!/usr/bin/env python3
"""Turn Karpenter's generated instance-type reference into DescribeInstanceTypes-shaped JSON.

aws/karpenter-provider-aws renders EC2 DescribeInstanceTypes (us-east-1, us-east-2, us-west-2)
into `website/content/en/preview/reference/instance-types.md` with
`hack/docs/instancetypes_gen/main.go`. This script reads that page back into the shape of
`aws ec2 describe-instance-types` output, for the instance types with GPUs only, so that
`scripts/refresh-catalog.py` can take it like any other DescribeInstanceTypes output:

    label instance-cpu                -> VCpuInfo.DefaultVCpus
    label instance-memory (MiB)       -> MemoryInfo.SizeInMiB
    label kubernetes.io/arch          -> ProcessorInfo.SupportedArchitectures (amd64 is x86_64)
    label instance-gpu-name           -> GpuInfo.Gpus[0].Name
    label instance-gpu-manufacturer   -> GpuInfo.Gpus[0].Manufacturer
    label instance-gpu-count          -> GpuInfo.Gpus[0].Count
    label instance-gpu-memory (MiB)   -> GpuInfo.Gpus[0].MemoryInfo.SizeInMiB
    resource vpc.amazonaws.com/efa    -> NetworkInfo.EfaInfo.MaximumEfaInterfaces

Karpenter writes GPU names and manufacturers in lower kebab case (`lowerKabobCase` in
pkg/providers/instancetype/types.go): `NVIDIA` becomes `nvidia`, `RTX PRO 4500` becomes
`rtx-pro-4500`. The manufacturers are put back for the two the catalog knows (NVIDIA, AMD); the
names stay as Karpenter writes them, since the original spelling cannot be recovered. The
generator omits zero quantities, so a type without a `vpc.amazonaws.com/efa` row has no EFA
(`NetworkInfo.EfaSupported` false).

Get the page at the pinned commit, then convert it:

    curl -fsSLO https://raw.githubusercontent.com/aws/karpenter-provider-aws/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/preview/reference/instance-types.md
    python3 scripts/karpenter-describe.py instance-types.md > /tmp/karpenter-gpu.json
    python3 scripts/refresh-catalog.py /tmp/karpenter-gpu.json --key karpenter-preview \
        --efa-key karpenter-preview-efa \
        --note "scripts/karpenter-describe.py of website/content/en/preview/reference/instance-types.md @692ccdd0"
"""
import json
import re
import sys

MANUFACTURERS = {"nvidia": "NVIDIA", "amd": "AMD"}
ARCH = {"amd64": "x86_64", "arm64": "arm64"}


def sections(text):
    """(instance type, {label or resource: value}) for each `### `name`` section."""
    name, fields = None, {}
    for line in text.splitlines():
        m = re.match(r"^### `([^`]+)`", line)
        if m:
            if name:
                yield name, fields
            name, fields = m.group(1), {}
            continue
        if line.startswith("## "):
            if name:
                yield name, fields
            name, fields = None, {}
            continue
        m = re.match(r"^\s*\|([^|]+)\|([^|]*)\|\s*$", line)
        if name and m and not m.group(1).startswith("--"):
            fields[m.group(1).strip()] = m.group(2).strip()
    if name:
        yield name, fields


def record(name, f):
    """The DescribeInstanceTypes record of one section, or None when it has no GPU."""
    k = "karpenter.k8s.aws/"
    if k + "instance-gpu-name" not in f:
        return None
    manufacturer = f[k + "instance-gpu-manufacturer"]
    gpu = {
        "Name": f[k + "instance-gpu-name"],
        "Manufacturer": MANUFACTURERS.get(manufacturer, manufacturer),
        "Count": int(f[k + "instance-gpu-count"]),
        "MemoryInfo": {"SizeInMiB": int(f[k + "instance-gpu-memory"])},
    }
    efa = f.get("vpc.amazonaws.com/efa")
    network = {"EfaSupported": efa is not None}
    if efa is not None:
        network["EfaInfo"] = {"MaximumEfaInterfaces": int(efa)}
    return {
        "InstanceType": name,
        "ProcessorInfo": {"SupportedArchitectures": [ARCH[f["kubernetes.io/arch"]]]},
        "VCpuInfo": {"DefaultVCpus": int(f[k + "instance-cpu"])},
        "MemoryInfo": {"SizeInMiB": int(f[k + "instance-memory"])},
        "NetworkInfo": network,
        "GpuInfo": {"Gpus": [gpu]},
    }


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: scripts/karpenter-describe.py INSTANCE_TYPES_MD > describe.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    records = [r for name, fields in sections(text) if (r := record(name, fields))]
    if not records:
        raise SystemExit(f"{sys.argv[1]}: no instance type with a GPU found; is it Karpenter's instance-types.md?")
    json.dump({"InstanceTypes": records}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
