#!/usr/bin/env bash
# The whole test suite, on a fresh machine, with nothing done by hand:
#   1. rust: every crate's unit, snapshot, fixture, conformance and CLI tests (cargo test --workspace);
#   2. package: the PyPI wheel and sdist installed into fresh virtual environments, the pre-commit
#      hook, the static musl build, the Action's installer (scripts/test-package.sh);
#   3. terraform: fmt, validate, `terraform test` of the modules and their examples, checkov
#      (scripts/test-terraform.sh: with the offline stand-in beside the clone, the registry, or a
#      provider mirror, whichever is here);
#   4. live: the live AWS code against a local emulator (moto's server on 127.0.0.1, installed into
#      .venv by scripts/test-live.sh, started and stopped by it);
#   5. e2e: the Terraform examples applied with the real aws provider against moto
#      (scripts/test-e2e.sh).
# Each part installs what it needs from the package registries. What a part cannot run here (no
# terraform, no provider, no musl target...) it skips in one line saying why; those lines are
# listed again at the end. A failing part shows its own error output. Exits non-zero when any part
# fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: install Rust (https://rustup.rs) to build and test ecs-gpu" >&2
  exit 2
fi

logs=$(mktemp -d -t ecs-gpu-test.XXXXXX)
trap 'rm -rf "$logs"' EXIT
failed=()
run() {
  local name=$1; shift
  echo
  echo "=== $name: $*"
  # Shown as it runs (stdout and stderr), and kept to list the skips at the end.
  if "$@" 2>&1 | tee "$logs/$name.log"; then
    echo "=== $name: ok"
  else
    echo "=== $name: FAILED (its output is above)"
    failed+=("$name")
  fi
}

run rust cargo test --workspace --locked
for part in package terraform live e2e; do
  script="scripts/test-$part.sh"
  if [ -x "$script" ]; then
    run "$part" "$script"
  else
    echo "=== $part: $script is missing"
    failed+=("$part")
  fi
done

echo
skipped=$(cat "$logs"/*.log | grep -E '(^|: )skipped: ' || true)
if [ -n "$skipped" ]; then
  echo "skipped ($(wc -l <<<"$skipped") lines; each says why):"
  sed 's/^/  /' <<<"$skipped"
  echo
fi
if [ ${#failed[@]} -eq 0 ]; then
  echo "all test suites passed"
else
  echo "failed: ${failed[*]}"
  exit 1
fi
