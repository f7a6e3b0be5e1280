//! Effects as text: one function per output format. Renderers decide nothing; they only format.

use std::io::{self, Write};

use serde::Serialize;

use crate::{Effect, EffectKind, Plan};

/// The human format: a summary line, then the effects grouped by kind, most disruptive first.
///
/// # Errors
/// Writing to `out` fails.
pub fn human(out: &mut dyn Write, plan: &Plan, effects: &[Effect]) -> io::Result<()> {
    writeln!(out, "{}", summary_line(plan, effects))?;
    for kind in EffectKind::ALL {
        let of_kind: Vec<&Effect> = effects.iter().filter(|e| e.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{kind} ({})", of_kind.len())?;
        for e in of_kind {
            writeln!(out, "  {}", e.address)?;
            writeln!(out, "    {}", e.message)?;
            if !e.related.is_empty() {
                writeln!(out, "    related: {}", e.related.join(", "))?;
            }
            if let Some(h) = &e.help {
                writeln!(out, "    help: {h}")?;
            }
        }
    }
    Ok(())
}

fn summary_line(plan: &Plan, effects: &[Effect]) -> String {
    let changes = plan.gpu_stack_changes();
    let of = format!(
        "{changes} change{} to the GPU stack, {} resource change{} in the plan",
        if changes == 1 { "" } else { "s" },
        plan.resource_changes,
        if plan.resource_changes == 1 { "" } else { "s" }
    );
    if effects.is_empty() {
        return format!("no effect on running GPU tasks or instances ({of})");
    }
    let counts: Vec<String> = EffectKind::ALL
        .iter()
        .filter_map(|&k| {
            let n = effects.iter().filter(|e| e.kind == k).count();
            (n > 0).then(|| format!("{n} {k}"))
        })
        .collect();
    format!(
        "{} effect{}: {} ({of})",
        effects.len(),
        if effects.len() == 1 { "" } else { "s" },
        counts.join(", ")
    )
}

#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    version: u32,
    effects: Vec<JsonEffect<'a>>,
    summary: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct JsonEffect<'a> {
    kind: &'static str,
    address: &'a str,
    related: &'a [String],
    message: String,
}

/// The JSON format: `{"version": 1, "effects": [{"kind", "address", "related", "message"}],
/// "summary": {kind: count}}`, with every kind in `summary` (0 when absent). The help, when there
/// is one, ends the message after `; help: `.
///
/// # Errors
/// Writing to `out` fails.
pub fn json(out: &mut dyn Write, effects: &[Effect]) -> io::Result<()> {
    let mut summary = serde_json::Map::new();
    for k in EffectKind::ALL {
        let n = effects.iter().filter(|e| e.kind == k).count();
        summary.insert(k.as_str().to_string(), n.into());
    }
    let report = JsonReport {
        version: 1,
        effects: effects
            .iter()
            .map(|e| JsonEffect {
                kind: e.kind.as_str(),
                address: &e.address,
                related: &e.related,
                message: match &e.help {
                    Some(h) => format!("{}; help: {h}", e.message),
                    None => e.message.clone(),
                },
            })
            .collect(),
        summary,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}
