//! What each build offers: the default build has live `diagnose`; a build without the `live`
//! feature (`cargo install --no-default-features`) runs every other command and `diagnose --from`,
//! and says plainly that live diagnose is not in it. `cargo test -p ecs-gpu` runs the first half,
//! `cargo test -p ecs-gpu --no-default-features` the second.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binary, with no AWS configuration to find and no endpoint to reach.
fn ecs_gpu(args: &[&str]) -> Output {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("builds-no-aws-files");
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(args)
        .current_dir(root())
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", empty.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", empty.join("credentials"))
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_REGION")
        .env_remove("AWS_DEFAULT_REGION")
        .env_remove("AWS_ENDPOINT_URL")
        .output()
        .expect("ecs-gpu runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const NO_LIVE: &str = "has no live AWS access";

/// Every command but live diagnose, in either build.
#[test]
fn the_commands_without_aws_run_in_every_build() {
    let check = ecs_gpu(&["check", "examples/broken-gpu-chain"]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    let types = ecs_gpu(&["types", "g5.xlarge"]);
    assert_eq!(types.status.code(), Some(0), "{}", stderr(&types));
    let route = ecs_gpu(&["route", "--gpu"]);
    assert!(
        matches!(route.status.code(), Some(0 | 1)),
        "{}",
        stderr(&route)
    );
    let plan = ecs_gpu(&["plan", "crates/ecs-gpu-plan/tests/fixtures/deployment.json"]);
    assert_eq!(plan.status.code(), Some(0), "{}", stderr(&plan));
    let saved = ecs_gpu(&[
        "diagnose",
        "--from",
        "crates/ecs-gpu-diagnose/tests/scenarios/healthy",
    ]);
    assert_eq!(saved.status.code(), Some(0), "{}", stderr(&saved));
}

/// Without the `live` feature, live diagnose is a usage error that names the way out.
#[cfg(not(feature = "live"))]
#[test]
fn live_diagnose_without_the_live_feature_exits_2_saying_so() {
    let o = ecs_gpu(&["diagnose", "--cluster", "gpu", "--service", "train"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(NO_LIVE) && err.contains("--from DIR"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(o.stdout.is_empty());
}

/// With it, live diagnose goes to AWS (here it finds no region and says so).
#[cfg(feature = "live")]
#[test]
fn live_diagnose_in_the_default_build_calls_aws() {
    let o = ecs_gpu(&["diagnose", "--cluster", "gpu", "--service", "train"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(!err.contains(NO_LIVE), "{err}");
    assert!(err.contains("no AWS region"), "{err}");
}

/// Live simulate is the same: without the `live` feature, a usage error that names the way out.
#[cfg(not(feature = "live"))]
#[test]
fn live_simulate_without_the_live_feature_exits_2_saying_so() {
    let o = ecs_gpu(&["simulate", "--cluster", "gpu", "--scale", "train=2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(NO_LIVE) && err.contains("--from DIR"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(o.stdout.is_empty());
}

/// With it, live simulate goes to AWS (here it finds no region and says so).
#[cfg(feature = "live")]
#[test]
fn live_simulate_in_the_default_build_calls_aws() {
    let o = ecs_gpu(&["simulate", "--cluster", "gpu", "--scale", "train=2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(!err.contains(NO_LIVE), "{err}");
    assert!(err.contains("no AWS region"), "{err}");
}
