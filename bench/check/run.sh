#!/usr/bin/env bash
# Benchmark of `ecs-gpu check` (not a test): in one run, on the same generated corpus,
#   1. ecs-gpu check               (the whole job: walk, parse, evaluate, model, every rule, JSON out)
#   2. the parse-only floor        (`ecs-gpu check --parse-only`: the same walk and parser, all cores)
#   3. checkov                     (`checkov -d CORPUS --framework terraform --quiet`, from PyPI)
# and prints wall-clock times, peak memory (/usr/bin/time -v) and the ratios the checker issue
# asks for: >= 1000x faster than checkov; within 1.5x of the parse-only floor; peak memory under
# 10x the corpus size.
#
# usage: bench/check/run.sh            (STACKS=360 stacks, about 4,200 .tf files)
#        STACKS=100 bench/check/run.sh (smaller corpus)
#        RUNS=20 bench/check/run.sh    (best of 20 runs of check and of the floor; default 10)
#        CHECKOV_STACKS=40 bench/check/run.sh
#            checkov on only the first 40 generated stacks, its time extrapolated to the whole corpus
#            by file count; the output then says so plainly. Default: checkov on the same full corpus.
# Results: bench/out/check-results.txt (bench/out is gitignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

stacks=${STACKS:-360}
runs=${RUNS:-10}
checkov_version=3.3.30
venv=.venv/checkov
out=bench/out
corpus=$out/check-corpus
mkdir -p "$out"

echo "== corpus"
python3 bench/check/gen_corpus.py "$corpus" "$stacks"
tf_files=$(find "$corpus" -name '*.tf' | wc -l)
corpus_bytes=$(find "$corpus" -type f -name '*.tf' -printf '%s\n' | awk '{s+=$1} END {print s}')

if [ ! -x /usr/bin/time ]; then
  echo "== installing GNU time (peak memory)"
  apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
fi

if [ ! -x "$venv/bin/checkov" ] || ! "$venv/bin/checkov" --version 2>/dev/null | grep -qx "$checkov_version"; then
  echo "== installing checkov $checkov_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "checkov==$checkov_version"
fi

echo "== building ecs-gpu (release)"
cargo build --release --locked -p ecs-gpu
bin=target/release/ecs-gpu

# wall seconds and peak RSS (KiB) of one command. The wall time is read from bash's microsecond
# clock around the command (GNU time prints it in 10 ms steps, a tenth of ecs-gpu's time), so it
# includes starting GNU time itself, the same for every tool; peak RSS is from GNU time's -v report.
measure() {
  local log=$1; shift
  local start=$EPOCHREALTIME
  /usr/bin/time -v "$@" >"$log.out" 2>"$log.time" || true
  local end=$EPOCHREALTIME
  local wall rss
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log.time")
  echo "$wall $rss"
}

# The best of $runs runs of check and of the floor (the least disturbed by other work on the
# machine), taken in turn (check, floor, check, floor, ...): a change in the machine's speed during
# the run then weighs on both alike, not on whichever ran second. The medians of the same runs are
# reported too: on a shared machine one lucky run moves a best more than a median.
check_wall=""; check_rss=""; floor_wall=""; floor_rss=""
check_walls=(); floor_walls=()
keep_best() {
  local wall=$1 rss=$2 best_var=$3 rss_var=$4
  if [ -z "${!best_var}" ] || awk -v a="$wall" -v b="${!best_var}" 'BEGIN {exit !(a < b)}'; then
    printf -v "$best_var" '%s' "$wall"; printf -v "$rss_var" '%s' "$rss"
  fi
}

echo "== ecs-gpu check and the parse-only floor ($runs runs each, in turn)"
"$bin" check "$corpus" --format json >"$out/check.json" || true
findings=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']; print(f\"{s['files']} files, {s['errors']} errors, {s['warnings']} warnings, {s['infos']} infos\")" "$out/check.json")
for i in $(seq "$runs"); do
  read -r wall rss < <(measure "$out/check" "$bin" check "$corpus" --format json)
  keep_best "$wall" "$rss" check_wall check_rss
  check_walls+=("$wall")
  read -r wall rss < <(measure "$out/floor" "$bin" check "$corpus" --parse-only)
  keep_best "$wall" "$rss" floor_wall floor_rss
  floor_walls+=("$wall")
done
cat "$out/floor.out"

checkov_dir=$corpus
note="same files"
if [ -n "${CHECKOV_STACKS:-}" ]; then
  checkov_dir=$out/check-corpus-checkov-subset
  rm -rf "$checkov_dir"; mkdir -p "$checkov_dir"
  find "$corpus/stacks" -mindepth 2 -maxdepth 2 -type d | sort | head -n "$CHECKOV_STACKS" |
    while read -r d; do cp -r "$d" "$checkov_dir/"; done
  note="SUBSET: $CHECKOV_STACKS stacks; time extrapolated to the whole corpus by .tf file count"
fi
checkov_files=$(find "$checkov_dir" -name '*.tf' | wc -l)
echo "== checkov on $checkov_files .tf files ($note; one run, it is slow)"
read -r checkov_wall checkov_rss < <(measure "$out/checkov" "$venv/bin/checkov" -d "$checkov_dir" --framework terraform --quiet --compact --skip-download)
checkov_full=$(awk -v w="$checkov_wall" -v a="$tf_files" -v b="$checkov_files" 'BEGIN {printf "%.2f", w * a / b}')

python3 - "$out/check-results.txt" <<PY
import statistics, sys
check, floor, checkov = float("$check_wall"), float("$floor_wall"), float("$checkov_full")
check_median = statistics.median(float(w) for w in "${check_walls[*]}".split())
floor_median = statistics.median(float(w) for w in "${floor_walls[*]}".split())
rss_kib, corpus = int("$check_rss"), int("$corpus_bytes")
lines = [
    f"corpus: $tf_files .tf files, {corpus / 1e6:.1f} MB ($stacks generated stacks + the project's module and examples x4)",
    f"machine: $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) when the run ended",
    f"ecs-gpu check:    {check:8.3f} s wall (best of $runs; median {check_median:.3f} s), peak RSS {rss_kib / 1024:.0f} MiB  ($findings)",
    f"parse-only floor: {floor:8.3f} s wall (best of $runs; median {floor_median:.3f} s), peak RSS {int('$floor_rss') / 1024:.0f} MiB",
    f"checkov $checkov_version: {float('$checkov_wall'):8.2f} s wall on $checkov_files files, peak RSS {int('$checkov_rss') / 1024:.0f} MiB ($note)",
    f"checkov / ecs-gpu check:     {checkov / check:8.0f}x   (target >= 1000x)",
    f"ecs-gpu check / parse floor: {check / floor:8.2f}x   (target <= 1.5x; the bests)",
    f"  the same, of the medians:  {check_median / floor_median:8.2f}x",
    f"peak memory / corpus size:   {rss_kib * 1024 / corpus:8.2f}x   (target < 10x)",
]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
