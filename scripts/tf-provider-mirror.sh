# shellcheck shell=bash
# Sourced by the Terraform test scripts: finds a Terraform filesystem mirror that holds the real
# hashicorp/aws provider, for tests that must not need the registry.
#
#   tf_provider_mirror   prints the mirror's path and returns 0, or prints nothing and returns 1
#
# Where it looks: ECS_GPU_TF_PLUGIN_MIRROR when set (only there), else /opt/tf-plugins,
# ~/.terraform.d/plugins, /usr/share/terraform/plugins, else the first linux_amd64 build of the
# provider found on this file system.
tf_provider_mirror() {
  local candidate found
  if [ -n "${ECS_GPU_TF_PLUGIN_MIRROR:-}" ]; then
    [ -d "$ECS_GPU_TF_PLUGIN_MIRROR/registry.terraform.io/hashicorp/aws" ] || return 1
    echo "$ECS_GPU_TF_PLUGIN_MIRROR"
    return 0
  fi
  for candidate in /opt/tf-plugins "$HOME/.terraform.d/plugins" /usr/share/terraform/plugins; do
    if [ -d "$candidate/registry.terraform.io/hashicorp/aws" ]; then
      echo "$candidate"
      return 0
    fi
  done
  found=$(find / -xdev -path '*/registry.terraform.io/hashicorp/aws/*/linux_amd64/terraform-provider-aws_*' -print -quit 2>/dev/null || true)
  [ -n "$found" ] || return 1
  echo "${found%%/registry.terraform.io/*}"
}

# tf_provider_versions MIRROR: the hashicorp/aws versions in the mirror, lowest first.
tf_provider_versions() {
  find "$1/registry.terraform.io/hashicorp/aws" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V
}
