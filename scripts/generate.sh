#!/usr/bin/env bash
# Regenerates every generated file of the repository:
#
#   scripts/generate.sh           # write them
#   scripts/generate.sh --check   # change nothing; name each file that differs; exit 1 if any does
#
# The generators, in order (each step is one line below):
#   1. crates/ecs-gpu-catalog/data/sources/ecs-gpu-ami-drivers.json, the NVIDIA driver of each ECS
#      GPU AMI release, from aws/amazon-ecs-ami at the commit it records
#      (scripts/derive-ami-drivers.py). It needs that repository (MIRROR, AMAZON_ECS_AMI_REPO) and
#      says in one line that it skipped without it. It runs before step 2, which reads the file.
#   2. crates/ecs-gpu-catalog/data/catalog.json, from data/sources/ (scripts/import-catalog.py). It
#      runs before step 4: the Rust generators embed catalog.json, and cargo rebuilds them when it
#      changes.
#   3. the diagnose scenarios derived from others (crates/ecs-gpu-diagnose/tests/derive_scenarios.py).
#   4. everything generated from Rust data or from Terraform read with the project's HCL parser
#      (crates/ecs-gpu-generate, its GENERATORS list): terraform/modules/facts/catalog.tf,
#      docs/rules/, terraform/modules/service-v6's copies of modules/service, the root modules'
#      pass-through inputs, the modules' README tables.
#
# A new generator is one line here (a script), or one line in GENERATORS (Rust). Every step runs,
# even after one fails; the exit status is the first failure's (1: a file differs, 2: a generator
# could not run).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

case "$*" in
  "") mode=() ;;
  --check) mode=(--check) ;;
  *) echo "usage: scripts/generate.sh [--check]" >&2; exit 2 ;;
esac

status=0
step() {
  local code=0
  "$@" || code=$?
  [ "$status" -ne 0 ] || status=$code
}

step python3 scripts/derive-ami-drivers.py "${mode[@]}"
step python3 scripts/import-catalog.py "${mode[@]}"
step python3 crates/ecs-gpu-diagnose/tests/derive_scenarios.py "${mode[@]}"
step cargo run --quiet --locked -p ecs-gpu-generate -- "${mode[@]}"

exit "$status"
