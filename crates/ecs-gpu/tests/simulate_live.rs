//! `ecs-gpu simulate --cluster` live, through the same read-only AWS SDK path as live `diagnose`,
//! against the GPU-faithful emulator on 127.0.0.1 (`scripts/test-live.sh` starts and seeds it and
//! exports `ECS_GPU_TEST_ENDPOINT`; without it each test says it is skipped and passes).
//!
//! Cluster `packed`: one g5.xlarge (its group's `max_size` is 1) whose one GPU service `infer`
//! holds it. Cluster `healthy`: two g5.xlarge (`max_size` 2), `infer` on one of them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

const ENDPOINT_VAR: &str = "ECS_GPU_TEST_ENDPOINT";

fn endpoint(test: &str) -> Option<String> {
    match std::env::var(ENDPOINT_VAR) {
        Ok(url) if url.starts_with("http://127.0.0.1:") => Some(url),
        Ok(url) => panic!("{ENDPOINT_VAR}={url}: the live tests only talk to 127.0.0.1"),
        Err(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "skipped {test}: {ENDPOINT_VAR} is not set; run scripts/test-live.sh to run it against moto"
            );
            None
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("simulate_live")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `simulate --cluster` with credentials from the environment only.
fn simulate(dir: &Path, url: &str, args: &[&str]) -> Output {
    live(dir, url, "simulate", args)
}

/// A live command (`simulate`, `diagnose`) with credentials from the environment only.
fn live(dir: &Path, url: &str, command: &str, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .current_dir(dir)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", dir.join("no-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("no-credentials"))
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_ENDPOINT_URL")
        .env("ECS_GPU_OPERATIONS_LOG", dir.join("operations.log"))
        .args([command, "--region", "us-east-1", "--endpoint-url", url])
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every operation sent was a Describe, List or Get call.
fn read_only(dir: &Path) {
    let ops = std::fs::read_to_string(dir.join("operations.log")).unwrap();
    assert!(ops.contains("DescribeCapacityProviders"), "{ops}");
    for op in ops.lines() {
        assert!(
            ["Describe", "List", "Get"]
                .iter()
                .any(|p| op.starts_with(p)),
            "a write was sent: {op}"
        );
    }
}

/// A packed cluster: a second task of `infer` needs a second g5.xlarge the group's `max_size`
/// forbids. The answer is over-max, and the gate fails.
#[test]
fn live_packed_cluster_scale_out_is_over_max() {
    let Some(url) = endpoint("live_packed_cluster_scale_out_is_over_max") else {
        return;
    };
    let dir = scratch("packed");
    let o = simulate(
        &dir,
        &url,
        &[
            "--cluster",
            "packed",
            "--scale",
            "infer=2",
            "--fail-on",
            "stuck,over-max",
        ],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", text(&o.stderr));
    assert!(out.contains("scale `infer` to 2: over-max"), "{out}");
    assert!(
        out.contains("`packed-asg` is at its `max_size` of 1"),
        "{out}"
    );
    read_only(&dir);
    insta::assert_snapshot!(out);
}

/// A healthy cluster with a GPU to spare: a second task of `infer` goes on the idle instance.
#[test]
fn live_healthy_cluster_scale_out_completes() {
    let Some(url) = endpoint("live_healthy_cluster_scale_out_completes") else {
        return;
    };
    let dir = scratch("healthy");
    let o = simulate(
        &dir,
        &url,
        &[
            "--cluster",
            "healthy",
            "--scale",
            "infer=2",
            "--format",
            "json",
            "--fail-on",
            "stuck,over-max,unknown",
        ],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["answers"][0]["verdict"]["status"], "completes", "{out}");
    assert_eq!(v["summary"]["completes"], 1, "{out}");
    read_only(&dir);
}

/// Live, one service is read: with none named, simulate says which to give (exit 2).
#[test]
fn live_without_a_service_says_which_to_give() {
    let Some(url) = endpoint("live_without_a_service_says_which_to_give") else {
        return;
    };
    let dir = scratch("no-service");
    let o = simulate(&dir, &url, &["--cluster", "packed"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("which service? give --service SERVICE"),
        "{err}"
    );
}

/// What `diagnose --save` writes, `simulate --from` reads as live `simulate` reads the cluster:
/// the same answers. Cluster `bluegreen`'s service is deployed blue/green: the saved files used
/// to leave the strategy out, and the saved cluster was simulated as a rolling deployment.
#[test]
fn live_diagnose_save_then_simulate_from_gives_the_live_answers() {
    let Some(url) = endpoint("live_diagnose_save_then_simulate_from_gives_the_live_answers") else {
        return;
    };
    let dir = scratch("save-then-from");
    let saved = dir.join("saved");
    let d = live(
        &dir,
        &url,
        "diagnose",
        &[
            "--cluster",
            "bluegreen",
            "--service",
            "infer",
            "--save",
            saved.to_str().unwrap(),
        ],
    );
    assert!(
        saved.join("describe-capacity-providers.json").exists(),
        "{}",
        text(&d.stderr)
    );
    let args = [
        "--scale", "infer=3", "--deploy", "infer", "--format", "json",
    ];
    let live_run = simulate(
        &dir,
        &url,
        &[&["--cluster", "bluegreen"][..], &args[..]].concat(),
    );
    let from = std::process::Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .current_dir(&dir)
        .args(["simulate", "--from", saved.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let answers = |o: &Output| {
        let out = text(&o.stdout);
        let v: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{e}: {out}\n{}", text(&o.stderr)));
        v["answers"].clone()
    };
    let (a, b) = (answers(&live_run), answers(&from));
    assert_eq!(a.as_array().map(Vec::len), Some(2), "{a}");
    // Read live: the deployment is blue/green (both revisions at full size, so the group's
    // `max_size` of 3 cannot hold 4 tasks), and managed scaling's steps are known.
    assert_eq!(
        a[0]["deployment"]["deployment"]["type"], "blue_green",
        "{a}"
    );
    assert_eq!(a[0]["verdict"]["status"], "over-max", "{a}");
    assert!(!a.to_string().contains("managed scaling step sizes"), "{a}");
    assert_eq!(a, b, "live and saved answers differ");
}
