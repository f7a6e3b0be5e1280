//! `ecs-gpu diagnose`: walk the chain for a GPU task that never starts, live (read-only AWS calls) or
//! from saved AWS CLI output.

use std::io::Write;
use std::path::PathBuf;
#[cfg(feature = "live")]
use std::time::Duration;

#[cfg(feature = "live")]
use anyhow::Context as _;
use anyhow::{anyhow, bail, Result};
#[cfg(feature = "live")]
use ecs_gpu_aws::{Options, What};
use ecs_gpu_diagnose::{render, Inputs, Outcome as DiagnoseOutcome, Target};
use ecs_gpu_report::escape_control as esc;

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ecs-gpu diagnose --cluster gpu --service train --region us-east-1\n  ecs-gpu diagnose --cluster gpu --task-definition train:3 --save ./diag\n  ecs-gpu diagnose --from ./diag --format json\n\nLive mode sends only Describe, List and Get calls (the README's `ecs-gpu diagnose` section gives the IAM policy). --from reads the files the AWS CLI prints, one per call: describe-services.json, describe-task-definition.json, describe-container-instances.json, describe-tasks.json, describe-capacity-providers.json, describe-auto-scaling-groups.json, describe-scaling-activities.json; any subset works.\n\nExit status: 0 = healthy; 1 = a step fails (the verdict names it); 2 = could not diagnose (no input, unusable input, AWS unreachable, or nothing fails but health is not shown)."
)]
pub struct Args {
    /// The cluster (name or ARN).
    #[arg(long, value_name = "CLUSTER", default_value = "default")]
    cluster: String,
    /// The service whose tasks do not start (name or ARN). With --from: which service of the file.
    #[arg(long, value_name = "SERVICE", conflicts_with = "task_definition")]
    service: Option<String>,
    /// A task definition for standalone tasks: FAMILY, FAMILY:REVISION or an ARN.
    #[arg(long, value_name = "FAMILY[:REVISION]")]
    task_definition: Option<String>,
    /// The AWS region (default: the environment's or the profile's).
    #[arg(long, value_name = "REGION")]
    region: Option<String>,
    /// A named profile from the AWS config and credentials files.
    #[arg(long, value_name = "PROFILE")]
    profile: Option<String>,
    /// Send the AWS calls to this URL (a local emulator, for testing).
    #[arg(long, value_name = "URL")]
    endpoint_url: Option<String>,
    /// Give up on AWS after this many seconds overall.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// Also write what was read to DIR, one AWS CLI JSON file per call, for `--from`.
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    save: Option<PathBuf>,
    /// Diagnose saved AWS CLI output in DIR instead of calling AWS.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["task_definition", "region", "profile", "endpoint_url"])]
    from: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// The steps as a checklist, then the verdict.
    Human,
    /// `{"version": 1, "command": "diagnose", "verdict": {...}, "steps": [...]}`.
    Json,
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let (inputs, source) = match &args.from {
        Some(dir) => (
            Inputs::from_dir(dir)?,
            format!("saved output in {}", dir.display()),
        ),
        None => live(args)?,
    };
    let target = Target {
        service: args.service.clone(),
    };
    let report = ecs_gpu_diagnose::diagnose(&inputs, &target)?;
    match args.format {
        Format::Json => render::json(out, &report)?,
        Format::Human => render::human(out, &report, &source)?,
    }
    match report.outcome() {
        DiagnoseOutcome::Healthy => Ok(Outcome::Clean),
        DiagnoseOutcome::Failing => Ok(Outcome::Findings),
        DiagnoseOutcome::Inconclusive => {
            out.flush()?;
            Err(anyhow!(
                "could not diagnose: {}",
                esc(&report.verdict.message)
            ))
        }
    }
}

/// Built without live AWS access (`--no-default-features`): only saved output can be diagnosed.
#[cfg(not(feature = "live"))]
fn live(args: &Args) -> Result<(Inputs, String)> {
    if args.service.is_none() && args.task_definition.is_none() {
        bail!("nothing to diagnose: give --from DIR (saved AWS CLI output); this build of ecs-gpu has no live AWS access");
    }
    bail!(
        "this build of ecs-gpu has no live AWS access (installed without the `live` feature): diagnose saved AWS CLI output with --from DIR, or install with the default features for live diagnose"
    )
}

#[cfg(feature = "live")]
fn live(args: &Args) -> Result<(Inputs, String)> {
    let what = match (&args.service, &args.task_definition) {
        (Some(s), _) => What::Service(s.clone()),
        (None, Some(td)) => What::TaskDefinition(td.clone()),
        (None, None) => bail!(
            "nothing to diagnose: give --service SERVICE or --task-definition FAMILY[:REVISION] (live), or --from DIR (saved output)"
        ),
    };
    // The folder is opened before any AWS call: one that cannot take the files (a link, a file,
    // an earlier save) is said at once.
    let save = args
        .save
        .as_deref()
        .map(ecs_gpu_diagnose::SaveDir::open)
        .transpose()?;
    let collected = read_live(&Live {
        cluster: &args.cluster,
        what: what.clone(),
        region: args.region.as_deref(),
        profile: args.profile.as_deref(),
        endpoint_url: args.endpoint_url.as_deref(),
        timeout: args.timeout,
    })?;
    if let Some(dir) = &save {
        let written = collected.inputs.save_into(dir, &collected.extras)?;
        let _ = writeln!(
            std::io::stderr(),
            "ecs-gpu: saved {} file{} to {}",
            written.len(),
            if written.len() == 1 { "" } else { "s" },
            esc(&dir.path().display().to_string())
        );
    }
    let source = match what {
        What::Service(s) => format!("service `{s}` in cluster `{}`", args.cluster),
        What::TaskDefinition(td) => {
            format!("task definition `{td}` in cluster `{}`", args.cluster)
        }
    };
    Ok((collected.inputs, source))
}

/// Where and how to read a cluster live: the options `diagnose` and `simulate` share.
#[cfg(feature = "live")]
pub(crate) struct Live<'a> {
    pub cluster: &'a str,
    pub what: What,
    pub region: Option<&'a str>,
    pub profile: Option<&'a str>,
    pub endpoint_url: Option<&'a str>,
    /// Seconds, for the whole run.
    pub timeout: u64,
}

/// Reads a cluster live with read-only calls, within the bounds of `ecs_gpu_aws`; each call that
/// failed is a warning on stderr.
#[cfg(feature = "live")]
pub(crate) fn read_live(live: &Live<'_>) -> Result<ecs_gpu_aws::Collected> {
    if live.timeout == 0 {
        bail!("--timeout 0: give at least 1 second");
    }
    if live.timeout > ecs_gpu_aws::MAX_TIMEOUT.as_secs() {
        bail!(
            "--timeout: give at most {} seconds",
            ecs_gpu_aws::MAX_TIMEOUT.as_secs()
        );
    }
    let opts = Options {
        cluster: live.cluster.to_string(),
        what: live.what.clone(),
        region: live.region.map(str::to_string),
        profile: live.profile.map(str::to_string),
        endpoint_url: live.endpoint_url.map(str::to_string),
        timeout: Duration::from_secs(live.timeout),
        page_size: std::env::var("ECS_GPU_PAGE_SIZE")
            .ok()
            .and_then(|v| v.parse().ok()),
        // For tests: a lower bound on all the answers of the run, reached without 256 MiB of pages.
        max_total_response_bytes: std::env::var("ECS_GPU_MAX_TOTAL_RESPONSE_BYTES")
            .ok()
            .and_then(|v| v.parse().ok()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let collected = runtime.block_on(ecs_gpu_aws::collect(&opts))?;
    // Each call that failed, with its AWS error (escaped: an endpoint's message is anything it
    // says); the reading goes on with the others.
    for e in &collected.inputs.errors {
        let _ = writeln!(
            std::io::stderr(),
            "ecs-gpu: warning: {}",
            ecs_gpu_report::error_line(&e.to_string())
        );
    }
    // For tests and the curious: the operations that were sent, one a line.
    if let Some(path) = std::env::var_os("ECS_GPU_OPERATIONS_LOG") {
        std::fs::write(&path, collected.operations.join("\n") + "\n")
            .with_context(|| format!("writing {}", PathBuf::from(&path).display()))?;
    }
    Ok(collected)
}
