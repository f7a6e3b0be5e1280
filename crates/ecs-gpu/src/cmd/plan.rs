//! `ecs-gpu plan`: what a Terraform plan does to running GPU tasks and instances.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use ecs_gpu_plan::{is_binary_plan, render, EffectKind, Plan};

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  terraform plan -out tfplan && terraform show -json tfplan > plan.json\n  ecs-gpu plan plan.json\n  ecs-gpu plan tfplan                     # runs `terraform show -json tfplan` itself\n  terraform show -json tfplan | ecs-gpu plan - --format json\n  ecs-gpu plan plan.json --fail-on capacity-destroyed,service-replaced\n\nEffect kinds, most disruptive first: apply-fails, capacity-destroyed, service-replaced, instance-replacement, driver-change, deployment, scale-in, drift-revert, protection-removed, scale-out, not-reaching-running-instances, revision-deregistered, no-effect.\n\nValues the plan marks sensitive are shown as (sensitive), never as themselves."
)]
pub struct Args {
    /// The plan: the JSON of `terraform show -json tfplan`, a binary plan file (read through
    /// `terraform show -json` when terraform is on PATH), or `-` for standard input.
    #[arg(value_name = "PLAN")]
    plan: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Exit with status 1 when an effect of one of these kinds is present (comma-separated).
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = parse_kind)]
    fail_on: Vec<EffectKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// A summary line, then the effects grouped by kind, most disruptive first.
    Human,
    /// `{"version": 1, "command": "plan", "effects": [...], "summary": {...}}`.
    Json,
}

fn parse_kind(s: &str) -> Result<EffectKind, String> {
    s.parse::<EffectKind>().map_err(|e| e.to_string())
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let plan = read_plan(&args.plan)?;
    let effects = plan.effects();
    // Whether the capacity can hold each deployment: the simulation `simulate --plan` runs.
    let capacity = ecs_gpu_plan::plan_json::deployment_capacity(&plan);
    match args.format {
        Format::Human => render::human(out, &plan, &effects, &capacity)?,
        Format::Json => render::json(out, &plan, &effects, &capacity)?,
    }
    // A plan that stopped at an error is a finding whatever --fail-on says: its effects are partial,
    // and a CI gate must not pass it (docs/plan.md, exit statuses). A plan with nothing to apply
    // (`applyable: false` without `errored`) is not.
    let failing = plan.is_errored() || effects.iter().any(|e| args.fail_on.contains(&e.kind));
    Ok(if failing {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// The most a plan may be, from a file, standard input or `terraform show -json`: more than ten
/// times the largest plans measured (bench/README.md), and a bound that turns an endless input
/// into an error instead of a run that never ends.
pub const MAX_PLAN_BYTES: u64 = 2 << 30;

/// How long `terraform show -json` may take before it is stopped (`ECS_GPU_TERRAFORM_TIMEOUT`,
/// seconds, overrides it for tests).
const TERRAFORM_TIMEOUT: Duration = Duration::from_secs(600);

/// Reads the plan at `path` (`-`: standard input), for `plan` and `simulate --plan` alike: the one
/// plan reader, with every guard of a plan input (a regular file through the bounded opener of
/// every command, at most [`MAX_PLAN_BYTES`] or `ECS_GPU_MAX_PLAN_BYTES` from a file, standard
/// input or `terraform show -json`, that command stopped after its timeout, the nesting bounded by
/// the plan crate). Errors name the input.
pub(crate) fn read_plan(path: &Path) -> Result<Plan> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    read(path, stdin).with_context(|| name)
}

fn read(path: &Path, stdin: bool) -> Result<Plan> {
    // The parse streams from the reader, so a 100 MB plan is never held whole in memory. The reader
    // stays a concrete type: behind `dyn BufRead`, serde_json's byte-at-a-time reads cost 2x.
    if stdin {
        let input = Bounded::new(io::stdin().lock(), "standard input");
        read_from(BufReader::with_capacity(1 << 16, input), None)
    } else {
        // Opened without blocking and checked on the open file: a FIFO would wait for a writer, a
        // device (`/dev/zero`) or a kernel file (`/proc/kmsg`) never ends.
        let file = match ecs_gpu_fs::open(path, max_plan_bytes()) {
            Ok(opened) => opened.into_file(),
            Err(ecs_gpu_fs::FileError::NotRegular(kind)) => bail!(
                "not a regular file ({kind}): pass the plan as a file, or on standard input with `-` (`terraform show -json tfplan | ecs-gpu plan -`)"
            ),
            Err(ecs_gpu_fs::FileError::TooLarge { size }) => bail!(
                "larger than {} ({size} bytes), more than a plan ecs-gpu reads",
                size_text(max_plan_bytes()),
            ),
            Err(e) => bail!("cannot open the plan: {e}"),
        };
        let input = Bounded::new(file, "the file");
        read_from(BufReader::with_capacity(1 << 16, input), Some(path))
    }
}

/// The bound in force: [`MAX_PLAN_BYTES`], or less when `ECS_GPU_MAX_PLAN_BYTES` says (for tests).
fn max_plan_bytes() -> u64 {
    std::env::var("ECS_GPU_MAX_PLAN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(MAX_PLAN_BYTES, |n: u64| n.min(MAX_PLAN_BYTES))
}

/// A size in words: `2 GiB`, `16 MiB`.
fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// A reader that fails once more than [`max_plan_bytes`] have been read from it.
struct Bounded<R> {
    inner: R,
    read: u64,
    max: u64,
    what: &'static str,
}

impl<R> Bounded<R> {
    fn new(inner: R, what: &'static str) -> Self {
        Bounded {
            inner,
            read: 0,
            max: max_plan_bytes(),
            what,
        }
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.max {
            return Err(io::Error::other(format!(
                "{} gave more than {}, more than a plan ecs-gpu reads",
                self.what,
                size_text(self.max)
            )));
        }
        Ok(n)
    }
}

/// Reads a plan from `reader`: JSON directly, a binary plan file through `terraform show -json`.
fn read_from<R: Read>(mut reader: BufReader<R>, path: Option<&Path>) -> Result<Plan> {
    if !is_binary_plan(reader.fill_buf().context("cannot read the plan")?) {
        return Ok(ecs_gpu_plan::read(reader)?);
    }
    match path {
        Some(path) => {
            drop(reader);
            terraform_show(path, &path.display().to_string())
        }
        None => {
            // `terraform show` reads a plan file by name only.
            let tmp =
                std::env::temp_dir().join(format!("ecs-gpu-plan-{}.tfplan", std::process::id()));
            // `create_new`: never write through a file (or link) someone else put there.
            let result = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .and_then(|mut f| io::copy(&mut reader, &mut f))
                .context("cannot copy the binary plan from standard input to a temporary file")
                .and_then(|_| terraform_show(&tmp, "PLANFILE"));
            let _ = std::fs::remove_file(&tmp);
            result
        }
    }
}

/// Reads a binary plan file through `terraform show -json`, streaming its output into the parser.
/// The child is stopped when it runs past [`TERRAFORM_TIMEOUT`] or writes more than
/// [`MAX_PLAN_BYTES`], and the error says which.
fn terraform_show(path: &Path, shown: &str) -> Result<Plan> {
    let child = match Command::new("terraform")
        .arg("show")
        .arg("-no-color")
        .arg("-json")
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
            "this is a binary Terraform plan file and `terraform` is not on PATH to read it: run `terraform show -json {shown} > plan.json` in the Terraform working directory and pass plan.json"
        ),
        Err(e) => return Err(e).context("cannot run `terraform show -json`"),
    };
    let mut child = child;
    let stdout = child.stdout.take().context("terraform's standard output")?;
    let stderr = child.stderr.take().context("terraform's standard error")?;
    // Only the start of what it says on stderr is kept: its first error.
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.take(64 * 1024).read_to_string(&mut s);
        s
    });
    let timeout = std::env::var("ECS_GPU_TERRAFORM_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(TERRAFORM_TIMEOUT, |s: u64| {
            Duration::from_secs(s).min(TERRAFORM_TIMEOUT)
        });
    // The parse runs beside this thread, which waits for it at most `timeout`: a terraform that
    // hangs (or a process it started that keeps the pipe open) cannot hold the command.
    let (sent, parsed) = mpsc::channel();
    std::thread::spawn(move || {
        let plan = ecs_gpu_plan::read(BufReader::with_capacity(
            1 << 16,
            Bounded::new(stdout, "`terraform show -json`"),
        ));
        let _ = sent.send(plan);
    });
    let parsed = match parsed.recv_timeout(timeout) {
        Ok(p) => p,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "`terraform show -json {shown}` did not finish within {} s and was stopped: run it yourself (`terraform show -json {shown} > plan.json`) to see what it waits for",
                timeout.as_secs()
            );
        }
    };
    if parsed.is_err() {
        // A parse that stopped early (too much output, not JSON) leaves terraform writing.
        let _ = child.kill();
    }
    let status = child.wait().context("waiting for `terraform show -json`")?;
    let errors = errors.join().unwrap_or_default();
    // Terraform's own error explains a failed run better than what its output lacked; a run this
    // command stopped because the output was unreadable says nothing on stderr.
    if !status.success() && (parsed.is_ok() || !errors.trim().is_empty()) {
        bail!(
            "`terraform show -json {shown}` failed ({status}){}",
            terraform_error(&errors)
        );
    }
    parsed.context("reading the output of `terraform show -json`")
}

/// Terraform's first error (`Error: ...` and its next lines) as one line.
fn terraform_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(|l| l.trim_start_matches(['╷', '│', '╵']).trim())
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("Error:"))
        .unwrap_or(0);
    let text: Vec<&str> = lines.into_iter().skip(start).take(3).collect();
    if text.is_empty() {
        String::new()
    } else {
        format!(": {}", text.join(" "))
    }
}
