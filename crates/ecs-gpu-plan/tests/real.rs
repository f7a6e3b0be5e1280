//! Plans made by Terraform 1.11 with the real hashicorp/aws 5.100.0 provider against the
//! GPU-faithful emulator (`tests/fixtures/real/gen.py`, which says what each plan changes). Each test
//! names the behaviour of Terraform, the provider or ECS it pins, and the human output of each plan
//! is pinned by a snapshot.

use std::path::PathBuf;

use ecs_gpu_plan::plan_json::deployment_capacity;
use ecs_gpu_plan::{read, render, Effect, EffectKind, Plan};

fn load(name: &str) -> Plan {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read(bytes.as_slice()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn human(plan: &Plan) -> String {
    let mut out = Vec::new();
    render::human(&mut out, plan, &plan.effects(), &deployment_capacity(plan)).unwrap();
    String::from_utf8(out).unwrap()
}

fn json(plan: &Plan) -> serde_json::Value {
    let mut out = Vec::new();
    render::json(&mut out, plan, &plan.effects(), &deployment_capacity(plan)).unwrap();
    serde_json::from_slice(&out).unwrap()
}

fn find<'a>(effects: &'a [Effect], kind: EffectKind, address: &str) -> &'a Effect {
    effects
        .iter()
        .find(|e| e.kind == kind && e.address == address)
        .unwrap_or_else(|| {
            let all: Vec<(&str, &str)> = effects
                .iter()
                .map(|e| (e.kind.as_str(), e.address.as_str()))
                .collect();
            panic!("no {kind} on {address} in {all:?}")
        })
}

fn help(e: &Effect) -> &str {
    e.help.as_deref().unwrap_or("")
}

/// Terraform 1.8+ writes `applyable: false`, `errored: false`, `complete: true` for a plan with
/// nothing to apply: not an error, complete, and no resource change counted.
#[test]
fn a_plan_with_no_changes_is_complete_and_not_an_error() {
    let plan = load("noop.json");
    assert!(!plan.is_errored());
    assert!(!plan.is_applyable());
    assert!(plan.is_complete());
    assert_eq!(plan.resource_changes, 0);
    assert!(plan.effects().is_empty());
    let text = human(&plan);
    assert!(!text.contains("cannot be applied"), "{text}");
    assert!(text.starts_with("the plan has nothing to apply"), "{text}");
    let v = json(&plan);
    assert_eq!(v["errored"], false);
    assert_eq!(v["applyable"], false);
    assert_eq!(v["complete"], true);
    insta::assert_snapshot!("noop_human", text);
}

/// A lower `desired_count` makes ECS stop tasks: how many.
#[test]
fn a_lower_desired_count_stops_tasks() {
    let plan = load("scale_in.json");
    let e = plan.effects();
    let s = find(&e, EffectKind::ScaleIn, "aws_ecs_service.train[0]");
    assert!(
        s.message
            .contains("`desired_count` goes from 2 to 0: ECS stops 2 running tasks"),
        "{}",
        s.message
    );
    assert!(!human(&plan).contains("no effect on running GPU tasks"));
    insta::assert_snapshot!("scale_in_human", human(&plan));
}

/// A higher count: new GPU instances, and new tasks that need free GPUs.
#[test]
fn a_scale_out_gets_an_entry_for_the_instances_and_the_tasks() {
    let plan = load("scale_out.json");
    let e = plan.effects();
    let g = find(&e, EffectKind::ScaleOut, "aws_autoscaling_group.gpu");
    assert!(
        g.message.contains(
            "the group launches 2 more GPU instances of g5.xlarge (1 GPU each, 2 GPUs in all)"
        ),
        "{}",
        g.message
    );
    let s = find(&e, EffectKind::ScaleOut, "aws_ecs_service.train[0]");
    assert!(
        s.message
            .contains("ECS starts 2 more tasks, each needing 1 GPU free on one instance"),
        "{}",
        s.message
    );
    insta::assert_snapshot!("scale_out_human", human(&plan));
}

/// The provider's delete of a group: without `force_delete` it sets the sizes to 0, removes the
/// instances' scale-in protection and waits (bounded) for them; with it, it does not wait
/// (internal/service/autoscaling/group.go). Nothing "hangs while tasks run".
#[test]
fn a_destroyed_group_says_what_the_provider_does() {
    let plan = load("destroy.json");
    let e = plan.effects();
    let g = find(
        &e,
        EffectKind::CapacityDestroyed,
        "aws_autoscaling_group.gpu",
    );
    assert!(
        g.message
            .contains("removes the scale-in protection of its instances"),
        "{}",
        g.message
    );
    assert!(g.message.contains("waits up to the delete timeout"));
    assert!(!g.message.contains("hang"), "{}", g.message);
    // Every service on it is destroyed in the same plan: nothing to move first.
    assert!(g.help.is_none(), "{:?}", g.help);
    insta::assert_snapshot!("destroy_human", human(&plan));

    let plan = load("destroy_force_delete.json");
    let e = plan.effects();
    let g = find(
        &e,
        EffectKind::CapacityDestroyed,
        "aws_autoscaling_group.gpu",
    );
    assert!(
        g.message
            .contains("with `force_delete`, the provider deletes it without waiting"),
        "{}",
        g.message
    );
    assert!(!g.message.contains("removes the scale-in protection"));
    insta::assert_snapshot!("destroy_force_delete_human", human(&plan));
}

/// A `cluster` change replaces the service whatever `force_new_deployment` says: no help that
/// suggests it.
#[test]
fn a_cluster_rename_does_not_suggest_force_new_deployment() {
    let plan = load("cluster_renamed.json");
    let e = plan.effects();
    let s = find(&e, EffectKind::ServiceReplaced, "aws_ecs_service.train[0]");
    assert!(s.message.contains("`cluster` changes"), "{}", s.message);
    assert!(!help(s).contains("force_new_deployment"), "{}", help(s));
    insta::assert_snapshot!("cluster_renamed_human", human(&plan));
}

/// From the ARN to the family at the same revision: ECS resolves the family to its latest ACTIVE
/// revision, the one running, and starts no deployment.
#[test]
fn the_same_revision_named_another_way_is_no_deployment() {
    let plan = load("family_reference.json");
    let e = plan.effects();
    assert!(e.iter().all(|x| x.kind != EffectKind::Deployment), "{e:#?}");
    let n = find(&e, EffectKind::NoEffect, "aws_ecs_service.train[0]");
    assert!(
        n.message
            .contains("which names the same revision (`train:1`): ECS starts no deployment"),
        "{}",
        n.message
    );
    insta::assert_snapshot!("family_reference_human", human(&plan));
}

/// A flag that moves the service to another address deletes the old one and creates one of the
/// same name: a pair, with a `moved` block as the fix.
#[test]
fn a_service_moved_to_another_address_is_paired_with_its_new_self() {
    let plan = load("service_moved.json");
    let e = plan.effects();
    let s = find(&e, EffectKind::ServiceReplaced, "aws_ecs_service.train[0]");
    assert!(
        s.message
            .contains("the service moves to `aws_ecs_service.train_autoscaled[0]`"),
        "{}",
        s.message
    );
    assert!(!s.message.contains("not created again"), "{}", s.message);
    assert!(
        help(s).contains(
            "a `moved` block with `from = aws_ecs_service.train[0]` and `to = aws_ecs_service.train_autoscaled[0]`"
        ),
        "{}",
        help(s)
    );
    insta::assert_snapshot!("service_moved_human", human(&plan));
}

/// `skip_destroy = true` set in the plan that replaces the revision does not keep it: the delete
/// reads the state. The help says so instead of asking for what the plan already sets.
#[test]
fn skip_destroy_set_in_the_same_plan_is_explained() {
    let plan = load("skip_destroy_same_plan.json");
    let e = plan.effects();
    let r = find(
        &e,
        EffectKind::RevisionDeregistered,
        "aws_ecs_task_definition.train",
    );
    assert!(
        help(r).contains("is set in this same plan")
            && help(r).contains("apply `skip_destroy = true` on its own first"),
        "{}",
        help(r)
    );
    insta::assert_snapshot!("skip_destroy_same_plan_human", human(&plan));
}

/// In a module, a help names the module's input that sets the argument, or says the module has
/// none; never a resource argument the user cannot set.
#[test]
fn helps_name_the_module_input_or_say_there_is_none() {
    let plan = load("module_input.json");
    let e = plan.effects();
    let r = find(
        &e,
        EffectKind::RevisionDeregistered,
        "module.train.aws_ecs_task_definition.this",
    );
    assert!(
        help(r).contains("through the input `keep_revisions` of `module.train`"),
        "{}",
        help(r)
    );
    let d = find(
        &e,
        EffectKind::Deployment,
        "module.train.aws_ecs_service.this",
    );
    assert!(
        help(d).contains("`module.train` has no input for `deployment_circuit_breaker`"),
        "{}",
        help(d)
    );
    insta::assert_snapshot!("module_input_human", human(&plan));
}

/// "N resource changes in the plan" counts what Terraform counts: no `no-op`.
#[test]
fn resource_changes_count_what_terraform_counts() {
    assert_eq!(load("noop.json").resource_changes, 0);
    assert_eq!(load("scale_in.json").resource_changes, 1);
    let destroy = load("destroy.json");
    assert!(destroy.resource_changes > 9, "{}", destroy.resource_changes);
}

/// More GPUs per task: the deployment needs that many free on one instance, and a type with fewer
/// GPUs (catalog) can never run the new task.
#[test]
fn a_new_gpu_count_per_task_says_what_the_deployment_needs() {
    let plan = load("gpu_count.json");
    let e = plan.effects();
    let d = find(&e, EffectKind::Deployment, "aws_ecs_service.train[0]");
    assert!(
        d.message
            .contains("each new task needs 2 GPUs where the old ones need 1 GPU"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("a g5.xlarge has 1 GPU, so no instance of `aws_autoscaling_group.gpu` can run a new task"),
        "{}",
        d.message
    );
    insta::assert_snapshot!("gpu_count_human", human(&plan));
}

/// A new instance type changes the service's `memberOf` constraint: UpdateService starts a new
/// deployment for new placement constraints, besides the group's refresh.
#[test]
fn a_new_placement_constraint_starts_a_deployment() {
    let plan = load("instance_type.json");
    let e = plan.effects();
    let d = find(&e, EffectKind::Deployment, "aws_ecs_service.train[0]");
    assert!(
        d.message.contains(
            "`placement_constraints` changes (now `attribute:ecs.instance-type == g5.12xlarge`)"
        ),
        "{}",
        d.message
    );
    find(
        &e,
        EffectKind::InstanceReplacement,
        "aws_autoscaling_group.gpu",
    );
    insta::assert_snapshot!("instance_type_human", human(&plan));
}

/// A capacity provider replaced delete-first while the cluster still lists it: ECS refuses the
/// delete and the apply fails (hashicorp/terraform-provider-aws#14393).
#[test]
fn a_capacity_provider_deleted_while_in_use_fails_the_apply() {
    let plan = load("capacity_provider_renamed.json");
    let e = plan.effects();
    let c = find(&e, EffectKind::ApplyFails, "aws_ecs_capacity_provider.gpu");
    assert!(
        c.message
            .contains("while `aws_ecs_cluster_capacity_providers.gpu` still names it"),
        "{}",
        c.message
    );
    assert!(help(c).contains("create_before_destroy"), "{}", help(c));
    insta::assert_snapshot!("capacity_provider_renamed_human", human(&plan));
}

/// Managed termination protection turned off: scale-in may now terminate instances that run GPU
/// tasks, and on a group that launches them protected, idle instances are never scaled in.
#[test]
fn managed_termination_protection_turned_off_is_named() {
    let plan = load("termination_protection_off.json");
    let e = plan.effects();
    let p = find(
        &e,
        EffectKind::ProtectionRemoved,
        "aws_ecs_capacity_provider.gpu",
    );
    assert!(
        p.message
            .contains("may terminate an instance that runs GPU tasks"),
        "{}",
        p.message
    );
    // The group has `protect_from_scale_in = true`: what it launches stays protected.
    assert!(
        p.message
            .contains("scale-in cannot terminate them and idle GPU instances keep running"),
        "{}",
        p.message
    );
    insta::assert_snapshot!("termination_protection_off_human", human(&plan));
}

/// The desired capacity set back on a group whose instances are protected from scale-in: the group
/// terminates none, and the provider waits until `wait_for_capacity_timeout` and fails.
#[test]
fn a_desired_capacity_set_back_on_protected_instances_fails_the_apply() {
    let plan = load("desired_capacity_drift.json");
    let e = plan.effects();
    let a = find(&e, EffectKind::ApplyFails, "aws_autoscaling_group.gpu");
    assert!(
        a.message
            .contains("until `wait_for_capacity_timeout` (10m) runs out, and the apply fails"),
        "{}",
        a.message
    );
    find(&e, EffectKind::DriftRevert, "aws_autoscaling_group.gpu");
    insta::assert_snapshot!("desired_capacity_drift_human", human(&plan));
}

/// `plan` says under each deployment whether the capacity can hold it, from the simulation: twice
/// the GPUs per task on a one-GPU type never places (the provider writes `cpu = ""` for a task
/// without task-level CPU: the containers' sum, not an unknown), and a new instance type that
/// holds the task completes.
#[test]
fn each_deployment_says_whether_the_capacity_holds_it() {
    let stuck = deployment_capacity(&load("gpu_count.json"));
    assert_eq!(stuck.len(), 1);
    assert_eq!(stuck[0].address, "aws_ecs_service.train[0]");
    assert_eq!(
        stuck[0].answer.verdict.as_str(),
        "stuck",
        "{}",
        stuck[0].line()
    );
    assert!(stuck[0].line().contains("(2 GPUs, "), "{}", stuck[0].line());
    assert!(human(&load("gpu_count.json")).contains("\n    capacity: stuck: "));
    let fits = deployment_capacity(&load("instance_type.json"));
    assert_eq!(fits.len(), 1);
    assert_eq!(fits[0].line(), "capacity: completes");
    let v = json(&load("instance_type.json"));
    let deployment = v["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "deployment")
        .unwrap();
    assert_eq!(deployment["capacity"]["verdict"], "completes");
}

/// The repository's own module (terraform/ecs-gpu-task): a help names the module's input
/// (`instance_refresh_min_healthy_percentage`, `instance_refresh_max_healthy_percentage`), never
/// the argument of the group inside it, and says when the module has none (`skip_destroy`).
#[test]
fn on_the_repository_module_helps_name_its_inputs() {
    let plan = load("module_ami.json");
    let e = plan.effects();
    let group = "module.inference.module.capacity.aws_autoscaling_group.this";
    let r = find(&e, EffectKind::InstanceReplacement, group);
    assert!(r.message.contains("minimum healthy 90%"), "{}", r.message);
    for input in [
        "`min_healthy_percentage = 100` through the input `instance_refresh_min_healthy_percentage` of `module.inference`",
        "`max_healthy_percentage` above 100 through the input `instance_refresh_max_healthy_percentage` of `module.inference`",
    ] {
        assert!(help(r).contains(input), "{}", help(r));
    }
    // Not as arguments to set on the group itself, which the caller cannot reach.
    assert!(!help(r).contains("= 100` on `"), "{}", help(r));
    assert!(!help(r).contains("above 100 on `"), "{}", help(r));
    insta::assert_snapshot!("module_ami_human", human(&plan));

    let plan = load("module_image.json");
    let e = plan.effects();
    let r = find(
        &e,
        EffectKind::RevisionDeregistered,
        "module.inference.module.service.aws_ecs_task_definition.this",
    );
    assert!(
        help(r).contains("`module.inference` has no input for `skip_destroy`"),
        "{}",
        help(r)
    );
    // A new image is a deployment only: no launch template change, so no refresh.
    assert!(e.iter().all(|e| e.kind != EffectKind::InstanceReplacement));
    insta::assert_snapshot!("module_image_human", human(&plan));
}

/// The module's `gpu_count` 2 -> 4 on g5.12xlarge (4 GPUs): at minimum healthy 100% the new task
/// needs all 4 GPUs of an instance while the old one holds 2 of the running one, so the deployment
/// completes only on a second instance, which `max_size = 2` allows.
#[test]
fn twice_the_gpus_per_task_in_the_module_needs_a_second_instance() {
    let plan = load("module_gpu_count.json");
    let e = plan.effects();
    let service = "module.inference.module.service.aws_ecs_service.this[0]";
    let d = find(&e, EffectKind::Deployment, service);
    assert!(
        d.message
            .contains("each new task needs 4 GPUs where the old ones need 2 GPUs"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains(
            "every new task needs 4 GPUs free on one instance while the old tasks hold theirs"
        ),
        "{}",
        d.message
    );
    let capacity = deployment_capacity(&plan);
    assert_eq!(capacity.len(), 1);
    assert_eq!(capacity[0].address, service);
    assert_eq!(capacity[0].line(), "capacity: completes");
    insta::assert_snapshot!("module_gpu_count_human", human(&plan));
}

/// Moving GPU capacity from the Amazon Linux 2 GPU AMI to the AL2023 one is a driver change on
/// every instance the refresh replaces: 550 -> 580. A `resolve:ssm:` image names its parameter on
/// both sides of the change, so both drivers are known; the images of the GPU services on that
/// capacity run on the new driver (the done-when: "550 -> 580" on a real plan).
#[test]
fn an_ami_move_from_al2_to_al2023_says_the_driver_before_and_after() {
    let plan = load("ami_al2_to_al2023.json");
    let e = plan.effects();
    let d = find(&e, EffectKind::DriverChange, "aws_launch_template.gpu");
    assert!(
        d.message.contains("from 550.163.01 (`resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id`: the Amazon Linux 2 ECS GPU AMI, release 20260924, the newest the catalog knows, CUDA 12.4) to 580.178.04"),
        "{}",
        d.message
    );
    assert!(d.message.contains("CUDA 13.0)"), "{}", d.message);
    assert!(
        d.message.contains("`aws_ecs_service.train`: `pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime` (CUDA 13.0) runs on it"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("`aws_ecs_service.serve`: `nvidia/cuda:12.9.0-runtime-ubuntu22.04` (CUDA 12.9.0) runs on it"),
        "{}",
        d.message
    );
    assert!(d.help.is_none(), "{:?}", d.help);
    // The refresh that brings the new driver to the instances is its own effect.
    find(
        &e,
        EffectKind::InstanceReplacement,
        "aws_autoscaling_group.gpu",
    );
    insta::assert_snapshot!("ami_al2_to_al2023_human", human(&plan));
}

/// The way back: the 550 driver supports CUDA 12.4, so the CUDA 13.0 PyTorch image (pip wheels,
/// no compatibility package) cannot run, and the CUDA 12.9 image only maybe; the help names the
/// service that breaks.
#[test]
fn an_ami_move_back_to_al2_names_the_service_whose_image_cannot_run() {
    let plan = load("ami_al2023_to_al2.json");
    let e = plan.effects();
    let d = find(&e, EffectKind::DriverChange, "aws_launch_template.gpu");
    assert!(d.message.contains("from 580.178.04"), "{}", d.message);
    assert!(d.message.contains("to 550.163.01"), "{}", d.message);
    assert!(
        d.message.contains(
            "`pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime` (CUDA 13.0) cannot run on it"
        ),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("`nvidia/cuda:12.9.0-runtime-ubuntu22.04` (CUDA 12.9.0) may run on it only through CUDA minor version compatibility"),
        "{}",
        d.message
    );
    assert!(help(d).contains("`aws_ecs_service.train`"), "{}", help(d));
    assert!(!help(d).contains("serve"), "{}", help(d));
    insta::assert_snapshot!("ami_al2023_to_al2_human", human(&plan));
}

/// Through a data source, the plan holds what it read for the new plan: the AMI after the change
/// is known (the data source whose value it is), the one before is not, and the message says so
/// rather than guessing. The parameter's value is sensitive and never shown.
#[test]
fn an_ami_move_through_a_data_source_knows_the_driver_after_only() {
    let plan = load("ami_data_al2_to_al2023.json");
    let e = plan.effects();
    let d = find(&e, EffectKind::DriverChange, "aws_launch_template.gpu");
    assert!(
        d.message.contains("from a driver the plan does not say"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("to 580.178.04 (`data.aws_ssm_parameter.gpu_ami[0]` (`/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id`)"),
        "{}",
        d.message
    );
    assert!(!d.message.contains("ami-"), "{}", d.message);
    insta::assert_snapshot!("ami_data_al2_to_al2023_human", human(&plan));
}
