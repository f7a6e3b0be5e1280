#!/usr/bin/env python3
"""Bring new GPU instance types into the catalog from DescribeInstanceTypes output.

    aws ec2 describe-instance-types \\
        --filters Name=instance-type,Values='g*,p*' --output json > describe.json
    python3 scripts/refresh-catalog.py describe.json --key ec2-describe-us-east-1-2027-01 \\
        --what "aws ec2 describe-instance-types in us-east-1, 2027-01-15"

The input is the shape `aws ec2 describe-instance-types` prints (`{"InstanceTypes": [...]}`, or
several such pages in a JSON list). The instance types with a GPU are kept, each trimmed to the
fields the catalog reads, and written to
crates/ecs-gpu-catalog/data/sources/describe-instance-types/<key>.json under the source key `key`
(described by `--what`, unless the key is already defined). Then scripts/import-catalog.py
rebuilds catalog.json: a type the catalog lacks is added, with the ECS status
crates/ecs-gpu-catalog/data/sources/ecs-gpu-families.json gives its family (the ECS
documentation's GPU family lists), `unverified` when that file does not name it; a type the
catalog has is checked against the record. Last, every file generated from the catalog is
regenerated (scripts/generate.sh, which needs cargo: the Terraform modules' catalog.tf, docs/rules/).

    python3 scripts/refresh-catalog.py --botocore 1.44.9

refreshes the EC2 API's list of instance type names (ec2-instance-types.json) from that botocore
release on PyPI (pip download; no AWS access).
"""
import argparse
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

root = pathlib.Path(__file__).resolve().parent.parent
source_dir = root / "crates" / "ecs-gpu-catalog" / "data" / "sources"


def trim(rec):
    """The fields of a DescribeInstanceTypes record that the catalog reads, in the same shape."""
    out = {"InstanceType": rec["InstanceType"]}
    proc = rec.get("ProcessorInfo") or {}
    if "SupportedArchitectures" in proc:
        out["ProcessorInfo"] = {"SupportedArchitectures": proc["SupportedArchitectures"]}
    for field, inner in [("VCpuInfo", "DefaultVCpus"), ("MemoryInfo", "SizeInMiB")]:
        if inner in (rec.get(field) or {}):
            out[field] = {inner: rec[field][inner]}
    net = rec.get("NetworkInfo") or {}
    if "EfaSupported" in net:
        out["NetworkInfo"] = {"EfaSupported": net["EfaSupported"]}
        if "EfaInfo" in net:
            out["NetworkInfo"]["EfaInfo"] = {"MaximumEfaInterfaces": net["EfaInfo"].get("MaximumEfaInterfaces")}
    keep = ["Name", "Manufacturer", "Count", "LogicalGpuCount", "GpuPartitionSize", "MemoryInfo"]
    out["GpuInfo"] = {"Gpus": [{k: g[k] for k in keep if k in g} for g in rec["GpuInfo"]["Gpus"]]}
    return out


def records(doc, where):
    pages = doc if isinstance(doc, list) else [doc]
    for page in pages:
        if not isinstance(page, dict) or not isinstance(page.get("InstanceTypes"), list):
            raise SystemExit(f"{where}: not DescribeInstanceTypes output (no `InstanceTypes` list)")
        for rec in page["InstanceTypes"]:
            if not isinstance(rec, dict) or "InstanceType" not in rec:
                raise SystemExit(f"{where}: an entry of `InstanceTypes` has no `InstanceType`")
            yield rec


def add_describe(path, key, what, efa_key, note):
    where = str(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SystemExit(f"{where}: {e}")
    gpu = [trim(r) for r in records(doc, where) if (r.get("GpuInfo") or {}).get("Gpus")]
    if not gpu:
        raise SystemExit(f"{where}: no instance type with a GPU in it")
    gpu.sort(key=lambda r: r["InstanceType"])
    meta = {"key": key}
    if what:
        meta["what"] = what
    if efa_key:
        meta["efa_key"] = efa_key
    if note:
        meta["note"] = note
    out = source_dir / "describe-instance-types" / f"{key}.json"
    out.write_text(json.dumps({"Source": meta, "InstanceTypes": gpu}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(root)}: {len(gpu)} instance types with GPUs")


def refresh_names(version):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", tmp,
                        f"botocore=={version}"], check=True)
        wheel = next(pathlib.Path(tmp).glob(f"botocore-{version}-*.whl"))
        model = json.loads(gzip.decompress(zipfile.ZipFile(wheel).read("botocore/data/ec2/2016-11-15/service-2.json.gz")))
    path = source_dir / "ec2-instance-types.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["about"] = doc["about"].replace(f'botocore {doc["botocore"]}', f"botocore {version}")
    doc["botocore"] = version
    doc["InstanceType"] = sorted(model["shapes"]["InstanceType"]["enum"])
    path.write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(root)}: {len(doc['InstanceType'])} instance type names (botocore {version})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("describe", nargs="?", type=pathlib.Path, help="DescribeInstanceTypes output (JSON)")
    p.add_argument("--key", help="source key of this output (a file name: letters, digits, - . _)")
    p.add_argument("--what", help="where the output comes from (command, Region, date), for a new key")
    p.add_argument("--efa-key", help="source key of its EFA facts, when not --key")
    p.add_argument("--note", help="how the output was made, for a reader of the file (not used otherwise)")
    p.add_argument("--botocore", metavar="VERSION", help="refresh the EC2 instance type names from this botocore")
    p.add_argument("--no-terraform", action="store_true", help="do not regenerate what is generated from the catalog (scripts/generate.sh)")
    args = p.parse_args()
    if not args.describe and not args.botocore:
        p.error("give a DescribeInstanceTypes file, --botocore, or both")
    if args.botocore:
        refresh_names(args.botocore)
    if args.describe:
        if not args.key or not all(c.isalnum() or c in "-._" for c in args.key):
            p.error("--key is required with a DescribeInstanceTypes file: letters, digits, - . _")
        add_describe(args.describe, args.key, args.what, args.efa_key, args.note)
    if args.no_terraform:
        subprocess.run([sys.executable, str(root / "scripts" / "import-catalog.py")], check=True)
    else:
        subprocess.run([str(root / "scripts" / "generate.sh")], check=True)


if __name__ == "__main__":
    main()
