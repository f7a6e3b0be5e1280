#!/usr/bin/env bash
# Scaling of `ecs-gpu check` (a benchmark, not a test): the benchmark corpus at two sizes, in the
# variant that reaches the slowest links, to show that time grows with the corpus, not with its
# square. In the variant, every stack links its capacity providers and cluster by *name* (string
# values, matched against every resource of the type in the checked tree) and its services use the
# cluster's default strategy (the path through `aws_ecs_cluster_capacity_providers`); in the
# benchmark corpus they are references and service strategies.
#
# usage: bench/check/scaling.sh                 (360 and 1440 stacks, best of 5 runs each)
#        SIZES="100 400 1600" RUNS=3 bench/check/scaling.sh
# Results: bench/out/scaling-results.txt (bench/out is gitignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

sizes=${SIZES:-360 1440}
runs=${RUNS:-5}
out=bench/out
mkdir -p "$out"

cargo build --release --locked -p ecs-gpu
bin=target/release/ecs-gpu

: >"$out/scaling-results.txt"
for n in $sizes; do
  corpus=$out/scaling-corpus-$n
  python3 bench/check/gen_corpus.py "$corpus" "$n" >/dev/null
  python3 - "$corpus" <<'PY'
import os, re, sys
changed = 0
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if not name.endswith(".tf"):
            continue
        path = os.path.join(folder, name)
        text = open(path).read()
        new = text.replace("aws_ecs_capacity_provider.node.name", "local.prefix")
        new = new.replace("cluster_name       = aws_ecs_cluster.main.name", "cluster_name       = local.prefix")
        # A service without its own strategy block takes the cluster's default strategy.
        new = re.sub(r'(resource "aws_ecs_service"[^\n]*\n(?:.*\n)*?)  capacity_provider_strategy \{\n(?:    .*\n)*?  \}\n', r"\1", new)
        if new != text:
            open(path, "w").write(new)
            changed += 1
        if ("aws_ecs_capacity_provider.node.name" in new
                or "cluster_name       = aws_ecs_cluster.main.name" in new
                or re.search(r"^  capacity_provider_strategy \{", new, re.M)):
            sys.exit(f"{path}: a link is still a reference; gen_corpus.py changed, update this script")
if changed == 0:
    sys.exit("no stack was rewritten; gen_corpus.py changed, update this script")
PY
  files=$(find "$corpus" -name '*.tf' | wc -l)
  best=""
  for _ in $(seq "$runs"); do
    start=$EPOCHREALTIME
    "$bin" check "$corpus" --format json >/dev/null || true
    end=$EPOCHREALTIME
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$wall; fi
  done
  line="$n stacks, $files .tf files: ecs-gpu check ${best} s (best of $runs)"
  echo "$line" | tee -a "$out/scaling-results.txt"
done
