//! `ecs-gpu check`, `ecs-gpu rules` and `ecs-gpu rule ID`.
//!
//! `check` loads the paths (ecs-gpu-model), runs the rules (ecs-gpu-rules) with the settings from
//! the command line and `.ecs-gpu.toml`, renders the diagnostics (ecs-gpu-report) and decides the
//! exit status: 2 when a file could not be read or parsed (after checking every other file) or when
//! the paths hold nothing to check, else 1 when a finding is at or above `--fail-on`, else 0.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use ecs_gpu_report::{escape_control, Format, RenderOptions, Severity};
use ecs_gpu_rules::{FileConfig, Settings, RULES};

use crate::Outcome;

/// The configuration file, found upward from the first checked path.
pub const CONFIG_FILE: &str = ".ecs-gpu.toml";

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ecs-gpu check\n  ecs-gpu check examples/broken-gpu-chain\n  ecs-gpu check infra/ --format sarif > ecs-gpu.sarif\n  ecs-gpu check infra/ --format gitlab > gl-code-quality-report.json\n  ecs-gpu check --select GPU1,GPU2 --ignore GPU404 --fail-on warning\n  ecs-gpu check --var-file prod.tfvars --var gpu_count=4\n\nSuppress a finding with a comment on the line above it, or above its block:\n  # ecs-gpu:ignore GPU303 <reason>\n\nSettings can also live in .ecs-gpu.toml (found upward from the first path): select, ignore, fail-on, and [severity] overrides.\n\nExit status: 0 = nothing at or above --fail-on; 1 = findings at or above --fail-on; 2 = a file or folder could not be read, parsed or checked (every other file is still checked; each is named on stderr), the paths hold nothing to check, or a usage error."
)]
pub struct Args {
    /// Files or folders to check: Terraform and OpenTofu (*.tf, *.tf.json, *.tofu, *.tofu.json) and ECS task-definition JSON. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub format: FormatArg,
    /// Exit 1 when a finding is at least this severe (default: error, or `fail-on` in .ecs-gpu.toml).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<SeverityArg>,
    /// Run only these rules: IDs or prefixes, comma-separated (GPU101,GPU2). Replaces `select` in .ecs-gpu.toml.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Option<Vec<String>>,
    /// Do not run these rules: IDs or prefixes, comma-separated. Adds to `ignore` in .ecs-gpu.toml.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// A Terraform variable file, as `terraform plan -var-file` (repeatable; later ones win). Like Terraform, a relative path is taken from the current directory, not from the checked folder.
    #[arg(long = "var-file", value_name = "FILE")]
    pub var_files: Vec<PathBuf>,
    /// A Terraform variable, as `terraform plan -var` (repeatable; wins over every file).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Use this configuration file instead of looking for .ecs-gpu.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore any .ecs-gpu.toml.
    #[arg(long)]
    pub no_config: bool,
    /// Colour in the human format: auto (only on a terminal, never with NO_COLOR set), always, never.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Benchmark floor: find, read and parse every file with the same parser on all cores, then
    /// stop (no model, no rules, no output but a count). Used by bench/check/run.sh.
    #[arg(long, hide = true)]
    pub parse_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// `file:line:col`, severity, rule and message, the source excerpt, a help line.
    Human,
    /// `{"version": 1, "command": "check", "diagnostics": [...], "summary": {...}, ...}`.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow-command annotations.
    Github,
    /// A GitLab Code Quality report, for `artifacts:reports:codequality`.
    Gitlab,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Human => Format::Human,
            FormatArg::Json => Format::Json,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Github => Format::Github,
            FormatArg::Gitlab => Format::Gitlab,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeverityArg {
    Error,
    Warning,
    Info,
}

impl From<SeverityArg> for Severity {
    fn from(s: SeverityArg) -> Severity {
        match s {
            SeverityArg::Error => Severity::Error,
            SeverityArg::Warning => Severity::Warning,
            SeverityArg::Info => Severity::Info,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// `.ecs-gpu.toml` in `start` or the nearest folder above it.
fn find_config(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    let mut dir = if start.is_dir() {
        Some(start.as_path())
    } else {
        start.parent()
    };
    while let Some(d) = dir {
        let candidate = d.join(CONFIG_FILE);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

/// Reads the configuration file as every other file is read (a regular file, at most
/// `MAX_FILE_BYTES`: `--config /dev/zero` is refused, not read forever). Errors are one line,
/// with the place.
fn read_config(path: &Path) -> Result<FileConfig> {
    let shown = path.display();
    let text = ecs_gpu_model::read_text(path).map_err(|e| match (e.line, e.column) {
        (Some(l), Some(c)) => anyhow!("{shown}:{l}:{c}: {}", e.message),
        _ => anyhow!("{shown}: {}", e.message),
    })?;
    FileConfig::parse(&text).map_err(|e| match e {
        ecs_gpu_rules::ConfigError::Toml {
            line: Some(l),
            column: Some(c),
            message,
        } => anyhow!("{shown}:{l}:{c}: {message}"),
        e => anyhow!("{shown}: {e}"),
    })
}

/// Why a `--var-file` cannot be read, before loading starts: the real cause (a folder, a pipe such
/// as a process substitution, a missing file), not "no such file" for all of them.
pub(crate) fn check_var_file(f: &Path) -> Result<()> {
    let meta = match std::fs::metadata(f) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            bail!("--var-file {}: no such file", f.display())
        }
        Err(e) => bail!("--var-file {}: cannot read: {e}", f.display()),
    };
    if meta.is_file() {
        return Ok(());
    }
    let kind = ecs_gpu_model::file_kind(&meta.file_type());
    #[cfg(unix)]
    let pipe = std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type());
    #[cfg(not(unix))]
    let pipe = false;
    if pipe {
        // `--var-file <(...)` is a pipe: it could be read once only, and not bounded in advance.
        bail!(
            "--var-file {}: not a regular file: {kind} (a process substitution `<(...)` is a pipe: write the variables to a file)",
            f.display()
        );
    }
    bail!("--var-file {}: not a regular file: {kind}", f.display())
}

fn use_color(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    for p in &paths {
        // Any other error (a name too long, a folder on the way that cannot be read) is the
        // loader's problem to report, with its cause, while every other path is checked.
        if std::fs::symlink_metadata(p).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
            bail!("{}: no such file or folder", p.display());
        }
    }
    if args.parse_only {
        return parse_only(&paths, out);
    }

    let config_path = match (&args.config, args.no_config) {
        (Some(p), _) => Some(p.clone()),
        (None, true) => None,
        (None, false) => find_config(&paths[0]),
    };
    let file_config = match &config_path {
        Some(p) => read_config(p)?,
        None => FileConfig::default(),
    };
    let mut settings = Settings::from_file(&file_config)
        .map_err(|e| anyhow!(e))
        .with_context(|| {
            config_path
                .as_ref()
                .map_or_else(String::new, |p| p.display().to_string())
        })?;
    if let Some(select) = &args.select {
        settings.select = Some(select.clone());
    }
    settings.ignore.extend(args.ignore.iter().cloned());
    settings.validate()?;
    let fail_on: Severity = match (args.fail_on, &file_config.fail_on) {
        (Some(s), _) => s.into(),
        (None, Some(s)) => s.parse().map_err(|e| {
            anyhow!(
                "{}: `fail-on`: {e}",
                config_path
                    .as_deref()
                    .unwrap_or(Path::new(CONFIG_FILE))
                    .display()
            )
        })?,
        (None, None) => Severity::Error,
    };

    let vars = parse_vars(&args.vars)?;
    for f in &args.var_files {
        check_var_file(f)?;
    }

    let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths,
        var_files: args.var_files.clone(),
        vars,
        only_types: Some(ecs_gpu_rules::load_types()),
        only_arguments: Some(ecs_gpu_rules::load_arguments()),
        threads: None,
        // Only the human format shows source excerpts.
        texts: if args.format == FormatArg::Human {
            ecs_gpu_model::Texts::Keep
        } else {
            ecs_gpu_model::Texts::Drop
        },
    });
    if model.files_checked == 0 && model.problems.is_empty() {
        // A mistyped path in CI must not pass as "nothing wrong".
        let shown: Vec<String> = args
            .paths
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        let shown = if shown.is_empty() {
            "the current folder".to_string()
        } else {
            shown.join(", ")
        };
        bail!(
            "nothing to check in {shown}: no Terraform file (*.tf, *.tf.json, *.tofu, *.tofu.json) and no ECS task-definition JSON; check the path"
        );
    }
    let diagnostics = ecs_gpu_rules::check(&model, &settings);
    let parts = ecs_gpu_rules::ReportParts {
        sources: args.format == FormatArg::Human,
        // Only SARIF lists the rules (`tool.driver.rules`).
        rules: args.format == FormatArg::Sarif,
    };
    let fails = diagnostics.iter().any(|d| d.severity >= fail_on);
    let mut report = ecs_gpu_rules::report_with(&model, &settings, diagnostics, parts);
    report.cap_per_place(ecs_gpu_report::MAX_PER_PLACE);
    // The process ends next: freeing the model and the report value by value would only delay it.
    let model = std::mem::ManuallyDrop::new(model);
    let report = std::mem::ManuallyDrop::new(report);
    let options = RenderOptions {
        color: args.format == FormatArg::Human && use_color(args.color),
        version: Some(env!("CARGO_PKG_VERSION").to_string()),
    };
    ecs_gpu_report::render(args.format.into(), &report, &options, out)?;

    // Terraform refuses a `-var` for a variable the root module does not declare ("Value for
    // undeclared variable"): so does `check`, once everything is checked.
    let undeclared = undeclared_vars(&model);
    if model.problems.is_empty() {
        if let Some(undeclared) = undeclared {
            out.flush()?;
            bail!("{undeclared}");
        }
    }
    if !model.problems.is_empty() {
        out.flush()?;
        let stderr = io::stderr();
        let mut err = stderr.lock();
        if let Some(undeclared) = &undeclared {
            writeln!(err, "{undeclared}")?;
        }
        for p in &model.problems {
            // Paths and messages quote the checked files: control characters escaped.
            let path = p.path.display().to_string();
            let path = escape_control(&path);
            let message = ecs_gpu_report::error_line(&p.message);
            match (p.line, p.column) {
                (Some(l), Some(c)) => writeln!(err, "{path}:{l}:{c}: {message}")?,
                (Some(l), None) => writeln!(err, "{path}:{l}: {message}")?,
                _ => writeln!(err, "{path}: {message}")?,
            }
        }
        let n = model.problems.len();
        if report.files == 0 {
            bail!(
                "nothing was checked: {n} {} could not be read or checked",
                if n == 1 { "path" } else { "paths" }
            );
        }
        bail!(
            "{n} {} could not be read or checked; every other file was checked",
            if n == 1 { "path" } else { "paths" }
        );
    }
    Ok(if fails {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// `--var NAME=VALUE` options, for `check` and `simulate` alike.
pub(crate) fn parse_vars(vars: &[String]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for v in vars {
        let Some((name, value)) = v.split_once('=') else {
            bail!("--var `{v}`: expected NAME=VALUE");
        };
        out.push((name.trim().to_string(), value.to_string()));
    }
    Ok(out)
}

/// The error of a `--var` no checked root module declares, which Terraform refuses ("Value for
/// undeclared variable"), for `check` and `simulate` alike.
pub(crate) fn undeclared_vars(model: &ecs_gpu_model::Model) -> Option<String> {
    if model.undeclared_vars.is_empty() {
        return None;
    }
    let names: Vec<String> = model
        .undeclared_vars
        .iter()
        .map(|n| format!("`{}`", escape_control(n)))
        .collect();
    Some(format!(
        "--var {}: no checked root module declares {} of that name, and Terraform refuses it",
        names.join(", "),
        if names.len() == 1 {
            "a variable"
        } else {
            "variables"
        }
    ))
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// An aligned table.
    Human,
    /// `{"version": 1, "command": "rules", "rules": [...]}`: id, name, severity, summary.
    Json,
}

pub fn run_rules(args: &RulesArgs, out: &mut dyn Write) -> Result<Outcome> {
    match args.format {
        ListFormat::Json => {
            let rules: Vec<serde_json::Value> = RULES
                .iter()
                .map(|r| {
                    serde_json::json!({"id": r.id, "name": r.name, "severity": r.severity,
                        "summary": r.summary})
                })
                .collect();
            let document = serde_json::json!({"version": 1, "command": "rules", "rules": rules});
            serde_json::to_writer_pretty(&mut *out, &document)?;
            writeln!(out)?;
        }
        ListFormat::Human => {
            let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
            writeln!(
                out,
                "{:<7} {:<8} {:<width$}  FINDS",
                "ID", "SEVERITY", "NAME"
            )?;
            for r in RULES {
                writeln!(
                    out,
                    "{:<7} {:<8} {:<width$}  {}",
                    r.id,
                    r.severity.as_str(),
                    r.name,
                    r.summary
                )?;
            }
            writeln!(out, "\nShow one rule's documentation: ecs-gpu rule <ID>")?;
        }
    }
    Ok(Outcome::Clean)
}

#[derive(Debug, clap::Args)]
pub struct RuleArgs {
    /// The rule ID (GPU101) or name (gpu-task-on-fargate).
    #[arg(value_name = "ID")]
    pub id: String,
}

pub fn run_rule(args: &RuleArgs, out: &mut dyn Write) -> Result<Outcome> {
    let Some(rule) = ecs_gpu_rules::rule(&args.id) else {
        let near = ecs_gpu_rules::nearest_ids(&args.id, 3);
        if near.is_empty() {
            bail!("no rule `{}` (`ecs-gpu rules` lists them)", args.id);
        }
        bail!(
            "no rule `{}`; the nearest: {} (`ecs-gpu rules` lists them all)",
            args.id,
            near.join(", ")
        );
    };
    writeln!(out, "# {} `{}`\n", rule.id, rule.name)?;
    writeln!(
        out,
        "Default severity: {}. Finds: {}.\n",
        rule.severity, rule.summary
    )?;
    write!(out, "{}", rule.doc())?;
    Ok(Outcome::Clean)
}

/// The parse-only floor of the benchmark: the walk, reads and parser of `check`, nothing else.
fn parse_only(paths: &[PathBuf], out: &mut dyn Write) -> Result<Outcome> {
    let floor = ecs_gpu_model::parse_only(paths);
    writeln!(
        out,
        "parsed {} files, {} bytes, {} errors",
        floor.files, floor.bytes, floor.errors
    )?;
    Ok(Outcome::Clean)
}
