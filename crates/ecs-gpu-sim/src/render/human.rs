//! The human format: per event, the verdict, the peak against the maximum, the time line, the
//! stranded GPUs and the cost.

use std::io::{self, Write};

use ecs_gpu_report::plural;

use crate::{Answer, Deployment, DeploymentGpus, Known, Report, Verdict};
use ecs_gpu_report::escape_control as escape;

/// Writes the report for a reader.
///
/// # Errors
/// Writing to `out` fails.
pub fn human(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    for (i, a) in report.answers.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        answer(out, a)?;
    }
    let count = |s: &str| {
        report
            .answers
            .iter()
            .filter(|a| a.verdict.as_str() == s)
            .count()
    };
    writeln!(out)?;
    writeln!(
        out,
        "{} simulated: {} complete, {} stuck, {} over max, {} unknown",
        plural(report.answers.len(), "event", "events"),
        count("completes"),
        count("stuck"),
        count("over-max"),
        count("unknown")
    )
}

fn answer(out: &mut dyn Write, a: &Answer) -> io::Result<()> {
    writeln!(out, "{}: {}", escape(&a.event.title()), a.verdict.as_str())?;
    match &a.verdict {
        Verdict::Completes { assumptions } => {
            for x in assumptions {
                writeln!(out, "  if {}", escape(x))?;
            }
        }
        v => {
            if let Some(r) = v.reason() {
                writeln!(out, "  {}", escape(r))?;
            }
        }
    }
    for g in &a.groups {
        let assuming = match (g.assuming, &g.instance_type) {
            (Some(b), Some(t)) => {
                format!(" if it launches only `{}`, its {}", escape(t), b.as_str())
            }
            (None, Some(t)) => format!(" ({})", escape(t)),
            _ => String::new(),
        };
        let max = match &g.max_instances {
            Known::Known(m) => {
                let gpus = g.max_gpus.map_or(String::new(), |x| {
                    format!(" ({})", plural(x as usize, "GPU", "GPUs"))
                });
                format!("`max_size` {m}{gpus}")
            }
            Known::Unknown { .. } => "`max_size` unknown".to_string(),
            Known::Hidden { hidden } => format!("`max_size` {}", hidden.label()),
        };
        writeln!(
            out,
            "  `{}`{assuming}: {} before, {} at the peak, {} after; {max}",
            escape(&g.group),
            plural(g.instances_before as usize, "instance", "instances"),
            g.peak_instances,
            g.instances_after,
        )?;
        let asked = if a.deployment.is_some() || g.gpus_asked <= g.peak_gpus_reserved {
            String::new()
        } else {
            format!("; its tasks ask for {} at once", g.gpus_asked)
        };
        writeln!(
            out,
            "    GPUs: {} reserved at the peak, of {} in service{asked}",
            g.peak_gpus_reserved, g.peak_gpus
        )?;
    }
    if let Some(d) = &a.deployment {
        writeln!(out, "  {}", need(d))?;
    }
    if !a.timeline.is_empty() {
        writeln!(out, "  time line:")?;
        let mut n = 0;
        for s in &a.timeline {
            let rules: Vec<&str> = s.rules.iter().map(|r| r.as_str()).collect();
            let cite = if rules.is_empty() {
                String::new()
            } else {
                format!("  [{}]", rules.join(", "))
            };
            // A step that repeats is numbered with the range of steps it stands for.
            let number = if s.times > 1 {
                format!("{}-{}", n + 1, n + s.times as usize)
            } else {
                (n + 1).to_string()
            };
            n += s.times as usize;
            writeln!(
                out,
                "    {number:>2}. {}{cite}",
                escape(&s.actions.join("; "))
            )?;
        }
    }
    for s in &a.stranded {
        writeln!(
            out,
            "  stranded: {} free GPU{} on each of {} `{}` in `{}` ({})",
            s.gpus_each,
            if s.gpus_each == 1 { "" } else { "s" },
            s.instances,
            escape(&s.instance_type),
            escape(&s.group),
            escape(&s.why)
        )?;
    }
    if let Some(c) = &a.cost {
        writeln!(
            out,
            "  cost per hour: {} steady, {} at the peak",
            dollars(c.steady),
            dollars(c.peak)
        )?;
    }
    for n in &a.notes {
        writeln!(out, "  note: {}", escape(n))?;
    }
    Ok(())
}

/// The least a deployment needs at once and the most it may take, in one sentence.
fn need(d: &DeploymentGpus) -> String {
    let others = if d.other_gpus > 0 {
        format!(
            ", besides the {} other tasks reserve",
            plural(d.other_gpus as usize, "GPU", "GPUs")
        )
    } else {
        String::new()
    };
    match d.deployment {
        Deployment::Rolling {
            minimum_healthy_percent,
            maximum_percent,
        } => {
            let why = if d.least_tasks > d.desired {
                format!(
                    "minimum healthy {minimum_healthy_percent}% keeps the {} running until a new one is healthy",
                    plural(d.desired as usize, "old task", "old tasks")
                )
            } else {
                format!(
                    "minimum healthy {minimum_healthy_percent}% lets old tasks stop before new ones start"
                )
            };
            let most = if d.most_gpus > d.least_gpus {
                format!(
                    "; it starts up to {} at once when they fit ({}: maximum {maximum_percent}%)",
                    plural(d.most_gpus as usize, "GPU", "GPUs"),
                    plural(d.most_tasks as usize, "task", "tasks")
                )
            } else {
                String::new()
            };
            format!(
                "the deployment needs at least {} at once to finish ({}: {why}){most}{others}",
                plural(d.least_gpus as usize, "GPU", "GPUs"),
                plural(d.least_tasks as usize, "task", "tasks")
            )
        }
        other => format!(
            "the {} deployment needs {} at once ({} of each revision, side by side until the bake time ends){others}",
            other.name(),
            plural(d.least_gpus as usize, "GPU", "GPUs"),
            plural(d.desired as usize, "task", "tasks")
        ),
    }
}

fn dollars((lo, hi): (f64, f64)) -> String {
    if (hi - lo).abs() < 0.005 {
        format!("${lo:.2}")
    } else {
        format!("${lo:.2} to ${hi:.2}")
    }
}
