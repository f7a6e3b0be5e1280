//! Hostile and unlucky input: every case generates its input at test time, runs a
//! command under a memory limit (`prlimit --as`) and a wall-clock limit, and asserts the exit
//! status, what stderr says (one line per problem at most, never a panic), that the output stays
//! bounded and that no planted secret appears anywhere. Each case names the behaviour it protects.

// The tests that call AWS need live access built in (the default `live` feature).
#![cfg_attr(not(feature = "live"), allow(dead_code, unused_imports))]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The secret planted in the environment of every run (as AWS credentials are in a CI job or a
/// terminal): it must never appear in any output.
const SECRET: &str = "PLANTED-SECRET-wJalrXUtnFEMI-K7MDENG";
/// The virtual memory a run may take (`prlimit --as`): far above what any case needs when the
/// code is right, far below what the defects reached (4 to 16 GB).
const MEMORY: u64 = 3 << 30;
/// Output kept for the assertions; more is counted, not kept.
const KEEP: usize = 64 << 20;

struct Run {
    /// `None`: killed (a signal, the memory limit, the time limit).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    stdout_bytes: usize,
    /// The most resident memory the run was seen to take, in bytes (`VmHWM`, read while it runs).
    peak_rss: u64,
    timed_out: bool,
    took: Duration,
}

impl Run {
    /// The exit status, failing with everything known when the run did not exit by itself.
    fn code(&self) -> i32 {
        assert!(
            !self.timed_out,
            "timed out after {:?}: {}",
            self.took, self.stderr
        );
        self.code
            .unwrap_or_else(|| panic!("killed (memory limit?), stderr: {}", self.stderr))
    }

    /// The behaviours every run must have: no panic, no secret, stderr lines without control
    /// characters.
    fn assert_sane(&self) {
        assert!(
            !self.stderr.contains("panicked") && self.code != Some(101),
            "panic: {}",
            self.stderr
        );
        for out in [&self.stdout, &self.stderr] {
            assert!(!out.contains(SECRET), "the planted secret was printed");
            assert!(!out.contains('\u{1b}'), "a raw escape sequence was printed");
        }
    }

    /// Exit status 2 with one line on stderr (then the closing `ecs-gpu: error:` line, when the
    /// problem is one of the checked paths), which must contain `want`.
    fn assert_refused(&self, want: &str) {
        self.assert_sane();
        assert_eq!(
            self.code(),
            2,
            "stdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert!(
            !lines.is_empty() && lines.len() <= 2,
            "{} lines on stderr: {}",
            lines.len(),
            self.stderr
        );
        assert!(
            self.stderr.contains(want),
            "{want:?} not in {}",
            self.stderr
        );
    }
}

/// The binary under test: this build's, or the one `ECS_GPU_HOSTILE_BIN` names (to show that a
/// case fails on a build from before its fix).
fn bin() -> String {
    std::env::var("ECS_GPU_HOSTILE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ecs-gpu").into())
}

/// Runs `ecs-gpu args` in `dir` under the memory limit, killed after `limit`.
fn run_limited(dir: &Path, args: &[&str], limit: Duration, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!("--as={MEMORY}"))
        .arg("--core=0")
        .arg("--")
        .arg(bin());
    run_command(cmd, dir, args, limit, env)
}

fn run_command(
    mut cmd: Command,
    dir: &Path,
    args: &[&str],
    limit: Duration,
    env: &[(&str, &str)],
) -> Run {
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .env("AWS_SESSION_TOKEN", SECRET)
        .env("TF_VAR_planted_secret", SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("prlimit and the binary run");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut total = 0;
            let mut buf = vec![0; 1 << 16];
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                total += n;
                if kept.len() < KEEP {
                    kept.extend_from_slice(&buf[..n]);
                }
            }
            (String::from_utf8_lossy(&kept).into_owned(), total)
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut timed_out = false;
    let mut peak_rss = 0;
    let status = loop {
        // `prlimit` execs the binary: the same process. Its high-water mark only grows, so the
        // last reading before it exits is its peak (but for the last few milliseconds).
        peak_rss = peak_rss.max(high_water_mark(child.id()));
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
    let took = start.elapsed();
    let (stdout, stdout_bytes) = out.join().unwrap();
    let (stderr, _) = err.join().unwrap();
    Run {
        code: status.code(),
        stdout,
        stderr,
        stdout_bytes,
        peak_rss,
        timed_out,
        took,
    }
}

/// A running process's peak resident memory in bytes (`VmHWM` in `/proc/PID/status`), 0 once it
/// has exited.
fn high_water_mark(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn run(dir: &Path, args: &[&str]) -> Run {
    run_limited(dir, args, Duration::from_secs(60), &[])
}

/// A fresh folder under the test target's temporary directory, readable by every user (the
/// unreadable-folder cases run the binary as `nobody`).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile")
        .join(name);
    if dir.exists() {
        let _ = Command::new("chmod")
            .arg("-R")
            .arg("u+rwx")
            .arg(&dir)
            .status();
        let _ = std::fs::remove_dir_all(&dir);
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// A GPU task definition whose container has this name (a Terraform string literal's content).
fn gpu_task(name_literal: &str) -> String {
    format!(
        r#"resource "aws_ecs_task_definition" "app" {{
  family                   = "app"
  requires_compatibilities = ["FARGATE"]
  container_definitions = jsonencode([{{
    name                 = "{name_literal}"
    image                = "nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    environment          = [{{ name = "NVIDIA_DRIVER_CAPABILITIES", value = "utility" }}]
    resourceRequirements = [{{ type = "GPU", value = "1" }}]
  }}])
}}
"#
    )
}

const FORGED: &str = "x/main.tf:1:1: error GPU101 gpu-task-on-fargate: FORGED";

// ---------------------------------------------------------------------------------------------
// 30.8: control characters never reach the terminal or a line-oriented format raw.

/// A container named "ok\nx/main.tf:1:1: error GPU101 ...: FORGED" with terminal escape
/// sequences forges no line and sends no escape sequence, in every format.
#[test]
fn a_hostile_container_name_forges_no_finding_in_any_format() {
    let dir = scratch("forged-name");
    write(
        &dir,
        "main.tf",
        &gpu_task(&format!(
            "ok\\n{FORGED}\\r\\u001b[31mred\\u001b]0;title\\u0007\\u202e"
        )),
    );
    for format in ["human", "github", "gitlab", "json", "sarif"] {
        let r = run(&dir, &["check", ".", "--format", format]);
        r.assert_sane();
        assert_eq!(r.code(), 1, "{format}: {}", r.stderr);
        for line in r.stdout.lines() {
            assert!(!line.contains(&format!("\n{FORGED}")));
            assert!(
                !line.starts_with("x/main.tf"),
                "{format}: forged line {line:?}"
            );
            assert!(
                !line.starts_with("::error file=x/main.tf"),
                "{format}: {line:?}"
            );
        }
        if format != "json" && format != "sarif" {
            // JSON escapes the control characters itself; a reader decodes them back.
            assert!(!r.stdout.contains('\u{7}') && !r.stdout.contains('\u{202e}'));
            assert!(r.stdout.contains("\\u{1b}[31m"), "{format}: {}", r.stdout);
        }
    }
}

/// A file whose name holds a newline and a forged finding, and does not parse: the problem line
/// on stderr is one line, with the name escaped.
#[test]
fn a_hostile_file_name_forges_no_line_on_stderr() {
    let dir = scratch("forged-file");
    write(&dir, &format!("a\n{FORGED}\u{1b}[2J.tf"), "resource {\n");
    let r = run(&dir, &["check", "."]);
    r.assert_refused("a\\nx/main.tf:1:1");
    assert!(
        !r.stderr.lines().any(|l| l.starts_with(FORGED)),
        "{}",
        r.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// 30.2 and 30.3: the human format is linear in findings and bounded in size.

/// One line of `jsonencode` holding `containers` GPU containers, each a finding on that line.
fn one_line_jsonencode(containers: usize, pad: usize) -> String {
    let items: Vec<String> = (0..containers)
        .map(|i| {
            format!(
                r#"{{ name = "c{i}", image = "example/app:1", environment = [{{ name = "PAD", value = "{}" }}], resourceRequirements = [{{ type = "GPU", value = "1" }}] }}"#,
                "p".repeat(pad)
            )
        })
        .collect();
    format!(
        "resource \"aws_ecs_task_definition\" \"app\" {{\n  family = \"app\"\n  requires_compatibilities = [\"EC2\"]\n  container_definitions = jsonencode([{}])\n}}\n",
        items.join(", ")
    )
}

/// 368 KB of one-line `jsonencode` used to print the whole line for each finding (4.4 GB): the
/// human output now shows a window of the line per finding.
#[test]
fn a_one_line_jsonencode_of_368_kb_gives_bounded_human_output() {
    let dir = scratch("one-line-jsonencode");
    let text = one_line_jsonencode(2_000, 60);
    assert!(text.len() > 300_000, "{}", text.len());
    write(&dir, "main.tf", &text);
    let r = run(&dir, &["check", ".", "--fail-on", "error"]);
    r.assert_sane();
    assert_eq!(r.code(), 0, "{}", r.stderr);
    assert!(
        r.stdout.matches("info GPU105").count() >= 1_000,
        "{}",
        r.stdout.chars().take(2000).collect::<String>()
    );
    assert!(
        r.stdout_bytes < 9 << 20,
        "{} bytes of output",
        r.stdout_bytes
    );
    assert!(r.stdout.lines().all(|l| l.chars().count() < 1_200));
}

/// A minified 120 KB task-definition JSON with 50 containers gave 18 MB of human output.
#[test]
fn a_minified_task_definition_of_120_kb_gives_bounded_human_output() {
    let dir = scratch("minified-taskdef");
    let containers: Vec<String> = (0..50)
        .map(|i| {
            format!(
                r#"{{"name":"c{i}","image":"nvidia/cuda:12","environment":[{{"name":"PAD","value":"{}"}}],"resourceRequirements":[{{"type":"GPU","value":"1"}}]}}"#,
                "p".repeat(2_300)
            )
        })
        .collect();
    let text = format!(
        r#"{{"family":"app","requiresCompatibilities":["FARGATE"],"containerDefinitions":[{}]}}"#,
        containers.join(",")
    );
    assert!(text.len() > 110_000);
    write(&dir, "taskdef.json", &text);
    let r = run(&dir, &["check", "taskdef.json"]);
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("GPU101"),
        "{}",
        &r.stdout[..r.stdout.len().min(2000)]
    );
    assert!(
        r.stdout_bytes < 200_000,
        "{} bytes of output",
        r.stdout_bytes
    );
}

/// Many findings in one big file: the human format used to walk the file from its start for
/// each excerpt (54 s for 8 MB against 0.5 s in JSON). Bounded here by the time limit, which the
/// quadratic walk exceeded by far on this input.
#[test]
fn many_findings_in_one_big_file_take_about_the_time_of_json() {
    let dir = scratch("many-findings");
    let blocks: String = (0..3_000)
        .map(|i| gpu_task(&format!("c{i}")).replace("\"app\"", &format!("\"app{i}\"")))
        .collect();
    write(&dir, "main.tf", &blocks);
    let json = run(&dir, &["check", ".", "--format", "json"]);
    let human = run(&dir, &["check", "."]);
    for r in [&json, &human] {
        r.assert_sane();
        assert_eq!(r.code(), 1, "{}", r.stderr);
    }
    assert!(human.stdout.matches("error GPU101").count() >= 3_000);
    assert!(
        human.took < json.took * 4 + Duration::from_secs(5),
        "human {:?}, json {:?}",
        human.took,
        json.took
    );
}

// ---------------------------------------------------------------------------------------------
// 30.5: every reader refuses special files and huge files.

/// An object with many distinct keys: each key used to be compared with every earlier one, so a
/// 3 MB task definition with 200,000 Docker labels ran for minutes. Now it takes about as long as
/// reading it.
#[test]
fn an_object_with_200_000_keys_is_checked_in_linear_time() {
    let dir = scratch("many-keys");
    let labels: Vec<String> = (0..200_000).map(|i| format!(r#""k{i}":"v""#)).collect();
    let text = format!(
        r#"{{"family":"app","requiresCompatibilities":["EC2"],"containerDefinitions":[{{"name":"a","image":"nvcr.io/nvidia/tritonserver:24.01-py3","memory":1024,"dockerLabels":{{{}}},"resourceRequirements":[{{"type":"GPU","value":"1"}}]}}]}}"#,
        labels.join(",")
    );
    write(&dir, "taskdef.json", &text);
    let r = run_limited(
        &dir,
        &["check", "taskdef.json"],
        Duration::from_secs(30),
        &[],
    );
    r.assert_sane();
    assert!(!r.timed_out, "still running after {:?}", r.took);
    assert_eq!(r.code(), 0, "{}", r.stderr);
    assert!(r.stdout.contains("in 1 file"), "{}", r.stdout);
}

/// `check --config /dev/zero` read without end (6.3 GB).
#[test]
fn config_from_dev_zero_is_refused_at_once() {
    let dir = scratch("config-dev-zero");
    write(&dir, "main.tf", &gpu_task("app"));
    let r = run(&dir, &["check", ".", "--config", "/dev/zero"]);
    r.assert_refused("/dev/zero: not a regular file: a device");
    assert!(r.took < Duration::from_secs(20));
}

/// A FIFO as the configuration would block forever.
#[test]
fn config_from_a_fifo_is_refused_without_blocking() {
    let dir = scratch("config-fifo");
    write(&dir, "main.tf", &gpu_task("app"));
    mkfifo(&dir.join("cfg.toml"));
    let r = run(&dir, &["check", ".", "--config", "cfg.toml"]);
    r.assert_refused("cfg.toml: not a regular file: a FIFO or pipe");
}

/// A configuration file above the size limit is refused, not read.
#[test]
fn a_huge_config_file_is_refused() {
    let dir = scratch("config-huge");
    write(&dir, "main.tf", &gpu_task("app"));
    let f = std::fs::File::create(dir.join("big.toml")).unwrap();
    f.set_len(64 << 20).unwrap();
    let r = run(&dir, &["check", ".", "--config", "big.toml"]);
    r.assert_refused("file too large");
}

// ---------------------------------------------------------------------------------------------
// 30.9 and 29.9: unreadable or unhandled input is a problem with its place, never "0 files".

/// A FIFO, a device, a path longer than PATH_MAX and a file `check` does not read
/// (`taskdef.json.tpl`), each named alone: exit 2 and the cause.
#[test]
fn a_path_that_yields_nothing_checkable_exits_2_with_its_cause() {
    let dir = scratch("nothing-checkable");
    mkfifo(&dir.join("fifo.tf"));
    write(&dir, "taskdef.json.tpl", "{\"containerDefinitions\": []}");
    write(&dir, "prod.tfvars", "x = 1\n");
    let long = format!("{}x.tf", "a/".repeat(2_100));
    for (path, want) in [
        (
            "fifo.tf",
            "fifo.tf: not checked: not a regular file or folder: a FIFO or pipe",
        ),
        (
            "/dev/zero",
            "/dev/zero: not checked: not a regular file or folder: a device",
        ),
        (long.as_str(), "File name too long"),
        (
            "taskdef.json.tpl",
            "taskdef.json.tpl: not checked: not a Terraform",
        ),
        (
            "prod.tfvars",
            "prod.tfvars: not checked: a variable file is given with `--var-file`",
        ),
    ] {
        let r = run(&dir, &["check", path]);
        r.assert_refused(want);
        assert!(r.stderr.contains("nothing was checked"), "{}", r.stderr);
    }
}

/// A file `check` does not read, named beside one it reads: the other is checked, and the
/// skipped one is said.
#[test]
fn a_skipped_file_is_said_and_the_rest_is_checked() {
    let dir = scratch("skipped-beside");
    write(&dir, "main.tf", &gpu_task("app"));
    write(&dir, "taskdef.json.tpl", "{}");
    let r = run(&dir, &["check", "main.tf", "taskdef.json.tpl"]);
    r.assert_refused("taskdef.json.tpl: not checked");
    assert!(r.stdout.contains("GPU101"), "{}", r.stdout);
}

/// Runs as `nobody` when the tests run as root (root reads a mode-000 folder); `None` when that
/// is not possible.
fn as_unprivileged(dir: &Path, args: &[&str]) -> Option<Run> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    let root = String::from_utf8_lossy(&uid.stdout).trim() == "0";
    if !root {
        return Some(run(dir, args));
    }
    let setpriv = Command::new("setpriv").arg("--version").output();
    if !setpriv.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg("prlimit")
        .arg(format!("--as={MEMORY}"))
        .arg("--")
        .arg(bin());
    Some(run_command(cmd, dir, args, Duration::from_secs(60), &[]))
}

/// A mode-000 folder gave "0 files" and exit 0; inside a larger tree it was skipped silently.
/// Now it is a problem with its place: exit 2, the readable rest still checked.
#[test]
#[allow(clippy::print_stderr, reason = "a skipped case says so")]
fn a_locked_folder_is_reported_alone_and_inside_a_tree() {
    let dir = scratch("locked");
    write(&dir, "tree/ok/main.tf", &gpu_task("app"));
    write(&dir, "tree/locked/main.tf", &gpu_task("app"));
    let locked = dir.join("tree/locked");
    let chmod = |mode: &str| {
        assert!(Command::new("chmod")
            .arg(mode)
            .arg(&locked)
            .status()
            .unwrap()
            .success());
    };
    chmod("000");
    let alone = as_unprivileged(&dir, &["check", "tree/locked"]);
    let tree = as_unprivileged(&dir, &["check", "tree", "--format", "json"]);
    chmod("755");
    let (Some(alone), Some(tree)) = (alone, tree) else {
        eprintln!("skipped: running as root without setpriv, a mode-000 folder is readable");
        return;
    };
    alone.assert_refused("tree/locked: cannot read: Permission denied");
    assert!(
        alone.stderr.contains("nothing was checked"),
        "{}",
        alone.stderr
    );
    tree.assert_refused("tree/locked: cannot read: Permission denied");
    assert!(tree.stdout.contains("tree/ok/main.tf"), "{}", tree.stdout);
    assert!(tree.stdout.contains("\"problems\"") || tree.stdout.contains("GPU101"));
}

// ---------------------------------------------------------------------------------------------
// 30.13: one line with the real cause.

/// A TOML error spanned 11 to 13 lines and was printed twice.
#[test]
fn a_toml_error_is_one_line_with_its_place() {
    let dir = scratch("toml-error");
    write(&dir, "main.tf", &gpu_task("app"));
    write(&dir, "bad.toml", "ignore = []\nselect = [1 2]\n");
    let r = run(&dir, &["check", ".", "--config", "bad.toml"]);
    r.assert_refused("bad.toml:2:13: invalid array, expected `]`");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}

/// `--var-file` said "no such file" for a folder, a FIFO and a process substitution.
#[test]
fn a_var_file_that_is_not_a_file_says_what_it_is() {
    let dir = scratch("var-file");
    write(&dir, "main.tf", &gpu_task("app"));
    std::fs::create_dir_all(dir.join("vars")).unwrap();
    mkfifo(&dir.join("vars.fifo"));
    for (arg, want) in [
        ("vars", "--var-file vars: not a regular file: a folder"),
        (
            "vars.fifo",
            "--var-file vars.fifo: not a regular file: a FIFO or pipe (a process substitution",
        ),
        (
            "/dev/zero",
            "--var-file /dev/zero: not a regular file: a device",
        ),
        ("missing.tfvars", "--var-file missing.tfvars: no such file"),
    ] {
        let r = run(&dir, &["check", ".", "--var-file", arg]);
        r.assert_refused(want);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// Cases fixed on other lanes: un-ignore them once merged.

/// 30.1: nine lines that copied a 10 MB string per list element passed 16 GB.
#[test]
fn a_memory_bomb_in_evaluation_stays_within_the_budget() {
    let dir = scratch("memory-bomb");
    let text = r#"locals {
  a = "xxxxxxxxxx"
  b = join("", [for i in range(1000) : local.a])
  c = join("", [for i in range(1000) : local.b])
  d = [for i in range(1000) : local.c]
}
resource "aws_ecs_task_definition" "app" {
  count  = length(local.d) > 5 ? 1 : 0
  family = "app"
  container_definitions = jsonencode([{ name = "app", image = "x", resourceRequirements = [{ type = "GPU", value = "1" }] }])
}
"#;
    write(&dir, "main.tf", text);
    let r = run(&dir, &["check", ".", "--format", "json"]);
    r.assert_sane();
    assert!(matches!(r.code(), 0 | 1), "{}", r.stderr);
    // Shared strings hold the 10 MB text once: far below the evaluation budget, let alone 16 GB.
    assert!(
        r.peak_rss > 0 && r.peak_rss <= 512 << 20,
        "peak {} bytes",
        r.peak_rss
    );
}

/// 30.1: a 31 MiB file of `[{a=1},{a=1},…]` took 6.15 GB: its syntax tree was some 64 times its
/// size. The tree is now charged to a budget as it is built, and past it the file is refused
/// with its place, whatever the run of tiny nodes is made of (objects, comments, heredoc lines,
/// an operator chain), within ten times the file's size.
#[test]
fn a_huge_list_literal_stays_within_ten_times_its_size() {
    let dir = scratch("huge-list");
    let n = 5 << 20;
    for (shape, text) in [
        (
            "objects",
            format!("locals {{\n  x = [{}]\n}}\n", "{a=1},".repeat(n)),
        ),
        ("comments", "#\n".repeat(3 * n)),
        (
            "heredoc",
            format!("locals {{\n  x = <<EOT\n{}EOT\n}}\n", "\n".repeat(6 * n)),
        ),
        (
            "chain",
            format!("locals {{\n  x = 1{}\n}}\n", "+1".repeat(3 * n)),
        ),
    ] {
        let sub = dir.join(shape);
        write(&sub, "main.tf", &text);
        let r = run(&sub, &["check", "."]);
        r.assert_refused("main.tf:");
        assert!(
            r.stderr.contains("syntax tree over its memory budget"),
            "{shape}: {}",
            r.stderr
        );
        let limit = 10 * text.len() as u64;
        assert!(
            r.peak_rss > 0 && r.peak_rss <= limit,
            "{shape}: peak {} bytes, over ten times the file ({} bytes)",
            r.peak_rss,
            text.len()
        );
    }
}

/// 30: a 28 MB minified task definition with a million environment entries took 1.42 GB, 51
/// times its size: the JSON tree stayed whole beside the values built from it. The tree is now
/// charged to a budget and consumed as the values are built: the dense file is refused with its
/// place, and a file just inside the budget is checked, each within ten times its size (plus the
/// budget's fixed 16 MiB and the process's own base).
#[test]
fn a_dense_json_task_definition_stays_within_ten_times_its_size() {
    let dir = scratch("dense-json");
    let task = |entries: usize, pad: &str| {
        let env: Vec<String> = (0..entries)
            .map(|i| format!(r#"{{"name":"K{}","value":"{pad}"}}"#, i % 1000))
            .collect();
        format!(
            r#"{{"family":"x","containerDefinitions":[{{"name":"c","image":"nvidia/cuda:12","environment":[{}],"resourceRequirements":[{{"type":"GPU","value":"1"}}]}}]}}"#,
            env.join(",")
        )
    };
    for (shape, text, refused) in [
        ("tiny", task(1_000_000, "1"), true),
        ("padded", task(350_000, &"x".repeat(60)), false),
    ] {
        let sub = dir.join(shape);
        write(&sub, "taskdef.json", &text);
        let r = run(&sub, &["check", "taskdef.json"]);
        if refused {
            r.assert_refused("taskdef.json:1:");
            assert!(
                r.stderr.contains("syntax tree over its memory budget"),
                "{shape}: {}",
                r.stderr
            );
        } else {
            r.assert_sane();
            assert_eq!(r.code(), 0, "{shape}: {}", r.stderr);
        }
        let limit = 10 * text.len() as u64 + (64 << 20);
        assert!(
            r.peak_rss > 0 && r.peak_rss <= limit,
            "{shape}: peak {} bytes, over ten times the file ({} bytes) plus 64 MiB",
            r.peak_rss,
            text.len()
        );
    }
}

/// 30.7: a sensitive variable used as the GPU value was printed in every format.
#[test]
fn a_sensitive_value_is_printed_in_no_format() {
    let dir = scratch("sensitive");
    let text = format!(
        "variable \"gpus\" {{\n  type      = string\n  sensitive = true\n  default   = \"{SECRET}\"\n}}\n{}",
        gpu_task("app").replace("value = \"1\"", "value = var.gpus")
    );
    write(&dir, "main.tf", &text);
    write(&dir, "s.tfvars", &format!("gpus = \"x{SECRET}\"\n"));
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run(
            &dir,
            &["check", ".", "--format", format, "--var-file", "s.tfvars"],
        );
        r.assert_sane();
        let r = run(
            &dir,
            &[
                "check",
                ".",
                "--format",
                format,
                "--var",
                &format!("gpus=y{SECRET}"),
            ],
        );
        r.assert_sane();
    }
}

/// 30.7: a value computed from a sensitive one through a `for` expression (its collection's keys,
/// its condition), selected by a sensitive key (`local.m[var.secret_key]`) or marked by
/// `sensitive(...)` is sensitive, as Terraform marks it: a message says `(sensitive)` and never
/// the value, in every format.
#[test]
fn a_value_derived_through_for_or_a_sensitive_key_is_printed_in_no_format() {
    let dir = scratch("sensitive-derived");
    let task = |name: &str, value: &str| {
        format!(
            "resource \"aws_ecs_task_definition\" \"{name}\" {{\n  family = \"{name}\"\n  \
             container_definitions = jsonencode([{{ name = \"a\", image = \"i\", \
             resourceRequirements = [{{ type = \"GPU\", value = {value} }}] }}])\n}}\n"
        )
    };
    let text = [
        format!(
            "variable \"secret_map\" {{\n  type = map(number)\n  sensitive = true\n  \
             default = {{ \"{SECRET}\" = 1 }}\n}}\n"
        ),
        "variable \"secret_pick\" {\n  type = string\n  sensitive = true\n  default = \"2x\"\n}\n"
            .to_string(),
        "variable \"secret_key\" {\n  type = string\n  sensitive = true\n  default = \"b\"\n}\n"
            .to_string(),
        "locals {\n  built = { for k in [\"a\", \"b\"] : k => \"x${k}zz\" }\n  \
         literal = {\n    a = \"1\"\n    b = \"yy-b\"\n  }\n}\n"
            .to_string(),
        task("keys", "[for k, v in var.secret_map : k][0]"),
        task(
            "cond",
            "[for g in [\"1x\", \"2x\"] : \"p${g}q\" if g == var.secret_pick][0]",
        ),
        task("built", "local.built[var.secret_key]"),
        task("literal", "local.literal[var.secret_key]"),
        task("function", "sensitive(\"9z\")"),
    ]
    .concat();
    write(&dir, "main.tf", &text);
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run(&dir, &["check", ".", "--format", format]);
        r.assert_sane();
        assert_eq!(r.code(), 1, "{format}: {}", r.stderr);
        assert_eq!(
            r.stdout.matches("(sensitive)").count(),
            5,
            "{format}: {}",
            r.stdout
        );
        for shown in ["p2xq", "xbzz", "yy-b", "value `9z`"] {
            assert!(
                !r.stdout.contains(shown),
                "{format}: {shown} in {}",
                r.stdout
            );
        }
    }
}

/// 30.5: `file()` checked the path, then read it again by path: a FIFO would block, a file swapped
/// after the check would be read whole. It now opens the file once, checks that handle (a
/// regular file, within the size limit) and reads through it, bounded; a file it cannot read is
/// one problem with its name. `/dev/zero`, named or behind a link, is outside the checked tree
/// and not read.
#[test]
fn a_file_call_on_a_fifo_a_huge_file_or_dev_zero_is_refused_without_hanging() {
    let dir = scratch("file-call");
    mkfifo(&dir.join("pipe.txt"));
    let big = std::fs::File::create(dir.join("big.txt")).unwrap();
    big.set_len((32 << 20) + 1).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
    let task = |path: &str| {
        format!(
            "resource \"aws_ecs_task_definition\" \"app\" {{\n  family = \"app\"\n  \
             container_definitions = jsonencode([{{ name = \"app\", image = file(\"{path}\"), \
             resourceRequirements = [{{ type = \"GPU\", value = \"1\" }}] }}])\n}}\n"
        )
    };
    let limit = Duration::from_secs(30);
    for (path, refused) in [
        (
            "pipe.txt",
            Some("pipe.txt: not a regular file: a FIFO or pipe"),
        ),
        ("big.txt", Some("big.txt: file too large (33554433 bytes)")),
        ("zero", None),
        ("/dev/zero", None),
    ] {
        write(&dir, "main.tf", &task(path));
        let r = run_limited(&dir, &["check", "."], limit, &[]);
        match refused {
            Some(want) => r.assert_refused(want),
            None => {
                r.assert_sane();
                assert_eq!(r.code(), 0, "{path}: {}", r.stderr);
                assert!(
                    r.stdout
                        .contains("is outside the checked folders and is not read"),
                    "{path}: {}",
                    r.stdout
                );
            }
        }
    }
}

/// 30.10: a flat chain of 300 `+` terms is valid Terraform, not "nesting too deep".
#[test]
fn a_chain_of_300_plus_terms_is_not_too_deep() {
    let dir = scratch("plus-chain");
    let chain = vec!["1"; 300].join(" + ");
    write(&dir, "main.tf", &format!("locals {{\n  n = {chain}\n}}\n"));
    let r = run(&dir, &["check", "."]);
    r.assert_sane();
    assert_eq!(r.code(), 0, "{}", r.stderr);
}

/// 30.14: `count` above the instance limit made a resource unknown without a word.
#[test]
fn a_count_above_the_instance_limit_is_said() {
    let dir = scratch("count-limit");
    let text = gpu_task("app").replace("family", "count = 5000\n  family");
    write(&dir, "main.tf", &text);
    let r = run(&dir, &["check", ".", "--format", "json"]);
    r.assert_sane();
    assert!(
        r.stdout.contains("main.tf") && r.stdout.contains("1000"),
        "{}",
        r.stdout
    );
}

/// 30.4: `diagnose --timeout 18446744073709551615` overflowed when added to the instant.
#[test]
#[cfg(feature = "live")]
fn a_huge_diagnose_timeout_does_not_panic() {
    let dir = scratch("diagnose-timeout");
    let r = run_limited(
        &dir,
        &[
            "diagnose",
            "--cluster",
            "c",
            "--service",
            "s",
            "--region",
            "us-east-1",
            "--endpoint-url",
            "http://127.0.0.1:9",
            "--timeout",
            "18446744073709551615",
        ],
        Duration::from_secs(60),
        &[("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")],
    );
    r.assert_sane();
    assert_eq!(r.code(), 2, "{}", r.stderr);
}

/// 30.4: an `AWS_ACCESS_KEY_ID` ending in `\r` panicked in the SDK's header code.
#[test]
#[cfg(feature = "live")]
fn a_carriage_return_in_the_access_key_is_named_not_printed() {
    let dir = scratch("diagnose-cr");
    let r = run_limited(
        &dir,
        &[
            "diagnose",
            "--cluster",
            "c",
            "--service",
            "s",
            "--region",
            "us-east-1",
            "--endpoint-url",
            "http://127.0.0.1:9",
        ],
        Duration::from_secs(60),
        &[("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE\r")],
    );
    r.assert_refused("AWS_ACCESS_KEY_ID");
    assert!(!r.stderr.contains("AKIAIOSFODNN7EXAMPLE"), "{}", r.stderr);
}

/// 30.6: an endpoint answering 200 with an endless chunked body drove memory to 7.5 GB.
#[test]
#[cfg(feature = "live")]
fn an_endless_response_body_is_cut() {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut s = stream;
                let mut buf = [0; 4096];
                let _ = s.read(&mut buf);
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                );
                let chunk = format!("10000\r\n{}\r\n", "[".repeat(0x10000));
                while s.write_all(chunk.as_bytes()).is_ok() {}
            });
        }
    });
    let dir = scratch("endless-body");
    let url = format!("http://127.0.0.1:{port}");
    let r = run_limited(
        &dir,
        &[
            "diagnose",
            "--cluster",
            "c",
            "--service",
            "s",
            "--region",
            "us-east-1",
            "--endpoint-url",
            &url,
            "--timeout",
            "20",
        ],
        Duration::from_secs(60),
        &[("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")],
    );
    r.assert_sane();
    assert_eq!(r.code(), 2, "{}", r.stderr);
}

/// 30.11: a resource change whose `actions` is a string was dropped, exit 0.
#[test]
fn a_wrong_shape_plan_is_an_error() {
    let dir = scratch("wrong-plan");
    let plan = r#"{"format_version":"1.2","terraform_version":"1.9.0","resource_changes":[{"address":"aws_ecs_service.app","mode":"managed","type":"aws_ecs_service","name":"app","change":{"actions":"update","before":{},"after":{}}}]}"#;
    write(&dir, "plan.json", plan);
    let r = run(&dir, &["plan", "plan.json"]);
    r.assert_refused("aws_ecs_service.app");
}

// ---------------------------------------------------------------------------------------------
// Round two: values Terraform hides, ignore files, quadratic paths, budgets, flags.

/// A task definition named `name` (a Terraform identifier) on Fargate, whose one container is
/// written by `container` (an HCL object expression or a whole `container_definitions` value when
/// `whole` is set).
fn fargate_task(name: &str, containers: &str) -> String {
    format!(
        "resource \"aws_ecs_task_definition\" \"{name}\" {{\n  family = \"{name}\"\n  \
         requires_compatibilities = [\"FARGATE\"]\n  container_definitions = {containers}\n}}\n"
    )
}

/// A value Terraform hides reached messages, addresses, keys and help: a child module's output
/// declared `sensitive` (one and two levels down, and a sensitive variable's default passed up),
/// a sensitive variable given whole as `container_definitions` (a list and a JSON string), a
/// heredoc and a `templatefile` with a sensitive interpolation (sensitive as a whole), a repeated
/// key written `"${var.token}"`, `for_each` keys from a sensitive set or a `for` over one (which
/// Terraform refuses: the instances are unknown, no key is printed), and a sensitive path of a
/// `file()` outside the checked folders. Every format says `(sensitive)`, never the value.
#[test]
fn a_sensitive_value_through_modules_templates_keys_and_paths_is_printed_in_no_format() {
    let dir = scratch("sensitive-flows");
    let outside = scratch("sensitive-flows-outside");
    let secret_file = write(&outside, &format!("{SECRET}.txt"), "nvidia/cuda:12\n");
    let gpu_container = |name: &str, caps: &str, gpus: &str| {
        format!(
            "{{ name = {name}, image = \"nvidia/cuda:12\", environment = [{{ name = \"NVIDIA_DRIVER_CAPABILITIES\", value = {caps} }}], resourceRequirements = [{{ type = \"GPU\", value = {gpus} }}] }}"
        )
    };
    let json_container = |name: &str, caps: &str, gpus: &str| {
        format!(
            r#"[{{"name":"{name}","image":"i","environment":[{{"name":"NVIDIA_DRIVER_CAPABILITIES","value":"{caps}"}}],"resourceRequirements":[{{"type":"GPU","value":"{gpus}"}}]}}]"#
        )
    };
    let main = [
        format!(
            "variable \"token\" {{\n  sensitive = true\n  default = \"{SECRET}-token\"\n}}\n\
             variable \"containers\" {{\n  sensitive = true\n  default = [{}]\n}}\n\
             variable \"json\" {{\n  sensitive = true\n  default = {:?}\n}}\n\
             variable \"names\" {{\n  sensitive = true\n  type = set(string)\n  default = [\"{SECRET}-key\"]\n}}\n\
             variable \"path\" {{\n  sensitive = true\n  default = {:?}\n}}\n",
            gpu_container(
                &format!("\"{SECRET}-n2\""),
                &format!("\"{SECRET}-c2\""),
                &format!("\"{SECRET}-g2\"")
            ),
            json_container(&format!("{SECRET}-n3"), &format!("{SECRET}-c3"), &format!("{SECRET}-g3")),
            secret_file.display().to_string(),
        ),
        "module \"m\" {\n  source = \"./m\"\n}\n".to_string(),
        fargate_task(
            "outputs",
            &format!(
                "jsonencode([{}])",
                gpu_container("module.m.name", "module.m.caps", "module.m.inner")
            ),
        ),
        fargate_task("list", "jsonencode(var.containers)"),
        fargate_task("string", "var.json"),
        // The literal text of a template is source code, which an excerpt may show; what a
        // message quotes of the value is checked below.
        fargate_task(
            "heredoc",
            &format!(
                "<<JSON\n{}\nJSON",
                json_container("hd-n4 ${var.token}", "hd-c4", "hd-g4")
            ),
        ),
        fargate_task(
            "templated",
            "templatefile(\"${path.module}/task.json.tpl\", { token = var.token })",
        ),
        fargate_task(
            "keys",
            "jsonencode([{ name = \"k\", image = \"i\", dockerLabels = { \"${var.token}\" = \"1\", \"${var.token}\" = \"2\" }, resourceRequirements = [{ type = \"GPU\", value = \"1\" }] }])",
        ),
        fargate_task(
            "each",
            "jsonencode([{ name = \"e\", image = \"i\", resourceRequirements = [{ type = \"GPU\", value = \"1\" }] }])",
        )
        .replace("family", "for_each = var.names\n  family"),
        fargate_task(
            "each_for",
            "jsonencode([{ name = \"f\", image = \"i\", resourceRequirements = [{ type = \"GPU\", value = \"1\" }] }])",
        )
        .replace("family", "for_each = { for n in var.names : n => n }\n  family"),
        fargate_task(
            "path",
            "jsonencode([{ name = \"p\", image = file(var.path), resourceRequirements = [{ type = \"GPU\", value = \"1\" }] }])",
        ),
    ]
    .concat();
    write(&dir, "main.tf", &main);
    write(
        &dir,
        "task.json.tpl",
        &json_container("hd-n5 ${token}", "hd-c5", "hd-g5"),
    );
    write(
        &dir,
        "m/main.tf",
        &format!(
            "variable \"v\" {{\n  sensitive = true\n  default = \"{SECRET}-v1\"\n}}\n\
             module \"inner\" {{\n  source = \"./inner\"\n}}\n\
             output \"name\" {{\n  value = \"{SECRET}-n1\"\n  sensitive = true\n}}\n\
             output \"caps\" {{\n  value = var.v\n}}\n\
             output \"inner\" {{\n  value = module.inner.gpus\n}}\n"
        ),
    );
    write(
        &dir,
        "m/inner/main.tf",
        &format!("output \"gpus\" {{\n  value = \"{SECRET}-g1\"\n  sensitive = true\n}}\n"),
    );
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run(&dir, &["check", ".", "--format", format]);
        r.assert_sane();
        assert_eq!(r.code(), 1, "{format}: {}", r.stderr);
        assert!(r.stdout.contains("(sensitive)"), "{format}: {}", r.stdout);
        // Every task definition still gets its finding: hiding a value hides no defect.
        for name in [
            "outputs",
            "list",
            "string",
            "heredoc",
            "templated",
            "keys",
            "path",
        ] {
            assert!(
                r.stdout
                    .contains(&format!("aws_ecs_task_definition.{name}")),
                "{format}: {name} in {}",
                r.stdout
            );
        }
        // A template with a sensitive interpolation is sensitive as a whole: its literal parts
        // are not quoted either (only the human format shows source lines).
        if format != "human" {
            for part in ["hd-n4", "hd-c4", "hd-g4", "hd-n5", "hd-c5", "hd-g5"] {
                assert!(!r.stdout.contains(part), "{format}: {part} in {}", r.stdout);
            }
        }
    }
}

/// An `ephemeral = true` variable's value (Terraform never writes it to a plan or state) was
/// printed: it shows as `(ephemeral)`.
#[test]
fn an_ephemeral_value_is_printed_as_ephemeral() {
    let dir = scratch("ephemeral");
    let text = format!(
        "variable \"gpus\" {{\n  ephemeral = true\n  default = \"{SECRET}\"\n}}\n{}",
        gpu_task("app").replace("value = \"1\"", "value = var.gpus")
    );
    write(&dir, "main.tf", &text);
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run(&dir, &["check", ".", "--format", format]);
        r.assert_sane();
        assert_eq!(r.code(), 1, "{format}: {}", r.stderr);
        assert!(r.stdout.contains("(ephemeral)"), "{format}: {}", r.stdout);
    }
}

/// `.gitignore` and `.git/info/exclude`, here and in the folder above, were read with a plain
/// open and an unbounded read: a FIFO hung `check`, a link to `/dev/zero` filled memory. They are
/// read as every file is: each is a problem with what it is, and everything is still checked.
#[test]
fn an_ignore_file_that_is_a_fifo_or_a_device_is_refused_without_hanging() {
    let dir = scratch("ignore-files");
    write(&dir, "tree/main.tf", &gpu_task("app"));
    std::fs::create_dir_all(dir.join("tree/.git/info")).unwrap();
    mkfifo(&dir.join("tree/.gitignore"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("tree/.git/info/exclude")).unwrap();
    mkfifo(&dir.join(".gitignore"));
    let r = run_limited(
        &dir,
        &["check", "tree", "--format", "json"],
        Duration::from_secs(60),
        &[],
    );
    r.assert_sane();
    assert_eq!(r.code(), 2, "{}", r.stderr);
    for want in [
        "tree/.gitignore: not a regular file: a FIFO or pipe",
        "tree/.git/info/exclude: not a regular file: a device",
        ".gitignore: not a regular file: a FIFO or pipe",
    ] {
        assert!(r.stderr.contains(want), "{want:?} not in {}", r.stderr);
    }
    assert!(r.stdout.contains("GPU101"), "{}", r.stdout);
    // An ordinary `.gitignore` still hides what it names.
    let ok = scratch("ignore-files-ok");
    write(&ok, "main.tf", &gpu_task("app"));
    write(&ok, "hidden/main.tf", &gpu_task("hidden"));
    write(&ok, ".gitignore", "hidden/\n");
    let r = run(&ok, &["check", ".", "--format", "json"]);
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    assert!(!r.stdout.contains("hidden/main.tf"), "{}", r.stdout);
}

/// A run of line comments was quadratic (each comment looked for the next line of code through
/// every comment after it): 100,000 lines took 44 s. The result is what it was; the time limit is
/// only a backstop.
#[test]
fn a_run_of_100_000_comment_lines_is_checked_in_linear_time() {
    let dir = scratch("comment-run");
    let text = format!(
        "{}# ecs-gpu:ignore GPU105 the toolkit default is meant\n{}",
        "# c\n".repeat(100_000),
        gpu_task("app")
    );
    write(&dir, "main.tf", &text);
    let r = run_limited(
        &dir,
        &["check", ".", "--format", "json"],
        Duration::from_secs(60),
        &[],
    );
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    // The suppression above the block after the run applies to it.
    assert!(r.stdout.contains("GPU101"), "{}", r.stdout);
    assert!(!r.stdout.contains("GPU105"), "{}", r.stdout);
    assert!(!r.stdout.contains("GPU002"), "{}", r.stdout);
}

/// `distinct`, `toset`, `setunion`, `setintersection`, `setsubtract`, `zipmap`, `{for ...}`
/// objects and `merge` compared each element with every other: 100,000 elements took 29 s. Each
/// result here is checked through the GPU value it makes; the time limit is only a backstop.
#[test]
fn collection_functions_over_100_000_elements_are_not_quadratic() {
    let dir = scratch("collections");
    // 100,000 strings, 50,000 of them distinct, and the 25,000 even ones of those.
    let mut text = "locals {\n  \
        l = flatten([for i in range(100) : [for j in range(1000) : \"a${(i * 1000 + j) % 50000}\"]])\n  \
        h = flatten([for i in range(25) : [for j in range(1000) : \"a${2 * (i * 1000 + j)}\"]])\n  \
        m = zipmap(local.l, local.l)\n}\n"
        .to_string();
    for (name, expr) in [
        ("distinct", "length(distinct(local.l))"),
        ("toset", "length(toset(local.l))"),
        ("union", "length(setunion(local.l, local.h))"),
        ("intersection", "length(setintersection(local.l, local.h))"),
        ("subtract", "length(setsubtract(local.l, local.h))"),
        ("zipmap", "length(local.m)"),
        ("for", "length({ for x in local.l : x => x... })"),
        ("merge", "length(merge(local.m, zipmap(local.h, local.h)))"),
    ] {
        text.push_str(&format!(
            "resource \"aws_ecs_task_definition\" \"{name}\" {{\n  family = \"{name}\"\n  \
             container_definitions = jsonencode([{{ name = \"{name}\", image = \"i\", \
             resourceRequirements = [{{ type = \"GPU\", value = \"n${{{expr}}}\" }}] }}])\n}}\n"
        ));
    }
    write(&dir, "main.tf", &text);
    let r = run_limited(
        &dir,
        &["check", ".", "--format", "json", "--select", "GPU103"],
        Duration::from_secs(120),
        &[],
    );
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    for (name, want) in [
        ("distinct", 50_000),
        ("toset", 50_000),
        ("union", 50_000),
        ("intersection", 25_000),
        ("subtract", 25_000),
        ("zipmap", 50_000),
        ("for", 50_000),
        ("merge", 50_000),
    ] {
        assert!(
            r.stdout
                .contains(&format!("the GPU value `n{want}` of container `{name}`")),
            "{name}: n{want} not in {}",
            r.stdout
        );
    }
}

/// Under 600 bytes: a resource with a `count` of `count`, each building 1,000 GPU containers in a
/// `for` (each container gets a GPU105 info).
fn amplification(count: u32) -> String {
    let text = format!(
        r#"resource "aws_ecs_task_definition" "app" {{
  count                    = {count}
  family                   = "app"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([for i in range(1000) : {{
    name                 = "c${{i}}"
    image                = "example/app:1"
    resourceRequirements = [{{ type = "GPU", value = "1" }}]
  }}])
}}
"#
    );
    assert!(text.len() < 600);
    text
}

/// 600 bytes of Terraform made 82 MB of JSON, SARIF, GitHub and GitLab output: a `for` over a
/// `range` builds a container per element, in a resource with a `count`. Each rule lists at most
/// 100 findings at one place and says how many more there are, in every format; the summary
/// still counts them all. The findings past the cap are counted, not built: every finding was
/// built first (about 2 KB each, 300 MB here, 2.6 GB for a `count` of 1000), so the run takes
/// about the memory of the same run with no finding.
#[test]
fn a_small_file_that_makes_100_000_findings_prints_a_bounded_report() {
    let dir = scratch("amplification");
    let text = &amplification(100);
    write(&dir, "main.tf", text);
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run_limited(
            &dir,
            &["check", ".", "--format", format],
            Duration::from_secs(300),
            &[],
        );
        r.assert_sane();
        assert_eq!(r.code(), 0, "{format}: {}", r.stderr);
        assert!(
            r.stdout_bytes < 1 << 20,
            "{format}: {} bytes of output",
            r.stdout_bytes
        );
        if format == "json" {
            assert!(r.stdout.contains("\"infos\": 100000"), "{}", r.stdout);
            assert!(r.stdout.contains("\"omitted\": 99900"), "{}", r.stdout);
        } else {
            assert!(
                r.stdout
                    .contains("99900 more findings of `GPU105` here are not listed"),
                "{format}: {}",
                &r.stdout[..r.stdout.len().min(3000)]
            );
        }
    }
    let peak = |select: &[&str]| {
        let mut args = vec!["check", ".", "--format", "sarif"];
        args.extend(select);
        let r = run_limited(&dir, &args, Duration::from_secs(300), &[]);
        r.assert_sane();
        assert_eq!(r.code(), 0, "{args:?}: {}", r.stderr);
        assert!(r.peak_rss > 0, "{args:?}: no peak read");
        r.peak_rss
    };
    // GPU101 (a GPU task on Fargate) finds nothing here: the model alone.
    let (all, none) = (peak(&[]), peak(&["--select", "GPU101"]));
    assert!(
        all <= none + none / 2 + (32 << 20),
        "peak {all} bytes with the findings, {none} bytes without"
    );
}

/// The syntax-tree budget was per file: 400 files of 100 KB of dense lists in one folder (41 MB)
/// took 3.5 GB, and 400 variable files 2.3 GB. The trees of a root module share one budget now,
/// and values of variable files are charged to the evaluation's: past it, a file is a problem
/// with its place, or a value is unknown, and memory stays near the size of the files.
#[test]
fn four_hundred_dense_files_in_one_folder_stay_within_memory() {
    let dir = scratch("dense-folder");
    let dense = |name: &str| format!("{name} = [{}1]\n", "1,".repeat(50_000));
    for i in 0..400 {
        write(
            &dir.join("tf"),
            &format!("f{i:03}.tf"),
            &format!("locals {{\n{}}}\n", dense(&format!("l{i}"))),
        );
        write(
            &dir.join("tfvars"),
            &format!("v{i:03}.auto.tfvars"),
            &dense(&format!("v{i}")),
        );
    }
    let decls: String = (0..400)
        .map(|i| format!("variable \"v{i}\" {{}}\n"))
        .collect();
    write(
        &dir.join("tfvars"),
        "main.tf",
        &format!("{decls}{}", gpu_task("app")),
    );
    let r = run(&dir.join("tf"), &["check", "."]);
    r.assert_sane();
    assert_eq!(r.code(), 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("syntax trees over their memory budget for one root module"),
        "{}",
        &r.stderr[..r.stderr.len().min(2000)]
    );
    let r2 = run(&dir.join("tfvars"), &["check", ".", "--format", "json"]);
    r2.assert_sane();
    assert_eq!(r2.code(), 2, "{}", r2.stderr);
    assert!(
        r2.stderr
            .contains("values over their memory budget for one root module"),
        "{}",
        &r2.stderr[..r2.stderr.len().min(2000)]
    );
    // The rest of the module is still checked.
    assert!(r2.stdout.contains("GPU101"), "{}", r2.stdout);
    for (r, what) in [(&r, "tf"), (&r2, "tfvars")] {
        assert!(
            r.peak_rss > 0 && r.peak_rss <= 768 << 20,
            "{what}: peak {} bytes",
            r.peak_rss
        );
    }
}

/// clap echoed an invalid flag value raw: a newline forged a line, an escape sequence reached
/// the terminal. Every command's flag values are escaped.
#[test]
fn an_invalid_flag_value_is_echoed_escaped() {
    let dir = scratch("flag-values");
    let value = format!("x\n{FORGED}\u{1b}[31m\u{202e}");
    for args in [
        vec!["check", ".", "--format", &value],
        vec!["check", ".", "--fail-on", &value],
        vec!["check", ".", "--color", &value],
        vec!["types", "--arch", &value],
        vec!["route", "--k8s", &value],
        vec!["route", "--ec2-lifecycle", &value],
        vec!["check", &value, "--no-such-flag"],
    ] {
        let r = run(&dir, &args);
        r.assert_sane();
        assert_eq!(r.code(), 2, "{args:?}: {}", r.stderr);
        assert!(
            !r.stderr.lines().any(|l| l.starts_with(FORGED)),
            "{args:?}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains('\u{202e}'), "{args:?}: {}", r.stderr);
    }
}

/// A `.tf.json` string whose template nests past the parser's limit was read as literal text,
/// which made a GPU value `${...}` that is not one. It is refused with the limit, as in HCL.
#[test]
fn a_tf_json_template_nested_past_the_limit_is_refused() {
    let dir = scratch("tfjson-deep");
    let deep = format!("${{{}1{}}}", "(".repeat(300), ")".repeat(300));
    let container = format!(
        r#"[{{"name":"app","image":"i","resourceRequirements":[{{"type":"GPU","value":"{deep}"}}]}}]"#
    );
    let text = serde_json::json!({
        "resource": { "aws_ecs_task_definition": { "app": {
            "family": "app",
            "requires_compatibilities": ["EC2"],
            "container_definitions": container,
        }}}
    });
    write(&dir, "main.tf.json", &text.to_string());
    let r = run(&dir, &["check", "."]);
    r.assert_refused("main.tf.json:1:");
    assert!(r.stderr.contains("nesting too deep"), "{}", r.stderr);
    assert!(!r.stdout.contains("GPU103"), "{}", r.stdout);
}

/// `--var` for a variable no root module declares was ignored without a word; Terraform refuses
/// it. Everything is checked, then exit 2 naming it.
#[test]
fn a_var_for_an_undeclared_variable_is_refused() {
    let dir = scratch("undeclared-var");
    write(
        &dir,
        "main.tf",
        &format!("variable \"gpus\" {{}}\n{}", gpu_task("app")),
    );
    let r = run(&dir, &["check", ".", "--var", "gpu=1", "--var", "gpus=1"]);
    r.assert_refused("--var `gpu`: no checked root module declares a variable of that name");
    assert!(r.stdout.contains("GPU101"), "{}", r.stdout);
    let ok = run(&dir, &["check", ".", "--var", "gpus=1"]);
    ok.assert_sane();
    assert_eq!(ok.code(), 1, "{}", ok.stderr);
}

/// A task-definition file of 50,000 containers found in a folder passed the JSON tree's budget
/// and was skipped without a word. It is a problem with its place.
#[test]
fn a_task_definition_past_the_limits_in_a_folder_is_said() {
    let dir = scratch("many-containers");
    let containers: Vec<String> = (0..50_000)
        .map(|i| {
            format!(r#"{{"name":"c{i}","image":"i","resourceRequirements":[{{"type":"GPU","value":"1"}}]}}"#)
        })
        .collect();
    write(
        &dir,
        "defs/td.json",
        &format!(
            r#"{{"family":"x","requiresCompatibilities":["FARGATE"],"containerDefinitions":[{}]}}"#,
            containers.join(",")
        ),
    );
    let r = run(&dir, &["check", "."]);
    r.assert_refused("defs/td.json:1:");
    assert!(
        r.stderr.contains("syntax tree over its memory budget"),
        "{}",
        r.stderr
    );
}

/// A link to `/dev` inside the checked tree was followed: `/dev` reports tmpfs's magic, not one of
/// the kernel's special file systems, and code planted in `/dev/shm` was checked as the tree's own.
/// Links that lead under `/dev` are not followed, whatever file system is there.
#[test]
fn a_link_to_dev_inside_the_tree_is_not_followed() {
    let dir = scratch("dev-link");
    write(&dir, "main.tf", &gpu_task("app"));
    std::os::unix::fs::symlink("/dev", dir.join("dev")).unwrap();
    // A file the walk would find through the link, where one can be written.
    let planted = Path::new("/dev/shm").join(format!("ecs-gpu-hostile-{}", std::process::id()));
    let can_plant = std::fs::create_dir_all(&planted).is_ok()
        && std::fs::write(planted.join("main.tf"), gpu_task("planted")).is_ok();
    let r = run(&dir, &["check", ".", "--format", "json"]);
    if can_plant {
        let _ = std::fs::remove_dir_all(&planted);
    }
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    assert!(
        r.stderr.is_empty(),
        "{}",
        &r.stderr[..r.stderr.len().min(2000)]
    );
    assert!(r.stdout.contains("\"files\": 1"), "{}", r.stdout);
    assert!(!r.stdout.contains("planted"), "{}", r.stdout);
}

/// A link to `/proc` inside the checked tree was followed: 115 KB of errors about `/proc`'s
/// folders. Links into the kernel's own file systems are not followed.
#[test]
fn a_link_to_proc_inside_the_tree_is_not_followed() {
    let dir = scratch("proc-link");
    write(&dir, "main.tf", &gpu_task("app"));
    std::os::unix::fs::symlink("/proc", dir.join("proc")).unwrap();
    std::os::unix::fs::symlink("/sys", dir.join("sys")).unwrap();
    let r = run(&dir, &["check", ".", "--format", "json"]);
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    assert!(
        r.stderr.is_empty(),
        "{}",
        &r.stderr[..r.stderr.len().min(2000)]
    );
    assert!(r.stdout.contains("\"files\": 1"), "{}", r.stdout);
}

/// A rule that quotes pieces of a value (GPU105 names each capability of
/// `NVIDIA_DRIVER_CAPABILITIES` that is not one) printed pieces of a hidden value: the last
/// guard hides whole hidden texts, and a piece is not the whole. Found by the eval fuzz target's
/// hidden-value property (`zqxcanary-[1,2]` printed as `` `zqxcanary-[1`, `2]` ``).
#[test]
fn pieces_of_a_hidden_value_are_printed_in_no_format() {
    let dir = scratch("hidden-pieces");
    let piece = |i: usize| format!("{SECRET}-PIECE{i}");
    for (name, mark) in [("sensitive", "sensitive"), ("ephemeral", "ephemeral")] {
        let folder = dir.join(name);
        write(
            &folder,
            "main.tf",
            &format!(
                r#"variable "caps" {{
  default   = "{},{}"
  {mark} = true
}}

variable "without_compute" {{
  default   = "{},utility"
  {mark} = true
}}

resource "aws_ecs_task_definition" "t" {{
  family                   = "t"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{{
    name                 = "a"
    image                = "example/app:1"
    resourceRequirements = [{{ type = "GPU", value = "1" }}]
    environment          = [{{ name = "NVIDIA_DRIVER_CAPABILITIES", value = var.caps }}]
    }}, {{
    name                 = "b"
    image                = "example/app:1"
    resourceRequirements = [{{ type = "GPU", value = "1" }}]
    environment          = [{{ name = "NVIDIA_DRIVER_CAPABILITIES", value = var.without_compute }}]
  }}])
}}
"#,
                piece(1),
                piece(2),
                piece(3),
            ),
        );
        for format in ["human", "json", "sarif", "github", "gitlab"] {
            let r = run(&folder, &["check", ".", "--format", format]);
            r.assert_sane();
            for i in 1..=3 {
                assert!(
                    !r.stdout.contains(&piece(i)),
                    "{name} {format}: piece {i} printed:\n{}",
                    r.stdout
                );
            }
            // Both containers are still reported, with the value said to be hidden.
            assert!(
                r.stdout.matches(&format!("({mark})")).count() >= 2,
                "{name} {format}:\n{}",
                r.stdout
            );
        }
    }
    // The same of values read from hidden user data: a cluster the instances join (GPU405), and
    // the settings the other user-data rules read.
    let folder = dir.join("user-data");
    write(
        &folder,
        "main.tf",
        &format!(
            r##"variable "user_data" {{
  sensitive = true
  default   = "#!/bin/bash\necho ECS_CLUSTER={p1} >> /etc/ecs/ecs.config\necho ECS_ENABLE_GPU_SUPPORT={p2} >> /etc/ecs/ecs.config\necho ECS_WARM_POOLS_CHECK={p3} >> /etc/ecs/ecs.config\necho ECS_ENABLE_SPOT_INSTANCE_DRAINING={p4} >> /etc/ecs/ecs.config\nsysctl -w vm.overcommit_memory={p5}\n"
}}

resource "aws_launch_template" "gpu" {{
  instance_type = "g6f.large"
  image_id      = "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
  user_data     = base64encode(var.user_data)
  instance_market_options {{
    market_type = "spot"
  }}
}}

resource "aws_autoscaling_group" "gpu" {{
  max_size = 2
  min_size = 0
  launch_template {{
    id = aws_launch_template.gpu.id
  }}
  warm_pool {{
    pool_state = "Stopped"
  }}
}}

resource "aws_ecs_cluster" "c" {{
  name = "gpu"
}}

resource "aws_ecs_capacity_provider" "cp" {{
  name = "cp"
  auto_scaling_group_provider {{
    auto_scaling_group_arn = aws_autoscaling_group.gpu.arn
  }}
}}

resource "aws_ecs_task_definition" "t" {{
  family                   = "t"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{{
    name                 = "a"
    image                = "example/app:1"
    resourceRequirements = [{{ type = "GPU", value = "1" }}]
  }}])
}}

resource "aws_ecs_service" "s" {{
  name            = "s"
  cluster         = aws_ecs_cluster.c.id
  task_definition = aws_ecs_task_definition.t.arn
  desired_count   = 1
  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.cp.name
    weight            = 1
  }}
}}
"##,
            p1 = piece(1),
            p2 = piece(2),
            p3 = piece(3),
            p4 = piece(4),
            p5 = piece(5),
        ),
    );
    // And what the placement-expression parser found in a hidden expression (GPU402), found by
    // the fuzz target too.
    write(
        &folder,
        "placement.tf",
        &format!(
            r#"variable "expression" {{
  sensitive = true
  default   = "attribute:ecs.instance-type == g5.xlarge {p6}"
}}

resource "aws_ecs_service" "placed" {{
  name            = "placed"
  cluster         = aws_ecs_cluster.c.id
  task_definition = aws_ecs_task_definition.t.arn
  desired_count   = 1
  capacity_provider_strategy {{
    capacity_provider = aws_ecs_capacity_provider.cp.name
    weight            = 1
  }}
  placement_constraints {{
    type       = "memberOf"
    expression = var.expression
  }}
}}
"#,
            p6 = piece(6),
        ),
    );
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run(&folder, &["check", ".", "--format", format]);
        r.assert_sane();
        assert!(
            r.stdout.contains("GPU402"),
            "user data {format}: GPU402 not reported:\n{}",
            r.stdout
        );
        for i in 1..=6 {
            assert!(
                !r.stdout.contains(&piece(i)),
                "user data {format}: piece {i} printed:\n{}",
                r.stdout
            );
        }
        assert!(
            r.stdout.contains("GPU405"),
            "user data {format}: GPU405 not reported:\n{}",
            r.stdout
        );
    }
}

/// The same 600 bytes with a `count` of 1,000: a million containers, each a small tree the
/// evaluation's budget did not charge (only the `for` iteration and the JSON text were), and a
/// million findings built before the cap. It peaked at 2.6 GB; the budget now charges every list
/// and object built, and findings past the cap are counted, not built.
#[test]
fn a_small_file_that_would_build_a_million_containers_stays_within_memory() {
    let dir = scratch("million-containers");
    let text = &amplification(1000);
    write(&dir, "main.tf", text);
    let r = run_limited(
        &dir,
        &["check", ".", "--format", "sarif"],
        Duration::from_secs(300),
        &[],
    );
    r.assert_sane();
    assert_eq!(r.code(), 0, "{}", r.stderr);
    // The budget says where it ran out, and what was built before it is checked.
    assert!(
        r.stdout.contains("GPU004"),
        "{}",
        &r.stdout[..r.stdout.len().min(3000)]
    );
    assert!(r
        .stdout
        .contains("more findings of `GPU105` here are not listed"));
    assert!(
        r.peak_rss > 0 && r.peak_rss <= 384 << 20,
        "peak {} bytes",
        r.peak_rss
    );
}

// ---------------------------------------------------------------------------------------------
// Round three (issue 50): the guards of `check` and `plan` at every entry point.

/// A GPU stack whose sizes come from values Terraform hides, through each way a value is hidden:
/// a `sensitive` variable (`max_size`), a local module's sensitive output (`desired_count`), a
/// sensitive variable given in `terraform.tfvars` (a container's `cpu`), `sensitive()` (its
/// `memory`), a sensitive variable's instance type, and a sensitive target capacity.
fn hidden_gpu_stack(dir: &Path) {
    write(
        dir,
        "main.tf",
        r#"variable "max" {
  type      = number
  sensitive = true
  default   = 9137
}
variable "cpu" {
  type      = number
  sensitive = true
}
variable "type" {
  type      = string
  sensitive = true
  default   = "p4d.24xlarge"
}
variable "target" {
  type      = number
  sensitive = true
  default   = 83
}
module "sizes" {
  source = "./sizes"
}
resource "aws_launch_template" "gpu" {
  name_prefix   = "gpu-"
  image_id      = "ami-0123456789abcdef0"
  instance_type = var.type
}
resource "aws_autoscaling_group" "gpu" {
  name     = "gpu"
  min_size = 0
  max_size = var.max
  launch_template {
    id      = aws_launch_template.gpu.id
    version = aws_launch_template.gpu.latest_version
  }
}
resource "aws_ecs_capacity_provider" "gpu" {
  name = "gpu"
  auto_scaling_group_provider {
    auto_scaling_group_arn = aws_autoscaling_group.gpu.arn
    managed_scaling {
      status          = "ENABLED"
      target_capacity = var.target
    }
  }
}
resource "aws_ecs_task_definition" "infer" {
  family                   = "infer"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{
    name                 = "infer"
    image                = "vllm/vllm-openai:v0.6.3"
    cpu                  = var.cpu
    memory               = sensitive(12777)
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}
resource "aws_ecs_service" "infer" {
  name            = "infer"
  task_definition = aws_ecs_task_definition.infer.arn
  desired_count   = module.sizes.desired
  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.gpu.name
    weight            = 1
  }
}
"#,
    );
    write(dir, "terraform.tfvars", "cpu = 4099\n");
    write(
        dir,
        "sizes/main.tf",
        "output \"desired\" {\n  value     = 8231\n  sensitive = true\n}\n",
    );
}

/// The numbers and names of [`hidden_gpu_stack`] that are hidden, and what is computed from them
/// (a rolling deployment of `desired` tasks needs `desired + 1`).
const HIDDEN_FIGURES: [&str; 6] = ["9137", "8231", "8232", "4099", "12777", "p4d.24xlarge"];

/// 50.1: `simulate` on a Terraform root printed the values `check` hides on the same root: a
/// sensitive `max_size` as "`max_size` 37 (37 GPUs)", desired counts, CPU, memory and instance
/// types marked sensitive, through variables, `sensitive()`, module outputs and tfvars. An answer
/// that needs a hidden value is unknown and names it, in both formats.
#[test]
fn simulate_on_a_root_hides_what_check_hides() {
    let dir = scratch("simulate-hidden-root");
    hidden_gpu_stack(&dir);
    for args in [
        vec!["simulate", "."],
        vec!["simulate", ".", "--format", "json"],
        vec!["simulate", ".", "--refresh", "aws_autoscaling_group.gpu"],
        vec!["simulate", ".", "--scale", "aws_ecs_service.infer=3"],
        vec!["check", ".", "--format", "json"],
    ] {
        let r = run(&dir, &args);
        r.assert_sane();
        assert!(matches!(r.code(), 0 | 1), "{args:?}: {}", r.stderr);
        for figure in HIDDEN_FIGURES {
            assert!(
                !r.stdout.contains(figure) && !r.stderr.contains(figure),
                "{args:?}: {figure} printed: {}",
                r.stdout
            );
        }
        if args[0] == "simulate" {
            assert!(r.stdout.contains("sensitive"), "{args:?}: {}", r.stdout);
        }
    }
}

/// 50.3: GPU108 quoted a repeated key written from a sensitive variable in a heredoc task
/// definition (sensitive as a whole) in its message and help, in every format: the key of a
/// hidden object is part of its value.
#[test]
fn a_repeated_key_from_a_sensitive_variable_is_printed_in_no_format() {
    let dir = scratch("gpu108-hidden-key");
    write(
        &dir,
        "main.tf",
        &format!(
            r#"variable "token" {{
  sensitive = true
  default   = "{SECRET}"
}}
resource "aws_ecs_task_definition" "app" {{
  family                   = "app"
  requires_compatibilities = ["EC2"]
  container_definitions    = <<JSON
[{{"name":"app","image":"i","memory":512,"resourceRequirements":[{{"type":"GPU","value":"1"}}],"dockerLabels":{{"${{var.token}}":"1","${{var.token}}":"2"}}}}]
JSON
}}
"#
        ),
    );
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let r = run(&dir, &["check", ".", "--format", format]);
        r.assert_sane();
        assert!(matches!(r.code(), 0 | 1), "{format}: {}", r.stderr);
        assert!(
            r.stdout.contains("repeats the key `(sensitive)`"),
            "{format}: {}",
            r.stdout
        );
    }
}

/// 50.5: saved JSON of empty objects took 240 times its size: 6 MB of
/// `{"containerInstances":[{},…]}` took 1.45 GB in `diagnose --from` and `simulate --from`, 60 MB
/// aborted the process. A saved output is refused past what AWS CLI output holds (items of a list,
/// objects and values per byte, nesting), naming the bound; within them memory stays a small
/// multiple of the files (a dense but plausible 60 MB file of registered resources).
#[test]
fn saved_json_stays_within_a_small_multiple_of_its_size() {
    let dir = scratch("saved-json-memory");
    let empty = dir.join("empty");
    let n = (6 << 20) / 3;
    write(
        &empty,
        "describe-container-instances.json",
        &format!("{{\"containerInstances\":[{}{{}}]}}", "{},".repeat(n)),
    );
    let big = dir.join("big");
    write(
        &big,
        "describe-container-instances.json",
        &format!("{{\"containerInstances\":[{}{{}}]}}", "{},".repeat(10 * n)),
    );
    let nested = dir.join("nested");
    write(
        &nested,
        "describe-container-instances.json",
        &format!(
            "{{\"containerInstances\":[{{\"attributes\":[{}{{}}]}}]}}",
            "{},".repeat(n)
        ),
    );
    for (case, want) in [
        (&empty, "`containerInstances` lists more than 10000 items"),
        (&big, "`containerInstances` lists more than 10000 items"),
        (&nested, "objects and lists in"),
    ] {
        for command in ["diagnose", "simulate"] {
            let r = run(case, &[command, "--from", "."]);
            r.assert_refused(want);
            assert!(
                r.peak_rss > 0 && r.peak_rss <= 256 << 20,
                "{command}: peak {} bytes",
                r.peak_rss
            );
        }
    }
    // Within the bounds: 10,000 instances of registered resources, one object per 26 bytes.
    let dense = dir.join("dense");
    let resources = "{\"name\":\"abcdefghijklmn\"},".repeat(600);
    let instance = format!("{{\"registeredResources\":[{resources}{{\"name\":\"x\"}}]}}");
    let text = format!(
        "{{\"containerInstances\":[{}{instance}]}}",
        format!("{instance},").repeat(4_000)
    );
    write(&dense, "describe-container-instances.json", &text);
    let r = run(&dense, &["diagnose", "--from", "."]);
    r.assert_sane();
    assert!(!r.timed_out, "{:?}", r.took);
    let limit = 10 * text.len() as u64 + (64 << 20);
    assert!(
        r.peak_rss > 0 && r.peak_rss <= limit,
        "peak {} bytes for {} bytes",
        r.peak_rss,
        text.len()
    );
}

/// 50.7 and 50.8: `--from` read a link to `/proc/kmsg` (a "regular" file whose read waits for the
/// kernel) forever; `--prices` read `/dev/zero` into gigabytes and blocked on a FIFO. Every file
/// any command opens goes through the one bounded opener: refused at once, with what it is.
#[test]
fn kernel_files_fifos_and_devices_are_refused_by_every_reader() {
    let dir = scratch("bounded-opener");
    let saved = dir.join("saved");
    std::fs::create_dir_all(&saved).unwrap();
    for (name, target) in [
        ("describe-services.json", "/proc/kmsg"),
        ("describe-tasks.json", "/proc/self/environ"),
    ] {
        let _ = std::fs::remove_file(saved.join(name));
        std::os::unix::fs::symlink(target, saved.join(name)).unwrap();
        for command in ["diagnose", "simulate"] {
            let r = run_limited(
                &saved,
                &[command, "--from", "."],
                Duration::from_secs(20),
                &[],
            );
            r.assert_refused("not a regular file");
            assert!(r.took < Duration::from_secs(10), "{command}: {:?}", r.took);
        }
        std::fs::remove_file(saved.join(name)).unwrap();
    }
    let root = dir.join("root");
    write(&root, "main.tf", &gpu_task("app"));
    mkfifo(&dir.join("prices.fifo"));
    write(&dir, "huge.json", &" ".repeat(2 << 20));
    for (prices, want) in [
        (
            "/dev/zero",
            "--prices /dev/zero: not a regular file: a device",
        ),
        ("../prices.fifo", "not a regular file: a FIFO or pipe"),
        (
            "/proc/self/environ",
            "not a regular file: a file of the kernel",
        ),
        ("../huge.json", "larger than 1 MiB"),
    ] {
        let r = run_limited(
            &root,
            &[
                "simulate",
                ".",
                "--deploy",
                "aws_ecs_task_definition.app",
                "--prices",
                prices,
            ],
            Duration::from_secs(20),
            &[],
        );
        r.assert_refused(want);
        assert!(r.took < Duration::from_secs(10), "{prices}: {:?}", r.took);
    }
}

/// 50.11: a link in the checked tree to a file outside it was read and its text quoted: `x.tf ->
/// ~/.token` printed the token in a GitHub annotation, and so did a `.tfvars`, a `.tofu`, a
/// folder link, a task-definition JSON and a module called by its absolute path, while `file()`
/// refused the same link. One policy for every reader: a link that leads outside the checked
/// folders is not read, and said; a link inside them is followed.
#[test]
fn links_that_leave_the_checked_tree_are_not_read() {
    let dir = scratch("links-outside");
    let outside = dir.join("outside");
    write(&outside, "token", &format!("{SECRET}\n"));
    write(
        &outside,
        "module/main.tf",
        &format!("output \"x\" {{\n  value = \"{SECRET}\"\n}}\n"),
    );
    write(
        &outside,
        "taskdef.json",
        &format!("{{\"containerDefinitions\":[{{\"name\":\"{SECRET}\"}}]}}"),
    );
    let tree = dir.join("tree");
    write(&tree, "inside.tf", &gpu_task("app"));
    let module = outside.join("module").canonicalize().unwrap();
    write(
        &tree,
        "calls.tf",
        &format!(
            "module \"abs\" {{\n  source = \"{}\"\n}}\n",
            module.display()
        ),
    );
    let link = |name: &str, to: &Path| std::os::unix::fs::symlink(to, tree.join(name)).unwrap();
    let token = outside.join("token");
    link("x.tf", &token);
    link("y.tofu", &token);
    link("z.auto.tfvars", &token);
    link("terraform.tfvars", &token);
    link("taskdef.json", &outside.join("taskdef.json"));
    link("folder", &outside.join("module"));
    // A link that stays inside is followed.
    link("same.tf", Path::new("inside.tf"));
    for format in ["human", "github", "json", "sarif", "gitlab"] {
        let r = run(&tree, &["check", ".", "--format", format]);
        r.assert_sane();
        assert_eq!(r.code(), 2, "{format}: {}", r.stderr);
        for name in [
            "x.tf",
            "y.tofu",
            "z.auto.tfvars",
            "terraform.tfvars",
            "taskdef.json",
            "folder",
        ] {
            assert!(
                r.stderr.contains(&format!(
                    "{name}: not read: it links outside the checked folders"
                )),
                "{format}: {name}: {}",
                r.stderr
            );
        }
        assert!(!r.stderr.contains("same.tf"), "{}", r.stderr);
        if format == "json" {
            // The module by its absolute path is not followed, and said (GPU003).
            assert!(
                r.stdout.contains("GPU003") && r.stdout.contains("module.abs"),
                "{}",
                r.stdout
            );
        }
    }
    // Given as a checked folder too, the place a link leads to is read (and so the token, which
    // is not code, is quoted by the parse error: the user asked for it).
    let r = run(&dir, &["check", "tree", "outside", "--format", "json"]);
    assert!(
        !r.stderr.contains("not read: it links outside"),
        "{}",
        r.stderr
    );
}

/// 50.13: `simulate ROOT --var nope=1` ran with exit 0; Terraform refuses a value for a variable
/// the root module does not declare, and so does `check` (exit 2). The root is read through the
/// same guards.
#[test]
fn simulate_refuses_an_undeclared_var_as_check_does() {
    let dir = scratch("simulate-undeclared-var");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simulate/warm-pool/main.tf"),
        dir.join("main.tf"),
    )
    .unwrap();
    for command in ["check", "simulate"] {
        run(&dir, &[command, ".", "--var", "nope=1"]).assert_refused(
            "--var `nope`: no checked root module declares a variable of that name",
        );
    }
}

/// 50.15: a broken `terraform.tfvars` link (a file users link from a shared folder) made `check`
/// exit 2, while Terraform ignores a `terraform.tfvars` it cannot find; it refuses a broken
/// `*.auto.tfvars` (it lists the folder and reads each), and so does `check`. A broken link of a
/// name nothing reads is no problem.
#[test]
fn a_broken_terraform_tfvars_link_is_ignored_as_terraform_does() {
    let dir = scratch("broken-tfvars");
    write(&dir, "main.tf", &gpu_task("app"));
    std::os::unix::fs::symlink("/nonexistent/shared.tfvars", dir.join("terraform.tfvars")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/README.md", dir.join("README.md")).unwrap();
    let r = run(&dir, &["check", "."]);
    r.assert_sane();
    assert_eq!(r.code(), 1, "{}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    std::os::unix::fs::symlink("/nonexistent/x.tfvars", dir.join("a.auto.tfvars")).unwrap();
    run(&dir, &["check", "."]).assert_refused("a.auto.tfvars: cannot read: a link to nothing");
}

/// 50.14: four answers that said something else than the truth. A GPU service with `count = 1001`
/// (past the instances `check` expands) was "no GPU service found"; `--refresh` refused a capacity
/// provider's address; a budget error blamed the files before the one that took the budget.
#[test]
fn answers_say_what_they_mean() {
    let dir = scratch("misleading");
    let root = dir.join("count");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simulate/warm-pool/main.tf"),
        root.join("main.tf"),
    )
    .unwrap();
    let text = std::fs::read_to_string(root.join("main.tf")).unwrap();
    std::fs::write(
        root.join("main.tf"),
        text.replace(
            "desired_count   = 2",
            "count           = 1001\n  desired_count   = 2",
        ),
    )
    .unwrap();
    let r = run(&root, &["simulate", "."]);
    r.assert_sane();
    assert_eq!(r.code(), 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("how many instances of the service there are is not known"),
        "{}",
        r.stdout
    );
    let r = run(
        &root,
        &[
            "simulate",
            ".",
            "--refresh",
            "aws_ecs_capacity_provider.gpu",
        ],
    );
    r.assert_sane();
    assert_eq!(r.code(), 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("refresh `aws_ecs_capacity_provider.gpu`"),
        "{}",
        r.stdout
    );

    // A small dense file first, then one that takes four times as much: the message says what
    // each took, blaming neither.
    let budget = dir.join("budget");
    write(
        &budget,
        "a.tf",
        &format!("locals {{\n  a = [{}1]\n}}\n", "{a=1},".repeat(20_000)),
    );
    write(
        &budget,
        "b.tf",
        &format!("locals {{\n  b = [{}1]\n}}\n", "{a=1},".repeat(80_000)),
    );
    let r = run(&budget, &["check", "."]);
    r.assert_sane();
    assert_eq!(r.code(), 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("b.tf") && r.stderr.contains("the files before this one took"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("MiB left"), "{}", r.stderr);
}
