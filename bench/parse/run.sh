#!/usr/bin/env bash
# The parse benchmark: builds the corpus (deterministic), then parses it with ecs-gpu-hcl and
# with hcl-edit on all cores, in one run of a release build.
#   bench/parse/run.sh [FILES] [ROUNDS]      (defaults: 6000 files, best of 5)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
count=${1:-6000}
rounds=${2:-5}
corpus="$here/corpus"
rm -rf "$corpus"
python3 "$here/gen_corpus.py" "$corpus" "$count"
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
"$here/target/release/parse-bench" "$corpus" "$rounds"
