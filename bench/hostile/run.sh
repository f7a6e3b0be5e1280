#!/usr/bin/env bash
# The hostile inputs that were quadratic (bench/README.md, "Hostile inputs, before and after"),
# run with each build given, each timed with its peak memory:
#   comments-100k   100,000 `# c` lines (400 KB) above a GPU task definition
#   comments-4mib   the same run of comments at 4 MiB (1,048,576 lines)
#   collections     distinct, toset, setunion, setintersection, setsubtract, zipmap, a `{for ...}`
#                   object and merge, each over 100,000 strings (the hostile suite's case)
#   did-you-mean    diagnose --from on a memberOf constraint and an instance type of 200 KB each
#   plan-resources  a plan whose service references 100,000 distinct resource addresses
#   plan-variables  the same with 100,000 distinct `var.NAME` references
#   amplification   600 bytes: a `count` of 1,000 each building 1,000 GPU containers in a `for`
#                   (a million containers, each with a GPU105 finding), as SARIF
# and those of the third round (issue 50, items 5 and 9):
#   saved-6mb       diagnose --from: 6 MB of `{"containerInstances":[{},{},...]}`
#   saved-60mb      the same at 60 MB
#   deploy-10k      plan: 10,000 GPU services deployed, each on its own group (bench/hostile/plan.py)
#   scale-10k       simulate --plan: 10,000 GPU services scaled out from 2 to 3
#   deploy-100k     plan: 100,000 GPU services deployed (460 MB)
# Each run is cut at LIMIT seconds (600 by default); a cut run prints `timeout`.
# Usage: bench/hostile/run.sh BUILD... (release builds of ecs-gpu, old then new)
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=${LIMIT:-600}
out=bench/out/hostile
rm -rf "$out"
mkdir -p "$out"/{comments-100k,comments-4mib,collections,did-you-mean,plan-resources,plan-variables,amplification}
mkdir -p "$out"/{saved-6mb,saved-60mb,deploy-10k,scale-10k,deploy-100k}

gpu_task='resource "aws_ecs_task_definition" "app" {
  family                   = "app"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{
    name                 = "app"
    image                = "nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}'
python3 - "$out" "$gpu_task" <<'EOF'
import json, pathlib, shutil, sys
out, task = pathlib.Path(sys.argv[1]), sys.argv[2]
(out / "comments-100k/main.tf").write_text("# c\n" * 100_000 + task + "\n")
(out / "comments-4mib/main.tf").write_text("# c\n" * (1 << 20) + task + "\n")

text = ('locals {\n'
        '  l = flatten([for i in range(100) : [for j in range(1000) : "a${(i * 1000 + j) % 50000}"]])\n'
        '  h = flatten([for i in range(25) : [for j in range(1000) : "a${2 * (i * 1000 + j)}"]])\n'
        '  m = zipmap(local.l, local.l)\n}\n')
for name, expr in [
    ("distinct", "length(distinct(local.l))"),
    ("toset", "length(toset(local.l))"),
    ("union", "length(setunion(local.l, local.h))"),
    ("intersection", "length(setintersection(local.l, local.h))"),
    ("subtract", "length(setsubtract(local.l, local.h))"),
    ("zipmap", "length(local.m)"),
    ("for", "length({ for x in local.l : x => x... })"),
    ("merge", "length(merge(local.m, zipmap(local.h, local.h)))"),
]:
    text += (f'resource "aws_ecs_task_definition" "{name}" {{\n  family = "{name}"\n'
             f'  container_definitions = jsonencode([{{ name = "{name}", image = "i", '
             f'resourceRequirements = [{{ type = "GPU", value = "n${{{expr}}}" }}] }}])\n}}\n')
(out / "collections/main.tf").write_text(text)

scenario = pathlib.Path("crates/ecs-gpu-diagnose/tests/scenarios/placement-constraint-typo")
dym = out / "did-you-mean"
for f in scenario.iterdir():
    shutil.copy(f, dym / f.name)
services = json.loads((dym / "describe-services.json").read_text())
services["services"][0]["placementConstraints"] = [
    {"type": "memberOf", "expression": "attribute:ecs.instance-type == " + "g" * 200_000}]
(dym / "describe-services.json").write_text(json.dumps(services))
instances = dym / "describe-container-instances.json"
instances.write_text(instances.read_text().replace('"g5.xlarge"', '"' + "h" * 200_000 + '"'))

def plan(refs):
    refs = json.dumps(refs)
    return ('{"format_version":"1.2","resource_changes":[{"address":"aws_ecs_service.app",'
            '"mode":"managed","type":"aws_ecs_service","name":"app","change":{"actions":["update"],'
            '"before":{"desired_count":1},"after":{"desired_count":2},"after_unknown":{},'
            '"before_sensitive":{},"after_sensitive":{}}}],"configuration":{"root_module":'
            '{"resources":[{"address":"aws_ecs_service.app","mode":"managed","type":"aws_ecs_service",'
            '"name":"app","expressions":{"task_definition":{"references":' + refs + '}}}]}}}')
(out / "plan-resources/plan.json").write_text(
    plan([f"aws_ecs_task_definition.t{n}.arn" for n in range(100_000)]))
(out / "plan-variables/plan.json").write_text(plan([f"var.v{n}" for n in range(100_000)]))
(out / "amplification/main.tf").write_text('''resource "aws_ecs_task_definition" "app" {
  count                    = 1000
  family                   = "app"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([for i in range(1000) : {
    name                 = "c${i}"
    image                = "example/app:1"
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}
''')
for mb, name in [(6, "saved-6mb"), (60, "saved-60mb")]:
    n = (mb << 20) // 3
    (out / name / "describe-container-instances.json").write_text(
        '{"containerInstances":[' + "{}," * n + '{}]}')
EOF
python3 bench/hostile/plan.py "$out/deploy-10k/plan.json" 10000 deploy
python3 bench/hostile/plan.py "$out/scale-10k/plan.json" 10000 scale
python3 bench/hostile/plan.py "$out/deploy-100k/plan.json" 100000 deploy

run() {
    local build=$1 case=$2
    shift 2
    local status=0
    (cd "$out/$case" &&
        timeout "$limit" /usr/bin/time -f "%e s %M" "$build" "$@" >/dev/null 2>"../$case.err") ||
        status=$?
    if [ "$status" = 124 ]; then
        printf '  %-16s timeout (%s s)\n' "$case" "$limit"
    else
        read -r secs _ kib < <(tail -n 1 "$out/$case.err")
        printf '  %-16s %8s s %8s MiB  exit %s\n' "$case" "$secs" "$((kib / 1024))" "$status"
    fi
}

for build in "$@"; do
    echo "$build"
    run "$build" comments-100k check . --format json
    run "$build" comments-4mib check . --format json
    run "$build" collections check . --format json --select GPU103
    run "$build" did-you-mean diagnose --from . --format json
    run "$build" plan-resources plan plan.json
    run "$build" plan-variables plan plan.json
    run "$build" amplification check . --format sarif
    run "$build" saved-6mb diagnose --from .
    run "$build" saved-60mb diagnose --from .
    run "$build" deploy-10k plan plan.json
    run "$build" scale-10k simulate --plan plan.json
    run "$build" deploy-100k plan plan.json
done
