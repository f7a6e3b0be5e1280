//! The check rules of ecs-gpu: one file per rule under `src/rules/`, each with a stable ID, a
//! kebab-case name, a default severity, its documentation (the doc comment), and
//! `fn check(model, report)`. [`check`] runs the enabled rules over a loaded [`Model`], applies
//! suppressions and severity overrides, and returns diagnostics as data for `ecs-gpu-report`.
//!
//! No rule fires on an unknown value: a wrong finding is worse than a missed one.
//!
//! ```
//! use ecs_gpu_rules::{check, rule, Settings};
//!
//! let model = ecs_gpu_model::Model::default();
//! assert!(check(&model, &Settings::default()).is_empty());
//! assert_eq!(rule("GPU101").unwrap().name, "gpu-task-on-fargate");
//! assert!(rule("GPU101").unwrap().doc().contains("## Why it matters"));
//! ```

pub mod clock;
pub mod config;
pub mod docs;
pub mod driver;
mod registry;
mod rule;
pub mod rules;
pub mod suppress;

use std::collections::HashMap;

use ecs_gpu_model::{FileId, Loc, Model};
use ecs_gpu_report::{Diagnostic, Label, Location};
// The GPU stack the rules read (`ecs-gpu-stack`), named from the crate root: `crate::capacity`.
pub(crate) use ecs_gpu_stack::{backticked, capacity, task, terraform_root};

pub use config::{ConfigError, FileConfig, Settings};
pub use ecs_gpu_report::Severity;
pub use ecs_gpu_stack::{load_filters, reads, Reads};
pub use registry::{load_arguments, load_types, RULES};
pub use rule::{attribute_site, block_extent, Context, Finding, FindingBuilder, Findings, Rule};

/// The rule with this ID (case-insensitive).
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .copied()
        .find(|r| r.id.eq_ignore_ascii_case(id) || r.name == id)
}

/// The IDs nearest to a mistyped one, best first.
pub fn nearest_ids(id: &str, max: usize) -> Vec<&'static str> {
    let id = id.to_ascii_uppercase();
    let mut scored: Vec<(f64, &'static str)> = RULES
        .iter()
        .map(|r| {
            let by_id = strsim::jaro_winkler(&id, r.id);
            let by_name = strsim::jaro_winkler(&id.to_ascii_lowercase(), r.name);
            (by_id.max(by_name), r.id)
        })
        .filter(|(s, _)| *s >= 0.7)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(max).map(|(_, id)| id).collect()
}

/// A model location as a report location.
pub fn location(model: &Model, loc: Loc) -> Location {
    let file = model.file(loc.file);
    let ((line, column), (end_line, end_column)) =
        file.line_col_range(loc.span.start, loc.span.end);
    Location {
        file: file.path.to_string_lossy().replace('\\', "/"),
        line,
        column,
        end_line,
        end_column,
    }
}

fn diagnostic(model: &Model, f: &Finding, severity: Severity) -> Diagnostic {
    let mut at = f.loc.map(|l| location(model, l));
    let mut labels: Vec<Label> = f
        .labels
        .iter()
        .map(|(loc, message)| Label {
            location: location(model, *loc),
            message: message.clone(),
        })
        .collect();
    // A place inside a module `terraform init` installed is not the user's to edit: the finding
    // points at the call that brings the module in, with the module's line as a note.
    if let (Some(inside), Some(call)) = (&at, installing_call(model, f)) {
        if is_installed(&inside.file) {
            labels.insert(
                0,
                Label {
                    location: inside.clone(),
                    message: "written here, in the installed module's code".to_string(),
                },
            );
            at = Some(call);
        }
    }
    Diagnostic {
        rule: f.rule.id.to_string(),
        name: f.rule.name.to_string(),
        severity,
        message: f.message.clone(),
        location: at,
        resource: f.resource.clone(),
        module: f.module.clone(),
        instances: Vec::new(),
        help: f.help.clone(),
        labels,
        omitted: f.omitted,
    }
}

/// Whether a path is inside the modules `terraform init` installs (`.terraform/modules/...`).
fn is_installed(file: &str) -> bool {
    file.starts_with(".terraform/modules/") || file.contains("/.terraform/modules/")
}

/// The `module` block, outside any installed module, through which the finding's module is
/// reached (for `module.a.module.b` installed under `a`: the call of `module.a`).
fn installing_call(model: &Model, f: &Finding) -> Option<Location> {
    let address = f.module.as_deref()?;
    let mut m = model
        .modules
        .iter()
        .find(|m| m.address.as_deref() == Some(address))?;
    loop {
        let call = location(model, m.call?);
        if !is_installed(&call.file) {
            return Some(call);
        }
        m = model.module(m.parent?);
    }
}

/// Runs the enabled rules, in parallel, then applies suppressions (reporting GPU001 and GPU002)
/// and severity overrides. The diagnostics are sorted by file, line, column and rule.
pub fn check(model: &Model, settings: &Settings) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    // The analyses several rules share are computed once, by the first rule that needs each (the
    // others wait for it).
    let ctx = Context::new(model);
    let rules: Vec<&'static Rule> = RULES
        .iter()
        .copied()
        .filter(|r| settings.enabled(r))
        .collect();
    // Collected in rule order, whichever thread ran which rule.
    let mut findings: Vec<(Finding, Diagnostic)> = rules
        .par_iter()
        .flat_map_iter(|&rule| {
            let mut report = Findings::new(&ctx, rule);
            (rule.check)(model, &mut report);
            let severity = settings.severity_for(rule);
            report.into_findings().into_iter().map(move |f| {
                let d = diagnostic(model, &f, severity.unwrap_or(f.severity));
                (f, d)
            })
        })
        .collect();
    let suppressions = suppress::collect(model);
    let mut used = vec![false; suppressions.len()];
    // A suppression silences findings of its own file only: each finding is compared with those
    // of the files of its place and its block.
    let mut of_file: HashMap<FileId, Vec<usize>> = HashMap::new();
    for (i, s) in suppressions.iter().enumerate() {
        of_file.entry(s.file).or_default().push(i);
    }
    findings.retain(|(f, _)| {
        let mut files: Vec<FileId> = f.loc.iter().chain(&f.block).map(|l| l.file).collect();
        files.dedup();
        let mut keep = true;
        for &i in files.iter().flat_map(|file| of_file.get(file)).flatten() {
            if suppressions[i].covers(model, f) {
                used[i] = true;
                keep = false;
            }
        }
        keep
    });
    let mut meta = Findings::new(&ctx, &rules::gpu001_suppression_without_reason::RULE);
    for s in suppressions.iter().filter(|s| s.reason.is_none()) {
        meta.add(
            Some(s.loc),
            format!(
                "the suppression of {} gives no reason",
                backticked(&s.codes)
            ),
        )
        .help("write why after the rule IDs: `# ecs-gpu:ignore GPU303 <reason>`");
    }
    let mut unused = Findings::new(&ctx, &rules::gpu002_unused_suppression::RULE);
    for (s, used) in suppressions.iter().zip(&used) {
        if *used {
            continue;
        }
        let unknown: Vec<&String> = s.codes.iter().filter(|c| rule(c).is_none()).collect();
        if !unknown.is_empty() {
            unused
                .add(
                    Some(s.loc),
                    format!(
                        "the suppression names {}, which is not a rule",
                        backticked(&unknown)
                    ),
                )
                .help("use the rule IDs that `ecs-gpu rules` lists");
        } else if s.codes.is_empty() {
            unused
                .add(Some(s.loc), "the suppression names no rule")
                .help("write the rule IDs to silence: `# ecs-gpu:ignore GPU303 <reason>`");
        } else if s
            .codes
            .iter()
            .all(|c| rule(c).is_some_and(|r| settings.enabled(r)))
        {
            unused
                .add(Some(s.loc), format!("the suppression of {} silences nothing", backticked(&s.codes)))
                .help("remove it: no finding of these rules is on the next line or in the block below it");
        }
    }
    let mut out: Vec<Diagnostic> = findings.into_iter().map(|(_, d)| d).collect();
    for (rule, extra) in [
        (&rules::gpu001_suppression_without_reason::RULE, meta),
        (&rules::gpu002_unused_suppression::RULE, unused),
    ] {
        if settings.enabled(rule) {
            out.extend(extra.into_findings().iter().map(|f| {
                let severity = settings.severity_for(f.rule).unwrap_or(f.severity);
                diagnostic(model, f, severity)
            }));
        }
    }
    // The last guard against printing a secret: a rule quotes values through `Node::shown`,
    // which says `(sensitive)` for a hidden one; any hidden text still in a diagnostic (a rule
    // that quotes a container name, a key) is replaced the same way.
    let texts = model.hidden_texts();
    let mut hidden = ecs_gpu_report::Redactions::new(
        texts
            .everywhere
            .into_iter()
            .map(|(text, mark)| (text, mark.label())),
    );
    for (id, texts) in texts.by_resource {
        let r = model.resource(id);
        hidden.add_for_resource(
            model.local_address(r),
            model.module_address(r).map(str::to_string),
            texts.into_iter().map(|(text, mark)| (text, mark.label())),
        );
    }
    for d in &mut out {
        hidden.apply(d);
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup();
    drop_root_copies_of_module_findings(&mut out);
    merge_module_instances(&mut out);
    out
}

/// One place written once but reached through several module instances (two calls of one module
/// folder, `count`/`for_each` on a call) gives the same finding once per instance: it is one
/// defect, reported once, with every instance in [`Diagnostic::instances`].
fn merge_module_instances(out: &mut Vec<Diagnostic>) {
    type Key = (String, Severity, Location, String, Option<String>);
    let mut first: std::collections::HashMap<Key, usize> = std::collections::HashMap::new();
    let mut keep = vec![true; out.len()];
    for i in 0..out.len() {
        let d = &out[i];
        let (Some(loc), Some(module)) = (&d.location, &d.module) else {
            continue;
        };
        let key = (
            d.rule.clone(),
            d.severity,
            loc.clone(),
            d.message.clone(),
            d.resource.clone(),
        );
        match first.get(&key) {
            Some(&j) => {
                let module = module.clone();
                let omitted = d.omitted;
                let into = &mut out[j];
                // Each instance counted the findings it left out at this place; the same code
                // in another instance leaves out the same ones, which merge as these do.
                into.omitted = into.omitted.max(omitted);
                if into.instances.is_empty() {
                    into.instances.extend(into.module.clone());
                }
                if !into.instances.contains(&module) {
                    into.instances.push(module);
                }
                keep[i] = false;
            }
            None => {
                first.insert(key, i);
            }
        }
    }
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(true));
    for d in out.iter_mut().filter(|d| !d.instances.is_empty()) {
        d.instances.sort();
        d.module = d.instances.first().cloned();
    }
}

/// A module folder is also checked as a root of its own: nothing says which folders are roots.
/// When that check finds what a call of the module finds (the same rule, severity, place, message
/// and resource), it is one fact, reported once: with the module address, which names the call.
fn drop_root_copies_of_module_findings(out: &mut Vec<Diagnostic>) {
    type Key<'a> = (&'a str, Severity, &'a Location, &'a str, Option<&'a str>);
    fn key(d: &Diagnostic) -> Option<Key<'_>> {
        let loc = d.location.as_ref()?;
        Some((
            d.rule.as_str(),
            d.severity,
            loc,
            d.message.as_str(),
            d.resource.as_deref(),
        ))
    }
    let keep: Vec<bool> = {
        let in_calls: std::collections::HashSet<Key<'_>> = out
            .iter()
            .filter(|d| d.module.is_some())
            .filter_map(key)
            .collect();
        if in_calls.is_empty() {
            return;
        }
        out.iter()
            .map(|d| d.module.is_some() || key(d).is_none_or(|k| !in_calls.contains(&k)))
            .collect()
    };
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(true));
}

/// A report ready to render: the diagnostics, the texts of the files they point into (for the
/// human format's excerpts) and the rules that ran, with their documentation (for SARIF).
pub fn report(
    model: &Model,
    settings: &Settings,
    diagnostics: Vec<Diagnostic>,
) -> ecs_gpu_report::Report {
    report_with(
        model,
        settings,
        diagnostics,
        ReportParts {
            sources: true,
            rules: true,
        },
    )
}

/// What a report carries besides the diagnostics and problems: only some formats show them, and
/// building them takes time (the rules' documentation, copies of the texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportParts {
    /// The texts of the files the diagnostics point into.
    pub sources: bool,
    /// The rules that ran.
    pub rules: bool,
}

/// [`report`], with only the parts a format shows.
pub fn report_with(
    model: &Model,
    settings: &Settings,
    diagnostics: Vec<Diagnostic>,
    parts: ReportParts,
) -> ecs_gpu_report::Report {
    let mut report = ecs_gpu_report::Report::new(model.files_checked);
    report.diagnostics = diagnostics;
    report.problems = model
        .problems
        .iter()
        .map(|p| ecs_gpu_report::Problem {
            file: p.path.to_string_lossy().replace('\\', "/"),
            line: p.line,
            column: p.column,
            message: p.message.clone(),
        })
        .collect();
    if parts.rules {
        report.rules = RULES
            .iter()
            .filter(|r| settings.enabled(r))
            .map(|r| r.info())
            .collect();
    }
    if !parts.sources {
        return report;
    }
    let wanted: std::collections::BTreeSet<&str> = report
        .diagnostics
        .iter()
        .flat_map(|d| {
            d.location
                .iter()
                .chain(d.labels.iter().map(|l| &l.location))
        })
        .map(|l| l.file.as_str())
        .collect();
    let mut sources = std::collections::BTreeMap::new();
    for f in &model.files {
        let path = f.path.to_string_lossy().replace('\\', "/");
        if wanted.contains(path.as_str()) {
            if let Some(text) = f.read_text() {
                sources.insert(path, text.into_owned());
            }
        }
    }
    report.sources = sources;
    report
}
