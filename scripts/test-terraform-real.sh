#!/usr/bin/env bash
# `terraform test` of the modules with the real hashicorp/aws provider, from a Terraform filesystem
# mirror, not the schema-only stand-in of terraform-offline. The tests still use
# `mock_provider "aws"` (no AWS call), but the mock serves the real provider's schema and the real
# provider validates what the module plans (policy JSON, ARN shapes, enum values...).
#
# Each provider version found in the mirror runs the test directories whose modules it can serve:
#   hashicorp/aws 5.x: terraform/ecs-gpu-task/tests, from the module's floor (its versions.tf) to < 7.0;
#   hashicorp/aws 6.x: the same, plus the modules that need 6.x
#     (terraform/modules/service-v6/tests, terraform/ecs-gpu-managed-instances/tests),
#     when the version meets their floor.
# A version is pinned by a scratch mirror that holds only it. Nothing is written in the repository:
# the modules are copied to a scratch folder first.
#
# Mirror: scripts/tf-provider-mirror.sh (ECS_GPU_TF_PLUGIN_MIRROR, else /opt/tf-plugins,
# ~/.terraform.d/plugins, /usr/share/terraform/plugins, else a search). Without terraform or a
# mirror it prints one line and exits 0.
#
# Usage: scripts/test-terraform-real.sh   (from anywhere)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

command -v terraform >/dev/null 2>&1 || { echo "real-provider tests: skipped: terraform is not on PATH"; exit 0; }

# shellcheck source=scripts/tf-provider-mirror.sh
. "$root/scripts/tf-provider-mirror.sh"
if ! mirror=$(tf_provider_mirror); then
  echo "real-provider tests: skipped: no hashicorp/aws provider in a filesystem mirror (set ECS_GPU_TF_PLUGIN_MIRROR)"
  exit 0
fi

# version_ge A B: A >= B (dotted versions).
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]; }

# Each module's floor (its versions.tf); service-v6 and Managed Instances need hashicorp/aws 6.x.
task_floor=$(sed -nE 's/^[[:space:]]*version *= *">= *([0-9.]+).*/\1/p' "$root/terraform/ecs-gpu-task/versions.tf" | head -n 1)
v6_floor=$(sed -nE 's/^[[:space:]]*version *= *">= *([0-9.]+).*/\1/p' "$root/terraform/modules/service-v6/versions_override.tf" | head -n 1)
mi_floor=$(sed -nE 's/^[[:space:]]*version *= *">= *([0-9.]+).*/\1/p' "$root/terraform/ecs-gpu-managed-instances/versions.tf" | head -n 1)

work=$(mktemp -d -t ecs-gpu-tf-real.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run_tests <version> <module dir, relative to terraform/> [<test directory>]
run_tests() {
  local version=$1 dir=$2 tests=${3:-tests} copy log
  copy=$work/$version/terraform
  log=$work/$version/$(echo "$dir" | tr / _).log
  printf '\n=== terraform test (hashicorp/aws %s from %s): terraform/%s/%s\n' "$version" "$mirror" "$dir" "$tests"
  (
    cd "$copy/$dir"
    export TF_CLI_CONFIG_FILE=$work/$version/terraformrc TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
    terraform init -backend=false -input=false -no-color -test-directory="$tests" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    terraform test -no-color -test-directory="$tests" >"$log" 2>&1 || { grep -vE '^\s*$' "$log" | grep -B2 -A14 -E 'fail|Error' >&2; tail -n 1 "$log" >&2; exit 1; }
    tail -n 1 "$log"
  )
}

ran=0
for version_dir in "$mirror"/registry.terraform.io/hashicorp/aws/*/; do
  version=$(basename "$version_dir")
  # A mirror of this one version, so that init cannot pick another (its files linked, not copied:
  # terraform does not follow a linked directory).
  for platform_dir in "$version_dir"*/; do
    platform=$(basename "$platform_dir")
    mkdir -p "$work/$version/mirror/registry.terraform.io/hashicorp/aws/$version/$platform"
    ln -s "$platform_dir"* "$work/$version/mirror/registry.terraform.io/hashicorp/aws/$version/$platform/"
  done
  cat >"$work/$version/terraformrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$work/$version/mirror"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
RC
  cp -r "$root/terraform" "$work/$version/"
  find "$work/$version/terraform" -name .terraform -type d -prune -exec rm -rf {} +
  find "$work/$version/terraform" -name .terraform.lock.hcl -exec rm -f {} +

  if version_ge "$version" "$task_floor" && ! version_ge "$version" 7.0.0; then
    run_tests "$version" ecs-gpu-task
    ran=$((ran + 1))
  fi
  if version_ge "$version" "$v6_floor" && ! version_ge "$version" 7.0.0; then
    run_tests "$version" modules/service-v6
  else
    echo "real-provider tests: skipped: terraform/modules/service-v6 with hashicorp/aws $version: it needs >= $v6_floor (its tests run with the 6.x schema of terraform-offline or the registry's provider, when either is here)"
  fi
  if version_ge "$version" "$mi_floor" && ! version_ge "$version" 7.0.0; then
    run_tests "$version" ecs-gpu-managed-instances
  else
    echo "real-provider tests: skipped: terraform/ecs-gpu-managed-instances with hashicorp/aws $version: it needs >= $mi_floor (its tests run with the 6.x schema of terraform-offline or the registry's provider, when either is here)"
  fi
done

[ "$ran" -gt 0 ] || echo "real-provider tests: no provider version in $mirror serves terraform/ecs-gpu-task (>= $task_floor, < 7.0)"
