#!/usr/bin/env bash
# The whole test suite, on a fresh machine, with nothing done by hand:
#   1. Rust: every crate's unit, snapshot, fixture, conformance and CLI tests (cargo test --workspace);
#   2. Terraform: fmt, validate, `terraform test` of terraform/ecs-gpu-task and its examples, checkov
#      (scripts/test-terraform.sh; offline through ../shared/tools/terraform-offline when present);
#   3. live AWS code against a local emulator (moto's server on 127.0.0.1, installed into .venv by
#      scripts/test-live.sh, started and stopped by it);
#   4. the Terraform examples applied with the real aws provider against moto (scripts/test-e2e.sh;
#      skipped in one line without terraform, python3 or the provider mirror).
# Each part installs what it needs. Exits non-zero when any part fails.
set -uo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: install Rust (https://rustup.rs) to build and test ecs-gpu" >&2
  exit 2
fi

failed=()
run() {
  local name=$1; shift
  echo
  echo "=== $name: $*"
  if "$@"; then
    echo "=== $name: ok"
  else
    echo "=== $name: FAILED"
    failed+=("$name")
  fi
}

run rust cargo test --workspace --locked
for part in terraform live e2e; do
  script="scripts/test-$part.sh"
  if [ -x "$script" ]; then
    run "$part" "$script"
  else
    echo "=== $part: $script is missing"
    failed+=("$part")
  fi
done

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "all test suites passed"
else
  echo "failed: ${failed[*]}"
  exit 1
fi
