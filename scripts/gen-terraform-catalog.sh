#!/usr/bin/env bash
# Regenerate the catalog.tf of each Terraform module (terraform/ecs-gpu-task and
# terraform/ecs-gpu-managed-instances) from the catalog (crates/ecs-gpu-catalog/data/catalog.json).
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_TERRAFORM_CATALOG=1 cargo test --quiet -p ecs-gpu-catalog terraform_catalog_matches_the_catalog >/dev/null
for module in ecs-gpu-task ecs-gpu-managed-instances; do
  terraform fmt "terraform/$module/catalog.tf" >/dev/null 2>&1 || true
  echo "wrote terraform/$module/catalog.tf"
done
