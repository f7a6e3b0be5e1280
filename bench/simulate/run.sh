#!/usr/bin/env bash
# The simulation at fleet scale (crates/ecs-gpu-sim/examples/bench.rs), each run timed with its peak
# memory:
#   uniform   one rolling deployment on p4d.24xlarge instances that all run the same tasks, beside
#             the same placement done one instance record at a time (the straightforward way);
#   varied    one rolling deployment (maximum 101%: about a hundred batches) on a cluster of four
#             GPU types filled part-way by ten services of different sizes and constraints, in a
#             group that launches either of two types (so the model runs twice);
#   stepwise  a group of two types scaling out one instance a step, its minimum step;
#   refresh   an instance refresh (minimum healthy 90%) of the varied cluster's group.
# Usage: bench/simulate/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q --release -p ecs-gpu-sim --example bench
bench=target/release/examples/bench
run() {
    /usr/bin/time -f "  peak memory %M KiB, wall %e s" "$bench" "$@"
}
for n in "1000 10000" "10000 100000" "20000 200000"; do
    # shellcheck disable=SC2086
    run uniform $n
done
for n in "1000 10000" "10000 100000" "20000 200000"; do
    # shellcheck disable=SC2086
    run varied $n
done
run varied 10000 100000 200
for n in 1000 10000 100000; do
    run stepwise "$n"
done
for n in "1000 10000" "10000 100000"; do
    # shellcheck disable=SC2086
    run refresh $n
done
