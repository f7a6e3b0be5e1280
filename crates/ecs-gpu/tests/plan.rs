//! `ecs-gpu plan` as a user runs it: exit statuses, formats, standard input, binary plan files and
//! the secret that must never be printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SECRETS: [&str; 2] = ["hunter2-DO-NOT-PRINT", "ami-0secretsecret0000"];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../ecs-gpu-plan/tests/fixtures")
        .join(name)
}

fn ecs_gpu() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
}

fn run(args: &[&str]) -> Output {
    ecs_gpu().args(args).output().unwrap()
}

fn run_stdin(args: &[&str], input: &[u8], path: Option<&Path>) -> Output {
    let mut cmd = ecs_gpu();
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn path(name: &str) -> String {
    fixture(name).display().to_string()
}

/// A directory holding a fake `terraform` that prints `json` for `terraform show -no-color -json
/// PLAN`, or fails like Terraform does.
fn fake_terraform(test: &str, script: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ecs-gpu-plan-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tf = dir.join("terraform");
    std::fs::write(&tf, format!("#!/bin/sh\n{script}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

#[test]
fn a_plan_with_effects_exits_0_without_fail_on() {
    let o = run(&["plan", &path("deployment.json")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("8 effects: 4 deployment, 4 revision-deregistered"),
        "{out}"
    );
    assert!(stderr(&o).is_empty());
}

#[test]
fn fail_on_a_present_kind_exits_1() {
    let o = run(&[
        "plan",
        &path("capacity_destroyed.json"),
        "--fail-on",
        "capacity-destroyed,service-replaced",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("capacity-destroyed (3)"),
        "{}",
        stdout(&o)
    );
    let o = run(&[
        "plan",
        &path("deployment.json"),
        "--fail-on",
        "service-replaced",
        "--fail-on",
        "deployment",
    ]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn fail_on_an_absent_kind_exits_0() {
    let o = run(&[
        "plan",
        &path("deployment.json"),
        "--fail-on",
        "capacity-destroyed,service-replaced",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn fail_on_an_unknown_kind_is_a_usage_error() {
    let o = run(&["plan", &path("deployment.json"), "--fail-on", "deploy"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("unknown effect kind `deploy`"), "{err}");
    assert!(err.contains("not-reaching-running-instances"), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn json_format_is_the_documented_shape() {
    let o = run(&["plan", &path("drift.json"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["summary"]["drift-revert"], 5);
    assert_eq!(v["summary"]["apply-fails"], 1);
    assert_eq!(v["effects"][1]["kind"], "drift-revert");
    assert_eq!(v["effects"][1]["address"], "aws_ecs_service.app");
}

#[test]
fn a_dash_reads_standard_input() {
    let bytes = std::fs::read(fixture("service_replaced.json")).unwrap();
    let o = run_stdin(
        &["plan", "-", "--fail-on", "service-replaced"],
        &bytes,
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("6 effects: 6 service-replaced"));
}

#[test]
fn input_that_is_not_a_plan_exits_2_with_what_it_is() {
    for (name, says) in [
        ("state.json", "this is a Terraform state file"),
        ("tfstate.json", "a raw terraform.tfstate"),
        ("other.json", "this is a JSON object with keys `name`, `version`, `dependencies`, not a Terraform plan"),
        ("array.json", "this is a JSON array, not a Terraform plan"),
        ("invalid.json", "invalid JSON at line 4, column 39: expected `,` or `}`"),
        ("empty.json", "the input is empty"),
        ("format_0_2.json", "plan format `0.2` is not read"),
    ] {
        let o = run(&["plan", &path(name)]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = stderr(&o);
        assert_eq!(
            err,
            format!("ecs-gpu: error: {}: {}", path(name), &err[16 + path(name).len() + 2..]),
            "{name}: one line with the path"
        );
        assert!(err.starts_with("ecs-gpu: error: "), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(stdout(&o).is_empty(), "{name}");
    }
}

#[test]
fn a_missing_file_exits_2() {
    let o = run(&["plan", "/nonexistent/plan.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/plan.json: cannot open the plan"));
}

#[test]
fn a_binary_plan_without_terraform_exits_2_and_says_what_to_run() {
    let empty = std::env::temp_dir().join(format!("ecs-gpu-plan-no-tf-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let o = ecs_gpu()
        .args(["plan", &path("binary.tfplan")])
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("binary Terraform plan file"), "{err}");
    assert!(err.contains("`terraform` is not on PATH"), "{err}");
    assert!(err.contains("terraform show -json"), "{err}");
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn a_binary_plan_is_read_through_terraform_show() {
    let json = path("not_reaching.json");
    let dir = fake_terraform(
        "show",
        &format!("[ \"$1 $2 $3\" = \"show -no-color -json\" ] || exit 9\nexec /bin/cat '{json}'"),
    );
    let o = ecs_gpu()
        .args(["plan", &path("binary.tfplan")])
        .env("PATH", &dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("7 effects: 7 not-reaching-running-instances"));
    // And from standard input, through a temporary file.
    let bytes = std::fs::read(fixture("binary.tfplan")).unwrap();
    let o = run_stdin(&["plan", "-", "--format", "json"], &bytes, Some(&dir));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["not-reaching-running-instances"], 7);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_terraform_show_exits_2_with_its_error() {
    let dir = fake_terraform(
        "fail",
        "echo '╷' >&2\necho '│ Error: Failed to load plugin schemas' >&2\necho '╵' >&2\nexit 1",
    );
    let o = ecs_gpu()
        .args(["plan", &path("binary.tfplan")])
        .env("PATH", &dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("failed (exit status: 1): Error: Failed to load plugin schemas"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_secret_in_the_plan_is_printed_by_no_format_and_no_error() {
    let mut outputs = Vec::new();
    for args in [
        vec!["plan", "SENSITIVE"],
        vec!["plan", "SENSITIVE", "--format", "json"],
        vec!["plan", "SENSITIVE", "--fail-on", "deployment"],
        vec!["plan", "WRONG_TYPE"],
    ] {
        let args: Vec<String> = args
            .iter()
            .map(|a| match *a {
                "SENSITIVE" => path("sensitive.json"),
                "WRONG_TYPE" => path("wrong_type.json"),
                a => a.to_string(),
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        outputs.push(run(&args));
    }
    let bytes = std::fs::read(fixture("sensitive.json")).unwrap();
    outputs.push(run_stdin(&["plan", "-", "--format", "json"], &bytes, None));
    assert_eq!(outputs[3].status.code(), Some(2));
    for o in &outputs {
        for s in SECRETS {
            assert!(!stdout(o).contains(s), "{s} on stdout");
            assert!(!stderr(o).contains(s), "{s} on stderr");
        }
    }
    assert!(stdout(&outputs[0]).contains("(sensitive)"));
}

/// A real binary plan, made by the Terraform on PATH with the built-in `terraform_data` resource
/// (no provider to download). Skipped where Terraform is not installed.
#[test]
fn a_real_binary_plan_from_terraform() {
    let Ok(version) = Command::new("terraform").arg("version").output() else {
        return;
    };
    if !version.status.success() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ecs-gpu-plan-real-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("main.tf"),
        "variable \"token\" {\n  type      = string\n  sensitive = true\n  default   = \"hunter2-DO-NOT-PRINT\"\n}\nresource \"terraform_data\" \"x\" {\n  input = var.token\n}\n",
    )
    .unwrap();
    for args in [
        &["init", "-input=false", "-no-color"][..],
        &["plan", "-input=false", "-no-color", "-out", "tfplan"][..],
    ] {
        let o = Command::new("terraform")
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "terraform {args:?}: {}", stderr(&o));
    }
    let o = ecs_gpu()
        .args(["plan", "tfplan", "--format", "json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["effects"], serde_json::json!([]));
    for s in SECRETS {
        assert!(!stdout(&o).contains(s) && !stderr(&o).contains(s));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A plan Terraform cannot apply exits 1 (a finding about the plan, read whole), with or
/// without --fail-on; docs/plan.md documents it.
#[test]
fn an_errored_plan_exits_1() {
    let o = run(&["plan", &path("real/errored.json")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("the plan cannot be applied"));
    let o = run(&["plan", &path("real/targeted.json")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A plan with nothing to apply (Terraform 1.8+: `applyable: false`, `errored: false`) is no error:
/// exit 0 whatever `--fail-on` lists, and the JSON says `errored: false`, `complete: true`, so the
/// CI recipe in docs/plan.md passes a no-op run.
#[test]
fn a_plan_with_no_changes_exits_0() {
    let all = "apply-fails,capacity-destroyed,service-replaced,instance-replacement,driver-change,deployment,scale-in,drift-revert,protection-removed,scale-out,not-reaching-running-instances,revision-deregistered,no-effect";
    let o = run(&["plan", &path("real/noop.json"), "--fail-on", all]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("the plan has nothing to apply"));
    let o = run(&["plan", &path("real/noop.json"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["errored"], false);
    assert_eq!(v["applyable"], false);
    assert_eq!(v["complete"], true);
}
