//! The JSON format.

use std::io::{self, Write};

use serde::Serialize;

use crate::plan_json::DeploymentCapacity;
use crate::{Effect, EffectKind, Plan};

#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    version: u32,
    command: &'static str,
    /// Terraform's `errored`: planning stopped at an error, the effects are partial.
    errored: bool,
    /// Terraform's `applyable`: `false` for an errored plan and for a plan with nothing to apply.
    applyable: bool,
    /// Terraform's `complete`: `false` for a `-target` plan or a plan that stopped at an error.
    complete: bool,
    effects: Vec<JsonEffect<'a>>,
    summary: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct JsonEffect<'a> {
    kind: &'static str,
    address: &'a str,
    related: &'a [String],
    message: String,
    /// Under a deployment: whether the capacity can hold it.
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<JsonCapacity<'a>>,
}

#[derive(Debug, Serialize)]
struct JsonCapacity<'a> {
    /// `completes`, `stuck`, `over-max` or `unknown`.
    verdict: &'static str,
    /// Why it is stuck, over the maximum or unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// The JSON format: `{"version": 1, "command": "plan", "errored", "applyable", "complete",
/// "effects": [{"kind", "address", "related", "message", "capacity"?}], "summary": {kind: count}}`,
/// with every kind in `summary` (0 when absent). The help, when there is one, ends the message
/// after `; help: `. A deployment has `capacity`: `{"verdict", "reason"?}`.
///
/// # Errors
/// Writing to `out` fails.
pub fn json(
    out: &mut dyn Write,
    plan: &Plan,
    effects: &[Effect],
    capacity: &[DeploymentCapacity],
) -> io::Result<()> {
    let mut summary = serde_json::Map::new();
    for k in EffectKind::ALL {
        let n = effects.iter().filter(|e| e.kind == k).count();
        summary.insert(k.as_str().to_string(), n.into());
    }
    let report = JsonReport {
        version: 1,
        command: "plan",
        errored: plan.is_errored(),
        applyable: plan.is_applyable(),
        complete: plan.is_complete(),
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
                capacity: super::capacity_of(e, capacity).map(|c| JsonCapacity {
                    verdict: c.answer.verdict.as_str(),
                    reason: c.answer.verdict.reason(),
                }),
            })
            .collect(),
        summary,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}
