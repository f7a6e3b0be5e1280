//! The diagnosis as text: the checklist people read and the `--format json` document
//! (docs/json.md). Every value from the input (a constraint, an event, an AMI value) is escaped, so
//! it can neither forge a line nor send a terminal sequence.

use std::io::{self, Write};

use ecs_gpu_report::escape_control as esc;

use crate::{Report, Status};

/// Writes the `--format json` document: `{"version": 1, "command": "diagnose", "verdict",
/// "steps"}`.
pub fn json(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let document = serde_json::json!({"version": 1, "command": "diagnose",
        "verdict": report.verdict, "steps": report.steps});
    // Rendered whole first, so a closed pipe surfaces as one io::Error.
    let text = serde_json::to_string_pretty(&document).map_err(io::Error::other)?;
    writeln!(out, "{text}")
}

/// Writes the steps as a checklist, then the verdict; `source` says what was diagnosed.
pub fn human(out: &mut dyn Write, report: &Report, source: &str) -> io::Result<()> {
    writeln!(out, "diagnosing {}", esc(source))?;
    writeln!(out)?;
    for step in &report.steps {
        writeln!(
            out,
            "{} {}: {}",
            mark(step.status),
            step.id,
            step.id.title()
        )?;
        for e in &step.evidence {
            writeln!(out, "       - {}", esc(e))?;
        }
    }
    writeln!(out)?;
    let v = &report.verdict;
    match (v.step.as_str(), v.status) {
        ("healthy", _) => writeln!(out, "verdict: healthy: {}", esc(&v.message))?,
        (_, Status::Fail) => writeln!(out, "verdict: {} fails: {}", v.step, esc(&v.message))?,
        _ => writeln!(out, "verdict: unknown: {}", esc(&v.message))?,
    }
    if let Some(fix) = &v.fix {
        writeln!(out, "help: {}", esc(fix))?;
    }
    for note in &v.notes {
        writeln!(out, "note: {}", esc(note))?;
    }
    Ok(())
}

fn mark(s: Status) -> &'static str {
    match s {
        Status::Pass => "[pass]",
        Status::Fail => "[FAIL]",
        Status::Unknown => "[ ?? ]",
    }
}
