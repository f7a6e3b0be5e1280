//! Each effect kind on its fixture (tests/fixtures, built by build.py to the `terraform show -json`
//! format of Terraform 1.11, plan format 1.2; 1.0 and 1.1 for two of them), inside and outside
//! modules, with snapshots of the human and JSON output.

use std::path::PathBuf;

use ecs_gpu_plan::plan_json::deployment_capacity;
use ecs_gpu_plan::{read, read_slice, render, Effect, EffectKind, Plan};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn load(name: &str) -> Plan {
    let bytes = std::fs::read(fixture(name)).unwrap();
    read(bytes.as_slice()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn effects(name: &str) -> Vec<Effect> {
    load(name).effects()
}

/// (kind, address) of every effect, in output order.
fn kinds(effects: &[Effect]) -> Vec<(&'static str, &str)> {
    effects
        .iter()
        .map(|e| (e.kind.as_str(), e.address.as_str()))
        .collect()
}

fn human(name: &str) -> String {
    let plan = load(name);
    let mut out = Vec::new();
    render::human(
        &mut out,
        &plan,
        &plan.effects(),
        &deployment_capacity(&plan),
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

fn json(name: &str) -> String {
    let plan = load(name);
    let mut out = Vec::new();
    render::json(
        &mut out,
        &plan,
        &plan.effects(),
        &deployment_capacity(&plan),
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

fn find<'a>(effects: &'a [Effect], kind: EffectKind, address: &str) -> &'a Effect {
    effects
        .iter()
        .find(|e| e.kind == kind && e.address == address)
        .unwrap_or_else(|| panic!("no {kind} on {address} in {:#?}", kinds(effects)))
}

#[test]
fn a_replaced_task_definition_deploys_the_services_that_run_it() {
    let e = effects("deployment.json");
    for prefix in ["", "module.gpu."] {
        let d = find(
            &e,
            EffectKind::Deployment,
            &format!("{prefix}aws_ecs_service.app"),
        );
        assert_eq!(d.related, [format!("{prefix}aws_ecs_task_definition.app")]);
        assert!(d.message.contains("its 4 running tasks"), "{}", d.message);
        assert!(
            d.message.contains("circuit breaker on, with rollback"),
            "{}",
            d.message
        );
        assert!(d.help.is_none());
        let r = find(
            &e,
            EffectKind::RevisionDeregistered,
            &format!("{prefix}aws_ecs_task_definition.app"),
        );
        assert!(r.message.contains(":7` is deregistered"), "{}", r.message);
    }
}

#[test]
fn a_network_change_deploys_and_a_missing_circuit_breaker_is_named() {
    let e = effects("deployment.json");
    let d = find(
        &e,
        EffectKind::Deployment,
        r#"module.svc["embed"].aws_ecs_service.this"#,
    );
    assert!(
        d.message.contains("`network_configuration` changes"),
        "{}",
        d.message
    );
    assert!(d.message.contains("circuit breaker off"), "{}", d.message);
    // The task definition comes through a module variable: matched by its ARN.
    assert_eq!(
        d.related,
        [r#"module.svc["embed"].aws_ecs_task_definition.this"#]
    );
    assert!(d.help.as_deref().unwrap().contains("rollback = true"));
}

#[test]
fn changed_triggers_with_force_new_deployment_deploy() {
    let e = effects("deployment.json");
    let d = find(&e, EffectKind::Deployment, "aws_ecs_service.redeploy");
    assert!(
        d.message
            .contains("`triggers` change with `force_new_deployment` set"),
        "{}",
        d.message
    );
}

#[test]
fn a_service_that_names_the_family_gets_no_deployment_and_says_so() {
    let e = effects("deployment.json");
    assert!(!e
        .iter()
        .any(|x| x.kind == EffectKind::Deployment && x.address == "aws_ecs_service.batch"));
    let r = find(
        &e,
        EffectKind::RevisionDeregistered,
        "aws_ecs_task_definition.batch",
    );
    assert!(
        r.message
            .contains("`aws_ecs_service.batch` names the task definition by family only"),
        "{}",
        r.message
    );
}

#[test]
fn a_service_under_ignore_changes_keeps_the_deregistered_revision() {
    let e = effects("deployment.json");
    assert!(!e.iter().any(|x| x.address == "aws_ecs_service.trainer"));
    let r = find(
        &e,
        EffectKind::RevisionDeregistered,
        "aws_ecs_task_definition.trainer",
    );
    assert!(
        r.message
            .contains("`aws_ecs_service.trainer` runs this revision and its `task_definition` does not change"),
        "{}",
        r.message
    );
}

#[test]
fn replaced_and_destroyed_services() {
    let e = effects("service_replaced.json");
    assert_eq!(
        kinds(&e),
        [
            ("service-replaced", "aws_ecs_service.app"),
            ("service-replaced", "module.gpu.aws_ecs_service.app"),
            ("service-replaced", "aws_ecs_service.batch"),
            ("service-replaced", "aws_ecs_service.legacy"),
            ("service-replaced", "module.gpu.aws_ecs_service.bluegreen"),
            ("service-replaced", "module.gpu.aws_ecs_service.tainted"),
        ]
    );
    assert!(
        e[4].message.contains("once the new service exists"),
        "{}",
        e[4].message
    );
    assert!(
        e[0].message.contains("because `name` changes"),
        "{}",
        e[0].message
    );
    // The provider replaces a service whose strategy changes unless `force_new_deployment` is set.
    assert!(e[2]
        .help
        .as_deref()
        .unwrap()
        .contains("`force_new_deployment = true`"));
    assert!(e[3]
        .message
        .contains("not created again because its configuration was removed"));
    assert!(
        e[3].message.contains("its 1 running task stops"),
        "{}",
        e[3].message
    );
    assert!(e[5].message.contains("because it is tainted"));
}

#[test]
fn launch_template_versions_that_no_running_instance_gets() {
    let e = effects("not_reaching.json");
    let latest = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "module.gpu.aws_launch_template.gpu",
    );
    assert!(
        latest
            .message
            .contains("AMI `ami-0111aaaa` -> `ami-0222bbbb`"),
        "{}",
        latest.message
    );
    assert!(latest.message.contains("`$Latest`"));
    assert_eq!(latest.related, ["module.gpu.aws_autoscaling_group.gpu"]);
    // Inside the module, the fix names the template as the module's code does.
    assert!(latest
        .help
        .as_deref()
        .unwrap()
        .contains("`version = aws_launch_template.gpu.latest_version`"));
    // The pinned group is not in `resource_changes` (as under `-target`): found in planned values.
    let pinned = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_template.pinned",
    );
    assert!(
        pinned.message.contains("pinned to version `3`"),
        "{}",
        pinned.message
    );
    let follow = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_template.follow",
    );
    assert!(
        follow.message.contains("no `instance_refresh` block"),
        "{}",
        follow.message
    );
    let orphan = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_template.orphan",
    );
    assert!(orphan
        .message
        .contains("no Auto Scaling group in this plan"));
    // A refresh block that never starts: the fix is the version, not another block.
    let refresh = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_template.latest_refresh",
    );
    assert!(refresh
        .help
        .as_deref()
        .unwrap()
        .starts_with("set the launch template `version"));
    let default = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "module.gpu.aws_launch_template.default",
    );
    assert!(default
        .message
        .contains("`$Default` and the new version does not become the default"));
    let lc = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_configuration.gpu",
    );
    assert!(lc.message.starts_with("makes a new launch configuration"));
    assert!(lc
        .help
        .as_deref()
        .unwrap()
        .contains("a change of its `launch_configuration`"));
    assert_eq!(e.len(), 7, "{:#?}", kinds(&e));
}

#[test]
fn an_instance_refresh_gives_min_healthy_and_warmup() {
    let e = effects("instance_refresh.json");
    assert_eq!(e.len(), 4, "{:#?}", kinds(&e));
    let m = find(
        &e,
        EffectKind::InstanceReplacement,
        "module.gpu.aws_autoscaling_group.gpu",
    );
    assert!(
        m.message.contains("minimum healthy 90%, warmup 300s"),
        "{}",
        m.message
    );
    assert!(m.message.contains("rescheduled"));
    assert_eq!(
        m.related,
        [
            "module.gpu.aws_ecs_capacity_provider.gpu",
            "module.gpu.aws_launch_template.gpu"
        ]
    );
    assert!(
        m.help.is_some(),
        "below 100% healthy the help says why GPUs run short"
    );
    let root = find(
        &e,
        EffectKind::InstanceReplacement,
        "aws_autoscaling_group.gpu",
    );
    assert!(
        root.message.contains("minimum healthy 100%"),
        "{}",
        root.message
    );
    assert!(
        root.message.contains("health check grace period"),
        "{}",
        root.message
    );
    let trig = find(
        &e,
        EffectKind::InstanceReplacement,
        "aws_autoscaling_group.trig",
    );
    assert!(trig
        .message
        .contains("`vpc_zone_identifier` changes and is in `triggers`"));
    // Managed termination protection protects the instances that run tasks; the default
    // `scale_in_protected_instances = "Ignore"` skips them.
    assert!(m
        .message
        .contains("the instances that run GPU tasks keep the old launch template"));
    assert!(m
        .help
        .as_deref()
        .unwrap()
        .contains("`scale_in_protected_instances = \"Refresh\"`"));
    assert!(!root.message.contains("skipped"), "{}", root.message);
    let moved = find(
        &e,
        EffectKind::InstanceReplacement,
        "aws_autoscaling_group.moved",
    );
    assert!(moved
        .message
        .contains("the group moves to the new `aws_launch_template.next`"));
}

#[test]
fn drift_set_back_says_who_owns_the_value() {
    let e = effects("drift.json");
    assert_eq!(
        kinds(&e),
        [
            ("apply-fails", "module.gpu.aws_autoscaling_group.gpu"),
            ("drift-revert", "aws_ecs_service.app"),
            ("drift-revert", "module.gpu.aws_ecs_service.app"),
            ("drift-revert", "aws_ecs_service.scaled"),
            ("drift-revert", "module.gpu.aws_autoscaling_group.gpu"),
            ("drift-revert", "aws_ecs_capacity_provider.batch"),
        ]
    );
    assert!(e[0].message.contains("the apply fails"), "{}", e[0].message);
    let e = &e[1..];
    assert!(
        e[0].message
            .contains("from 2 to 6; the apply sets it back to 2, stopping 4 running GPU tasks"),
        "{}",
        e[0].message
    );
    assert!(e[0]
        .help
        .as_deref()
        .unwrap()
        .contains("write it in the code"));
    assert_eq!(e[2].related, ["aws_appautoscaling_target.scaled"]);
    assert!(e[2]
        .help
        .as_deref()
        .unwrap()
        .contains("the count belongs to Application Auto Scaling"));
    assert!(e[3]
        .help
        .as_deref()
        .unwrap()
        .contains("ignore_changes = [desired_capacity]"));
    assert!(e[4]
        .message
        .contains("`target_capacity` was changed outside Terraform from 100 to 80"));
}

#[test]
fn destroyed_capacity_in_plan_format_1_0() {
    let plan = load("capacity_destroyed.json");
    assert_eq!(plan.format_version, "1.0");
    let e = plan.effects();
    let g = find(
        &e,
        EffectKind::CapacityDestroyed,
        "module.gpu.aws_autoscaling_group.gpu",
    );
    assert!(
        g.message.contains("its 3 GPU instances are terminated"),
        "{}",
        g.message
    );
    // What the provider does (group.go): protection removed, then a bounded wait.
    assert!(
        g.message
            .contains("removes the scale-in protection of its instances"),
        "{}",
        g.message
    );
    assert!(!g.message.contains("hang"), "{}", g.message);
    assert_eq!(
        g.related,
        [
            "module.gpu.aws_ecs_capacity_provider.gpu",
            "module.gpu.aws_ecs_service.app"
        ]
    );
    // The capacity providers are replaced delete-first while a service still names them: ECS
    // refuses the delete.
    let cp = find(&e, EffectKind::ApplyFails, "aws_ecs_capacity_provider.gpu");
    assert!(
        cp.message
            .contains("Terraform deletes it first, before the new one exists, while `aws_ecs_service.app` still names it"),
        "{}",
        cp.message
    );
    assert!(cp
        .help
        .as_deref()
        .unwrap()
        .contains("create_before_destroy"));
    find(&e, EffectKind::CapacityDestroyed, "aws_ecs_cluster.old");
    assert_eq!(e.len(), 5);
}

#[test]
fn tags_only_is_no_effect_in_plan_format_1_1() {
    let plan = load("no_effect.json");
    assert_eq!(plan.format_version, "1.1");
    let e = plan.effects();
    assert_eq!(e.len(), 7);
    assert!(e.iter().all(|x| x.kind == EffectKind::NoEffect));
}

#[test]
fn unknown_values_are_never_guessed() {
    let e = effects("unknown_values.json");
    let d = find(&e, EffectKind::Deployment, "module.gpu.aws_ecs_service.app");
    assert!(
        d.message.starts_with("may start a new deployment"),
        "{}",
        d.message
    );
    assert!(d.message.contains("desired count: (known after apply)"));
    assert!(d.message.contains("circuit breaker: (known after apply)"));
    let lt = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_template.gpu",
    );
    assert!(lt.message.starts_with("may make"), "{}", lt.message);
    assert!(lt.message.contains("-> `(known after apply)`"));
}

#[test]
fn sensitive_values_are_shown_as_sensitive() {
    let e = effects("sensitive.json");
    let lt = find(
        &e,
        EffectKind::NotReachingRunningInstances,
        "aws_launch_template.gpu",
    );
    assert!(lt.message.contains("-> `(sensitive)`"), "{}", lt.message);
    let d = find(&e, EffectKind::Deployment, "aws_ecs_service.app");
    assert!(
        d.message.contains("desired count: (sensitive)"),
        "{}",
        d.message
    );
    assert!(d.message.contains("rollback: (sensitive)"), "{}", d.message);
    let drift = find(
        &e,
        EffectKind::DriftRevert,
        "module.gpu.aws_ecs_service.app",
    );
    assert!(drift.message.contains("from (sensitive) to (sensitive)"));
    // The family is sensitive too: the revision is not named.
    let r = find(
        &e,
        EffectKind::RevisionDeregistered,
        "aws_ecs_task_definition.app",
    );
    assert!(
        r.message
            .starts_with("the current revision is deregistered"),
        "{}",
        r.message
    );
}

#[test]
fn a_secret_in_the_plan_appears_in_no_output() {
    let secrets = ["hunter2-DO-NOT-PRINT", "ami-0secretsecret0000"];
    let raw = std::fs::read_to_string(fixture("sensitive.json")).unwrap();
    for s in secrets {
        assert!(raw.contains(s), "the fixture carries {s}");
    }
    for out in [human("sensitive.json"), json("sensitive.json")] {
        for s in secrets {
            assert!(!out.contains(s), "{s} printed:\n{out}");
        }
    }
    // Errors too: a secret where the structure expects a list.
    let err = read_slice(&std::fs::read(fixture("wrong_type.json")).unwrap())
        .unwrap_err()
        .to_string();
    assert!(!err.contains(secrets[0]), "{err}");
}

#[test]
fn the_slice_and_the_stream_read_the_same() {
    for name in ["deployment.json", "drift.json", "sensitive.json"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let a = read_slice(&bytes).unwrap().effects();
        let b = read(std::io::BufReader::with_capacity(7, bytes.as_slice()))
            .unwrap()
            .effects();
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn json_has_the_documented_shape() {
    let v: serde_json::Value = serde_json::from_str(&json("deployment.json")).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["command"], "plan");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "version",
            "command",
            "errored",
            "applyable",
            "complete",
            "effects",
            "summary"
        ]
    );
    assert_eq!(v["errored"], false);
    assert_eq!(v["applyable"], true);
    assert_eq!(v["complete"], true);
    for e in v["effects"].as_array().unwrap() {
        let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        let want: &[&str] = if e["kind"] == "deployment" {
            &["kind", "address", "related", "message", "capacity"]
        } else {
            &["kind", "address", "related", "message"]
        };
        assert_eq!(keys, want);
    }
    assert_eq!(v["summary"]["deployment"], 4);
    assert_eq!(v["summary"]["revision-deregistered"], 4);
    assert_eq!(v["summary"]["capacity-destroyed"], 0);
    assert_eq!(
        v["summary"].as_object().unwrap().len(),
        EffectKind::ALL.len()
    );
}

#[test]
fn human_output_puts_the_summary_first_and_the_most_disruptive_kind_first() {
    let out = human("sensitive.json");
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("8 effects: 2 deployment, 2 drift-revert"),
        "{first}"
    );
    let pos = |k: &str| out.find(&format!("\n{k} (")).unwrap();
    assert!(pos("deployment") < pos("drift-revert"));
    assert!(pos("drift-revert") < pos("not-reaching-running-instances"));
    assert!(pos("not-reaching-running-instances") < pos("revision-deregistered"));
}

#[test]
fn a_plan_without_gpu_changes_has_no_effect() {
    let json = r#"{"format_version":"1.2","planned_values":{"root_module":{}},"resource_changes":[
        {"address":"aws_s3_bucket.b","mode":"managed","type":"aws_s3_bucket","name":"b",
         "change":{"actions":["create"],"before":null,"after":{"bucket":"b"},"after_unknown":{},
                   "before_sensitive":false,"after_sensitive":{}}}]}"#;
    let plan = read_slice(json.as_bytes()).unwrap();
    assert!(plan.effects().is_empty());
    let mut out = Vec::new();
    render::human(&mut out, &plan, &[], &[]).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "no effect on running GPU tasks or instances (0 changes to the GPU stack, 1 resource change in the plan)\n"
    );
}

/// An SSM parameter the plan creates is not part of the GPU stack (only data sources of its type
/// are read, to place an AMI), and a launch template whose image goes from one literal AMI ID to
/// another says nothing of the driver: which AMI an ID is is not in the plan.
#[test]
fn literal_amis_say_no_driver_and_managed_parameters_are_not_gpu_stack() {
    let json = r#"{"format_version":"1.2","planned_values":{"root_module":{}},"resource_changes":[
        {"address":"aws_ssm_parameter.p","mode":"managed","type":"aws_ssm_parameter","name":"p",
         "change":{"actions":["create"],"before":null,"after":{"name":"/app/x","value":"1"},"after_unknown":{},
                   "before_sensitive":false,"after_sensitive":{}}},
        {"address":"aws_launch_template.gpu","mode":"managed","type":"aws_launch_template","name":"gpu",
         "change":{"actions":["update"],"before":{"image_id":"ami-0aaaaaaaaaaaaaaaa"},"after":{"image_id":"ami-0bbbbbbbbbbbbbbbb"},
                   "after_unknown":{},"before_sensitive":{},"after_sensitive":{}}}],
        "prior_state":{"values":{"root_module":{"resources":[
          {"address":"data.aws_ssm_parameter.other","mode":"data","type":"aws_ssm_parameter","name":"other",
           "values":{"name":"/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id","value":"ami-0ccccccccccccccc","insecure_value":"ami-0ccccccccccccccc"},
           "sensitive_values":{"value":true}}]}}}}"#;
    let plan = read_slice(json.as_bytes()).unwrap();
    assert_eq!(plan.gpu_stack_changes(), 1);
    let e = plan.effects();
    assert!(
        !e.iter().any(|e| e.kind == EffectKind::DriverChange),
        "{e:?}"
    );
    // The data source's value is the new image: then the driver after is known.
    let json = json.replace("ami-0ccccccccccccccc", "ami-0bbbbbbbbbbbbbbbb");
    let plan = read_slice(json.as_bytes()).unwrap();
    let e = plan.effects();
    let d = find(&e, EffectKind::DriverChange, "aws_launch_template.gpu");
    assert!(
        d.message.contains("from a driver the plan does not say"),
        "{}",
        d.message
    );
    assert!(d.message.contains("to 580.178.04"), "{}", d.message);
}

macro_rules! snapshots {
    ($($name:ident => $file:literal),* $(,)?) => {
        mod snapshots {
            $(
                #[test]
                fn $name() {
                    insta::assert_snapshot!(concat!(stringify!($name), "_human"), super::human($file));
                    insta::assert_snapshot!(concat!(stringify!($name), "_json"), super::json($file));
                }
            )*
        }
    };
}

snapshots! {
    deployment => "deployment.json",
    service_replaced => "service_replaced.json",
    not_reaching => "not_reaching.json",
    instance_refresh => "instance_refresh.json",
    drift => "drift.json",
    capacity_destroyed => "capacity_destroyed.json",
    no_effect => "no_effect.json",
    sensitive => "sensitive.json",
    unknown_values => "unknown_values.json",
    example => "example.json",
}

/// Every message and help line of every fixture follows the message convention: lowercase (or an
/// identifier in backticks) at the start, one line, no trailing period.
#[test]
fn messages_follow_the_convention() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seen = 0;
    let paths = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("real")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file());
    for path in paths {
        let Ok(plan) = read_slice(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        for e in plan.effects() {
            for text in std::iter::once(&e.message).chain(e.help.as_ref()) {
                let first = text.chars().next().unwrap();
                assert!(
                    first.is_lowercase() || first == '`',
                    "{}: {text}",
                    path.display()
                );
                assert!(!text.ends_with('.'), "{}: {text}", path.display());
                assert!(!text.contains('\n'), "{}: {text}", path.display());
            }
            seen += 1;
        }
    }
    assert!(seen > 40, "{seen} effects checked");
}

/// A plan made by Terraform 1.11 with the real aws provider that stops at a failed
/// precondition (`errored: true`, `applyable: false`; fixtures/real/gen.py) is not applyable, and a
/// change missing from it is never explained by `ignore_changes`.
#[test]
fn an_errored_plan_is_not_applyable_and_blames_no_ignore_changes() {
    let plan = load("real/errored.json");
    assert!(plan.is_errored());
    assert!(!plan.is_applyable());
    assert!(!plan.is_complete());
    let text = human("real/errored.json");
    assert!(text.starts_with("the plan cannot be applied"), "{text}");
    assert!(!text.contains("ignore_changes"), "{text}");
    insta::assert_snapshot!("real_errored_human", text);
    insta::assert_snapshot!("real_errored_json", json("real/errored.json"));
}

/// In a `-target` plan (`complete: false`) the service left out is "not in this
/// targeted plan", not `ignore_changes`.
#[test]
fn a_targeted_plan_says_the_service_is_not_in_it() {
    let plan = load("real/targeted.json");
    assert!(plan.is_applyable());
    assert!(!plan.is_complete());
    let text = human("real/targeted.json");
    assert!(
        text.contains(
            "`aws_ecs_service.train[0]` runs this revision and it is not in this targeted plan"
        ),
        "{text}"
    );
    assert!(!text.contains("ignore_changes"), "{text}");
    insta::assert_snapshot!("real_targeted_human", text);
}

/// Control characters in plan values (an AMI ID that forges a problem-matcher line, an
/// ESC sequence) are escaped in the human format: every line is one the renderer wrote.
#[test]
fn control_characters_in_values_are_escaped_in_human_output() {
    let text = std::fs::read_to_string(fixture("not_reaching.json")).unwrap();
    let hostile = text.replace(
        "ami-0222bbbb",
        "ami-0222bbbb\\nx/main.tf:1:1: error GPU101 FORGED\\u001b[31m",
    );
    assert_ne!(hostile, text);
    let plan = read(hostile.as_bytes()).unwrap();
    let mut out = Vec::new();
    render::human(
        &mut out,
        &plan,
        &plan.effects(),
        &deployment_capacity(&plan),
    )
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("FORGED"), "the value is shown, escaped: {out}");
    assert!(out.contains("\\n"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(out.lines().all(|l| !l.starts_with("x/main.tf")), "{out}");
}

/// A scaling target of another service (a DynamoDB table's) is not counted as a change
/// to the GPU stack; an ECS one is.
#[test]
fn a_dynamodb_scaling_target_is_not_a_gpu_stack_change() {
    let text = std::fs::read_to_string(fixture("deployment.json")).unwrap();
    let base = read(text.as_bytes()).unwrap().gpu_stack_changes();
    let with = |namespace: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let target = |max: u32| {
            serde_json::json!({"service_namespace": namespace, "max_capacity": max,
                "resource_id": "table/t", "scalable_dimension": "dynamodb:table:ReadCapacityUnits"})
        };
        v["resource_changes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({
                "address": "aws_appautoscaling_target.t", "mode": "managed",
                "type": "aws_appautoscaling_target", "name": "t",
                "change": {"actions": ["update"], "before": target(10), "after": target(20),
                    "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}}
            }));
        read(v.to_string().as_bytes()).unwrap().gpu_stack_changes()
    };
    assert_eq!(with("dynamodb"), base);
    assert_eq!(with("ecs"), base + 1);
}

/// A capacity provider replaced for a new name is destroyed and created again, but its
/// Auto Scaling group and instances stay: the message never says the group is destroyed.
#[test]
fn a_renamed_capacity_provider_does_not_destroy_its_group() {
    let asg =
        "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:x:autoScalingGroupName/gpu";
    let provider = |name: &str| {
        serde_json::json!({"name": name, "auto_scaling_group_provider": [{
            "auto_scaling_group_arn": asg, "managed_termination_protection": "ENABLED"}]})
    };
    let group = serde_json::json!({"name": "gpu", "arn": asg, "desired_capacity": 2});
    let plan = serde_json::json!({"format_version": "1.2", "resource_changes": [
        {"address": "aws_ecs_capacity_provider.gpu", "mode": "managed",
         "type": "aws_ecs_capacity_provider", "name": "gpu",
         "change": {"actions": ["delete", "create"], "before": provider("gpu"),
            "after": provider("gpu-v2"), "after_unknown": {"arn": true}, "before_sensitive": {},
            "after_sensitive": {}, "replace_paths": [["name"]]}},
        {"address": "aws_autoscaling_group.gpu", "mode": "managed",
         "type": "aws_autoscaling_group", "name": "gpu",
         "change": {"actions": ["no-op"], "before": group, "after": group, "after_unknown": {},
            "before_sensitive": {}, "after_sensitive": {}}}
    ]});
    let effects = read(plan.to_string().as_bytes()).unwrap().effects();
    assert_eq!(
        kinds(&effects),
        [("capacity-destroyed", "aws_ecs_capacity_provider.gpu")]
    );
    let message = &effects[0].message;
    assert!(message.contains("because `name` changes"), "{message}");
    assert!(
        message.contains("its Auto Scaling group and instances stay"),
        "{message}"
    );
    assert!(!message.contains("group is destroyed"), "{message}");
    assert!(!message.contains("terminated"), "{message}");
}

/// Values the model never reads are skipped while reading; a read on a thread that read
/// another plan before gives the same effects as a read on a fresh thread.
#[test]
fn skipping_unread_values_leaves_nothing_behind_between_reads() {
    for name in [
        "drift.json",
        "sensitive.json",
        "capacity_destroyed.json",
        "real/errored.json",
    ] {
        let fresh = std::thread::spawn(move || effects(name)).join().unwrap();
        let _ = effects("deployment.json");
        let _ = read(&b"{\"resource_changes\": [{\"type\": \"aws_ecs_service\", \"address\": \"a.b\", \"change\": {\"actions\": [\"update\"], \"before\": {}}}], \"prior_state\": 7}"[..]);
        assert_eq!(effects(name), fresh, "{name}");
    }
}

#[test]
fn deployment_capacity_answers_each_deployment_from_the_simulation() {
    let text = std::fs::read_to_string("tests/fixtures/deployment.json").unwrap();
    let plan = ecs_gpu_plan::read_slice(text.as_bytes()).unwrap();
    let lines = ecs_gpu_plan::plan_json::deployment_capacity(&plan);
    let deployments = plan
        .effects()
        .iter()
        .filter(|e| e.kind == ecs_gpu_plan::EffectKind::Deployment)
        .count();
    assert_eq!(lines.len(), deployments);
    for l in &lines {
        assert!(l.line().starts_with("capacity: "), "{}", l.line());
    }
    insta::assert_snapshot!(lines
        .iter()
        .map(|l| format!("{}: {}", l.address, l.line()))
        .collect::<Vec<_>>()
        .join("\n"));
}

/// What a real plan does to running GPU tasks and instances becomes the simulation's events: a
/// higher `desired_count` of a GPU service is a scale-out from the count before the plan, a launch
/// template change under an instance refresh is a refresh of the group, and a plan that does
/// neither and deploys nothing has no event (never a deployment of every GPU service).
#[test]
fn plan_events_are_its_scale_outs_refreshes_and_deployments() {
    let events = |name: &str| {
        let text = std::fs::read_to_string(fixture(&format!("real/{name}.json"))).unwrap();
        ecs_gpu_plan::plan_json::scenario(&read(text.as_bytes()).unwrap()).events
    };
    let titles = |name: &str| -> Vec<String> { events(name).iter().map(|e| e.title()).collect() };
    assert_eq!(
        titles("scale_out"),
        ["scale `aws_ecs_service.train[0]` to 4"]
    );
    let sc = {
        let text = std::fs::read_to_string(fixture("real/scale_out.json")).unwrap();
        ecs_gpu_plan::plan_json::scenario(&read(text.as_bytes()).unwrap()).scenario
    };
    let train = sc.service("aws_ecs_service.train[0]").unwrap();
    assert_eq!(
        sc.services[train].desired.known(),
        Some(&2),
        "the scale-out starts from the count before the plan"
    );
    assert_eq!(
        titles("instance_type"),
        [
            "deploy `aws_ecs_service.train[0]`",
            "refresh `aws_autoscaling_group.gpu`"
        ]
    );
    assert!(titles("noop").is_empty());
    // The plan's capacity line stays one per deployment.
    let text = std::fs::read_to_string(fixture("real/instance_type.json")).unwrap();
    let capacity = deployment_capacity(&read(text.as_bytes()).unwrap());
    assert_eq!(capacity.len(), 1);
    assert_eq!(capacity[0].address, "aws_ecs_service.train[0]");
}
