#!/usr/bin/env bash
# Regenerate terraform/modules/facts/catalog.tf from the catalog (crates/ecs-gpu-catalog/data/catalog.json).
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_TERRAFORM_CATALOG=1 cargo test --quiet -p ecs-gpu-catalog terraform_catalog_matches_the_catalog >/dev/null
terraform fmt terraform/modules/facts/catalog.tf >/dev/null 2>&1 || true
echo "wrote terraform/modules/facts/catalog.tf"
