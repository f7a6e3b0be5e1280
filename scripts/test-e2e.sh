#!/usr/bin/env bash
# Applies the module's examples for real, with the real hashicorp/aws provider, against moto's
# server (a local AWS API emulator on 127.0.0.1), then checks what was created through the API:
#
#   1. installs moto[server] into .venv/moto (as scripts/test-live.sh does) and starts it;
#   2. finds the provider in a Terraform filesystem mirror (ECS_GPU_TF_PLUGIN_MIRROR, else
#      /opt/tf-plugins, else a search) and points terraform at it with its own CLI config
#      (TF_CLI_CONFIG_FILE, filesystem_mirror only: no registry);
#   3. applies examples/basic, autoscaling, vllm, existing-cluster, mixed-spot, capacity-block,
#      warm-pool, mps, gpu-metrics and production (each copied to a scratch folder with an override
#      file that sends the provider to the emulator);
#   4. checks the launch template's user data, the group's protection and refresh settings, the
#      capacity provider, the task definition's GPU resourceRequirements, the service's strategy
#      and constraint, and gpu-metrics' agent, policy metric math, alarm and dashboard
#      (scripts/e2e_check.py, boto3 from the venv);
#   5. bumps the AMI and then the image, saves `terraform show -json` of each plan and asserts
#      what `ecs-gpu plan` reports (instance replacement, deployment); switches autoscaling on with
#      the README's `moved` block (the service moves, nothing is destroyed); on examples/production,
#      checks both services placed with their GPUs on their own capacity providers, then tags the
#      listener rule and asserts that the plan changes nothing inside the module calls;
#   6. runs `ecs-gpu diagnose --endpoint-url` against the live stack;
#   7. destroys everything;
#   8. applies examples/basic with the module as it was before the split into submodules (from git,
#      commit $pre_split), then plans it with the split module: every resource must move (moved.tf),
#      none be destroyed or created; destroys it and stops moto.
#
# Without terraform, python3 or the provider mirror it prints one line and exits 0 (skipped).
# What the emulator and moto emulate per resource, and what this script works around, is in
# docs/emulator.md ("What the Terraform end-to-end test relies on").
#
# Usage: scripts/test-e2e.sh   (from anywhere)
#
# The upgrade mode, ECS_GPU_E2E_UPGRADE_FROM=<commit> scripts/test-e2e.sh: each example is applied
# with the example and the modules of that commit (a previous release), then planned with this
# tree's without a refresh; the plan must change nothing (upgrade_check), and every check above
# then runs on the upgraded stacks.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
module=$root/terraform//ecs-gpu-task
provider_version=5.100.0
# ECS_GPU_E2E_UPGRADE_FROM=<commit> (a previous release): the upgrade mode, see upgrade_check.
upgrade_from=${ECS_GPU_E2E_UPGRADE_FROM:-}
# The last commit of the single-module layout, for the state-move check (step 8).
pre_split=e0b6399

command -v terraform >/dev/null 2>&1 || { echo "test-e2e: skipped: terraform is not on PATH"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "test-e2e: skipped: python3 is not on PATH"; exit 0; }

mirror=${ECS_GPU_TF_PLUGIN_MIRROR:-}
if [ -z "$mirror" ]; then
  for candidate in /opt/tf-plugins "$HOME/.terraform.d/plugins" /usr/share/terraform/plugins; do
    if [ -d "$candidate/registry.terraform.io/hashicorp/aws" ]; then
      mirror=$candidate
      break
    fi
  done
fi
if [ -z "$mirror" ]; then
  found=$(find / -xdev -path '*/registry.terraform.io/hashicorp/aws/*/linux_amd64/terraform-provider-aws_*' -print -quit 2>/dev/null || true)
  [ -n "$found" ] && mirror=${found%%/registry.terraform.io/*}
fi
if [ -z "$mirror" ] || [ ! -d "$mirror/registry.terraform.io/hashicorp/aws" ]; then
  echo "test-e2e: skipped: no hashicorp/aws provider mirror (set ECS_GPU_TF_PLUGIN_MIRROR to a filesystem mirror)"
  exit 0
fi
provider_version=$(ls "$mirror/registry.terraform.io/hashicorp/aws" | sort -V | tail -n 1)

VENV=.venv/moto
MOTO_SPEC='moto[server]>=5.1,<6'
if [ ! -x "$VENV/bin/moto_server" ]; then
  echo "test-e2e: installing $MOTO_SPEC into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "$MOTO_SPEC"
fi
py=$VENV/bin/python

echo "test-e2e: building ecs-gpu"
cargo build --quiet -p ecs-gpu
ecs_gpu=$root/target/debug/ecs-gpu

work=$(mktemp -d -t ecs-gpu-e2e.XXXXXX)
if [ -n "$upgrade_from" ]; then
  mkdir -p "$work/previous"
  git -C "$root" archive "$upgrade_from" terraform | tar -x -C "$work/previous"
  echo "test-e2e: upgrade mode: every example is applied with the modules of $upgrade_from, then planned with this tree"
fi
PORT=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ENDPOINT="http://127.0.0.1:$PORT"
# moto loads the AWS managed policies (AmazonECSTaskExecutionRolePolicy...) only when asked. Its
# recorder keeps every request, so the checks can read what the provider sent.
export ECS_GPU_E2E_RECORDING=$work/recording.jsonl
# The GPU-faithful emulator (scripts/ecs_gpu_emulator.py: GPUs registered from the catalog, the
# agent joining from user data, service tasks placed by ECS's rules, the strategy and constraints
# kept), then e2e_check.py serve: moto_server with Application Auto Scaling's ListTagsForResource
# answered and placement groups.
MOTO_IAM_LOAD_MANAGED_POLICIES=true MOTO_ENABLE_RECORDING=true MOTO_RECORDER_FILEPATH=$ECS_GPU_E2E_RECORDING \
  "$VENV/bin/python" -c "import sys; sys.path[:0] = [sys.argv[1]]; import ecs_gpu_emulator, e2e_check; ecs_gpu_emulator.install(); e2e_check.serve(sys.argv[2])" \
  "$root/scripts" "$PORT" >"$work/moto.log" 2>&1 &
MOTO_PID=$!
stop() {
  status=$?
  kill "$MOTO_PID" 2>/dev/null || true
  wait "$MOTO_PID" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then
    echo "test-e2e: FAILED; the end of moto's log ($work/moto.log):" >&2
    tail -n 30 "$work/moto.log" >&2 || true
    echo "test-e2e: the scratch folder is kept: $work" >&2
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap stop EXIT

for _ in $(seq 1 60); do
  if "$py" -c "import urllib.request; urllib.request.urlopen('$ENDPOINT/moto-api/data.json', timeout=1)" 2>/dev/null; then
    break
  fi
  kill -0 "$MOTO_PID" 2>/dev/null || { echo "test-e2e: moto exited" >&2; exit 1; }
  sleep 0.5
done

# Terraform: the provider from the mirror only, never the registry; no credentials of the machine.
cat >"$work/terraformrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
RC
export TF_CLI_CONFIG_FILE=$work/terraformrc
export TF_IN_AUTOMATION=1 TF_INPUT=0
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_SESSION_TOKEN=testing
export AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
unset AWS_PROFILE
export ECS_GPU_E2E_ENDPOINT=$ENDPOINT
echo "test-e2e: moto on $ENDPOINT, hashicorp/aws $provider_version from $mirror"

# The network, the existing cluster, the load balancer and the AMIs the examples need.
"$py" "$root/scripts/e2e_check.py" seed >"$work/seed.json"
seed() { "$py" -c "import json,sys; print(json.load(open('$work/seed.json'))[sys.argv[1]])" "$1"; }

# Point an example's module calls at the modules of a tree by absolute path: an absolute path is a
# package of its own, so the package is the tree's terraform/ folder (terraform//ecs-gpu-task,
# terraform//modules/<name>), inside which the `../modules` and `../facts` calls stay. The second
# pattern is for the earlier layout, with the submodules under ecs-gpu-task/modules/.
point_sources() {
  local main=$1 tree=$2
  sed -i -e "s|source = \"../../../modules/|source = \"$tree/terraform//modules/|" \
    -e "s|source = \"../../modules/|source = \"$tree/terraform//ecs-gpu-task/modules/|" \
    -e "s|source = \"../..\"|source = \"$tree/terraform//ecs-gpu-task\"|" "$main"
}

# Copy an example to the scratch folder, call the modules by their absolute path, and send the
# provider to moto with an override file (merged into the example's own provider block). In the
# upgrade mode the example and the modules are those of $upgrade_from (see upgrade_check).
prepare() {
  local example=$1 dir=$work/$1 tree=$root
  [ -n "$upgrade_from" ] && tree=$work/previous
  mkdir -p "$dir"
  cp "$tree/terraform/ecs-gpu-task/examples/$example"/*.tf "$dir/"
  point_sources "$dir/main.tf" "$tree"
  provider_override >"$dir/e2e_override.tf"
  (cd "$dir" && terraform init -input=false -no-color >"$dir/init.log" 2>&1) || { cat "$dir/init.log" >&2; return 1; }
}

# The upgrade mode (ECS_GPU_E2E_UPGRADE_FROM=<commit>): an example applied with the modules of that
# commit is planned with this tree's example and modules, without a refresh, and the plan must be
# the one the previous modules make of the same state, to the values: no change (exit 0 of
# -detailed-exitcode) where they plan none; where they plan some on their own fresh stack (moto
# stores less than it was sent on a create, such as a service's health check grace period), the
# same changes; after a refused apply (examples/mps), the same changes or errors. The checks that
# follow then run on the upgraded stack.
upgrade_check() {
  local example=$1 applied=${2:-} dir=$work/$1 before after status=0 previous_status=0
  # The moves step's stack (examples/basic of an older layout) is no example of this tree.
  [ -n "$upgrade_from" ] && [ -d "$root/terraform/ecs-gpu-task/examples/$example" ] || return 0
  echo "=== upgrade: examples/$example applied with the modules of $upgrade_from, planned with this tree"
  plan_lines() { # <name>: the plan's changes, or its errors
    if [ -f "$dir/$1.tfplan" ]; then
      (cd "$dir" && terraform show -json "$1.tfplan" >"$1.json") && "$py" "$root/scripts/e2e_check.py" plan-actions "$dir/$1.json"
    else
      grep -E '^(Error|│ Error):' "$dir/$1.log" | sort || true
    fi
  }
  (cd "$dir" && rm -f previous.tfplan && terraform plan -refresh=false -detailed-exitcode -input=false -no-color -out=previous.tfplan >previous.log 2>&1) || previous_status=$?
  before=$(plan_lines previous)
  for f in "$root/terraform/ecs-gpu-task/examples/$example"/*.tf; do cp "$f" "$dir/"; done
  point_sources "$dir/main.tf" "$root"
  (cd "$dir" && terraform init -input=false -no-color >"$dir/init-upgrade.log" 2>&1) || { cat "$dir/init-upgrade.log" >&2; return 1; }
  (cd "$dir" && rm -f upgrade.tfplan && terraform plan -refresh=false -detailed-exitcode -input=false -no-color -out=upgrade.tfplan >upgrade.log 2>&1) || status=$?
  after=$(plan_lines upgrade)
  if [ "$status" -ne "$previous_status" ] || [ "$before" != "$after" ]; then
    echo "upgrade: examples/$example: the plan with this tree (exit $status) differs from the plan with $upgrade_from (exit $previous_status):" >&2
    diff <(echo "$before") <(echo "$after") >&2 || true
    tail -n 20 "$dir/upgrade.log" >&2
    return 1
  fi
  if [ -z "$before" ]; then
    echo "  ok: plan -detailed-exitcode exits $status with both: no change"
  else
    echo "  ok: plan -detailed-exitcode exits $status with both, the same $(grep -c . <<<"$before") change(s) or error(s)${applied:+ (as the previous modules plan on their own fresh stack: what moto reads back)}:"
    grep -E '^  # |^Plan:|Error:' "$dir/upgrade.log" | sed 's/^/    /' | head -n 20
  fi
}

provider_override() {
  cat <<EOF
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
  skip_requesting_account_id  = false

  endpoints {
    applicationautoscaling = "$ENDPOINT"
    autoscaling            = "$ENDPOINT"
    cloudwatch             = "$ENDPOINT"
    ec2                    = "$ENDPOINT"
    ecs                    = "$ENDPOINT"
    ecr                    = "$ENDPOINT"
    elbv2                  = "$ENDPOINT"
    iam                    = "$ENDPOINT"
    logs                   = "$ENDPOINT"
    ssm                    = "$ENDPOINT"
    servicediscovery       = "$ENDPOINT"
    sts                    = "$ENDPOINT"
  }
}
EOF
}

tf() { local dir=$1; shift; (cd "$work/$dir" && terraform "$@" -no-color); }

# Common variables: the seeded network, and the AMI pinned so that the bump is a plan of its own
# (moto holds no ECS GPU-optimized AMI parameter).
common_vars() {
  cat <<EOF
vpc_id             = "$(seed vpc_id)"
vpc_cidr           = "10.0.0.0/16"
private_subnet_ids = ["$(seed subnet_a)", "$(seed subnet_b)"]
EOF
}

apply_example() {
  local example=$1
  echo
  echo "=== apply examples/$example"
  tf "$example" apply -auto-approve -input=false >"$work/$example/apply.log" 2>&1 || { tail -n 60 "$work/$example/apply.log" >&2; return 1; }
  tail -n 3 "$work/$example/apply.log"
  upgrade_check "$example" applied
  tf "$example" output -json >"$work/$example/outputs.json"
}

# --- basic -------------------------------------------------------------------------------------
prepare_vars_basic() {
  common_vars
  echo "image = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1\""
}

mkdir -p "$work/basic"
prepare_vars_basic >"$work/basic/terraform.tfvars"
# The AMI comes from a pinned ID (moto has no GPU AMI parameter): an override on the module call.
override_ami() {
  local example=$1 module_name=$2 ami=$3 image_line=${4:-}
  cat >"$work/$example/e2e_module_override.tf" <<EOF
module "$module_name" {
  ami_id = "$ami"
  $image_line
}
EOF
}
prepare basic
override_ami basic inference "$(seed ami_1)"
apply_example basic
"$py" "$root/scripts/e2e_check.py" check basic "$work/basic/outputs.json"

# The AMI bump: the launch template gets a new version, the group refreshes its instances.
# -refresh=false: moto reads back less than it was given (the service's strategy, the template's
# tag specifications), and a refresh would turn that loss into changes the bump did not make.
override_ami basic inference "$(seed ami_2)"
tf basic plan -refresh=false -out=ami.tfplan -input=false >/dev/null
tf basic show -json ami.tfplan >"$work/basic/plan-ami.json"
"$ecs_gpu" plan "$work/basic/plan-ami.json" --format json >"$work/basic/effects-ami.json" || true
"$ecs_gpu" plan "$work/basic/plan-ami.json" | head -n 12
"$py" "$root/scripts/e2e_check.py" effects "$work/basic/effects-ami.json" instance-replacement

# The image bump: a new task definition revision, a deployment.
override_ami basic inference "$(seed ami_1)" 'container_image = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:2"'
tf basic plan -refresh=false -out=image.tfplan -input=false >/dev/null
tf basic show -json image.tfplan >"$work/basic/plan-image.json"
"$ecs_gpu" plan "$work/basic/plan-image.json" --format json >"$work/basic/effects-image.json" || true
"$ecs_gpu" plan "$work/basic/plan-image.json" | head -n 12
"$py" "$root/scripts/e2e_check.py" effects "$work/basic/effects-image.json" deployment

# Autoscaling switched on with the README's `moved` block ("Update semantics"): the service moves
# from `this[0]` to `autoscaled[0]`, and nothing is destroyed. A plan only: the state stays.
override_ami basic inference "$(seed ami_1)" 'autoscaling = { min_capacity = 1, max_capacity = 1, target_value = 70 }'
cat >"$work/basic/e2e_moved.tf" <<'EOF'
moved {
  from = module.inference.module.service.aws_ecs_service.this[0]
  to   = module.inference.module.service.aws_ecs_service.autoscaled[0]
}
EOF
tf basic plan -refresh=false -out=moved.tfplan -input=false >"$work/basic/plan-moved.log" 2>&1 || { tail -n 40 "$work/basic/plan-moved.log" >&2; exit 1; }
tf basic show -json moved.tfplan >"$work/basic/plan-moved.json"
echo
echo "=== examples/basic: autoscaling switched on with the README's moved block"
"$py" "$root/scripts/e2e_check.py" service-moved "$work/basic/plan-moved.json"
rm "$work/basic/e2e_moved.tf"
override_ami basic inference "$(seed ami_1)"

echo
echo "=== ecs-gpu diagnose --endpoint-url (live, against moto)"
diag_status=0
"$ecs_gpu" diagnose --cluster gpu-inference --service inference --region us-east-1 \
  --endpoint-url "$ENDPOINT" --format json >"$work/diagnose.json" 2>"$work/diagnose.err" || diag_status=$?
head -c 2000 "$work/diagnose.json"; echo
cat "$work/diagnose.err" >&2
"$py" "$root/scripts/e2e_check.py" diagnose "$work/diagnose.json" "$diag_status"

# --- autoscaling (existing cluster, load balancer) ----------------------------------------------
mkdir -p "$work/autoscaling"
{
  common_vars
  cat <<EOF
cluster_name             = "$(seed cluster_name)"
other_capacity_providers = []
listener_arn             = "$(seed listener_arn)"
alb_security_group_id    = "$(seed alb_security_group_id)"
image                    = "123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1"
secrets                  = {}
EOF
} >"$work/autoscaling/terraform.tfvars"
prepare autoscaling
# No wait for a steady state: e2e_check.py checks through the API that the tasks were placed.
cat >"$work/autoscaling/e2e_module_override.tf" <<EOF
module "inference" {
  ami_id                = "$(seed ami_1)"
  wait_for_steady_state = false
}
EOF
apply_example autoscaling
"$py" "$root/scripts/e2e_check.py" check autoscaling "$work/autoscaling/outputs.json"

# --- vllm (two GPU containers, model cache) ------------------------------------------------------
mkdir -p "$work/vllm"
{
  common_vars
  echo "image = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-openai:v0.9\""
} >"$work/vllm/terraform.tfvars"
prepare vllm
override_ami vllm vllm "$(seed ami_1)"
apply_example vllm
"$py" "$root/scripts/e2e_check.py" check vllm "$work/vllm/outputs.json"

# --- existing-cluster (the submodules called directly, the platform's own task role) --------------
mkdir -p "$work/existing-cluster"
{
  common_vars
  cat <<EOF
cluster_name             = "$(seed platform_cluster)"
other_capacity_providers = ["FARGATE"]
task_role_arn            = "$(seed task_role_arn)"
image                    = "123456789012.dkr.ecr.us-east-1.amazonaws.com/embed:1"
EOF
} >"$work/existing-cluster/terraform.tfvars"
prepare existing-cluster
override_ami existing-cluster gpu_capacity "$(seed ami_1)"
apply_example existing-cluster
"$py" "$root/scripts/e2e_check.py" check existing-cluster "$work/existing-cluster/outputs.json"

# --- where the instances come from: several types and Spot, a Capacity Block, a warm pool ---------
mkdir -p "$work/mixed-spot" "$work/capacity-block" "$work/warm-pool"
{
  common_vars
  echo "image = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/embed-worker:1\""
} | grep -v vpc_cidr >"$work/mixed-spot/terraform.tfvars"
{
  echo "vpc_id            = \"$(seed vpc_id)\""
  echo "block_subnet_id   = \"$(seed subnet_a)\""
  echo "capacity_block_id = \"cr-0123456789abcdef0\""
  echo "image             = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/train:1\""
} >"$work/capacity-block/terraform.tfvars"
{
  common_vars
  echo "image = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/chat:1\""
} >"$work/warm-pool/terraform.tfvars"
for pair in mixed-spot:batch capacity-block:train warm-pool:inference; do
  example=${pair%%:*}
  prepare "$example"
  override_ami "$example" "${pair##*:}" "$(seed ami_1)"
  apply_example "$example"
  "$py" "$root/scripts/e2e_check.py" check "$example" "$work/$example/outputs.json"
done

# --- MPS: the sharing strategy goes through the provider, or the module says it did not ---------
# hashicorp/aws normalizes container_definitions through its AWS SDK's types, already in the plan:
# a provider whose SDK has no sharingStrategy (5.100.0) drops it, and the module's postcondition on
# the task definition stops the apply before anything is registered. Either outcome is checked
# against what moto holds (it keeps the definitions as sent).
mkdir -p "$work/mps"
{
  common_vars
  echo "image = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/embeddings:1\""
} >"$work/mps/terraform.tfvars"
prepare mps
override_ami mps embeddings "$(seed ami_1)" "wait_for_steady_state = false"
echo
echo "=== apply examples/mps"
mps_status=0
tf mps apply -auto-approve -input=false >"$work/mps/apply.log" 2>&1 || mps_status=$?
tail -n 3 "$work/mps/apply.log"
upgrade_check mps
"$py" "$root/scripts/e2e_check.py" mps embeddings "$mps_status" "$work/mps/apply.log"

# --- GPU metrics: the agent, target tracking on GPU utilization, the idle alarm, a dashboard ------
mkdir -p "$work/gpu-metrics"
{
  common_vars
  echo "image           = \"123456789012.dkr.ecr.us-east-1.amazonaws.com/inference:1\""
  echo "alarm_topic_arn = \"arn:aws:sns:us-east-1:123456789012:gpu-oncall\""
  # No wait for a steady state: e2e_check.py checks through the API that the tasks were placed.
  echo "wait_for_steady_state = false"
} >"$work/gpu-metrics/terraform.tfvars"
prepare gpu-metrics
override_ami gpu-metrics inference "$(seed ami_1)"
apply_example gpu-metrics
"$py" "$root/scripts/e2e_check.py" check gpu-metrics "$work/gpu-metrics/outputs.json"
"$py" "$root/scripts/e2e_check.py" gpu-metrics "$work/gpu-metrics/outputs.json"

# --- production: vLLM and an embedding service on one cluster, behind the load balancer -----------
# Two capacity providers associated by modules/cluster, Spot above an On-Demand base, the listener
# waited for by reference, deployment alarms, Service Connect. The emulator registers the GPUs and
# places the tasks, so the apply waits for both services to be steady.
mkdir -p "$work/production"
listener_arn=$(seed listener_arn)
{
  common_vars
  cat <<EOF
listener_arn             = "$listener_arn"
load_balancer_arn_suffix = "$(sed -E 's|.*:listener/(app/[^/]+/[^/]+)/.*|\1|' <<<"$listener_arn")"
alb_security_group_id    = "$(seed alb_security_group_id)"
vllm_image               = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-openai:v0.9"
embed_image              = "123456789012.dkr.ecr.us-east-1.amazonaws.com/embed:1"
EOF
} >"$work/production/terraform.tfvars"
prepare production
cat >"$work/production/e2e_module_override.tf" <<EOF
module "vllm" {
  ami_id = "$(seed ami_1)"
}
module "embed" {
  ami_id = "$(seed ami_1)"
}
EOF
apply_example production
"$py" "$root/scripts/e2e_check.py" production "$work/production/outputs.json" "$(seed alb_security_group_id)"

# An unrelated edit of the listener rule (a tag): the plan, refresh included, changes that rule and
# nothing inside either module call (no task definition, no launch template, no instance refresh).
# moto reads back less than it was given (the launch templates' tag specifications, some service
# flags, the scaling target's tags), so a refreshed plan changes those even with no edit: the edit's
# plan is compared with a plan of the same state without it.
tf production plan -out=baseline.tfplan -input=false >"$work/production/plan-baseline.log" 2>&1 || { tail -n 40 "$work/production/plan-baseline.log" >&2; exit 1; }
tf production show -json baseline.tfplan >"$work/production/plan-baseline.json"
cat >"$work/production/e2e_listener_override.tf" <<'EOF'
resource "aws_lb_listener_rule" "vllm" {
  tags = merge(var.tags, { owner = "platform" })
}
EOF
tf production plan -out=listener.tfplan -input=false >"$work/production/plan-listener.log" 2>&1 || { tail -n 40 "$work/production/plan-listener.log" >&2; exit 1; }
tf production show -json listener.tfplan >"$work/production/plan-listener.json"
echo
echo "=== examples/production: a tag on the listener rule"
"$py" "$root/scripts/e2e_check.py" module-untouched "$work/production/plan-listener.json" "$work/production/plan-baseline.json" aws_lb_listener_rule.vllm
rm "$work/production/e2e_listener_override.tf"

# --- a first apply of a root that creates the load balancer and the network beside the module ---
# terraform/ecs-gpu-task/tests/same_root: the subnets, the load balancer with its security group,
# target group and listener, the image repository and the task role are created in the caller's
# root, so every ID the module gets is known only after apply. One apply must be enough (the first
# plan used to fail on the ingress rules' for_each), and the load balancer's group is let in.
mkdir -p "$work/same-root"
cp "$root/terraform/ecs-gpu-task/tests/same_root/main.tf" "$work/same-root/"
point_sources "$work/same-root/main.tf" "$root"
provider_override >"$work/same-root/e2e_override.tf"
override_ami same-root gpu "$(seed ami_1)"
(cd "$work/same-root" && terraform init -input=false -no-color >init.log 2>&1) || { cat "$work/same-root/init.log" >&2; exit 1; }
apply_example same-root
tf same-root state list >"$work/same-root/state.txt"
grep -qF 'module.gpu.module.service.aws_vpc_security_group_ingress_rule.load_balancer["public-0"]' "$work/same-root/state.txt" || {
  echo "test-e2e: same-root: no ingress rule from the load balancer's security group in the state" >&2
  exit 1
}
echo "  ok: applied in one run; the load balancer's security group is let into the tasks"

echo
echo "=== destroy"
for example in same-root production gpu-metrics mps warm-pool capacity-block mixed-spot existing-cluster vllm autoscaling basic; do
  tf "$example" destroy -auto-approve -input=false >"$work/$example/destroy.log" 2>&1 || { tail -n 40 "$work/$example/destroy.log" >&2; exit 1; }
  echo "destroyed examples/$example"
done

# --- state written by the single-module layout moves into the submodules -----------------------
echo
if git -C "$root" cat-file -e "$pre_split^{commit}" 2>/dev/null; then
  echo "=== moves: examples/basic applied with the module of $pre_split, then planned with this one"
  mkdir -p "$work/old" "$work/moves"
  git -C "$root" archive "$pre_split" terraform/ecs-gpu-task | tar -x -C "$work/old"
  old=$work/old/terraform/ecs-gpu-task
  cp "$old/examples/basic"/*.tf "$work/moves/"
  sed -i "s|source = \"../..\"|source = \"$old\"|" "$work/moves/main.tf"
  provider_override >"$work/moves/e2e_override.tf"
  prepare_vars_basic >"$work/moves/terraform.tfvars"
  override_ami moves inference "$(seed ami_1)"
  (cd "$work/moves" && terraform init -input=false -no-color >init.log 2>&1) || { cat "$work/moves/init.log" >&2; exit 1; }
  apply_example moves
  sed -i "s|source = \"$old\"|source = \"$module\"|" "$work/moves/main.tf"
  (cd "$work/moves" && terraform init -input=false -no-color >init2.log 2>&1) || { cat "$work/moves/init2.log" >&2; exit 1; }
  tf moves plan -refresh=false -out=moves.tfplan -input=false >"$work/moves/plan.log" 2>&1 || { tail -n 40 "$work/moves/plan.log" >&2; exit 1; }
  grep -E "has moved to|^Plan:" "$work/moves/plan.log" | head -n 40
  tf moves show -json moves.tfplan >"$work/moves/plan.json"
  "$py" "$root/scripts/e2e_check.py" moves "$work/moves/plan.json"
  tf moves destroy -auto-approve -input=false >"$work/moves/destroy.log" 2>&1 || { tail -n 40 "$work/moves/destroy.log" >&2; exit 1; }
  echo "destroyed the moved stack"
else
  echo "=== moves: skipped: commit $pre_split (the single-module layout) is not in this clone"
fi

"$py" "$root/scripts/e2e_check.py" empty

# --- terraform/ecs-gpu-managed-instances -------------------------------------------------------
# Not applied: it needs hashicorp/aws >= 6.66.0 (its versions.tf),
# which the mirror's provider may predate; its offline `terraform test` runs cover it instead.
if [ "$(printf '%s\n' "$provider_version" 6.66.0 | sort -V | head -n 1)" != 6.66.0 ]; then
  echo
  echo "test-e2e: terraform/ecs-gpu-managed-instances not applied: it needs hashicorp/aws >= 6.66.0, the mirror has $provider_version"
else
  echo
  echo "test-e2e: terraform/ecs-gpu-managed-instances not applied: no apply against moto is written for it yet"
fi

echo
echo "test-e2e: passed"
