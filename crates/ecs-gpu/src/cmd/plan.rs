//! `ecs-gpu plan`: what a Terraform plan does to running GPU tasks and instances.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use ecs_gpu_plan::{is_binary_plan, render, EffectKind, Plan};

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  terraform plan -out tfplan && terraform show -json tfplan > plan.json\n  ecs-gpu plan plan.json\n  ecs-gpu plan tfplan                     # runs `terraform show -json tfplan` itself\n  terraform show -json tfplan | ecs-gpu plan - --format json\n  ecs-gpu plan plan.json --fail-on capacity-destroyed,service-replaced\n\nEffect kinds, most disruptive first: capacity-destroyed, service-replaced, instance-replacement, deployment, drift-revert, not-reaching-running-instances, revision-deregistered, no-effect.\n\nValues the plan marks sensitive are shown as (sensitive), never as themselves."
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
    /// `{"version": 1, "effects": [...], "summary": {...}}`.
    Json,
}

fn parse_kind(s: &str) -> Result<EffectKind, String> {
    s.parse::<EffectKind>().map_err(|e| e.to_string())
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let stdin = args.plan.as_os_str() == "-";
    let name = if stdin {
        "standard input".to_string()
    } else {
        args.plan.display().to_string()
    };
    let plan = read(&args.plan, stdin).with_context(|| name.clone())?;
    let effects = plan.effects();
    match args.format {
        Format::Human => render::human(out, &plan, &effects)?,
        Format::Json => render::json(out, &plan, &effects)?,
    }
    // A plan Terraform cannot apply is a finding whatever --fail-on says: its effects are partial,
    // and a CI gate must not pass it (docs/plan.md, exit statuses).
    let failing = !plan.is_applyable() || effects.iter().any(|e| args.fail_on.contains(&e.kind));
    Ok(if failing {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

fn read(path: &Path, stdin: bool) -> Result<Plan> {
    // The parse streams from the reader, so a 100 MB plan is never held whole in memory. The reader
    // stays a concrete type: behind `dyn BufRead`, serde_json's byte-at-a-time reads cost 2x.
    if stdin {
        read_from(BufReader::with_capacity(1 << 16, io::stdin().lock()), None)
    } else {
        let file = File::open(path).context("cannot open the plan")?;
        read_from(BufReader::with_capacity(1 << 16, file), Some(path))
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
fn terraform_show(path: &Path, shown: &str) -> Result<Plan> {
    let mut child = match Command::new("terraform")
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
    let mut stderr = child.stderr.take().context("terraform's standard error")?;
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let stdout = child.stdout.take().context("terraform's standard output")?;
    // The reader is dropped when the parse ends, so terraform is never left blocked on a full pipe.
    let parsed = ecs_gpu_plan::read(BufReader::with_capacity(1 << 16, stdout));
    let status = child.wait().context("waiting for `terraform show -json`")?;
    let errors = errors.join().unwrap_or_default();
    if !status.success() {
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
