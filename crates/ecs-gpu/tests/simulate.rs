//! `ecs-gpu simulate` as a user runs it: on saved clusters in the AWS CLI's shapes (the diagnose
//! crate's scenarios), on hand-written stacks, and its exit statuses.

use std::path::Path;
use std::process::Command;

fn simulate(args: &[&str]) -> (i32, String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .arg("simulate")
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const SAVED: &str = "crates/ecs-gpu-diagnose/tests/scenarios";
const STACKS: &str = "crates/ecs-gpu-rules/tests/fixtures/GPU406";

#[test]
fn saved_cluster_packed_g5_12xlarge_deploys_with_one_more_instance() {
    let (code, out, err) = simulate(&["--from", &format!("{SAVED}/healthy-packed-g5-12xlarge")]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn saved_cluster_with_every_gpu_pinned_fails_the_gate() {
    let (code, out, err) = simulate(&[
        "--from",
        &format!("{SAVED}/gpus-available-pinned"),
        "--deploy",
        "train",
        "--fail-on",
        "stuck,over-max",
    ]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn hand_written_stack_rolling_deployment_over_max() {
    let (code, out, err) = simulate(&[
        &format!("{STACKS}/fires/rolling-needs-a-fifth-gpu"),
        "--deploy",
        "aws_ecs_service.train",
        "--fail-on",
        "over-max",
    ]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn hand_written_stack_blue_green_as_json() {
    let (code, out, err) = simulate(&[
        &format!("{STACKS}/fires/blue-green-twice"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["answers"][0]["verdict"]["status"], "over-max");
}

#[test]
fn bad_input_is_a_usage_error_naming_what_is_wrong() {
    let (code, _, err) = simulate(&[&format!("{STACKS}/clean/fits"), "--deploy", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no service `nope`"), "{err}");
    let (code, _, err) = simulate(&[&format!("{STACKS}/clean/fits"), "--scale", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected SERVICE=N"), "{err}");
}

const OWN: &str = "crates/ecs-gpu/tests/simulate";

#[test]
fn hand_written_stack_warm_pool_running_is_billed_and_refresh_waits_by_default() {
    let prices = std::env::temp_dir().join(format!("ecs-gpu-prices-{}.json", std::process::id()));
    std::fs::write(&prices, r#"{"g5.xlarge": {"on_demand": 1.006}}"#).unwrap();
    let (code, out, err) = simulate(&[
        &format!("{OWN}/warm-pool"),
        "--scale",
        "aws_ecs_service.infer=4",
        "--refresh",
        "aws_autoscaling_group.gpu",
        "--prices",
        prices.to_str().unwrap(),
        "--fail-on",
        "stuck",
    ]);
    std::fs::remove_file(&prices).unwrap();
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn hand_written_stack_several_types_with_spot_above_an_on_demand_base() {
    let (code, out, err) = simulate(&[&format!("{OWN}/mixed-spot")]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

/// A name from the cluster (an Auto Scaling group's) with a bidirectional override and an escape
/// sequence is printed escaped, by the escaper of every other command: it can neither reorder
/// the line nor colour the terminal.
#[test]
fn names_from_the_input_are_escaped_like_in_every_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulate-hostile-name");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let saved = root.join(format!("{SAVED}/gpus-available-pinned"));
    for entry in std::fs::read_dir(saved).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let hostile = text.replace("gpu-asg", "gpu-asg\\u202e\\u001b[31m");
        std::fs::write(dir.join(path.file_name().unwrap()), hostile).unwrap();
    }
    let (code, out, err) = simulate(&["--from", dir.to_str().unwrap(), "--deploy", "train"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("`gpu-asg\\u{202e}\\u{1b}[31m`"), "{out}");
    assert!(
        !out.contains('\u{202e}') && !out.contains('\u{1b}'),
        "{out}"
    );
}

/// The Terraform module's own examples, as a user runs `simulate` on one: each answers, or says
/// precisely why the answer is unknown, and none is a usage error. One snapshot per example.
#[test]
fn module_examples_answer_or_say_why_unknown() {
    let expected = [
        ("autoscaling", "unknown"),
        ("basic", "completes"),
        ("canary", "completes"),
        ("capacity-block", "completes"),
        ("existing-cluster", "unknown"),
        ("gpu-metrics", "completes"),
        ("mixed-spot", "completes"),
        ("mps", "unknown"),
        ("production", "completes"),
        ("vllm", "completes"),
        ("warm-pool", "completes"),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../terraform/ecs-gpu-task/examples");
    let mut found: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let names: Vec<&str> = expected.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        found, names,
        "an example was added or removed: pin its answer here"
    );
    for (name, verdict) in expected {
        let (code, out, err) = simulate(&[&format!("terraform/ecs-gpu-task/examples/{name}")]);
        assert_eq!(code, 0, "{name}: {err}");
        let first = out.lines().next().unwrap_or_default();
        assert!(first.ends_with(&format!(": {verdict}")), "{name}: {out}");
        if verdict == "unknown" {
            // The reason is on the next line, never a bare "unknown".
            let reason = out.lines().nth(1).unwrap_or_default();
            assert!(reason.contains("is not known: "), "{name}: {out}");
        }
        insta::assert_snapshot!(format!("module_example_{name}"), out);
    }
}

/// The two examples on an existing cluster are unknown only because `cluster_name` has no default:
/// the capacity provider's name is built from it, and the service picks its provider from the
/// cluster's list by that name. Given the variable, as `terraform plan` needs it, both answer.
#[test]
fn module_examples_on_an_existing_cluster_answer_with_its_name() {
    for name in ["autoscaling", "existing-cluster"] {
        let (code, out, err) = simulate(&[
            &format!("terraform/ecs-gpu-task/examples/{name}"),
            "--var",
            "cluster_name=gpu",
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        let first = out.lines().next().unwrap_or_default();
        assert!(first.ends_with(": completes"), "{name}: {out}");
    }
}

const REAL_PLANS: &str = "crates/ecs-gpu-plan/tests/fixtures/real";

/// A real plan that raises a GPU service's `desired_count` (and the group's desired capacity) is
/// simulated as that scale-out, not as a deployment.
#[test]
fn plan_scale_out_is_simulated_as_a_scale_event() {
    let (code, out, err) = simulate(&["--plan", &format!("{REAL_PLANS}/scale_out.json")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("scale `aws_ecs_service.train[0]` to 4: "),
        "{out}"
    );
    assert!(!out.contains("deploy `"), "{out}");
    insta::assert_snapshot!(out);
}

/// A real plan that changes the launch template's instance type under an instance refresh: the
/// refresh is an event of its own, beside the deployment the new placement constraint starts.
#[test]
fn plan_instance_type_change_is_simulated_as_a_refresh() {
    let (code, out, err) = simulate(&["--plan", &format!("{REAL_PLANS}/instance_type.json")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("refresh `aws_autoscaling_group.gpu`: "),
        "{out}"
    );
    assert!(out.contains("deploy `aws_ecs_service.train[0]`: "), "{out}");
    insta::assert_snapshot!(out);
}

/// A plan that stopped at an error (real Terraform 1.11, hashicorp/aws 5.100.0: `errored: true`)
/// starts nothing: `simulate --plan` refuses it, in every format, whatever `--fail-on` says, as
/// `plan` fails the gate on it (it said "nothing to simulate" and exited 0, issue 52 item 9).
#[test]
fn an_errored_plan_is_refused() {
    for format in ["human", "json"] {
        let (code, out, err) = simulate(&[
            "--plan",
            &format!("{REAL_PLANS}/errored.json"),
            "--format",
            format,
        ]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("the plan cannot be applied: Terraform stopped planning at an error"),
            "{err}"
        );
    }
}

/// A plan that changes nothing has nothing to simulate: status 0, and no deployment of every GPU
/// service in its place.
#[test]
fn plan_with_no_event_has_nothing_to_simulate() {
    let (code, out, err) = simulate(&["--plan", &format!("{REAL_PLANS}/noop.json")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "nothing to simulate: the plan starts no deployment, scale-out or instance refresh of a GPU service\n"
    );
    let (code, out, _) = simulate(&[
        "--plan",
        &format!("{REAL_PLANS}/noop.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["answers"].as_array().map(Vec::len), Some(0), "{out}");
}
