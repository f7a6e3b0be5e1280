#!/usr/bin/env bash
# Runs `ecs-gpu check` on each setup that fetch.sh brought into validation/setups/, and writes
# each JSON report to validation/results/<setup>.json and a one-line summary per setup.
#
#   scripts/validation/run.sh [path/to/ecs-gpu]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/target/debug/ecs-gpu}
out=$root/validation
mkdir -p "$out/results"
for dest in "$out"/setups/*/; do
  name=$(basename "$dest")
  IFS=$'\t' read -r path kind _ <"$dest/.validation"
  (cd "$dest" && "$bin" check --format json "$path" >"$out/results/$name.json" 2>"$out/results/$name.stderr") || true
  python3 - "$name" "$kind" "$out/results/$name.json" <<'PY'
import json, sys, collections
name, kind, path = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}\t{kind}\tno report: {e}")
    sys.exit()
c = collections.Counter(f"{d['rule']}:{d['severity'][0]}" for d in r["diagnostics"])
print(f"{name}\t{kind}\tfiles={r['summary']['files']}\t" + " ".join(f"{k}x{v}" for k, v in sorted(c.items())))
PY
done
