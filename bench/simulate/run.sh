#!/usr/bin/env bash
# The simulation at fleet scale: one rolling deployment over 10,000 g5.12xlarge running 100,000
# one-GPU tasks (10 services), timed with its peak memory, beside the same fleet's placement done
# one instance at a time (the straightforward way). Usage: bench/simulate/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q --release -p ecs-gpu-sim --example bench
for n in "1000 10000" "10000 100000" "20000 200000"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "  peak memory %M KiB, wall %e s" target/release/examples/bench $n 10
done
