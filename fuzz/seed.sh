#!/bin/sh
# Builds the seed corpora of the fuzz targets from the repository's fixtures, at run time (no
# committed corpus): fuzz/corpus/<target>/. Run from anywhere; see docs/fuzzing.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
corpus="$here/corpus"
mkdir -p "$corpus/hcl" "$corpus/eval" "$corpus/plan" "$corpus/diagnose" "$corpus/simulate"

# hcl: every Terraform, OpenTofu and JSON file of the examples, the module and the test fixtures.
find "$repo/examples" "$repo/terraform" "$repo/crates" \
    -path '*/target' -prune -o -path '*/.terraform' -prune -o -type f \
    \( -name '*.tf' -o -name '*.tofu' -o -name '*.tf.json' -o -name '*.tftest.hcl' \) -size -256k -print |
    while read -r f; do cp "$f" "$corpus/hcl/$(echo "$f" | cksum | cut -d' ' -f1)"; done

# plan: the plan reader's fixtures (JSON only; the binary plan file is refused by its header).
for f in "$repo"/crates/ecs-gpu-plan/tests/fixtures/*.json; do
    cp "$f" "$corpus/plan/$(basename "$f")"
done

# diagnose: each saved output of each scenario, prefixed by the byte that picks its file name
# (the order of DIAGNOSE_FILES in src/lib.rs) and a byte that picks the scenario for the others.
i=0
for name in describe-services describe-task-definition describe-container-instances \
    describe-tasks describe-capacity-providers describe-auto-scaling-groups \
    describe-scaling-activities; do
    for f in "$repo"/crates/ecs-gpu-diagnose/tests/scenarios/*/"$name.json"; do
        [ -f "$f" ] || continue
        s=$(basename "$(dirname "$f")")
        out="$corpus/diagnose/$i-$s"
        printf "\\$(printf %03o "$i")\\000" > "$out"
        cat "$f" >> "$out"
    done
    i=$((i + 1))
done

# eval: the grammar reads any bytes; random ones make a start.
n=0
while [ $n -lt 32 ]; do
    head -c 256 /dev/urandom > "$corpus/eval/random-$n"
    n=$((n + 1))
done

# simulate: the scenario builder reads any bytes too.
n=0
while [ $n -lt 32 ]; do
    head -c 512 /dev/urandom > "$corpus/simulate/random-$n"
    n=$((n + 1))
done
for t in hcl plan diagnose eval simulate; do
    echo "$t: $(ls "$corpus/$t" | wc -l) seeds"
done
