#!/usr/bin/env bash
# Before/after comparison of two `ecs-gpu` builds (not a test): each input is checked by A then B
# in turn (A B A B ...), so that a change in the machine's speed weighs on both.
#
# usage: bench/check/compare.sh BIN_A BIN_B [RUNS]
# Inputs: the bench/check corpus (generated into bench/out/check-corpus if missing) and, when
# scripts/validation/fetch.sh has brought them, the validation setups, all in one invocation.
# Prints, per input and build, the best and median wall time and the largest peak RSS.
set -euo pipefail
cd "$(dirname "$0")/../.."
a=$(realpath "$1"); b=$(realpath "$2"); runs=${3:-20}
corpus=bench/out/check-corpus
[ -d "$corpus" ] || python3 bench/check/gen_corpus.py "$corpus" 360 >/dev/null
[ -x /usr/bin/time ] || { echo "GNU time is needed (/usr/bin/time): apt-get install time" >&2; exit 2; }

inputs=("corpus:$corpus")
if compgen -G "validation/setups/*/.validation" >/dev/null; then
  paths=()
  for dest in validation/setups/*/; do
    IFS=$'\t' read -r path _ <"$dest/.validation"
    paths+=("$dest$path")
  done
  inputs+=("validation:${paths[*]}")
fi

# wall seconds and peak RSS (KiB) of one run, output compared with the other build's
one() {
  local bin=$1; shift
  local start=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o bench/out/compare.rss "$bin" check --format json "$@" >bench/out/compare.out 2>/dev/null || true
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" -v r="$(tail -n 1 bench/out/compare.rss)" 'BEGIN {printf "%.4f %d\n", b - a, r}'
}

stats() { # best, median, max rss of "wall rss" lines
  sort -n | awk '{w[NR]=$1; if ($2>m) m=$2} END {printf "best %.3f s  median %.3f s  peak %.1f MiB", w[1], w[int((NR+1)/2)], m/1024}'
}

for input in "${inputs[@]}"; do
  name=${input%%:*}; read -r -a args <<<"${input#*:}"
  : >bench/out/compare.a; : >bench/out/compare.b
  "$a" check --format json "${args[@]}" >bench/out/compare.a.out 2>/dev/null || true
  "$b" check --format json "${args[@]}" >bench/out/compare.b.out 2>/dev/null || true
  if cmp -s bench/out/compare.a.out bench/out/compare.b.out; then same="same output"; else same="OUTPUTS DIFFER"; fi
  for _ in $(seq "$runs"); do
    one "$a" "${args[@]}" >>bench/out/compare.a
    one "$b" "${args[@]}" >>bench/out/compare.b
  done
  echo "$name ($same, $runs runs each)"
  echo "  A: $(stats <bench/out/compare.a)"
  echo "  B: $(stats <bench/out/compare.b)"
done
