//! The `ecs-gpu` command: argument parsing, one module per command, exit statuses. The work happens
//! in the library crates; this binary only reads input, calls them, renders and exits.
//!
//! Exit statuses, for every command: 0 = ran, nothing at or above the failure level; 1 = findings at
//! or above the failure level; 2 = usage error, unreadable or invalid input, internal error.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// mimalloc: loading allocates many small values on several threads; it is faster than the system
/// allocator there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `ecs-gpu --version`: the version (the workspace's Cargo.toml, the one place it is defined), the
/// commit it was built from (build.rs: "unknown" outside a git checkout) and which build it is.
#[cfg(feature = "live")]
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ECS_GPU_COMMIT"),
    "; live AWS access)"
);
#[cfg(not(feature = "live"))]
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ECS_GPU_COMMIT"),
    "; check-only build, no live AWS access)"
);

#[derive(Debug, Parser)]
#[command(
    name = "ecs-gpu",
    version = VERSION,
    about = "Make GPU tasks on Amazon ECS actually run",
    long_about = "Make GPU tasks on Amazon ECS actually run.\n\nAn ECS GPU task needs a chain of links that AWS never checks: an NVIDIA GPU instance type, the ECS GPU-optimized AMI, ECS_ENABLE_GPU_SUPPORT, EC2 capacity (never Fargate), a GPU resourceRequirements entry inside the container, and capacity that rolls out AMI updates. ecs-gpu checks the chain.\n\nExit status: 0 = ran, nothing at or above the failure level; 1 = findings at or above the failure level; 2 = usage error, unreadable or invalid input, internal error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List and filter GPU instance types: GPUs, GPU model and memory, vCPUs, memory, ECS status.
    Types(cmd::types::Args),
    /// Say where a GPU (or CPU) workload should run: ECS on EC2, Managed Instances, Anywhere, EKS, SageMaker, Bedrock or Fargate.
    Route(cmd::route::Args),
    /// Check Terraform code and ECS task-definition JSON for every broken link of the GPU chain.
    Check(cmd::check::Args),
    /// List the check rules: ID, name, default severity.
    Rules(cmd::check::RulesArgs),
    /// Show one check rule's documentation: what it checks, why it matters, an example, how to fix.
    Rule(cmd::check::RuleArgs),
    /// Say what a Terraform plan will do to running GPU tasks and instances.
    Plan(cmd::plan::Args),
    /// Walk the chain for a GPU task that never starts, live (read-only AWS calls) or from saved AWS CLI output.
    Diagnose(cmd::diagnose::Args),
    /// Simulate a deployment, a scale-out or an instance refresh: will the GPUs be there?
    Simulate(cmd::simulate::Args),
}

/// What a command that ran to the end found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing at or above the failure level.
    Clean,
    /// Findings at or above the failure level.
    Findings,
}

/// No transparent huge pages: mimalloc reserves large aligned regions, and with huge pages a short
/// run that touches part of each 2 MiB page pays for all of it. Without them `check`'s peak memory
/// stays within the bound `bench/README.md` sets (10x the checked files), at the same speed.
fn no_huge_pages() {
    // A kernel without the setting refuses it, which changes nothing.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

fn main() -> ExitCode {
    no_huge_pages();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints help and version to stdout with status 0, usage errors to stderr with 2.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let _ = write!(io::stderr(), "{}", usage_error(e));
            return ExitCode::from(2);
        }
    };
    // Buffered: a report of hundreds of findings is thousands of lines, and a line-buffered
    // stdout would make a system call for each. Flushed before anything goes to stderr.
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Types(args) => cmd::types::run(&args, &mut out),
        Command::Route(args) => cmd::route::run(&args, &mut out),
        Command::Check(args) => cmd::check::run(&args, &mut out),
        Command::Rules(args) => cmd::check::run_rules(&args, &mut out),
        Command::Rule(args) => cmd::check::run_rule(&args, &mut out),
        Command::Plan(args) => cmd::plan::run(&args, &mut out),
        Command::Diagnose(args) => cmd::diagnose::run(&args, &mut out),
        Command::Simulate(args) => cmd::simulate::run(&args, &mut out),
    };
    let flushed = out.flush();
    let result = result.and_then(|o| flushed.map(|()| o).map_err(Into::into));
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, whatever the error quotes (a path, a value from the input): control
            // characters escaped.
            let message = format!("{e:#}");
            let _ = writeln!(
                io::stderr(),
                "ecs-gpu: error: {}",
                ecs_gpu_report::escape_control(&message)
            );
            ExitCode::from(2)
        }
    }
}

/// A usage error as clap words it, with what the user typed escaped as everything printed is: an
/// invalid value or an unknown flag may hold a newline that would start a line of its own, or a
/// terminal escape sequence.
fn usage_error(mut e: clap::Error) -> String {
    use clap::error::ContextValue;
    let esc = |s: &str| ecs_gpu_report::escape_control(s).into_owned();
    let escaped: Vec<_> = e
        .context()
        .filter_map(|(kind, value)| match value {
            ContextValue::String(s) => Some((kind, ContextValue::String(esc(s)))),
            ContextValue::Strings(v) => Some((
                kind,
                ContextValue::Strings(v.iter().map(|s| esc(s)).collect()),
            )),
            _ => None,
        })
        .collect();
    for (kind, value) in escaped {
        e.insert(kind, value);
    }
    // A value parser's own message (which may quote the value) is not in the context: it is
    // escaped where it stands in the text as rendered with clap's styles, which are then removed
    // (plain text: the rest of the error is plain too).
    let mut text = e.render().ansi().to_string();
    if let Some(source) = std::error::Error::source(&e) {
        let source = source.to_string();
        text = text.replace(&source, &esc(&source));
    }
    let mut out = String::with_capacity(text.len());
    for line in without_styles(&text).lines() {
        out.push_str(&ecs_gpu_report::escape_control(line));
        out.push('\n');
    }
    out
}

/// `text` without the terminal's style sequences (`ESC [ ... m`).
fn without_styles(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find(|c: char| !(c.is_ascii_digit() || c == ';'));
        match end {
            Some(end) if after[end..].starts_with('m') => rest = &after[end + 1..],
            // Not a style: left for the escaping.
            _ => {
                out.push('\u{1b}');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A reader that closed the pipe (`ecs-gpu types | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
