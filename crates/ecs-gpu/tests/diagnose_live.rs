//! `ecs-gpu diagnose` live, through the real AWS SDK path, against moto's server on 127.0.0.1.
//!
//! `scripts/test-live.sh` installs moto into `.venv/moto`, starts the GPU-faithful emulator
//! (`scripts/ecs_gpu_emulator.py`) on a free loopback port, seeds it with one cluster per case (the
//! script lists them), exports `ECS_GPU_TEST_ENDPOINT` and runs these tests. In a plain `cargo test`
//! the variable is unset and each test says it is skipped and passes.
//!
//! Cluster `gpu` has 120 instances registered without GPU support: its verdict is
//! `gpu-registration`. Clusters `healthy`, `packed`, `stuck` and `scaling` have instances launched
//! by an Auto Scaling group that join with their GPUs, and services whose tasks the emulator places
//! by ECS's rules.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ENDPOINT_VAR: &str = "ECS_GPU_TEST_ENDPOINT";

/// The emulator's URL, or `None` (with a message) when the tests run without it.
fn endpoint(test: &str) -> Option<String> {
    match std::env::var(ENDPOINT_VAR) {
        Ok(url) if url.starts_with("http://127.0.0.1:") => Some(url),
        Ok(url) => panic!("{ENDPOINT_VAR}={url}: the live tests only talk to 127.0.0.1"),
        Err(_) => {
            // The test harness shows this line with --nocapture; the test passes either way.
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
        .join("diagnose_live")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary with credentials from the environment only (no files, no instance metadata).
fn command(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"));
    c.current_dir(dir)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", dir.join("no-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("no-credentials"))
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_ENDPOINT_URL");
    c
}

fn live(dir: &Path, url: &str, args: &[&str]) -> Output {
    command(dir)
        .args(["diagnose", "--region", "us-east-1", "--endpoint-url", url])
        .args(args)
        .env("ECS_GPU_OPERATIONS_LOG", dir.join("operations.log"))
        .output()
        .unwrap()
}

fn operations(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("operations.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn live_service_reads_more_than_one_page_of_instances_and_only_reads() {
    let Some(url) = endpoint("live_service_reads_more_than_one_page_of_instances_and_only_reads")
    else {
        return;
    };
    let dir = scratch("service");
    let o = live(&dir, &url, &["--cluster", "gpu", "--service", "train"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains("diagnosing service `train` in cluster `gpu`"),
        "{out}"
    );
    // 120 instances: more than one DescribeContainerInstances batch of 100.
    assert!(
        out.contains("ACTIVE with a connected agent: 120 of 120 container instances"),
        "{out}"
    );
    assert!(out.contains("verdict: gpu-registration fails"), "{out}");
    let ops = operations(&dir);
    for op in &ops {
        assert!(
            ["Describe", "List", "Get"]
                .iter()
                .any(|p| op.starts_with(p)),
            "a write was sent: {op}"
        );
    }
    let count = |name: &str| ops.iter().filter(|o| *o == name).count();
    assert_eq!(count("DescribeContainerInstances"), 2, "{ops:?}");
    for op in [
        "DescribeClusters",
        "DescribeServices",
        "DescribeTaskDefinition",
        "ListContainerInstances",
        "ListTasks",
        "DescribeCapacityProviders",
        "DescribeAutoScalingGroups",
        "DescribeScalingActivities",
    ] {
        assert!(count(op) >= 1, "{op} not sent: {ops:?}");
    }
}

#[test]
fn live_save_then_from_gives_the_same_report() {
    let Some(url) = endpoint("live_save_then_from_gives_the_same_report") else {
        return;
    };
    let dir = scratch("save");
    let saved = dir.join("saved");
    let o = live(
        &dir,
        &url,
        &[
            "--cluster",
            "gpu",
            "--service",
            "train",
            "--format",
            "json",
            "--save",
            saved.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let mut files: Vec<String> = std::fs::read_dir(&saved)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "describe-auto-scaling-groups.json",
            "describe-capacity-providers.json",
            "describe-container-instances.json",
            "describe-scaling-activities.json",
            "describe-services.json",
            "describe-task-definition.json",
            "describe-tasks.json",
        ]
    );
    let from = command(&dir)
        .args([
            "diagnose",
            "--from",
            saved.to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(from.status.code(), Some(1), "{}", text(&from.stderr));
    let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&from.stdout).unwrap();
    assert_eq!(a["verdict"]["step"], "gpu-registration");
    assert_eq!(a, b, "live and --from reports differ");
}

#[test]
fn live_standalone_task_definition() {
    let Some(url) = endpoint("live_standalone_task_definition") else {
        return;
    };
    let dir = scratch("task-definition");
    let o = live(
        &dir,
        &url,
        &["--cluster", "gpu", "--task-definition", "train:1"],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", text(&o.stderr));
    assert!(out.contains("task definition `train:1`"), "{out}");
    assert!(!operations(&dir).contains(&"DescribeServices".to_string()));
}

#[test]
fn live_missing_cluster_and_service_exit_2() {
    let Some(url) = endpoint("live_missing_cluster_and_service_exit_2") else {
        return;
    };
    let dir = scratch("missing");
    let o = live(
        &dir,
        &url,
        &["--cluster", "no-such-cluster", "--service", "train"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("cluster `no-such-cluster` not found"),
        "{}",
        text(&o.stderr)
    );
    assert!(o.stdout.is_empty());
    let o = live(
        &dir,
        &url,
        &["--cluster", "gpu", "--service", "no-such-service"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("service `no-such-service` not found in cluster `gpu`"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn live_credentials_from_a_profile() {
    let Some(url) = endpoint("live_credentials_from_a_profile") else {
        return;
    };
    let dir = scratch("profile");
    std::fs::write(
        dir.join("credentials"),
        "[diag]\naws_access_key_id = testing\naws_secret_access_key = testing\n",
    )
    .unwrap();
    let o = command(&dir)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("credentials"))
        .args([
            "diagnose",
            "--region",
            "us-east-1",
            "--endpoint-url",
            &url,
            "--profile",
            "diag",
            "--cluster",
            "gpu",
            "--service",
            "train",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    // Without any credentials the SDK signs nothing and sends nothing: could not diagnose, and says why.
    let o = command(&dir)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .args([
            "diagnose",
            "--region",
            "us-east-1",
            "--endpoint-url",
            &url,
            "--cluster",
            "gpu",
            "--service",
            "train",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("no AWS credentials"),
        "{}",
        text(&o.stderr)
    );
}

/// A task definition that does not exist is the input's fault: exit 2 naming it, not a
/// warning followed by a verdict on the rest.
#[test]
fn live_missing_task_definition_exits_2() {
    let Some(url) = endpoint("live_missing_task_definition_exits_2") else {
        return;
    };
    let dir = scratch("missing-td");
    let o = live(
        &dir,
        &url,
        &["--cluster", "gpu", "--task-definition", "nosuch:3"],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("task definition `nosuch:3` not found"),
        "{err}"
    );
    assert!(!err.contains("warning"), "{err}");
    assert!(o.stdout.is_empty());
}

/// A healthy GPU service with a GPU to spare: every step passes, its task holds a GPU by ID.
#[test]
fn live_a_healthy_gpu_service() {
    let Some(url) = endpoint("live_a_healthy_gpu_service") else {
        return;
    };
    let dir = scratch("healthy");
    let o = live(&dir, &url, &["--cluster", "healthy", "--service", "infer"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains("verdict: healthy: service `infer` runs 1 of 1 desired tasks"),
        "{out}"
    );
    assert!(
        out.contains("1 GPU registered (g5.xlarge has 1 GPU)"),
        "{out}"
    );
    assert!(out.contains("enough free GPUs on"), "{out}");
    assert!(!out.contains("[FAIL]"), "{out}");
}

/// A healthy, fully packed service: every GPU held by its own task, the group at its max size; the
/// notes say there is no headroom.
#[test]
fn live_a_packed_gpu_service() {
    let Some(url) = endpoint("live_a_packed_gpu_service") else {
        return;
    };
    let dir = scratch("packed");
    let o = live(&dir, &url, &["--cluster", "packed", "--service", "infer"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    assert!(out.contains("the cluster is fully packed"), "{out}");
    assert!(out.contains("note: no headroom"), "{out}");
    assert!(out.contains("is at its max size (1)"), "{out}");
}

/// A stuck service: its GPU is held by another service's task, the group is at its max size; the
/// verdict names both.
#[test]
fn live_a_stuck_gpu_service() {
    let Some(url) = endpoint("live_a_stuck_gpu_service") else {
        return;
    };
    let dir = scratch("stuck");
    let o = live(&dir, &url, &["--cluster", "stuck", "--service", "train"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains(
            "verdict: gpus-available fails: every GPU is taken, held by `service:embed` (1 task)"
        ),
        "{out}"
    );
    assert!(
        out.contains("raise the max size of Auto Scaling group `stuck-asg` (now 1)"),
        "{out}"
    );
    assert!(
        out.contains("insufficient GPU available"),
        "a service event from the emulator: {out}"
    );
    // The instance's one GPU is taken: no step may say it has room for the task.
    assert!(
        !out.contains("enough free GPUs, CPU and memory on"),
        "{out}"
    );
    assert!(
        out.contains("no instance with enough free GPUs to check"),
        "{out}"
    );
    // Only reads, the holders' ListTasks by container instance included.
    for op in operations(&dir) {
        assert!(
            ["Describe", "List", "Get"]
                .iter()
                .any(|p| op.starts_with(p)),
            "{op}"
        );
    }
}

/// Managed scaling grows a group from zero for a service's task, which then runs.
#[test]
fn live_managed_scaling_adds_an_instance() {
    let Some(url) = endpoint("live_managed_scaling_adds_an_instance") else {
        return;
    };
    let dir = scratch("scaling");
    let o = live(&dir, &url, &["--cluster", "scaling", "--service", "grow"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains("Auto Scaling group `scaling-asg`: desired 1, min 0, max 2")
            || out.contains("ACTIVE with a connected agent: 1 of 1"),
        "{out}"
    );
    assert!(
        out.contains("verdict: healthy: service `grow` runs 1 of 1 desired tasks"),
        "{out}"
    );
}
