#!/usr/bin/env bash
# Test the Terraform modules terraform/ecs-gpu-task and terraform/ecs-gpu-managed-instances, and the
# submodules both call (terraform/modules/), offline:
#   1. terraform fmt -check -recursive terraform/
#   2. the generated files are up to date (scripts/generate.sh --check; it needs cargo): among them
#      each module README's input and output tables, the roots' inputs copied from the submodules,
#      and modules/service-v6's copies of modules/service
#   3. init (or get) + validate on each module, submodule (terraform/modules/) and example
#   4. terraform test (mock aws provider; needs Terraform >= 1.11) with the 6.x schema of
#      terraform-offline: terraform/ecs-gpu-task, terraform/modules/service-v6, the Managed Instances
#      module
#   5. terraform test again with the real hashicorp/aws provider from a filesystem mirror
#      (scripts/test-terraform-real.sh: 5.x runs terraform/ecs-gpu-task; the modules that need 6.x
#      run only with a 6.x provider; one line says what was skipped)
#   6. checkov on both modules (each scan follows the module calls into terraform/modules/), from
#      PyPI into .venv/checkov: no failed check unless skipped inline with
#      `#checkov:skip=CKV_...:<reason>`
#
# Which terraform: ../shared/tools/terraform-offline/terraform-offline (relative to the repository
# root; ECS_GPU_TERRAFORM_OFFLINE names another place) when it exists — the real terraform CLI
# serving the hashicorp/aws schema (6.66.0) with no registry — else `terraform` from PATH (which then
# needs registry access for `init`). Without any terraform CLI, one line says the Terraform tests
# did not run and the checkov scan still runs.
#
# Usage: scripts/test-terraform.sh   (from anywhere)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

module=terraform/ecs-gpu-task
checkov_version=3.3.30
venv=.venv/checkov

section() { printf '\n=== %s ===\n' "$*"; }

# Hide terraform-offline's "Provider development overrides are in effect" warning (printed by
# every command it runs, and expected there) and keep everything else, with terraform's status.
tf_quiet() {
  local out status=0
  out=$(mktemp)
  "$tf" "$@" >"$out" 2>&1 || status=$?
  awk '
    /Warning: Provider development overrides are in effect/ { skip = 1; next }
    skip == 1 { if (/releases\.$/) { skip = 2 }; next }
    skip == 2 && /^[[:space:]]*$/ { next }
    { skip = 0; print }
  ' "$out"
  rm -f "$out"
  return "$status"
}

offline=${ECS_GPU_TERRAFORM_OFFLINE:-$root/../shared/tools/terraform-offline/terraform-offline}
tf=
if ! command -v terraform >/dev/null 2>&1; then
  echo "terraform not found: the Terraform tests did not run"
elif [ -x "$offline" ]; then
  tf=$offline
  mode=offline
  schema="the hashicorp/aws 6.66.0 schema of terraform-offline's stand-in"
else
  tf=terraform
  mode=registry
  schema="hashicorp/aws from the registry"
fi

if [ -n "$tf" ]; then
  version_line=$(terraform version 2>/dev/null | sed -n 1p)
  section "terraform ($mode): $version_line"
  if [ "$mode" = offline ]; then
    echo "$tf"
    echo "(its expected \"Provider development overrides are in effect\" warning is hidden below)"
  fi

  # `terraform test` here uses override_during = plan (Terraform 1.11); the module itself needs 1.6.
  read -r major minor <<<"$(sed -E 's/^Terraform v([0-9]+)\.([0-9]+).*/\1 \2/' <<<"$version_line")"
  if [ "$major" -lt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -lt 11 ]; }; then
    echo "terraform $major.$minor is too old for the module's tests: they need Terraform >= 1.11" >&2
    exit 1
  fi

  section "terraform fmt -check -recursive terraform/"
  tf_quiet fmt -check -recursive -diff terraform/
  echo "formatted"
fi

section "generated files are up to date (scripts/generate.sh --check)"
if command -v cargo >/dev/null 2>&1; then
  scripts/generate.sh --check
  echo "up to date"
else
  echo "cargo not found: the generated files were not checked (scripts/generate.sh --check needs it)"
fi

if [ -n "$tf" ]; then
  # Prepare a root: offline, `get` installs the local child modules (the provider is served by the
  # stand-in, and `init` would ask the registry); with a registry, a normal `init`.
  prepare() {
    if [ "$mode" = offline ]; then
      (cd "$1" && tf_quiet get -no-color >/dev/null)
    else
      (cd "$1" && tf_quiet init -backend=false -input=false -no-color >/dev/null)
    fi
  }

  for dir in "$module" terraform/modules/*/ "$module"/examples/*/; do
    dir=${dir%/}
    section "validate $dir"
    prepare "$dir"
    (cd "$dir" && tf_quiet validate -no-color)
  done

  section "terraform test ($module, with $schema)"
  (cd "$module" && tf_quiet test -no-color)

  section "terraform test (terraform/modules/service-v6, with $schema)"
  (cd terraform/modules/service-v6 && tf_quiet test -no-color)
fi

section "checkov $checkov_version ($module)"
if [ ! -x "$venv/bin/checkov" ] || ! "$venv/bin/checkov" --version 2>/dev/null | grep -qx "$checkov_version"; then
  echo "installing checkov $checkov_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "checkov==$checkov_version"
fi

# Every inline skip must give its reason.
bad_skips=$(grep -rnE --include='*.tf' 'checkov:skip=' "$module" terraform/modules | grep -vE 'checkov:skip=CKV2?_[A-Z0-9_]+:[^ ].{15,}' || true)
if [ -n "$bad_skips" ]; then
  echo "checkov skips without a reason (write #checkov:skip=CKV_...:<why>):" >&2
  echo "$bad_skips" >&2
  exit 1
fi

# --skip-download: no Prisma Cloud call (guidelines, severities); the scan itself is local. The scan
# follows the module calls of the module and its examples into terraform/modules/ (every submodule
# is called by one of them).
"$venv/bin/checkov" -d "$module" --framework terraform --quiet --compact --skip-download

# --- terraform/ecs-gpu-managed-instances: the same checks, in a block of its own ------------------
mi=terraform/ecs-gpu-managed-instances
if [ -n "$tf" ]; then
  for dir in "$mi" "$mi"/examples/*/; do
    dir=${dir%/}
    section "validate $dir"
    prepare "$dir"
    (cd "$dir" && tf_quiet validate -no-color)
  done

  section "terraform test ($mi, with $schema)"
  (cd "$mi" && tf_quiet test -no-color)
fi

section "checkov $checkov_version ($mi)"
bad_skips=$(grep -rnE --include='*.tf' 'checkov:skip=' "$mi" | grep -vE 'checkov:skip=CKV2?_[A-Z0-9_]+:[^ ].{15,}' || true)
if [ -n "$bad_skips" ]; then
  echo "checkov skips without a reason (write #checkov:skip=CKV_...:<why>):" >&2
  echo "$bad_skips" >&2
  exit 1
fi
"$venv/bin/checkov" -d "$mi" --framework terraform --quiet --compact --skip-download

section "terraform test with the real hashicorp/aws provider"
scripts/test-terraform-real.sh

echo
echo "terraform module checks passed"
