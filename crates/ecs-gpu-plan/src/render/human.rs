//! The human format.

use std::io::{self, Write};

use ecs_gpu_report::escape_control as escape;

use crate::plan_json::DeploymentCapacity;
use crate::{Effect, EffectKind, Plan};

/// The human format: a summary line, then the effects grouped by kind, most disruptive first. Under
/// a deployment, whether the capacity can hold it (`capacity`, from
/// [`crate::plan_json::deployment_capacity`]).
///
/// # Errors
/// Writing to `out` fails.
pub fn human(
    out: &mut dyn Write,
    plan: &Plan,
    effects: &[Effect],
    capacity: &[DeploymentCapacity],
) -> io::Result<()> {
    if plan.is_errored() {
        writeln!(
            out,
            "the plan cannot be applied: Terraform stopped planning at an error (`errored: true`), so the changes below are only those planned before it"
        )?;
        writeln!(
            out,
            "help: fix the errors `terraform plan` printed (a failed precondition, a provider error) and plan again"
        )?;
    } else if !plan.is_applyable() {
        writeln!(
            out,
            "the plan has nothing to apply (`applyable: false`, no error): applying it changes nothing"
        )?;
    } else if !plan.is_complete() {
        writeln!(
            out,
            "the plan is incomplete (`complete: false`, a `-target` plan): resources left out of it may change at the next full plan"
        )?;
    }
    writeln!(out, "{}", summary_line(plan, effects))?;
    for kind in EffectKind::ALL {
        let of_kind: Vec<&Effect> = effects.iter().filter(|e| e.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{kind} ({})", of_kind.len())?;
        for e in of_kind {
            writeln!(out, "  {}", escape(&e.address))?;
            writeln!(out, "    {}", escape(&e.message))?;
            if !e.related.is_empty() {
                writeln!(out, "    related: {}", escape(&e.related.join(", ")))?;
            }
            if let Some(c) = super::capacity_of(e, capacity) {
                writeln!(out, "    {}", escape(&c.line()))?;
            }
            if let Some(h) = &e.help {
                writeln!(out, "    help: {}", escape(h))?;
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
