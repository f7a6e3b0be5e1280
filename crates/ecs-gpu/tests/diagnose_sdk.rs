//! `ecs-gpu diagnose` live against a scripted ECS endpoint on 127.0.0.1, for what moto cannot show:
//! several pages of ListContainerInstances (moto ignores `maxResults`), throttling that the SDK
//! retries with backoff, and an AccessDenied on one call while the walk goes on. It speaks the ECS
//! JSON protocol (`X-Amz-Target: AmazonEC2ContainerServiceV20141113.<Operation>`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// How the fake endpoint misbehaves.
#[derive(Clone, Default)]
struct Script {
    /// Answer this many requests of an operation with ThrottlingException before answering.
    throttle: HashMap<&'static str, usize>,
    /// Answer every request of these operations with AccessDeniedException.
    deny: Vec<&'static str>,
    /// The message of the AccessDeniedException, when not the usual one.
    deny_message: Option<String>,
    /// Answer these operations with this body as it is (200 OK).
    raw: HashMap<&'static str, String>,
    /// Answer ListContainerInstances with a next token on every page, without end.
    endless: bool,
    /// Pad each ARN of the endless pages to this many characters (0: as they are).
    pad: usize,
}

struct Fake {
    url: String,
    /// Every operation received, in order (retries included).
    seen: Arc<Mutex<Vec<String>>>,
}

const INSTANCES: usize = 5;

fn instance(n: usize) -> Value {
    json!({
        "containerInstanceArn": format!("arn:aws:ecs:us-east-1:123456789012:container-instance/gpu/ci{n}"),
        "ec2InstanceId": format!("i-{n:04}"),
        "status": "ACTIVE", "agentConnected": true, "runningTasksCount": 0, "pendingTasksCount": 0,
        "registeredResources": [
            {"name": "CPU", "type": "INTEGER", "integerValue": 4096},
            {"name": "MEMORY", "type": "INTEGER", "integerValue": 15779},
            {"name": "GPU", "type": "STRINGSET", "stringSetValue": [format!("GPU-{n}")]}
        ],
        "remainingResources": [
            {"name": "CPU", "type": "INTEGER", "integerValue": 4096},
            {"name": "MEMORY", "type": "INTEGER", "integerValue": 15779},
            {"name": "GPU", "type": "STRINGSET", "stringSetValue": [format!("GPU-{n}")]}
        ],
        "attributes": [{"name": "ecs.instance-type", "value": "g5.xlarge"},
                       {"name": "ecs.capability.gpu-driver-version", "value": "580.159.03"}]
    })
}

fn answer(op: &str, body: &Value) -> Value {
    match op {
        "DescribeClusters" => {
            json!({"clusters": [{"clusterName": "gpu", "status": "ACTIVE"}], "failures": []})
        }
        "DescribeServices" => json!({"services": [{
            "serviceName": "train", "desiredCount": 1, "runningCount": 1, "launchType": "EC2",
            "taskDefinition": "arn:aws:ecs:us-east-1:123456789012:task-definition/train:1"}], "failures": []}),
        "DescribeTaskDefinition" => json!({"taskDefinition": {
            "taskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/train:1",
            "family": "train", "revision": 1, "networkMode": "bridge",
            "requiresCompatibilities": ["EC2"], "compatibilities": ["EC2"], "cpu": "1024", "memory": "4096",
            "containerDefinitions": [{"name": "main", "cpu": 0,
                "resourceRequirements": [{"type": "GPU", "value": "1"}]}]}}),
        "ListContainerInstances" => {
            // Real pagination: `maxResults` per page, the next index as the token.
            let size = body["maxResults"].as_u64().unwrap_or(100) as usize;
            let from: usize = body["nextToken"].as_str().map_or(0, |t| t.parse().unwrap());
            let to = (from + size).min(INSTANCES);
            let arns: Vec<String> = (from..to)
                .map(|n| format!("arn:aws:ecs:us-east-1:123456789012:container-instance/gpu/ci{n}"))
                .collect();
            let mut v = json!({ "containerInstanceArns": arns });
            if to < INSTANCES {
                v["nextToken"] = json!(to.to_string());
            }
            v
        }
        "DescribeContainerInstances" => {
            let list: Vec<Value> = body["containerInstances"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| {
                    instance(
                        a.as_str()
                            .unwrap()
                            .rsplit("ci")
                            .next()
                            .unwrap()
                            .parse()
                            .unwrap(),
                    )
                })
                .collect();
            json!({"containerInstances": list, "failures": []})
        }
        "ListTasks" => json!({"taskArns": []}),
        "DescribeTasks" => json!({"tasks": [], "failures": []}),
        other => panic!("the fake endpoint does not know {other}"),
    }
}

fn serve(stream: TcpStream, script: Arc<Mutex<Script>>, seen: Arc<Mutex<Vec<String>>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut op = String::new();
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let lower = l.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if lower.starts_with("x-amz-target:") {
                op = l.rsplit('.').next().unwrap().to_string();
            }
        }
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body).unwrap();
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        seen.lock().unwrap().push(op.clone());
        let (status, payload) = {
            let mut s = script.lock().unwrap();
            if s.deny.contains(&op.as_str()) {
                let message = s.deny_message.clone().unwrap_or_else(|| {
                    format!("User: arn:aws:iam::123456789012:user/dev is not authorized to perform: ecs:{op}")
                });
                (
                    400,
                    json!({"__type": "AccessDeniedException", "message": message}),
                )
            } else if let Some(text) = s.raw.get(op.as_str()) {
                (200, Value::String(text.clone()))
            } else if s.endless && op == "ListContainerInstances" {
                let from: u64 = body["nextToken"].as_str().map_or(0, |t| t.parse().unwrap());
                let pad = s.pad;
                let arns: Vec<String> = (from..from + 100)
                    .map(|n| {
                        format!(
                            "arn:aws:ecs:us-east-1:123456789012:container-instance/gpu/endless{n:0>pad$}"
                        )
                    })
                    .collect();
                (
                    200,
                    json!({"containerInstanceArns": arns, "nextToken": (from + 100).to_string()}),
                )
            } else if let Some(n) = s.throttle.get_mut(op.as_str()).filter(|n| **n > 0) {
                *n -= 1;
                (
                    400,
                    json!({"__type": "ThrottlingException", "message": "Rate exceeded"}),
                )
            } else {
                (200, answer(&op, &body))
            }
        };
        // A raw answer is sent as it is, not as a JSON string.
        let text = match payload {
            Value::String(raw) => raw,
            other => other.to_string(),
        };
        let reason = if status == 200 { "OK" } else { "Bad Request" };
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: application/x-amz-json-1.1\r\nx-amzn-RequestId: test\r\nContent-Length: {}\r\n\r\n",
            text.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(text.as_bytes()).is_err() {
            return;
        }
    }
}

fn start(script: Script) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(Mutex::new(script));
    let s2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (script, seen) = (script.clone(), s2.clone());
            std::thread::spawn(move || serve(stream, script, seen));
        }
    });
    Fake { url, seen }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("diagnose_sdk")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(fake: &Fake, dir: &Path, page_size: &str, extra: &[&str]) -> Output {
    run_with(fake, dir, page_size, extra, &[])
}

fn run_with(
    fake: &Fake,
    dir: &Path,
    page_size: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args([
            "diagnose",
            "--cluster",
            "gpu",
            "--region",
            "us-east-1",
            "--endpoint-url",
            &fake.url,
            "--timeout",
            "20",
        ])
        .args(extra)
        .current_dir(dir)
        .env("ECS_GPU_PAGE_SIZE", page_size)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", dir.join("no-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("no-credentials"))
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn list_container_instances_is_read_page_by_page() {
    let fake = start(Script::default());
    let dir = scratch("pages");
    let o = run(&fake, &dir, "2", &["--service", "train"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains("ACTIVE with a connected agent: 5 of 5 container instances"),
        "{out}"
    );
    let seen = fake.seen.lock().unwrap().clone();
    let pages = seen
        .iter()
        .filter(|o| *o == "ListContainerInstances")
        .count();
    assert_eq!(pages, 3, "5 instances, 2 a page: {seen:?}");
    // What reached the wire: reads only.
    for op in &seen {
        assert!(
            ["Describe", "List", "Get"]
                .iter()
                .any(|p| op.starts_with(p)),
            "{op} was sent"
        );
    }
}

#[test]
fn throttling_is_retried_with_backoff() {
    let fake = start(Script {
        throttle: HashMap::from([("DescribeServices", 2), ("DescribeContainerInstances", 1)]),
        ..Script::default()
    });
    let dir = scratch("throttle");
    let o = run(&fake, &dir, "100", &["--service", "train"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(text(&o.stderr).is_empty(), "{}", text(&o.stderr));
    let seen = fake.seen.lock().unwrap().clone();
    let count = |op: &str| seen.iter().filter(|o| *o == op).count();
    assert_eq!(count("DescribeServices"), 3, "{seen:?}");
    assert_eq!(count("DescribeContainerInstances"), 2, "{seen:?}");
}

#[test]
fn access_denied_names_the_action_and_the_other_steps_still_run() {
    let fake = start(Script {
        deny: vec!["ListContainerInstances"],
        ..Script::default()
    });
    let dir = scratch("denied");
    let o = run(
        &fake,
        &dir,
        "100",
        &["--service", "train", "--format", "json"],
    );
    let err = text(&o.stderr);
    assert!(
        err.contains("ecs-gpu: warning: ListContainerInstances failed: AccessDeniedException")
            && err.contains("(allow the IAM action `ecs:ListContainerInstances`)"),
        "{err}"
    );
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let status = |id: &str| {
        report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status("task-definition"), "pass");
    assert_eq!(status("capacity"), "unknown");
    // The service runs its desired count and nothing fails: healthy, with the gap visible.
    assert_eq!(report["verdict"]["step"], "healthy", "{report}");
    assert_eq!(o.status.code(), Some(0));
    let seen = fake.seen.lock().unwrap().clone();
    assert!(!seen.contains(&"DescribeContainerInstances".to_string()));
    assert!(
        seen.contains(&"ListTasks".to_string()),
        "later calls still run: {seen:?}"
    );
}

/// An answer the SDK cannot read (a field of the wrong type) names the call, what was wrong and
/// where, instead of a bare `UnknownError`.
#[test]
fn an_unreadable_answer_names_what_was_wrong() {
    let fake = start(Script {
        raw: HashMap::from([
            (
                "ListTasks",
                r#"{"taskArns": ["arn:aws:ecs:us-east-1:123456789012:task/gpu/t1"]}"#.to_string(),
            ),
            (
                "DescribeTasks",
                r#"{"tasks": [{"taskArn": "arn:aws:ecs:us-east-1:123456789012:task/gpu/t1", "containers": "not a list"}], "failures": []}"#
                    .to_string(),
            ),
        ]),
        ..Script::default()
    });
    let dir = scratch("unreadable");
    let o = run(&fake, &dir, "100", &["--service", "train"]);
    let err = text(&o.stderr);
    assert!(err.contains("DescribeTasks failed"), "{err}");
    assert!(!err.contains("UnknownError"), "{err}");
    assert!(err.contains("at `tasks[0].containers`"), "{err}");
}

/// Hostile: an endpoint's error message with a newline, ESC, an OSC sequence and a
/// carriage return is printed escaped, on one line.
#[test]
fn hostile_aws_error_messages_are_escaped() {
    let fake = start(Script {
        deny: vec!["ListContainerInstances"],
        deny_message: Some(
            "denied\nerror: forged line\u{1b}[31m red \u{1b}]0;title\u{7}\rback".to_string(),
        ),
        ..Script::default()
    });
    let dir = scratch("escaped");
    let o = run(&fake, &dir, "100", &["--service", "train"]);
    let err = text(&o.stderr);
    assert!(
        !err.contains('\u{1b}') && !err.contains('\r') && !err.contains('\u{7}'),
        "{err:?}"
    );
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("denied\\nerror: forged line\\u{1b}[31m"),
        "{err}"
    );
    assert!(
        !err.lines().any(|l| l.starts_with("error: forged")),
        "{err}"
    );
}

/// Hostile: an endpoint that pages without end is read up to a bound, then the call
/// fails with a clear error and the walk goes on, within time and memory.
#[test]
fn hostile_an_endless_paginator_is_cut_off() {
    let fake = start(Script {
        endless: true,
        ..Script::default()
    });
    let dir = scratch("endless");
    let started = std::time::Instant::now();
    let o = run(&fake, &dir, "100", &["--service", "train"]);
    let err = text(&o.stderr);
    assert!(
        err.contains(
            "ListContainerInstances failed: TooManyResults: the answer went on past 10000 items"
        ),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(100),
        "{:?}",
        started.elapsed()
    );
    let seen = fake.seen.lock().unwrap().clone();
    let pages = seen
        .iter()
        .filter(|o| *o == "ListContainerInstances")
        .count();
    assert!(pages <= 101, "{pages} pages read");
    assert!(
        !seen.contains(&"DescribeContainerInstances".to_string()),
        "{seen:?}"
    );
}

/// Hostile: pages that each stay under the bound of one answer are cut off once the
/// run's answers together pass the bound of the run, with an error that names that bound. The
/// bound is lowered to 4 MiB (from 256 MiB) so that the test reads a few pages of about 1 MiB
/// rather than hundreds of megabytes; the counting is the same.
#[test]
fn hostile_the_answers_of_a_run_are_bounded_together() {
    let fake = start(Script {
        endless: true,
        pad: 10_000,
        ..Script::default()
    });
    let dir = scratch("run-total");
    let o = run_with(
        &fake,
        &dir,
        "100",
        &["--service", "train"],
        &[("ECS_GPU_MAX_TOTAL_RESPONSE_BYTES", "4194304")],
    );
    let err = text(&o.stderr);
    assert!(
        err.contains(
            "ListContainerInstances failed: ResponseTooLarge: the answers of this run passed 4 MiB, \
             the most ecs-gpu reads in one run"
        ),
        "{err}"
    );
    let seen = fake.seen.lock().unwrap().clone();
    let pages = seen
        .iter()
        .filter(|o| *o == "ListContainerInstances")
        .count();
    // About 1 MiB a page: the fifth passes 4 MiB, and the SDK's attempts at it (5 at most) are
    // each cut at once. Without the run's bound the endless pages would go on to 100.
    assert!((5..=9).contains(&pages), "{pages} pages read: {seen:?}");
}

/// Runs a live `diagnose --save DIR` against the fake endpoint, killed after 30 s (a save that
/// waits on a FIFO must not hang the suite): the exit status (`None`: killed) and stderr. The
/// binary is this build's, or the one `ECS_GPU_HOSTILE_BIN` names (to show that the case fails on
/// a build from before its fix).
fn save_to(fake: &Fake, dir: &Path, save: &str) -> (Option<i32>, String) {
    let bin = std::env::var("ECS_GPU_HOSTILE_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_ecs-gpu").into());
    let mut child = Command::new(bin)
        .args([
            "diagnose",
            "--cluster",
            "gpu",
            "--service",
            "train",
            "--region",
            "us-east-1",
            "--endpoint-url",
            &fake.url,
            "--timeout",
            "20",
            "--save",
            save,
        ])
        .current_dir(dir)
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", dir.join("no-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("no-credentials"))
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > std::time::Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    (status, err)
}

/// Hostile (50.4, 50.7): `diagnose --save DIR` wrote through a link DIR held
/// (`DIR/describe-services.json -> ../victim` overwrote the file outside, for all seven names),
/// waited forever on a FIFO there, and mixed its files with an earlier save (`--from` of the mixed
/// folder gave another verdict than the live run). DIR must be new or hold no JSON file, must not
/// be a link, and each file is created new without following a link: refused before any AWS call,
/// and nothing outside DIR is touched.
#[test]
fn hostile_save_never_writes_through_a_link_or_over_an_earlier_save() {
    let fake = start(Script::default());
    let dir = scratch("save-links");
    std::fs::write(dir.join("victim"), "keep").unwrap();
    let names = [
        "describe-services.json",
        "describe-task-definition.json",
        "list-container-instances.json",
        "describe-container-instances.json",
        "describe-tasks.json",
        "describe-capacity-providers.json",
        "describe-auto-scaling-groups.json",
    ];
    let linked = dir.join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    for name in names {
        std::os::unix::fs::symlink("../victim", linked.join(name)).unwrap();
    }
    let fifo = dir.join("fifo");
    std::fs::create_dir_all(&fifo).unwrap();
    assert!(Command::new("mkfifo")
        .arg(fifo.join("describe-tasks.json"))
        .status()
        .unwrap()
        .success());
    let earlier = dir.join("earlier");
    std::fs::create_dir_all(&earlier).unwrap();
    std::fs::write(earlier.join("describe-services.json"), "{\"services\":[]}").unwrap();
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::os::unix::fs::symlink("real", dir.join("dirlink")).unwrap();
    for (save, want) in [
        ("linked", "holds JSON files already"),
        ("fifo", "holds JSON files already"),
        ("earlier", "holds JSON files already"),
        ("dirlink", "a link: not followed"),
        ("victim", "not a folder: a file"),
    ] {
        let (code, err) = save_to(&fake, &dir, save);
        assert_eq!(code, Some(2), "{save}: {err}");
        assert!(err.contains(want), "{save}: {err}");
        assert_eq!(std::fs::read_to_string(dir.join("victim")).unwrap(), "keep");
        assert!(
            std::fs::read_dir(dir.join("real"))
                .unwrap()
                .next()
                .is_none(),
            "{save}: wrote through the folder link"
        );
    }
    // A new folder takes the files.
    let (code, err) = save_to(&fake, &dir, "new");
    assert!(matches!(code, Some(0..=2)), "{err}");
    assert!(err.contains("saved"), "{err}");
    assert!(dir.join("new/describe-services.json").is_file());
}
