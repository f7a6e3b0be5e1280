//! `ecs-gpu diagnose` as a user runs it: saved-output scenarios, output formats, exit statuses, and
//! the live path's failures that need no emulator (nothing listening, a server that never answers).
//! The emulator tests are in `diagnose_live.rs`.

// The tests that call AWS need live access built in (the default `live` feature).
#![cfg_attr(not(feature = "live"), allow(dead_code, unused_imports))]

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ecs-gpu-diagnose/tests/scenarios")
}

/// Runs the binary in the scenarios folder, so paths in the output are the short relative ones. The
/// environment never points at real AWS: no credentials or config files, no instance metadata.
fn run(args: &[&str]) -> Output {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-cli-no-aws-files");
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(args)
        .current_dir(scenarios())
        .env("NO_COLOR", "1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", empty.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", empty.join("credentials"))
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ENDPOINT_URL")
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

fn scenario_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(scenarios())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn healthy_exits_0_and_each_failing_step_exits_1() {
    for name in scenario_names() {
        if name == "services-only" {
            continue;
        }
        let o = run(&["diagnose", "--from", &name]);
        let want = if name.starts_with("healthy") { 0 } else { 1 };
        assert_eq!(code(&o), want, "{name}: {}", stderr(&o));
        assert!(stderr(&o).is_empty(), "{name}: {}", stderr(&o));
    }
}

#[test]
fn human_output_is_a_checklist_then_the_verdict() {
    for name in [
        "healthy",
        "capacity-stockout",
        "gpu-registration-off",
        "gpus-available-pinned",
        "placement-constraint-typo",
        "cpu-memory",
    ] {
        let o = run(&["diagnose", "--from", name]);
        insta::assert_snapshot!(format!("diagnose_human_{name}"), stdout(&o));
    }
}

#[test]
fn json_output_has_exactly_the_documented_shape() {
    for name in scenario_names() {
        if name == "services-only" {
            continue;
        }
        let o = run(&["diagnose", "--from", &name, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let keys = |v: &serde_json::Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        assert_eq!(
            keys(&v),
            ["command", "steps", "verdict", "version"],
            "{name}"
        );
        assert_eq!(v["version"], 1);
        assert_eq!(
            keys(&v["verdict"]),
            ["fix", "message", "notes", "status", "step"],
            "{name}"
        );
        let ids: Vec<&str> = v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                assert_eq!(keys(s), ["evidence", "id", "status"], "{name}");
                assert!(["pass", "fail", "unknown"].contains(&s["status"].as_str().unwrap()));
                s["id"].as_str().unwrap()
            })
            .collect();
        assert_eq!(
            ids,
            [
                "task-definition",
                "capacity",
                "gpu-registration",
                "gpus-available",
                "placement-constraint",
                "cpu-memory"
            ]
        );
        if name.starts_with("healthy") {
            assert_eq!(v["verdict"]["step"], "healthy");
            assert_eq!(v["verdict"]["status"], "pass");
        } else {
            assert!(name.starts_with(v["verdict"]["step"].as_str().unwrap()));
            assert_eq!(v["verdict"]["status"], "fail");
        }
    }
    let o = run(&[
        "diagnose",
        "--from",
        "gpus-available-pinned",
        "--format",
        "json",
    ]);
    insta::assert_snapshot!("diagnose_json_gpus_available_pinned", stdout(&o));
}

#[test]
fn could_not_diagnose_exits_2_with_one_line() {
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-cli-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let bad = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-cli-bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("describe-container-instances.json"), "[1, 2").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["diagnose"],
            if cfg!(feature = "live") {
                "nothing to diagnose: give --service SERVICE or --task-definition"
            } else {
                "nothing to diagnose: give --from DIR"
            },
        ),
        (
            vec!["diagnose", "--from", empty.to_str().unwrap()],
            "no AWS CLI output found; expected describe-services.json",
        ),
        (
            vec!["diagnose", "--from", bad.to_str().unwrap()],
            "describe-container-instances.json: not the JSON that `aws ecs describe-container-instances` prints",
        ),
        (
            vec!["diagnose", "--from", "no-such-dir"],
            "no-such-dir: no such file or directory",
        ),
        (
            vec!["diagnose", "--from", "services-only"],
            "the input holds 2 services (train, infer); pick one with --service",
        ),
        (
            vec!["diagnose", "--from", "services-only", "--service", "web"],
            "service `web` is not in the input; services there: train, infer",
        ),
        // Nothing fails, but nothing shows the service healthy either.
        (
            vec!["diagnose", "--from", "services-only", "--service", "train"],
            "could not diagnose: no step fails, yet service `train` runs 1 of 2 desired tasks",
        ),
    ];
    for (args, want) in cases {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    }
    // A usage error (clap) is 2 as well.
    let o = run(&["diagnose", "--from", "healthy", "--save", "x"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn a_subset_of_files_leaves_the_other_steps_unknown() {
    let o = run(&["diagnose", "--from", "services-only", "--service", "infer"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("[ ?? ] capacity"), "{out}");
    assert!(
        out.contains("no DescribeContainerInstances output (`describe-container-instances.json`"),
        "{out}"
    );
    assert!(out.contains("verdict: healthy: service `infer` runs 1 of 1 desired tasks"));
}

#[test]
#[cfg(feature = "live")]
fn nothing_listening_is_aws_unreachable_exit_2() {
    // Port 1 on the loopback: connection refused at once, never any traffic off this machine.
    let o = run(&[
        "diagnose",
        "--cluster",
        "gpu",
        "--service",
        "train",
        "--region",
        "us-east-1",
        "--endpoint-url",
        "http://127.0.0.1:1",
        "--timeout",
        "10",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("AWS did not answer"), "{err}");
    assert!(
        err.contains("DescribeClusters failed: Unreachable"),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
}

#[test]
#[cfg(feature = "live")]
fn a_server_that_never_answers_hits_the_overall_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    // Accept and read, never answer; stop after the test's connections are gone.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut s in listener.incoming().flatten().take(20) {
            let mut buf = [0u8; 1024];
            let _ = s.set_read_timeout(Some(Duration::from_millis(100)));
            let _ = s.read(&mut buf);
            held.push(s);
        }
    });
    let started = Instant::now();
    let o = run(&[
        "diagnose",
        "--cluster",
        "gpu",
        "--service",
        "train",
        "--region",
        "us-east-1",
        "--endpoint-url",
        &format!("http://{addr}"),
        "--timeout",
        "2",
    ]);
    let took = started.elapsed();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("Timeout"), "{}", stderr(&o));
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
#[cfg(feature = "live")]
fn no_region_is_a_clear_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args([
            "diagnose",
            "--service",
            "train",
            "--endpoint-url",
            "http://127.0.0.1:1",
        ])
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", "/nonexistent/config")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials")
        .env_remove("AWS_REGION")
        .env_remove("AWS_DEFAULT_REGION")
        .env_remove("AWS_PROFILE")
        .output()
        .unwrap();
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no AWS region: pass --region"));
}

/// The user documentation of `ecs-gpu diagnose`: its page, and the README's section (which repeats
/// the IAM policy).
fn doc() -> String {
    read_doc("docs/diagnose.md")
}

fn read_doc(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first JSON block of a document.
fn json_block(doc: &str) -> serde_json::Value {
    let start = doc.find("```json\n").expect("a JSON policy block") + "```json\n".len();
    let end = start + doc[start..].find("```").unwrap();
    serde_json::from_str(&doc[start..end]).unwrap()
}

/// The README's IAM policy is the one of the command's page.
#[test]
fn the_readme_iam_policy_is_the_documented_one() {
    let readme = read_doc("README.md");
    let start = readme
        .find("\n## `ecs-gpu diagnose`")
        .expect("the README has an `ecs-gpu diagnose` section");
    assert_eq!(json_block(&readme[start..]), json_block(&doc()));
}

/// The documented IAM policy lists exactly the actions of the calls live mode makes.
#[test]
fn the_documented_iam_policy_is_exactly_the_calls_made() {
    let policy = json_block(&doc());
    let mut documented: Vec<String> = policy["Statement"][0]["Action"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    documented.sort();
    let mut made: Vec<String> = ecs_gpu_diagnose::api::Call::ALL
        .iter()
        .map(|c| c.iam_action())
        .collect();
    made.sort();
    assert_eq!(documented, made);
    for a in &documented {
        let op = a.split(':').nth(1).unwrap();
        assert!(
            ["Describe", "List", "Get"]
                .iter()
                .any(|p| op.starts_with(p)),
            "{a}"
        );
    }
}

/// The worked example of the documentation is the command's real output.
#[test]
fn the_documented_example_is_the_real_output() {
    let doc = doc();
    let marker = "$ ecs-gpu diagnose --from gpus-available-pinned\n";
    let start = doc.find(marker).expect("the worked example") + marker.len();
    let end = start + doc[start..].find("\n```").unwrap();
    let o = run(&["diagnose", "--from", "gpus-available-pinned"]);
    assert_eq!(code(&o), 1);
    assert_eq!(&doc[start..end], stdout(&o).trim_end());
}

/// `describe-services` with no service and a MISSING failure (a misspelt name) is the
/// same input as in live mode, and exits 2 the same way, naming the service.
#[test]
fn a_missing_service_in_saved_output_exits_2_naming_it() {
    let o = run(&["diagnose", "--from", "../inputs/service-missing"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    insta::assert_snapshot!(stderr(&o));
    assert!(o.stdout.is_empty());
}

/// The largest --timeout is refused with a clear error, not an overflow panic.
#[test]
#[cfg(feature = "live")]
fn a_huge_timeout_is_refused_not_a_panic() {
    let o = run(&[
        "diagnose",
        "--cluster",
        "gpu",
        "--service",
        "train",
        "--timeout",
        "18446744073709551615",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "ecs-gpu: error: --timeout: give at most 3600 seconds\n"
    );
}

/// A credential variable with a character no HTTP header may hold (a key pasted from a
/// Windows file ends in `\r`) is named, never printed, and never reaches the SDK (which panics).
#[test]
#[cfg(feature = "live")]
fn a_malformed_credential_variable_is_named_without_its_value() {
    for (var, value) in [
        ("AWS_ACCESS_KEY_ID", "AKIASECRETVALUE1234\r"),
        ("AWS_SECRET_ACCESS_KEY", "wJalrSECRETVALUE\x1b[31m"),
        ("AWS_SESSION_TOKEN", "FwoGZXSECRETVALUE token"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
            .args([
                "diagnose",
                "--cluster",
                "gpu",
                "--service",
                "train",
                "--region",
                "us-east-1",
                "--endpoint-url",
                "http://127.0.0.1:9",
            ])
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env(var, value)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{var}: {err}");
        assert!(err.contains(&format!("`{var}`")), "{var}: {err}");
        assert!(!err.contains("SECRETVALUE"), "{var}: {err}");
        assert_eq!(err.lines().count(), 1, "{var}: {err}");
    }
}

/// A file error says where and what was expected on one line, never the
/// value found, and never the same cause twice.
#[test]
fn file_errors_are_one_line_without_the_value_or_repetition() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-errors-once");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("describe-services.json"),
        r#"{"services": "hunter2-SECRET"}"#,
    )
    .unwrap();
    let o = run(&["diagnose", "--from", dir.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2);
    assert!(!err.contains("hunter2"), "{err}");
    assert!(
        err.ends_with("line 1, column 29: found a string, expected a sequence\n"),
        "{err}"
    );
    let o = run(&["diagnose", "--from", "no-such-dir"]);
    assert_eq!(
        stderr(&o),
        "ecs-gpu: error: no-such-dir: no such file or directory\n"
    );
}

/// Control characters in the input (a constraint expression that forges a line, an ESC
/// sequence) are escaped in the human output.
#[test]
fn control_characters_in_the_input_are_escaped() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-control-chars");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(scenarios().join("placement-constraint-typo")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap().replace(
            "g5.xlarg\"",
            "g5.xlarg\\nx/main.tf:1:1: error GPU101 FORGED\\u001b[31m\"",
        );
        std::fs::write(dir.join(p.file_name().unwrap()), text).unwrap();
    }
    let o = run(&["diagnose", "--from", dir.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(out.contains("FORGED"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(out.lines().all(|l| !l.starts_with("x/main.tf")), "{out}");
}

/// A saved-output file that is a device, a FIFO or past the size limit is refused with
/// one line naming it.
#[test]
fn diagnose_from_refuses_special_files() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-special-files");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("describe-services.json")).unwrap();
    assert!(Command::new("mkfifo")
        .arg(dir.join("describe-tasks.json"))
        .status()
        .unwrap()
        .success());
    let o = run(&["diagnose", "--from", dir.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(
        err.contains("describe-services.json: not a regular file"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A local endpoint that answers every request with `answer` (written after the request is read).
fn serve(answer: fn(&mut std::net::TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten().take(200) {
            std::thread::spawn(move || {
                let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                let mut req = Vec::new();
                let mut buf = [0u8; 4096];
                // Headers, then the body by its Content-Length.
                while let Ok(n) = s.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    req.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&req).to_ascii_lowercase();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if req.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                answer(&mut s);
            });
        }
    });
    format!("http://{addr}")
}

fn live_against(url: &str) -> Output {
    run(&[
        "diagnose",
        "--cluster",
        "gpu",
        "--service",
        "train",
        "--region",
        "us-east-1",
        "--endpoint-url",
        url,
        "--timeout",
        "60",
    ])
}

/// When AWS refuses the credentials on every call, the error says so (not
/// "no input").
#[test]
#[cfg(feature = "live")]
fn refused_credentials_say_so() {
    use std::io::Write;
    let url = serve(|s| {
        let body = r#"{"__type":"UnrecognizedClientException","message":"The security token included in the request is invalid."}"#;
        let _ = write!(
            s,
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/x-amz-json-1.1\r\nx-amzn-ErrorType: UnrecognizedClientException\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let o = live_against(&url);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(
        err.ends_with("ecs-gpu: error: AWS refused the credentials (UnrecognizedClientException): check the access key, secret and session token in use (an expired session token needs a new one)\n"),
        "{err}"
    );
    assert!(!err.contains("no input"), "{err}");
}

/// An endpoint that answers 200 with a body that never ends: memory stays bounded (the
/// run is held to 1 GiB of address space) and the error says the answer was too large.
#[test]
#[cfg(feature = "live")]
fn an_endless_response_body_is_bounded() {
    use std::io::Write;
    let url = serve(|s| {
        let _ = write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        );
        let chunk = format!("{:x}\r\n{}\r\n", 65536, "x".repeat(65536));
        while s.write_all(chunk.as_bytes()).is_ok() {}
    });
    let empty = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-cli-no-aws-files");
    let o = Command::new("prlimit")
        .arg("--as=1073741824")
        .arg(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args([
            "diagnose",
            "--cluster",
            "gpu",
            "--service",
            "train",
            "--region",
            "us-east-1",
            "--endpoint-url",
            &url,
            "--timeout",
            "60",
        ])
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", empty.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", empty.join("credentials"))
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(err.contains("ResponseTooLarge"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A profile that is in neither shared file says so, not "no AWS region".
#[test]
#[cfg(feature = "live")]
fn a_missing_profile_says_so() {
    let o = run(&[
        "diagnose",
        "--cluster",
        "gpu",
        "--service",
        "train",
        "--profile",
        "nosuch",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "ecs-gpu: error: profile `nosuch` is not in the AWS config or credentials file: `aws configure list-profiles` lists the profiles\n"
    );
}

/// Live diagnose with no credentials in the environment and the given shared files and extra
/// variables.
fn live_without_credentials(config: &str, extra: &[(&str, &str)], args: &[&str]) -> Output {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "diagnose-cli-credentials-{}",
        args.join("-").replace('/', "_")
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("config"), config).unwrap();
    fs::write(dir.join("credentials"), "").unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"));
    c.args([
        "diagnose",
        "--cluster",
        "gpu",
        "--service",
        "train",
        "--region",
        "us-east-1",
        "--timeout",
        "20",
    ])
    .args(args)
    .env("NO_COLOR", "1")
    .env("AWS_CONFIG_FILE", dir.join("config"))
    .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("credentials"))
    .env_remove("AWS_ACCESS_KEY_ID")
    .env_remove("AWS_SECRET_ACCESS_KEY")
    .env_remove("AWS_SESSION_TOKEN")
    .env_remove("AWS_PROFILE")
    .env_remove("AWS_ENDPOINT_URL")
    .env_remove("AWS_WEB_IDENTITY_TOKEN_FILE")
    .env_remove("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
    .env_remove("AWS_CONTAINER_CREDENTIALS_FULL_URI");
    for (k, v) in extra {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// A profile that signs in through IAM Identity Center says how to get credentials this
/// build reads, instead of failing on every call.
#[test]
#[cfg(feature = "live")]
fn an_sso_profile_says_how_to_export_its_credentials() {
    let o = live_without_credentials(
        "[profile team]\nsso_start_url = https://example.awsapps.com/start\nsso_region = us-east-1\nsso_account_id = 123456789012\nsso_role_name = Reader\nregion = us-east-1\n",
        &[("AWS_EC2_METADATA_DISABLED", "true")],
        &["--profile", "team"],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("profile `team` signs in through AWS IAM Identity Center (SSO)")
            && err.contains("aws configure export-credentials --profile team --format env"),
        "{err}"
    );
}

/// No credentials anywhere and an instance metadata endpoint that refuses the
/// connection: the error says there are no credentials, not that AWS is unreachable.
#[test]
#[cfg(feature = "live")]
fn a_refused_metadata_endpoint_means_no_credentials() {
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let url = format!("http://{closed}");
    let o = live_without_credentials(
        "",
        &[("AWS_EC2_METADATA_SERVICE_ENDPOINT", url.as_str())],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("ecs-gpu: error: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass --profile, or run with a task or instance role"),
        "{err}"
    );
}

/// An empty cluster from saved files. The documented recipe saves
/// `list-container-instances.json`; an empty list (or the empty describe file an older recipe
/// left) means no instances, and the scaling activities name the stock-out.
#[test]
fn an_empty_cluster_is_diagnosed_from_saved_files() {
    for dir in [
        "capacity-empty-cluster-listed",
        "capacity-empty-cluster-empty-file",
    ] {
        let o = run(&["diagnose", "--from", dir]);
        let out = stdout(&o);
        assert_eq!(code(&o), 1, "{dir}: {out}{}", stderr(&o));
        assert!(
            out.contains("no container instance is registered in the cluster"),
            "{out}"
        );
        assert!(
            out.contains("verdict: capacity fails: EC2 has no capacity"),
            "{out}"
        );
    }
}

/// An empty describe file where the other files show running tasks is a call that failed, not an
/// empty cluster: exit 2, naming the file, instead of a false "no instance".
#[test]
fn an_empty_instances_file_contradicted_by_running_tasks_is_refused() {
    let dir = std::env::temp_dir().join(format!("ecs-gpu-empty-file-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let healthy =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../ecs-gpu-diagnose/tests/scenarios/healthy");
    for e in std::fs::read_dir(healthy).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    std::fs::write(dir.join("describe-container-instances.json"), "").unwrap();
    let o = run(&["diagnose", "--from", dir.to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("describe-container-instances.json: empty, but"),
        "{err}"
    );
    assert!(err.contains("save it again"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
