//! A route as `ecs-gpu route` prints it: the home, the module and the reasons for people, and the
//! `--format json` document (docs/json.md).

use std::io::{self, Write};

use serde::Serialize;

use crate::Route;

/// The `--format json` document.
#[derive(Debug, Serialize)]
struct Document<'a> {
    version: u32,
    command: &'static str,
    home: &'a str,
    /// This repository's Terraform module for the home, or null.
    module: Option<&'a str>,
    /// What the module builds, or why there is none.
    module_note: &'a str,
    reasons: &'a [String],
    guardrails: &'a [String],
}

/// Writes the `--format json` document.
///
/// # Errors
/// Writing to `out` fails.
pub fn json(out: &mut dyn Write, r: &Route) -> io::Result<()> {
    let document = Document {
        version: 1,
        command: "route",
        home: r.home.as_str(),
        module: r.deploy.module,
        module_note: r.deploy.note,
        reasons: &r.reasons,
        guardrails: &r.guardrails,
    };
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

/// Writes the home, the module that builds it, the reasons and the guardrails.
///
/// # Errors
/// Writing to `out` fails.
pub fn human(out: &mut dyn Write, r: &Route) -> io::Result<()> {
    writeln!(out, "home: {} ({})", r.home, r.home.describe())?;
    writeln!(
        out,
        "module: {} ({})",
        r.deploy.module.unwrap_or("none"),
        r.deploy.note
    )?;
    writeln!(out, "\nwhy:")?;
    for reason in &r.reasons {
        writeln!(out, "  - {reason}")?;
    }
    if !r.guardrails.is_empty() {
        writeln!(out, "\nguardrails:")?;
        for g in &r.guardrails {
            writeln!(out, "  - {g}")?;
        }
    }
    Ok(())
}
