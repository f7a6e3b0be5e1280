//! The json format: `{"version": 1, "command": "simulate", "answers": [...], "summary": {...}}`.

use std::io::{self, Write};

use crate::Report;

/// Writes the report as pretty JSON, with a summary of the verdicts.
///
/// # Errors
/// Writing to `out` fails.
pub fn json(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut summary = serde_json::Map::new();
    for status in ["completes", "stuck", "over-max", "unknown"] {
        let n = report
            .answers
            .iter()
            .filter(|a| a.verdict.as_str() == status)
            .count();
        summary.insert(status.to_string(), n.into());
    }
    let value = serde_json::json!({
        "version": 1,
        "command": "simulate",
        "answers": report.answers,
        "summary": summary,
    });
    let text = serde_json::to_string_pretty(&value).map_err(io::Error::other)?;
    writeln!(out, "{text}")
}
