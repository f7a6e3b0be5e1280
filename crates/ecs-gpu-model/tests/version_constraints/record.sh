#!/usr/bin/env bash
# Records what Terraform itself says of module version constraints, for the checker's test
# (`src/version.rs`): for every constraint and installed version below, a root module calls a
# registry module with that `version`, its `.terraform/modules/modules.json` records that version,
# and `terraform validate` either accepts it (allow), refuses the copy ("Module version
# requirements have changed": deny), refuses the constraint ("Invalid version constraint":
# invalid) or refuses the manifest's version (badversion).
#
# usage: crates/ecs-gpu-model/tests/version_constraints/record.sh   (needs `terraform` on PATH)
# output: terraform.tsv beside this script (constraint, version, verdict), with the version of
# Terraform that said it on its first line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.terraform/modules/m"
: >"$work/.terraform/modules/m/main.tf"

constraints=(
  "1.2.0" "= 1.2" "v1.2.0" "1.2.0+build" "!= 1.2.0" "> 1.2.0" ">= 1.2.0" "< 1.2.0" "<= 1.2.0"
  "~> 1" "~> 1.2" "~> 1.2.0" "~> 1.2.3" "~> 0.1" "~> 1.2.0.1"
  ">= 1.0, < 2.0" ">=1.2,<1.3" " >= 1.2 , < 1.3 " ">= 1.2.0-beta" "~> 1.2.0-beta" "< 1.2.0-rc.1"
  "= 1.2.0-rc.1" "1.2.0rc1" ">= 1.2, != 1.2.3"
  "" "latest" "^1.2" "~1.2" "=> 1.2" "1.2," ">= 1.2 < 2" "1.x" "1..2" "1.2." "v" "*"
)
versions=(
  "0.9.0" "1.0.0" "1.1.9" "1.2.0" "1.2.0.0" "1.2.0.1" "1.2.1" "1.2.3" "1.2.10" "1.3.0" "1.10.0"
  "2.0.0" "1.2.0-beta" "1.2.0-beta.2" "1.2.0-rc.1" "1.2.0-rc.2" "1.2.1-beta" "1.2.0+meta"
  "v1.2.0" "1.2" "1.2.0rc1" "1.2.0-" "latest" "1.2.0+"
)

{
  TF_CLI_CONFIG_FILE=/dev/null terraform version | head -1
  for c in "${constraints[@]}"; do
    for v in "${versions[@]}"; do
      printf 'module "m" {\n  source  = "acme/gpu/aws"\n  version = "%s"\n}\n' "$c" >"$work/main.tf"
      printf '{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"m","Source":"registry.terraform.io/acme/gpu/aws","Version":"%s","Dir":".terraform/modules/m"}]}' \
        "$v" >"$work/.terraform/modules/modules.json"
      out=$(cd "$work" && TF_CLI_CONFIG_FILE=/dev/null terraform validate -no-color 2>&1 || true)
      case "$out" in
        *"Module version requirements have changed"*) verdict=deny ;;
        *"Invalid version constraint"*) verdict=invalid ;;
        *"failed to read module manifest"*) verdict=badversion ;;
        *"Success!"*) verdict=allow ;;
        *) echo "unexpected output for \`$c\` on \`$v\`: $out" >&2; exit 1 ;;
      esac
      printf '%s\t%s\t%s\n' "$c" "$v" "$verdict"
    done
  done
} >"$here/terraform.tsv"
echo "wrote $here/terraform.tsv ($(($(wc -l <"$here/terraform.tsv") - 1)) cases)"
