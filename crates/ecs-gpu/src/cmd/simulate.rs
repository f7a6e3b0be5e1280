//! `ecs-gpu simulate`: will the GPUs be there for this deployment, this scale-out, this instance
//! refresh? Reads a Terraform root (as `check` does), a plan JSON (as `plan` does) or a cluster,
//! live or saved (as `diagnose` does), builds the simulation's scenario through the adapter of the
//! crate that owns each input, and renders the answers.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use ecs_gpu_sim::{render, Event, Prices, Report, Scenario};

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ecs-gpu simulate infra/ --deploy aws_ecs_service.train\n  ecs-gpu simulate infra/ --scale aws_ecs_service.train=8 --refresh aws_autoscaling_group.gpu\n  ecs-gpu simulate --plan plan.json                      # what the plan starts\n  ecs-gpu simulate --from ./diag --deploy train --format json\n  ecs-gpu simulate --cluster gpu --scale train=4 --region us-east-1\n  ecs-gpu simulate infra/ --deploy aws_ecs_service.train --prices prices.json --fail-on stuck,over-max\n\nWithout an event, every GPU service is deployed once; with --plan, the plan's own events: its deployments, the scale-outs of GPU services and the instance refreshes it starts (none: nothing to simulate, status 0).\nPrices: {\"g5.xlarge\": {\"on_demand\": 1.006, \"spot\": 0.45}} (dollars per hour; no price table ships: AWS prices change by Region and date).\n\nLive (--cluster) sends only the Describe, List and Get calls `ecs-gpu diagnose` sends, for one service: the --service, or the one --deploy or --scale names.\n\nExit status: 0 = simulated, nothing in --fail-on; 1 = an answer is in --fail-on; 2 = usage error, unreadable input, or a plan that stopped at an error."
)]
pub struct Args {
    /// A Terraform root or task-definition files, as `ecs-gpu check` reads them.
    #[arg(value_name = "PATH", conflicts_with_all = ["plan", "from", "cluster"])]
    paths: Vec<PathBuf>,
    /// A plan: the JSON of `terraform show -json tfplan` (`-` for standard input).
    #[arg(long, value_name = "PLAN", conflicts_with_all = ["from", "cluster"])]
    plan: Option<PathBuf>,
    /// Saved AWS CLI output of a cluster, as `ecs-gpu diagnose --from` reads it.
    #[arg(long, value_name = "DIR", conflicts_with = "cluster")]
    from: Option<PathBuf>,
    /// Read this cluster live (read-only AWS calls, as `ecs-gpu diagnose` does).
    #[arg(long, value_name = "CLUSTER")]
    cluster: Option<String>,
    /// Live: the service to read (default: the one --deploy or --scale names).
    #[arg(long, value_name = "SERVICE", requires = "cluster")]
    service: Option<String>,
    /// Live: the AWS region (default: the environment's or the profile's).
    #[arg(long, value_name = "REGION", requires = "cluster")]
    region: Option<String>,
    /// Live: a named profile from the AWS config and credentials files.
    #[arg(long, value_name = "PROFILE", requires = "cluster")]
    profile: Option<String>,
    /// Live: send the AWS calls to this URL (a local emulator, for testing).
    #[arg(long, value_name = "URL", requires = "cluster")]
    endpoint_url: Option<String>,
    /// Live: give up on AWS after this many seconds overall.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// Deploy a new revision of SERVICE (its name or Terraform address); repeatable.
    #[arg(long, value_name = "SERVICE")]
    deploy: Vec<String>,
    /// Scale SERVICE to N tasks; repeatable.
    #[arg(long, value_name = "SERVICE=N")]
    scale: Vec<String>,
    /// Refresh GROUP (an Auto Scaling group or capacity provider): replace every instance; repeatable.
    #[arg(long, value_name = "GROUP")]
    refresh: Vec<String>,
    /// Prices per instance type, for the cost per hour (JSON).
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
    /// Exit with status 1 when an answer is one of these (comma-separated): stuck, over-max, unknown.
    #[arg(long, value_name = "ANSWER", value_delimiter = ',', value_parser = ["stuck", "over-max", "unknown"])]
    fail_on: Vec<String>,
    /// A Terraform variable, as `terraform plan -var` (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    vars: Vec<String>,
    /// A Terraform variable file, as `terraform plan -var-file` (repeatable).
    #[arg(long = "var-file", value_name = "FILE")]
    var_files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Per event: the answer, the peak against the maximum, the time line, stranded GPUs, cost.
    Human,
    /// `{"version": 1, "command": "simulate", "answers": [...], "summary": {...}}`.
    Json,
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let prices = match &args.prices {
        Some(p) => Some(read_prices(p)?),
        None => None,
    };
    let from_a_plan = args.plan.is_some();
    // One scenario, but one per root module of a checked folder.
    let (scenarios, mut events) = if let Some(plan) = &args.plan {
        let (scenario, events) = from_plan(plan)?;
        (vec![scenario], events)
    } else if let Some(cluster) = &args.cluster {
        (vec![live(args, cluster)?], Vec::new())
    } else if let Some(dir) = &args.from {
        // One reader, each file read once: the diagnosis's inputs and the simulation's extras.
        let saved = ecs_gpu_diagnose::read_saved(dir)?;
        (
            vec![ecs_gpu_diagnose::aws_json::scenario(
                &saved.inputs,
                &saved.extras,
            )],
            Vec::new(),
        )
    } else {
        (from_root(args)?, Vec::new())
    };
    let asked = !(args.deploy.is_empty() && args.scale.is_empty() && args.refresh.is_empty());
    if asked {
        events.clear();
    }
    for s in &args.deploy {
        check_service(&scenarios, s)?;
        events.push(Event::Deploy {
            service: s.clone(),
            task: None,
        });
    }
    for s in &args.scale {
        let Some((name, n)) = s.split_once('=') else {
            bail!("--scale `{s}`: expected SERVICE=N");
        };
        let to: u32 = n
            .trim()
            .parse()
            .map_err(|_| anyhow!("--scale `{s}`: `{n}` is not a number of tasks"))?;
        check_service(&scenarios, name)?;
        events.push(Event::Scale {
            service: name.to_string(),
            to: to.into(),
        });
    }
    for g in &args.refresh {
        if scenarios.iter().all(|sc| sc.group(g).is_none()) {
            let known: Vec<String> = scenarios
                .iter()
                .flat_map(|sc| &sc.groups)
                .map(|g| {
                    let names: Vec<String> = g.names().map(|n| format!("`{n}`")).collect();
                    names.join(" or ")
                })
                .collect();
            bail!(
                "--refresh `{g}`: no such Auto Scaling group or capacity provider; known: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            );
        }
        events.push(Event::Refresh { group: g.clone() });
    }
    if events.is_empty() && from_a_plan {
        // A plan that touches no GPU service's tasks or instances has nothing to simulate: a
        // deployment of every GPU service would answer a question the plan does not ask.
        let report = simulate_each(&scenarios, &[], prices.as_ref());
        match args.format {
            Format::Human => writeln!(
                out,
                "nothing to simulate: the plan starts no deployment, scale-out or instance refresh of a GPU service"
            )?,
            Format::Json => render::json(out, &report)?,
        }
        return Ok(Outcome::Clean);
    }
    if events.is_empty() {
        // Every GPU service deploys once.
        for s in scenarios.iter().flat_map(|sc| &sc.services) {
            if s.asks_for_gpus() {
                events.push(Event::Deploy {
                    service: s.name.clone(),
                    task: None,
                });
            }
        }
    }
    if events.is_empty() {
        bail!("nothing to simulate: no GPU service found, and no --deploy, --scale or --refresh given");
    }
    let report = simulate_each(&scenarios, &events, prices.as_ref());
    match args.format {
        Format::Human => render::human(out, &report)?,
        Format::Json => render::json(out, &report)?,
    }
    let failing = args.fail_on.iter().any(|f| report.any(f));
    Ok(if failing {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Built without live AWS access (`--no-default-features`): only saved output can be simulated.
#[cfg(not(feature = "live"))]
fn live(_args: &Args, _cluster: &str) -> Result<Scenario> {
    bail!(
        "this build of ecs-gpu has no live AWS access (installed without the `live` feature): simulate saved AWS CLI output with --from DIR, or install with the default features for live simulate"
    )
}

/// The cluster read live, one service with its task definition, tasks, instances, capacity
/// providers and groups: the reading of live `diagnose`, with the fields only the simulation uses.
#[cfg(feature = "live")]
fn live(args: &Args, cluster: &str) -> Result<Scenario> {
    let service = match &args.service {
        Some(s) => s.clone(),
        None => {
            let mut named: Vec<&str> = args
                .deploy
                .iter()
                .map(String::as_str)
                .chain(
                    args.scale
                        .iter()
                        .map(|s| s.split_once('=').map_or(s.as_str(), |p| p.0)),
                )
                .collect();
            named.sort_unstable();
            named.dedup();
            match named.as_slice() {
                [one] => (*one).to_string(),
                [] => bail!(
                    "--cluster `{}`: which service? give --service SERVICE, or --deploy or --scale it\nhelp: live, simulate reads one service with its capacity, as `diagnose` does",
                    ecs_gpu_report::escape_control(cluster)
                ),
                _ => bail!(
                    "--cluster `{}`: live, simulate reads one service, and --deploy and --scale name {}\nhelp: give --service SERVICE, or `diagnose --save DIR` each and simulate `--from DIR`",
                    ecs_gpu_report::escape_control(cluster),
                    named.len()
                ),
            }
        }
    };
    let collected = super::diagnose::read_live(&super::diagnose::Live {
        cluster,
        what: ecs_gpu_aws::What::Service(service),
        region: args.region.as_deref(),
        profile: args.profile.as_deref(),
        endpoint_url: args.endpoint_url.as_deref(),
        timeout: args.timeout,
    })?;
    Ok(ecs_gpu_diagnose::aws_json::scenario(
        &collected.inputs,
        &collected.extras,
    ))
}

/// Simulates each event in the scenario that names its service or group: with several root
/// modules, each is simulated on its own, as it would be alone.
fn simulate_each(scenarios: &[Scenario], events: &[Event], prices: Option<&Prices>) -> Report {
    if let [one] = scenarios {
        return ecs_gpu_sim::simulate(one, events, prices);
    }
    let mut report = Report {
        answers: Vec::new(),
    };
    for sc in scenarios {
        let own: Vec<Event> = events
            .iter()
            .filter(|e| match e {
                Event::Deploy { service, .. } | Event::Scale { service, .. } => {
                    sc.service(service).is_some()
                }
                Event::Refresh { group } => sc.group(group).is_some(),
            })
            .cloned()
            .collect();
        if !own.is_empty() {
            report
                .answers
                .extend(ecs_gpu_sim::simulate(sc, &own, prices).answers);
        }
    }
    report
}

fn check_service(scenarios: &[Scenario], name: &str) -> Result<()> {
    if scenarios.iter().any(|sc| sc.service(name).is_some()) {
        return Ok(());
    }
    let known: Vec<String> = scenarios
        .iter()
        .flat_map(|sc| &sc.services)
        .map(|s| format!("`{}`", s.name))
        .collect();
    bail!(
        "no service `{name}`; known: {}",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    )
}

/// The most a prices file may hold: a price for every instance type EC2 sells takes some 50 KB.
const MAX_PRICES_BYTES: u64 = 1 << 20;

/// Reads `--prices` through the bounded opener of every command: a regular file (not a FIFO, a
/// device or a kernel file) of at most [`MAX_PRICES_BYTES`].
fn read_prices(path: &Path) -> Result<Prices> {
    let shown = path.display();
    let bytes = ecs_gpu_fs::read(path, MAX_PRICES_BYTES).map_err(|e| match e {
        ecs_gpu_fs::FileError::TooLarge { size } => anyhow!(
            "--prices {shown}: larger than {} MiB ({size} bytes), more than a price table holds",
            MAX_PRICES_BYTES >> 20
        ),
        e => anyhow!("--prices {shown}: {e}"),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("--prices {shown}: not UTF-8 text"))?;
    ecs_gpu_sim::parse_prices(&text).map_err(|e| anyhow!("--prices {shown}: {e}"))
}

/// The scenario of each root module the paths hold.
fn from_root(args: &Args) -> Result<Vec<Scenario>> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    for p in &paths {
        if !p.exists() {
            bail!("{}: no such file or folder", p.display());
        }
    }
    // The root is read as `check` reads it, with its guards: the same `--var` and `--var-file`
    // checks, the same refusal of a variable no root module declares.
    let vars = super::check::parse_vars(&args.vars)?;
    for f in &args.var_files {
        super::check::check_var_file(f)?;
    }
    let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths,
        var_files: args.var_files.clone(),
        vars,
        only_types: None,
        only_arguments: None,
        threads: None,
        texts: ecs_gpu_model::Texts::Drop,
    });
    if !model.problems.is_empty() {
        let p = &model.problems[0];
        let line = p.line.map_or(String::new(), |l| format!(":{l}"));
        bail!(
            "{}{line}: {} ({} file{} could not be read)",
            ecs_gpu_report::escape_control(&p.path.display().to_string()),
            ecs_gpu_report::escape_control(&p.message),
            model.problems.len(),
            if model.problems.len() == 1 { "" } else { "s" }
        );
    }
    if let Some(undeclared) = super::check::undeclared_vars(&model) {
        bail!("{undeclared}");
    }
    Ok(ecs_gpu_stack::terraform_root::named_scenarios(&model))
}

fn from_plan(path: &Path) -> Result<(Scenario, Vec<Event>)> {
    // The one plan reader, `plan`'s own: every guard of a plan input.
    let plan = super::plan::read_plan(path)?;
    // Terraform applies nothing of a plan that stopped at an error: its changes are only those
    // planned before the error, so a simulation of them would answer for a change that never comes
    // (`plan` fails the gate on it too).
    if plan.is_errored() {
        bail!(
            "{}: the plan cannot be applied: Terraform stopped planning at an error (`errored: true`), so it starts nothing to simulate; fix the error and plan again",
            path.display()
        );
    }
    let sim = ecs_gpu_plan::plan_json::scenario(&plan);
    Ok((sim.scenario, sim.events))
}
