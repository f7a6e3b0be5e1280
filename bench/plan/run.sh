#!/usr/bin/env bash
# Benchmark: `ecs-gpu plan` against `jq -c .resource_changes` on the same generated large plan, in
# one run. Wall time (best of RUNS) and peak RSS (largest of RUNS) from GNU time (`/usr/bin/time -v`;
# Debian/Ubuntu: `apt-get install time`). Also measures the library's two ways of reading (streaming
# from a buffered file reader, which `ecs-gpu plan` uses, and reading the whole file into memory
# first) so the choice between them stays measured. Then the memory target: peak RSS
# of `ecs-gpu plan` (human and json) under 3x the plan's size on the GPU-heavy shapes, 21,000
# GPU-stack resources alone (`gen.py 4200 0`, 53 MB) and with 6 other resources per module
# (`gen.py 4200 6`, 155 MB, the plan of the issue). Not part of the test suite.
#
# Usage: bench/plan/run.sh [MODULES [NOISE]]  (default 400 modules of 95 + 5 resources = 40,000
#        resources, about 160 MB)
# Environment: RUNS (default 3), BENCH_DIR (default target/bench-plan), CARGO_TARGET_DIR,
#              MEMORY_SHAPES (default "4200:0 4200:6"; empty to skip the memory part).
set -euo pipefail

cd "$(dirname "$0")/../.."
modules=${1:-400}
noise=${2:-95}
runs=${RUNS:-3}
dir=${BENCH_DIR:-target/bench-plan}
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$dir"
plan="$dir/plan-$modules-$noise.json"
memory_shapes=${MEMORY_SHAPES-4200:0 4200:6}

for tool in python3 jq cargo; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "run.sh: GNU time is required (apt-get install time)" >&2; exit 2; }

# generate MODULES NOISE: the plan's path, generated once.
generate() {
    local path="$dir/plan-$1-$2.json"
    if [ ! -s "$path" ]; then
        echo "generating $path ($1 modules, $2 other resources each)..." >&2
        python3 bench/plan/gen.py "$path" "$1" "$2"
    fi
    printf '%s\n' "$path"
}
generate "$modules" "$noise" >/dev/null
size_mb=$(( $(stat -L -c %s "$plan") / 1000000 ))
resources=$(( modules * (noise + 5) ))

echo "building (release)..." >&2
cargo build --release --quiet -p ecs-gpu
cargo build --release --quiet -p ecs-gpu-plan --example read

# Page cache warm for every contender alike.
cat "$plan" >/dev/null

# measure NAME CMD...: prints "NAME<TAB>best wall seconds<TAB>max peak RSS KiB".
measure() {
    local name=$1; shift
    local best="" rss=0 out="$dir/time.txt"
    for _ in $(seq "$runs"); do
        /usr/bin/time -v -o "$out" "$@" >/dev/null
        local wall kb
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
            n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out")
        kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out")
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$wall; fi
        if [ "$kb" -gt "$rss" ]; then rss=$kb; fi
    done
    printf '%s\t%s\t%s\n' "$name" "$best" "$rss"
}

results=$(
    measure "ecs-gpu plan --format json" "$target/release/ecs-gpu" plan "$plan" --format json
    measure "ecs-gpu plan (human)" "$target/release/ecs-gpu" plan "$plan"
    measure "library, streaming reader" "$target/release/examples/read" stream "$plan"
    measure "library, whole file in memory" "$target/release/examples/read" slice "$plan"
    measure "jq -c .resource_changes" jq -c .resource_changes "$plan"
)

echo
echo "plan: $plan, ${size_mb} MB, $resources resources ($(( modules * 5 )) in the GPU stack), best wall of $runs runs, $(nproc) cores"
echo
printf '%-32s %10s %12s\n' "" "wall (s)" "peak RSS (MB)"
jq_wall=$(printf '%s\n' "$results" | awk -F'\t' '/^jq/ { print $2 }')
jq_rss=$(printf '%s\n' "$results" | awk -F'\t' '/^jq/ { print $3 }')
printf '%s\n' "$results" | while IFS=$'\t' read -r name wall kb; do
    printf '%-32s %10.2f %12.1f\n' "$name" "$wall" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
done
echo
printf '%s\n' "$results" | awk -F'\t' -v jw="$jq_wall" -v jr="$jq_rss" '
    /^ecs-gpu plan --format json/ {
        printf "ecs-gpu plan / jq: wall %.2fx (target <= 2x), peak RSS %.2fx (target < 1x)\n", $2 / jw, $3 / jr
        ok = ($2 <= 2 * jw) && ($3 < jr)
        print ok ? "targets met" : "TARGETS MISSED"
    }'

[ -n "$memory_shapes" ] || exit 0
echo
echo "memory: peak RSS of ecs-gpu plan / plan size, target < 3x"
printf '%-34s %10s %14s %14s\n' "" "plan (MB)" "human (MB, x)" "json (MB, x)"
missed=0
for shape in $memory_shapes; do
    p=$(generate "${shape%%:*}" "${shape##*:}")
    bytes=$(stat -L -c %s "$p")
    cat "$p" >/dev/null
    row=$(printf '%-34s %10.1f' "gen.py ${shape%%:*} ${shape##*:}" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')")
    for format in human json; do
        kb=$(measure "$format" "$target/release/ecs-gpu" plan "$p" --format "$format" | cut -f3)
        ratio=$(awk -v k="$kb" -v b="$bytes" 'BEGIN { printf "%.2f", k * 1024 / b }')
        row+=$(printf ' %8.1f %4sx' "$(awk -v k="$kb" 'BEGIN { print k * 1024 / 1e6 }')" "$ratio")
        awk -v r="$ratio" 'BEGIN { exit !(r >= 3) }' && missed=1
    done
    printf '%s\n' "$row"
done
[ "$missed" = 0 ] && echo "memory target met" || echo "MEMORY TARGET MISSED"
