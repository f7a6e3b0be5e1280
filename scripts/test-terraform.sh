#!/usr/bin/env bash
# Test the Terraform modules terraform/ecs-gpu-task and terraform/ecs-gpu-managed-instances, and the
# submodules both call (terraform/modules/), offline:
#   1. terraform fmt -check -recursive terraform/
#   2. the generated files are up to date (scripts/generate.sh --check; it needs cargo): among them
#      each module README's input and output tables, the roots' inputs copied from the submodules,
#      and modules/service-v6's copies of modules/service
#   3. init (or get) + validate on each module, submodule (terraform/modules/) and example
#   4. terraform test (mock aws provider; needs Terraform >= 1.11): terraform/ecs-gpu-task,
#      terraform/modules/service-v6, the Managed Instances module
#   5. terraform test again with the real hashicorp/aws provider from a filesystem mirror
#      (scripts/test-terraform-real.sh: 5.x runs terraform/ecs-gpu-task; the modules that need 6.x
#      run only with a 6.x provider; one line says what was skipped)
#   6. checkov on both modules (each scan follows the module calls into terraform/modules/), from
#      PyPI into .venv/checkov: no failed check unless skipped inline with
#      `#checkov:skip=CKV_...:<reason>`
#
# Which hashicorp/aws steps 3 and 4 use, the first found of:
#   offline   terraform-offline, the real terraform CLI serving the hashicorp/aws 6.66.0 schema with
#             no registry: ECS_GPU_TERRAFORM_OFFLINE, else ../shared/tools/terraform-offline/
#             terraform-offline beside the clone (a contributor's machine may have it; set
#             ECS_GPU_TERRAFORM_OFFLINE=none to test without it). Every module, every test.
#   registry  the Terraform registry, when it answers (ECS_GPU_TF_REGISTRY=off: do not ask it).
#             Every module, every test, with the newest hashicorp/aws.
#   mirror    the real provider from a filesystem mirror (scripts/tf-provider-mirror.sh): step 3
#             for what its version serves (a 5.x mirror cannot serve the modules that need 6.x: one
#             line each says so), step 4 is step 5.
#   none      steps 3 and 4 are skipped, in one line.
# Without a terraform CLI, one line says the Terraform steps did not run; the rest still runs.
# Every failing command's own output is printed, and the line of the script that failed.
#
# Usage: scripts/test-terraform.sh   (from anywhere)
set -Eeuo pipefail
trap '[ "$BASH_SUBSHELL" -gt 0 ] || echo "test-terraform: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR

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

# shellcheck source=scripts/tf-provider-mirror.sh
. "$root/scripts/tf-provider-mirror.sh"

# Does the Terraform registry answer? (10 s at most; python3 is needed by step 2 anyway.)
registry_answers() {
  [ "${ECS_GPU_TF_REGISTRY:-on}" != off ] || return 1
  python3 - <<'PY' 2>/dev/null
import urllib.request
urllib.request.urlopen("https://registry.terraform.io/v1/providers/hashicorp/aws/versions", timeout=10)
PY
}

offline=${ECS_GPU_TERRAFORM_OFFLINE:-$root/../shared/tools/terraform-offline/terraform-offline}
tf=
mode=none
if ! command -v terraform >/dev/null 2>&1; then
  echo "test-terraform: skipped: terraform is not on PATH: fmt, validate and terraform test did not run"
elif [ "$offline" != none ] && [ -x "$offline" ]; then
  tf=$offline
  mode=offline
  schema="the hashicorp/aws 6.66.0 schema of terraform-offline's stand-in"
elif registry_answers; then
  tf=terraform
  mode=registry
  schema="hashicorp/aws from the registry"
elif mirror=$(tf_provider_mirror); then
  tf=terraform
  mode=mirror
  mirror_version=$(tf_provider_versions "$mirror" | tail -n 1)
  schema="hashicorp/aws $mirror_version from the filesystem mirror $mirror"
  tfrc=$(mktemp -t ecs-gpu-terraformrc.XXXXXX)
  trap 'rm -f "$tfrc"' EXIT
  cat >"$tfrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
RC
  export TF_CLI_CONFIG_FILE=$tfrc
else
  tf=terraform
  echo "test-terraform: skipped: validate and terraform test: no terraform-offline stand-in ($offline), the Terraform registry does not answer, and no hashicorp/aws filesystem mirror (set ECS_GPU_TF_PLUGIN_MIRROR)"
fi

if [ -n "$tf" ]; then
  version_line=$(terraform version 2>/dev/null | sed -n 1p)
  section "terraform ($mode): $version_line"
  case $mode in
    offline)
      echo "$tf"
      echo "(its expected \"Provider development overrides are in effect\" warning is hidden below)" ;;
    mirror)
      echo "the Terraform registry does not answer and no terraform-offline stand-in: $schema" ;;
  esac

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
[ "$mode" != none ] || tf=

section "generated files are up to date (scripts/generate.sh --check)"
if command -v cargo >/dev/null 2>&1; then
  scripts/generate.sh --check
  echo "up to date"
else
  echo "cargo not found: the generated files were not checked (scripts/generate.sh --check needs it)"
fi

if [ -n "$tf" ]; then
  # Prepare a root: offline, `get` installs the local child modules (the provider is served by the
  # stand-in, and `init` would ask the registry); else `init`, from the registry or the mirror
  # (-upgrade: a lock file left by another provider source must not pin a version the mirror lacks).
  # Returns 3, having said why in one line, when the mirror's provider is outside the root's
  # constraints; any other failure prints init's own output.
  prepare() {
    local out status=0
    out=$(mktemp)
    case $mode in
      offline) (cd "$1" && tf_quiet get -no-color) >"$out" 2>&1 || status=$? ;;
      registry) (cd "$1" && tf_quiet init -backend=false -input=false -no-color) >"$out" 2>&1 || status=$? ;;
      mirror) (cd "$1" && tf_quiet init -upgrade -backend=false -input=false -no-color) >"$out" 2>&1 || status=$? ;;
    esac
    if [ "$status" -ne 0 ] && [ "$mode" = mirror ] && grep -q 'no available releases match the given constraints' "$out"; then
      # The constraint, as terraform quotes it, without the line breaks of its message.
      constraint=$(tr '\n' ' ' <"$out" | sed -nE 's/.*match the given constraints ([^:]*[0-9]).*/\1/p')
      echo "test-terraform: skipped: validate $1: it needs hashicorp/aws ${constraint:-another version}, the mirror has $mirror_version"
      rm -f "$out"
      return 3
    fi
    [ "$status" -eq 0 ] || cat "$out" >&2
    rm -f "$out"
    return "$status"
  }

  # validate_dir DIR: prepare and validate one root.
  validate_dir() {
    local status=0
    section "validate $1"
    prepare "$1" || status=$?
    if [ "$status" -eq 3 ]; then return 0; fi
    [ "$status" -eq 0 ] || return "$status"
    (cd "$1" && tf_quiet validate -no-color)
  }

  # test_dir DIR: `terraform test` in one module (in mirror mode, step 5 runs them).
  test_dir() {
    if [ "$mode" = mirror ]; then
      return 0
    fi
    section "terraform test ($1, with $schema)"
    (cd "$1" && tf_quiet test -no-color)
  }

  for dir in "$module" terraform/modules/*/ "$module"/examples/*/; do
    validate_dir "${dir%/}"
  done

  if [ "$mode" = mirror ]; then
    echo
    echo "test-terraform: skipped: terraform test with the 6.66.0 schema stand-in or the registry's provider (neither is here): the tests run with the mirror's hashicorp/aws $mirror_version below (scripts/test-terraform-real.sh), the modules that need 6.x only with a 6.x provider"
  fi
  test_dir "$module"
  test_dir terraform/modules/service-v6
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
# is called by one of them). tests/same_root is skipped: a caller's root for the tests (a plain HTTP
# load balancer, a bare VPC and repository), not code the module ships or recommends.
"$venv/bin/checkov" -d "$module" --framework terraform --quiet --compact --skip-download --skip-path tests/same_root

# --- terraform/ecs-gpu-managed-instances: the same checks, in a block of its own ------------------
mi=terraform/ecs-gpu-managed-instances
if [ -n "$tf" ]; then
  for dir in "$mi" "$mi"/examples/*/; do
    validate_dir "${dir%/}"
  done
  test_dir "$mi"
fi

section "checkov $checkov_version ($mi)"
bad_skips=$(grep -rnE --include='*.tf' 'checkov:skip=' "$mi" | grep -vE 'checkov:skip=CKV2?_[A-Z0-9_]+:[^ ].{15,}' || true)
if [ -n "$bad_skips" ]; then
  echo "checkov skips without a reason (write #checkov:skip=CKV_...:<why>):" >&2
  echo "$bad_skips" >&2
  exit 1
fi
"$venv/bin/checkov" -d "$mi" --framework terraform --quiet --compact --skip-download --skip-path tests/same_root

section "terraform test with the real hashicorp/aws provider"
scripts/test-terraform-real.sh

echo
echo "terraform module checks passed"
