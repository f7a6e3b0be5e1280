#!/usr/bin/env bash
# `ecs-gpu check` on many root modules (a benchmark, not a test): N copies of one small GPU stack
# (rules/tests/fixtures/GPU406/clean/fits: cluster, launch template, Auto Scaling group, capacity
# provider, task definition, service), each its own root module in a folder of its own, with the
# same resource addresses and the same names, as the copies of a monorepo's environments are
# before their names are changed. With SUPPRESS=1 each copy also silences GPU303 on its group
# (`# ecs-gpu:ignore GPU303 ...`). Each build given is timed on each size, with its peak memory.
#
# usage: bench/check/roots.sh BUILD...                 (100 300 600 3000 roots)
#        SIZES="300 1200" LIMIT=60 SUPPRESS=1 bench/check/roots.sh target/release/ecs-gpu
# A run is cut at LIMIT seconds (300 by default) and prints `timeout`.
# Results: bench/out/roots/results.txt (bench/out is gitignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 BUILD..." >&2; exit 2; }
sizes=${SIZES:-100 300 600 3000}
limit=${LIMIT:-300}
out=bench/out/roots
mkdir -p "$out"
stack=crates/ecs-gpu-rules/tests/fixtures/GPU406/clean/fits

: >"$out/results.txt"
for n in $sizes; do
  corpus=$out/corpus-$n
  rm -rf "$corpus"
  for i in $(seq 1 "$n"); do
    mkdir -p "$corpus/env-$i"
    cp "$stack"/*.tf "$corpus/env-$i/"
  done
  if [ "${SUPPRESS:-}" = 1 ]; then
    sed -i 's/^resource "aws_autoscaling_group"/# ecs-gpu:ignore GPU303 refreshed by the release pipeline\n&/' "$corpus"/env-*/capacity.tf
  fi
  for bin in "$@"; do
    set +e
    /usr/bin/time -f '%e %M' -o "$out/time" timeout "$limit" "$bin" check "$corpus" --format json >"$out/report.json"
    status=$?
    set -e
    if [ "$status" = 124 ]; then
      line="$n roots  $bin  timeout (${limit} s)"
    else
      read -r wall kib < <(tail -n 1 "$out/time")
      findings=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["diagnostics"]))' "$out/report.json")
      line="$n roots  $bin  ${wall} s  $((kib / 1024)) MiB  status $status  $findings findings"
    fi
    echo "$line" | tee -a "$out/results.txt"
  done
done
