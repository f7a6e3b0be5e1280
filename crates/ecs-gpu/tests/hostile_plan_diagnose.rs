//! Hostile and unlucky input to `plan` and `diagnose` (huge, deep, hostile or cut short): each
//! case builds its input at test time, runs the binary under a memory limit (`prlimit --as`) and a
//! wall-clock limit, and asserts the exit status, what stderr says, and that nothing hangs, panics
//! or prints a control character raw. Each test names the behaviour it protects.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The virtual memory a run may take: far above what any case needs when the code is right.
const MEMORY: u64 = 3 << 30;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
    took: Duration,
}

impl Run {
    fn code(&self) -> i32 {
        assert!(
            !self.timed_out,
            "timed out after {:?}: {}",
            self.took, self.stderr
        );
        self.code
            .unwrap_or_else(|| panic!("killed (memory limit?): {}", self.stderr))
    }

    /// No panic, and no raw escape character or bidirectional override anywhere.
    fn assert_sane(&self) {
        assert!(
            !self.stderr.contains("panicked") && self.code != Some(101),
            "panic: {}",
            self.stderr
        );
        for out in [&self.stdout, &self.stderr] {
            for c in ['\u{1b}', '\u{202e}', '\u{2028}', '\r'] {
                assert!(!out.contains(c), "{c:?} printed raw: {out:?}");
            }
        }
    }

    /// Exit 2 with one error line that contains `want`.
    fn assert_refused(&self, want: &str) {
        self.assert_sane();
        assert_eq!(self.code(), 2, "{}\n{}", self.stdout, self.stderr);
        assert_eq!(self.stderr.lines().count(), 1, "{}", self.stderr);
        assert!(
            self.stderr.contains(want),
            "{want:?} not in {}",
            self.stderr
        );
    }
}

/// Where the run's standard input comes from.
enum Input {
    Null,
    /// Written by a thread: `head`, then `tail` repeated until the reader goes away.
    Endless {
        head: Vec<u8>,
        tail: Vec<u8>,
    },
}

/// The binary under test: this build's, or the one `ECS_GPU_HOSTILE_BIN` names (to show that a
/// case fails on a build from before its fix).
fn bin() -> String {
    std::env::var("ECS_GPU_HOSTILE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ecs-gpu").into())
}

fn run_with(dir: &Path, args: &[&str], env: &[(&str, &str)], input: Input, limit: Duration) -> Run {
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!("--as={MEMORY}"))
        .arg("--core=0")
        .arg("--")
        .arg(bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .stdin(match input {
            Input::Null => Stdio::null(),
            Input::Endless { .. } => Stdio::piped(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("prlimit and the binary run");
    if let Input::Endless { head, tail } = input {
        let mut stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            if stdin.write_all(&head).is_err() {
                return;
            }
            while stdin.write_all(&tail).is_ok() {}
        });
    }
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let _ = r.by_ref().take(1 << 20).read_to_end(&mut kept);
            let _ = std::io::copy(&mut r, &mut std::io::sink());
            String::from_utf8_lossy(&kept).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        timed_out,
        took: start.elapsed(),
    }
}

fn run(dir: &Path, args: &[&str]) -> Run {
    run_with(dir, args, &[], Input::Null, Duration::from_secs(60))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile_plan_diagnose")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ecs-gpu-diagnose/tests/scenarios")
        .join(name)
}

/// A copy of a saved-output scenario, to change.
fn copy_scenario(name: &str, to: &Path) {
    for e in std::fs::read_dir(scenario(name)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// 44.9: `plan` on a FIFO, a device, a hung `terraform show`, an endless standard input.

/// A FIFO nobody writes to is refused at once, with what it is and how to pass a plan instead.
#[test]
fn a_plan_path_that_is_a_fifo_is_refused_without_blocking() {
    let dir = scratch("plan-fifo");
    mkfifo(&dir.join("plan.json"));
    let r = run(&dir, &["plan", "plan.json"]);
    r.assert_refused("not a regular file (a FIFO or pipe)");
    assert!(r.stderr.contains("ecs-gpu plan -"), "{}", r.stderr);
    assert!(r.took < Duration::from_secs(10), "{:?}", r.took);
}

/// `/dev/zero` is a device, never read.
#[test]
fn a_plan_path_at_dev_zero_is_refused() {
    let dir = scratch("plan-zero");
    run(&dir, &["plan", "/dev/zero"]).assert_refused("not a regular file (a device)");
}

/// A `terraform show -json` that never finishes is stopped after the timeout, and the error says
/// so.
#[test]
fn a_hung_terraform_show_is_stopped_and_said() {
    let dir = scratch("plan-hung-terraform");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("terraform");
    // `exec`: the sleep is the child itself; a script's own children would keep the pipe open,
    // which the command must survive too (the second case).
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap();
    let wrapped = bin.join("terraform-wrapped");
    std::fs::write(&wrapped, "#!/bin/sh\nsleep 600\n").unwrap();
    for f in [&fake, &wrapped] {
        Command::new("chmod").arg("+x").arg(f).status().unwrap();
    }
    std::fs::write(dir.join("tfplan"), b"PK\x03\x04 a binary plan").unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let r = run_with(
        &dir,
        &["plan", "tfplan"],
        &[("PATH", &path), ("ECS_GPU_TERRAFORM_TIMEOUT", "2")],
        Input::Null,
        Duration::from_secs(30),
    );
    r.assert_refused("`terraform show -json tfplan` did not finish within 2 s and was stopped");
    std::fs::rename(&wrapped, &fake).unwrap();
    let r = run_with(
        &dir,
        &["plan", "tfplan"],
        &[("PATH", &path), ("ECS_GPU_TERRAFORM_TIMEOUT", "2")],
        Input::Null,
        Duration::from_secs(30),
    );
    r.assert_refused("did not finish within 2 s and was stopped");
}

/// Standard input that never ends is read up to the bound, then refused with the bound named;
/// memory stays within the limit.
#[test]
fn an_endless_standard_input_is_cut_off() {
    let dir = scratch("plan-endless-stdin");
    let r = run_with(
        &dir,
        &["plan", "-"],
        &[("ECS_GPU_MAX_PLAN_BYTES", &(16u64 << 20).to_string())],
        Input::Endless {
            head: br#"{"format_version":"1.2","resource_changes":[{"type":"aws_ecs_service","address":""#
                .to_vec(),
            tail: vec![b'a'; 1 << 16],
        },
        Duration::from_secs(60),
    );
    r.assert_refused("standard input gave more than 16 MiB, more than a plan ecs-gpu reads");
}

// ---------------------------------------------------------------------------------------------
// 44.11, 44.14: plan JSON that is slow or wrong.

/// 100,000 resource references from one resource's configuration are matched in linear time.
#[test]
fn a_hundred_thousand_references_are_matched_in_linear_time() {
    a_plan_whose_service_references_each_of("plan-references", |n| {
        format!("aws_ecs_task_definition.t{n}.arn")
    });
}

/// 100,000 variable references (`var.NAME`, each a different name) are matched in linear time
/// too: a configuration's expressions and module inputs are reduced to the variables they name.
#[test]
fn a_hundred_thousand_variable_references_are_matched_in_linear_time() {
    a_plan_whose_service_references_each_of("plan-variable-references", |n| format!("var.v{n}"));
}

/// A plan that scales one service out, whose configuration's `task_definition` and
/// `desired_count` expressions reference 100,000 distinct names: `plan` finishes (the harness
/// kills it past the backstop) and still reports the scale-out.
fn a_plan_whose_service_references_each_of(name: &str, reference: impl Fn(usize) -> String) {
    let dir = scratch(name);
    let refs: Vec<String> = (0..100_000)
        .map(|n| format!("\"{}\"", reference(n)))
        .collect();
    let refs = refs.join(",");
    let plan = format!(
        r#"{{"format_version":"1.2","resource_changes":[{{"address":"aws_ecs_service.app","mode":"managed","type":"aws_ecs_service","name":"app","change":{{"actions":["update"],"before":{{"desired_count":1}},"after":{{"desired_count":2}},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}}}}}],
"configuration":{{"root_module":{{"resources":[{{"address":"aws_ecs_service.app","mode":"managed","type":"aws_ecs_service","name":"app","expressions":{{"task_definition":{{"references":[{refs}]}},"desired_count":{{"references":[{refs}]}}}}}}]}}}}}}"#
    );
    std::fs::write(dir.join("plan.json"), plan).unwrap();
    let r = run_with(
        &dir,
        &["plan", "plan.json"],
        &[],
        Input::Null,
        Duration::from_secs(30),
    );
    r.assert_sane();
    assert_eq!(r.code(), 0, "{}", r.stderr);
    assert!(r.stdout.contains("scale-out"), "{}", r.stdout);
}

/// A `format_version` of "", a number or null is an error that names the field, as documented.
#[test]
fn a_format_version_that_is_not_a_version_string_is_refused() {
    let dir = scratch("plan-format-version");
    for value in [r#""""#, "1.2", "null", "[]"] {
        std::fs::write(
            dir.join("plan.json"),
            format!(r#"{{"format_version":{value},"resource_changes":[]}}"#),
        )
        .unwrap();
        run(&dir, &["plan", "plan.json"])
            .assert_refused("`format_version` must be a version string such as \"1.2\"");
    }
}

// ---------------------------------------------------------------------------------------------
// 44.10: a did-you-mean on huge values.

/// Two 200 KB attribute values (a constraint's and an instance's) give a verdict in seconds: no
/// "did you mean" is looked for past 128 characters.
#[test]
fn a_did_you_mean_on_huge_values_is_skipped() {
    let dir = scratch("diagnose-huge-attribute");
    copy_scenario("placement-constraint-typo", &dir);
    let services = dir.join("describe-services.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&services).unwrap()).unwrap();
    let expression = format!("attribute:ecs.instance-type == {}", "g".repeat(200_000));
    v["services"][0]["placementConstraints"] =
        serde_json::json!([{"type": "memberOf", "expression": expression}]);
    std::fs::write(&services, v.to_string()).unwrap();
    let instances = dir.join("describe-container-instances.json");
    let text = std::fs::read_to_string(&instances)
        .unwrap()
        .replace("\"g5.xlarge\"", &format!("\"{}\"", "h".repeat(200_000)));
    std::fs::write(&instances, text).unwrap();
    let r = run_with(
        &dir,
        &["diagnose", "--from", ".", "--format", "json"],
        &[],
        Input::Null,
        Duration::from_secs(20),
    );
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    assert!(!r.stdout.contains("did you mean"), "a suggestion was made");
}

// ---------------------------------------------------------------------------------------------
// 44.12: files named by the environment.

/// `/dev/zero` or a FIFO named by a variable the SDK reads is refused before the SDK reads it,
/// naming the variable; nothing is sent. Only a build with live AWS access reads them.
#[cfg(feature = "live")]
#[test]
fn files_named_by_the_environment_are_checked_before_the_sdk_reads_them() {
    let dir = scratch("diagnose-env-files");
    mkfifo(&dir.join("fifo"));
    let fifo = dir.join("fifo").display().to_string();
    for (variable, value) in [
        ("AWS_CONFIG_FILE", "/dev/zero"),
        ("AWS_SHARED_CREDENTIALS_FILE", fifo.as_str()),
        ("AWS_WEB_IDENTITY_TOKEN_FILE", "/dev/zero"),
        ("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", fifo.as_str()),
        ("SSL_CERT_FILE", "/dev/zero"),
    ] {
        let r = run_with(
            &dir,
            &[
                "diagnose",
                "--cluster",
                "gpu",
                "--service",
                "train",
                "--region",
                "us-east-1",
                "--endpoint-url",
                "http://127.0.0.1:1",
            ],
            &[(variable, value)],
            Input::Null,
            Duration::from_secs(20),
        );
        r.assert_refused(&format!(
            "`{variable}` names `{value}`, which is not a regular file"
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// 40.19 / 43.4: one escaper, the report crate's, for `plan` and `diagnose` too.

/// A right-to-left override and a line separator in a plan's address and a service event are
/// escaped as `check` escapes them.
#[test]
fn bidirectional_overrides_and_line_separators_are_escaped() {
    let dir = scratch("escaper");
    let address = "aws_ecs_service.app\u{202e}txt.exe\u{2028}x";
    let plan = serde_json::json!({
        "format_version": "1.2",
        "resource_changes": [{
            "address": address, "mode": "managed", "type": "aws_ecs_service", "name": "app",
            "change": {"actions": ["delete"], "before": {"name": "app", "desired_count": 1},
                       "after": null, "after_unknown": {}, "before_sensitive": {}, "after_sensitive": false}
        }]
    });
    std::fs::write(dir.join("plan.json"), plan.to_string()).unwrap();
    let r = run(&dir, &["plan", "plan.json"]);
    r.assert_sane();
    assert!(
        r.stdout
            .contains("aws_ecs_service.app\\u{202e}txt.exe\\u{2028}x"),
        "{}",
        r.stdout
    );
    copy_scenario("gpus-available-pinned", &dir);
    let services = dir.join("describe-services.json");
    let text = std::fs::read_to_string(&services).unwrap().replacen(
        "(service train) was unable",
        "(service train)\u{202e} was\u{2028} unable",
        1,
    );
    std::fs::write(&services, text).unwrap();
    std::fs::remove_file(dir.join("plan.json")).unwrap();
    let r = run(&dir, &["diagnose", "--from", "."]);
    r.assert_sane();
    assert!(
        r.stdout.contains("\\u{202e} was\\u{2028} unable"),
        "{}",
        r.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Round three (issue 50): `simulate --plan`, `plan`'s capacity line and saved clusters pass
// through the guards of `plan` and `diagnose`.

/// A plan of `n` module instances, each a GPU stack as `terraform show -json` writes it (the
/// shape of `bench/plan/gen.py`): a task definition replaced and the service that deploys it, or
/// with `scale`, only the service's `desired_count` going from 2 to 3; a launch template, an Auto
/// Scaling group behind a capacity provider with managed scaling. `sensitive` marks the
/// service's desired count and the group's `max_size` sensitive, with the values 918273645 and
/// 9137.
fn gpu_plan(n: usize, scale: bool, sensitive: bool) -> String {
    use serde_json::json;
    let mut changes = Vec::new();
    let mut calls = serde_json::Map::new();
    for m in 0..n {
        let module = format!("module.svc_{m:04}");
        let family = format!("svc-{m:04}");
        let td_arn = format!("arn:aws:ecs:us-east-1:123456789012:task-definition/{family}:17");
        let containers = |tag: &str| {
            json!([{"name": family, "image": format!("example/{family}:{tag}"), "cpu": 4096,
                    "memory": 15000, "essential": true,
                    "resourceRequirements": [{"type": "GPU", "value": "1"}]}])
            .to_string()
        };
        let td_before = json!({"arn": td_arn, "family": family, "revision": 17,
            "container_definitions": containers("1.4"), "network_mode": "awsvpc",
            "requires_compatibilities": ["EC2"]});
        let mut td_after = td_before.clone();
        if !scale {
            td_after["container_definitions"] = json!(containers("1.5"));
            td_after.as_object_mut().unwrap().remove("arn");
            td_after.as_object_mut().unwrap().remove("revision");
        }
        let desired = if sensitive { 918_273_645 } else { 2 };
        let svc_before = json!({"name": family, "task_definition": td_arn, "desired_count": desired,
            "deployment_minimum_healthy_percent": 100, "deployment_maximum_percent": 200,
            "capacity_provider_strategy": [{"capacity_provider": format!("gpu-{m:04}"), "weight": 1, "base": 0}]});
        let mut svc_after = svc_before.clone();
        if scale {
            svc_after["desired_count"] = json!(desired + 1);
        } else {
            svc_after.as_object_mut().unwrap().remove("task_definition");
        }
        let asg_arn = format!("arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:x:autoScalingGroupName/gpu-{m:04}");
        let lt = json!({"id": format!("lt-{m:017x}"), "name": format!("gpu-{m:04}"),
            "image_id": "ami-0111aaaa", "instance_type": "g5.xlarge", "latest_version": 4});
        let asg = json!({"arn": asg_arn, "name": format!("gpu-{m:04}"), "desired_capacity": 2,
            "min_size": 0, "max_size": if sensitive { 9137 } else { 4 },
            "launch_template": [{"id": format!("lt-{m:017x}"), "name": "", "version": "$Latest"}],
            "protect_from_scale_in": true});
        let cp = json!({"name": format!("gpu-{m:04}"),
            "auto_scaling_group_provider": [{"auto_scaling_group_arn": asg_arn,
                "managed_termination_protection": "ENABLED",
                "managed_scaling": [{"status": "ENABLED", "target_capacity": 100}]}]});
        let hide = |what: &str| {
            if sensitive {
                json!({what: true})
            } else {
                json!({})
            }
        };
        let change = |t: &str,
                      name: &str,
                      actions: &[&str],
                      before: &serde_json::Value,
                      after: &serde_json::Value,
                      unknown: serde_json::Value,
                      hidden: serde_json::Value| {
            json!({"address": format!("{module}.{t}.{name}"), "module_address": module,
                "mode": "managed", "type": t, "name": name,
                "change": {"actions": actions, "before": before, "after": after,
                    "after_unknown": unknown, "before_sensitive": hidden, "after_sensitive": hidden}})
        };
        if scale {
            changes.push(change(
                "aws_ecs_task_definition",
                "app",
                &["no-op"],
                &td_before,
                &td_before,
                json!({}),
                json!({}),
            ));
            changes.push(change(
                "aws_ecs_service",
                "app",
                &["update"],
                &svc_before,
                &svc_after,
                json!({}),
                hide("desired_count"),
            ));
        } else {
            changes.push(change(
                "aws_ecs_task_definition",
                "app",
                &["delete", "create"],
                &td_before,
                &td_after,
                json!({"arn": true, "revision": true}),
                json!({}),
            ));
            changes.push(change(
                "aws_ecs_service",
                "app",
                &["update"],
                &svc_before,
                &svc_after,
                json!({"task_definition": true}),
                hide("desired_count"),
            ));
        }
        changes.push(change(
            "aws_launch_template",
            "gpu",
            &["no-op"],
            &lt,
            &lt,
            json!({}),
            json!({}),
        ));
        changes.push(change(
            "aws_autoscaling_group",
            "gpu",
            &["no-op"],
            &asg,
            &asg,
            json!({}),
            hide("max_size"),
        ));
        changes.push(change(
            "aws_ecs_capacity_provider",
            "gpu",
            &["no-op"],
            &cp,
            &cp,
            json!({}),
            json!({}),
        ));
        let refs = |r: &[&str]| json!({"references": r});
        calls.insert(format!("svc_{m:04}"), json!({"source": "./modules/svc", "module": {"resources": [
            {"address": "aws_ecs_service.app", "mode": "managed", "type": "aws_ecs_service", "name": "app",
             "expressions": {"task_definition": refs(&["aws_ecs_task_definition.app.arn", "aws_ecs_task_definition.app"])}},
            {"address": "aws_autoscaling_group.gpu", "mode": "managed", "type": "aws_autoscaling_group", "name": "gpu",
             "expressions": {"launch_template": [{"id": refs(&["aws_launch_template.gpu.id", "aws_launch_template.gpu"])}]}},
            {"address": "aws_ecs_capacity_provider.gpu", "mode": "managed", "type": "aws_ecs_capacity_provider", "name": "gpu",
             "expressions": {"auto_scaling_group_provider": [{"auto_scaling_group_arn": refs(&["aws_autoscaling_group.gpu.arn", "aws_autoscaling_group.gpu"])}]}}
        ]}}));
    }
    json!({"format_version": "1.2", "terraform_version": "1.11.4", "resource_changes": changes,
        "configuration": {"root_module": {"module_calls": calls}},
        "applyable": true, "complete": true, "errored": false})
    .to_string()
}

/// 50.2: `plan`'s capacity line and `simulate --plan` printed values the plan marks sensitive
/// (`before_sensitive`/`after_sensitive`): "capacity: unknown: the desired count of
/// `module.gpu.aws_ecs_service.app` is 918273645". The plan adapter honours the masks as every
/// effect does: the answer is unknown and names the hidden value, in both formats.
#[test]
fn plan_capacity_line_and_simulate_plan_hide_what_the_plan_marks_sensitive() {
    let dir = scratch("plan-sensitive-capacity");
    for (name, scale) in [("deploy.json", false), ("scale.json", true)] {
        std::fs::write(dir.join(name), gpu_plan(1, scale, true)).unwrap();
        for args in [
            vec!["plan", name],
            vec!["plan", name, "--format", "json"],
            vec!["simulate", "--plan", name],
            vec!["simulate", "--plan", name, "--format", "json"],
        ] {
            let r = run(&dir, &args);
            r.assert_sane();
            assert!(matches!(r.code(), 0 | 1), "{args:?}: {}", r.stderr);
            for hidden in ["918273645", "918273646", "9137"] {
                assert!(
                    !r.stdout.contains(hidden) && !r.stderr.contains(hidden),
                    "{args:?}: {hidden} printed: {}",
                    r.stdout
                );
            }
            // A sensitive count that changes is no scale-out `plan` can tell (it does not
            // compare hidden values): only the deployment has a capacity line.
            if !scale {
                assert!(r.stdout.contains("sensitive"), "{args:?}: {}", r.stdout);
            }
        }
    }
}

/// 50.6: `simulate --plan` had none of `plan`'s input guards: a FIFO blocked forever, `/dev/zero`
/// was read, `ECS_GPU_MAX_PLAN_BYTES` was ignored, endless whitespace on standard input never
/// ended, and `yes '['` aborted at 1.6 GB (so did `plan -`: a skipped value's nesting was kept
/// without a bound). One plan reader for both commands, with every guard.
#[test]
fn simulate_plan_has_every_guard_of_plan() {
    let dir = scratch("simulate-plan-guards");
    mkfifo(&dir.join("plan.fifo"));
    std::fs::write(dir.join("plan.json"), gpu_plan(2, false, false)).unwrap();
    for command in [&["plan"][..], &["simulate", "--plan"][..]] {
        let with = |extra: &[&'static str]| -> Vec<&str> {
            command
                .iter()
                .copied()
                .chain(extra.iter().copied())
                .collect()
        };
        let r = run(&dir, &with(&["plan.fifo"]));
        r.assert_refused("not a regular file (a FIFO or pipe)");
        assert!(
            r.took < Duration::from_secs(10),
            "{command:?}: {:?}",
            r.took
        );
        run(&dir, &with(&["/dev/zero"])).assert_refused("not a regular file (a device)");
        run_with(
            &dir,
            &with(&["plan.json"]),
            &[("ECS_GPU_MAX_PLAN_BYTES", "1000")],
            Input::Null,
            Duration::from_secs(30),
        )
        .assert_refused("more than a plan ecs-gpu reads");
        for (head, tail) in [(&b"{"[..], &b" \n"[..]), (&b""[..], &b"[\n"[..])] {
            let r = run_with(
                &dir,
                &with(&["-"]),
                &[("ECS_GPU_MAX_PLAN_BYTES", &(64u64 << 20).to_string())],
                Input::Endless {
                    head: head.to_vec(),
                    tail: tail.to_vec(),
                },
                Duration::from_secs(60),
            );
            r.assert_refused("standard input");
        }
    }
}

/// The time a command takes on plans of `small` and `large` GPU services, and their ratio.
fn time_ratio(dir: &Path, args: &[&str], small: &str, large: &str) -> (Duration, Duration) {
    let timed = |plan: &str| {
        let mut a: Vec<&str> = args.to_vec();
        a.push(plan);
        let r = run_with(dir, &a, &[], Input::Null, Duration::from_secs(600));
        r.assert_sane();
        assert!(matches!(r.code(), 0 | 1), "{a:?}: {}", r.stderr);
        r.took
    };
    (timed(small), timed(large))
}

/// 50.9: quadratic in the GPU services a plan changes: 10,000 scale-outs took 34 s in `simulate
/// --plan` and 10,000 deployments 41 s in `plan` (each event copied the steady state of every
/// group, and the plan's services were looked up in lists). Eight times the services now take
/// about eight times as long, not sixty-four.
#[test]
fn plan_and_simulate_plan_are_linear_in_the_gpu_services_a_plan_changes() {
    let dir = scratch("plan-linear");
    for (scale, args) in [(false, &["plan"][..]), (true, &["simulate", "--plan"][..])] {
        std::fs::write(dir.join("small.json"), gpu_plan(375, scale, false)).unwrap();
        std::fs::write(dir.join("large.json"), gpu_plan(3_000, scale, false)).unwrap();
        let (small, large) = time_ratio(&dir, args, "small.json", "large.json");
        assert!(
            large < small * 24,
            "{args:?}: 375 services {small:?}, 3,000 services {large:?}"
        );
    }
}

/// 50.12: one error line of 100 MB: a saved service name quoted whole on stderr. Quoted input is
/// cut in every error line.
#[test]
fn a_huge_quoted_name_is_cut_in_the_error_line() {
    let dir = scratch("huge-quoted-name");
    copy_scenario("gpus-available-pinned", &dir);
    let services = dir.join("describe-services.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&services).unwrap()).unwrap();
    v["services"][0]["serviceName"] = serde_json::json!("n".repeat(10 << 20));
    std::fs::write(&services, v.to_string()).unwrap();
    for args in [
        &["simulate", "--from", ".", "--deploy", "nope"][..],
        &["diagnose", "--from", ".", "--service", "nope"][..],
    ] {
        let r = run(&dir, args);
        assert!(r.stderr.len() < 8_000, "{args:?}: {} bytes", r.stderr.len());
        r.assert_refused("more characters)");
    }
}

/// 50.14: a saved `MaxSize: -1` was read as 0 (and a negative desired count too), which made a
/// deployment over its maximum. A value that is not a count is unknown, and the answer says so.
#[test]
fn a_saved_max_size_of_minus_one_is_not_read_as_zero() {
    let dir = scratch("saved-max-size");
    copy_scenario("gpus-available-pinned", &dir);
    let groups = dir.join("describe-auto-scaling-groups.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&groups).unwrap()).unwrap();
    v["AutoScalingGroups"][0]["MaxSize"] = serde_json::json!(-1);
    std::fs::write(&groups, v.to_string()).unwrap();
    let r = run(&dir, &["simulate", "--from", ".", "--format", "json"]);
    r.assert_sane();
    assert!(
        r.stdout.contains("`MaxSize` is -1, which is not a count"),
        "{}",
        r.stdout
    );
}
