#!/usr/bin/env python3
"""Derive the NVIDIA driver (and CUDA) of each ECS GPU-optimized AMI release from the
aws/amazon-ecs-ami repository at a pinned commit, into
crates/ecs-gpu-catalog/data/sources/ecs-gpu-ami-drivers.json (docs/drivers.md).

    MIRROR=/work/.mirror python3 scripts/derive-ami-drivers.py            # write, at the recorded pin
    python3 scripts/derive-ami-drivers.py --repo ~/src/amazon-ecs-ami --commit <sha>   # re-pin
    MIRROR=/work/.mirror python3 scripts/derive-ami-drivers.py --check    # exit 1 on drift

The repository is a clone or a bare git directory: `--repo`, else `$AMAZON_ECS_AMI_REPO`, else
`$MIRROR/aws+amazon-ecs-ami/repo`. Without one, it prints one line saying the table was not
re-derived and exits 0, writing or checking (scripts/generate.sh runs it first, on machines without
GitHub too); re-pinning (`--commit`) needs it.

How a release's row is read, all at the pinned commit's history:

- a release is a tag `YYYYMMDD` that is an ancestor of the pinned commit (a published GitHub
  release has its tag; the reverted releases 20260508 and 20260818 have none);
- its files are read at the newest commit reachable from the tag whose subject starts with
  `Release YYYYMMDD` (the commit the release was built from), else at the tag itself;
- the release ships the AL2023 GPU AMI when `release-al2023.auto.pkrvars.hcl` has
  `ami_version_al2023 = "YYYYMMDD"`, and the AL2 GPU and AL2 kernel-5.10 GPU AMIs when
  `release-al2.auto.pkrvars.hcl` has `ami_version_al2 = "YYYYMMDD"`;
- the driver is `nvidia_driver_version_al2023` / `nvidia_driver_version_al2` of
  `NVIDIA_DRIVER_VERSION` there, and the AL2 CUDA `cuda_version_al2` (the file has no AL2023
  CUDA). `generate-release-notes.sh` prints the AL2 driver and CUDA for both AL2 GPU AMIs (kernel
  4.14 and 5.10). A release before the file existed (2025-09-03) has no row: its driver is not in
  the repository.

Only the Python standard library and git are used. Nothing else is read.
"""
import argparse
import difflib
import json
import os
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
out_path = root / "crates" / "ecs-gpu-catalog" / "data" / "sources" / "ecs-gpu-ami-drivers.json"

# The commit the committed table was derived from (2026-08-21, "Move the MPS pipe directory off
# the default path"); `--commit` re-pins.
PINNED = "a2532d3503f2052a09ac18189b0de33918406db8"
RELEASE_TAG = re.compile(r"^\d{8}$")
# "pin nvidia major ver" (2026-04-30): from this commit on, the AL2023 GPU build installs exactly the
# version NVIDIA_DRIVER_VERSION names. Before it, the build installed the newest driver of the AL2023
# NVIDIA repository and the GRID bucket at build time, and the file tracked it (#662 found the file
# one minor ahead for a while: 580.126.16 tracked, 580.126.09 installed). The AL2 recipes install the
# repository's driver and the file tracks it.
INSTALLS_TRACKED_VERSION = "856640ba14903e27c95c3faaa217ac696b0b0339"


def fail(message):
    """A derivation that could not run: exit 2 (scripts/generate.sh: 1 is a file that differs)."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def find_repo(arg):
    for candidate, how in [(arg, "--repo"), (os.environ.get("AMAZON_ECS_AMI_REPO"), "AMAZON_ECS_AMI_REPO")]:
        if candidate:
            p = pathlib.Path(candidate).expanduser()
            if not p.exists():
                fail(f"derive-ami-drivers: {how} {p}: no such directory")
            return p
    mirror = os.environ.get("MIRROR")
    if mirror:
        p = pathlib.Path(mirror) / "aws+amazon-ecs-ami" / "repo"
        if p.exists():
            return p
    return None


class Repo:
    def __init__(self, path):
        git_dir = path / ".git" if (path / ".git").exists() else path
        self.base = ["git", f"--git-dir={git_dir}"]

    def run(self, *args, check=True):
        out = subprocess.run(self.base + list(args), capture_output=True, text=True)
        if check and out.returncode != 0:
            fail(f"derive-ami-drivers: git {' '.join(args)}: {out.stderr.strip()}")
        return out

    def show(self, commit, path):
        out = self.run("show", f"{commit}:{path}", check=False)
        return out.stdout if out.returncode == 0 else None

    def is_ancestor(self, a, b):
        return self.run("merge-base", "--is-ancestor", a, b, check=False).returncode == 0


def assignments(text):
    """`name = "value"` lines of an HCL variables file or of NVIDIA_DRIVER_VERSION."""
    values = {}
    for line in (text or "").splitlines():
        m = re.match(r'^\s*([A-Za-z0-9_]+)\s*=\s*"([^"]*)"', line)
        if m:
            values[m.group(1)] = m.group(2)
    return values


def derive(repo, commit):
    full = repo.run("rev-parse", f"{commit}^{{commit}}").stdout.strip()
    tags = [t for t in repo.run("tag", "--list").stdout.split() if RELEASE_TAG.match(t)]
    rows = []
    for tag in sorted(tags):
        if not repo.is_ancestor(tag, full):
            continue
        # The newest commit reachable from the tag whose subject names this release.
        built = repo.run("log", "-1", "--format=%H", f"--grep=^Release {tag}", tag).stdout.strip() or \
            repo.run("rev-parse", f"{tag}^{{commit}}").stdout.strip()
        drivers = assignments(repo.show(built, "NVIDIA_DRIVER_VERSION"))
        if not drivers:
            continue
        al2023 = assignments(repo.show(built, "release-al2023.auto.pkrvars.hcl")).get("ami_version_al2023")
        al2 = assignments(repo.show(built, "release-al2.auto.pkrvars.hcl")).get("ami_version_al2")
        pinned_build = repo.is_ancestor(INSTALLS_TRACKED_VERSION, built)
        shipped = []
        if al2023 == tag and drivers.get("nvidia_driver_version_al2023"):
            shipped.append(("al2023", drivers["nvidia_driver_version_al2023"], None, pinned_build))
        if al2 == tag and drivers.get("nvidia_driver_version_al2"):
            cuda = drivers.get("cuda_version_al2")
            shipped.append(("al2", drivers["nvidia_driver_version_al2"], cuda, False))
            shipped.append(("al2-kernel-5.10", drivers["nvidia_driver_version_al2"], cuda, False))
        for variant, driver, cuda, exact in shipped:
            # `installs_exactly`: the build installs this version (the AL2023 GPU build from
            # INSTALLS_TRACKED_VERSION on); otherwise it is the version the release process tracked
            # for what the build installed, right to the branch and possibly not to the minor.
            rows.append({"release": tag, "variant": variant, "nvidia_driver": driver, "cuda": cuda,
                         "installs_exactly": exact, "commit": built[:12]})
    return full, rows


def document(full, rows):
    return {
        "about": "The NVIDIA driver (and, for the Amazon Linux 2 GPU AMIs, the CUDA version) of each ECS "
        "GPU-optimized AMI release, derived by scripts/derive-ami-drivers.py from the amazon-ecs-ami "
        "repository at the commit below: each release tag, the `Release YYYYMMDD` commit it was built "
        "from, its release-*.auto.pkrvars.hcl (which AMIs the release ships) and its NVIDIA_DRIVER_VERSION "
        "(the driver the release process tracks; `installs_exactly` is true where the AL2023 build "
        "installs exactly that version, from 856640b, 2026-04-30, on; elsewhere the build installed the "
        "newest driver of its repositories and the file tracked it, right to the branch). Do not edit: re-derive. Releases after the pinned commit are in "
        "nvidia-drivers.json under `later_ami_releases`, with their own sources.",
        "Source": {
            "key": "AMI-DRIVERS",
            "repository": "aws/amazon-ecs-ami",
            "commit": full,
            "derived_by": "scripts/derive-ami-drivers.py",
            "what": f"aws/amazon-ecs-ami @{full[:8]}: per release tag, NVIDIA_DRIVER_VERSION "
            "(nvidia_driver_version_al2023, nvidia_driver_version_al2, cuda_version_al2) and "
            "release-al2023/al2.auto.pkrvars.hcl (ami_version) at the release's `Release YYYYMMDD` commit; "
            "generate-release-notes.sh gives the AL2 driver and CUDA to both AL2 GPU AMIs (kernel 4.14 and 5.10)",
        },
        "releases": rows,
    }


def render(doc):
    """The document, one release row per line (a re-derivation's diff reads row by row)."""
    rows = doc.pop("releases")
    head = json.dumps(doc, indent=1)
    body = ",\n".join("  " + json.dumps(r) for r in rows)
    return head[:-2] + ',\n "releases": [\n' + body + "\n ]\n}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", help="a clone or bare git directory of aws/amazon-ecs-ami")
    ap.add_argument("--commit", help="the commit to derive from (default: the one the committed table records)")
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed table differs")
    args = ap.parse_args()

    have = out_path.read_text(encoding="utf-8") if out_path.exists() else ""
    pinned = args.commit or (json.loads(have)["Source"]["commit"] if have else PINNED)
    path = find_repo(args.repo)
    if path is None:
        if args.commit:
            fail("derive-ami-drivers: --commit needs the amazon-ecs-ami repository: pass --repo, or "
                 "set AMAZON_ECS_AMI_REPO or MIRROR")
        # scripts/generate.sh runs this on every machine; most have no clone of the repository.
        print(f"{out_path.relative_to(root)}: not re-derived: no amazon-ecs-ami repository "
              "(set MIRROR or AMAZON_ECS_AMI_REPO, or pass --repo)")
        return
    full, rows = derive(Repo(path), pinned)
    if not rows:
        fail(f"derive-ami-drivers: no release with a driver at {pinned}")
    text = render(document(full, rows))
    if args.check:
        if have != text:
            diff = difflib.unified_diff(have.splitlines(), text.splitlines(), "committed", "re-derived",
                                        lineterm="", n=1)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
            raise SystemExit(f"{out_path.relative_to(root)} differs from what {path} gives at {full[:12]}: "
                             "run scripts/derive-ami-drivers.py")
        print(f"{out_path.relative_to(root)} matches amazon-ecs-ami @{full[:12]} ({len(rows)} rows)")
        return
    out_path.write_text(text, encoding="utf-8")
    print(f"wrote {out_path.relative_to(root)}: {len(rows)} rows from amazon-ecs-ami @{full[:12]}")


if __name__ == "__main__":
    main()
