//! A route as `ecs-gpu route` prints it: the home, the module and the reasons for people, and the
//! `--format json` document (docs/json.md).

use std::io::{self, Write};

use crate::Route;

/// Writes the `--format json` document; `module` is this repository's Terraform module for the
/// home or null, and `module_note` says what it builds or why there is none.
pub fn json(out: &mut dyn Write, r: &Route) -> io::Result<()> {
    let document = serde_json::json!({"version": 1, "command": "route", "home": r.home.as_str(),
        "module": r.deploy.module, "module_note": r.deploy.note, "reasons": r.reasons,
        "guardrails": r.guardrails});
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

/// Writes the home, the module that builds it, the reasons and the guardrails.
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
