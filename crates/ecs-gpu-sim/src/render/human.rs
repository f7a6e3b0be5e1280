//! The human format: per event, the verdict, the peak against the maximum, the time line, the
//! stranded GPUs and the cost.

use std::io::{self, Write};

use super::escape;
use crate::{Answer, Known, Report, Verdict};

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

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
        let max = match &g.max_instances {
            Known::Known(m) => m.to_string(),
            Known::Unknown { .. } => "unknown".to_string(),
        };
        let max_gpus = g.max_gpus.map_or(String::new(), |m| format!(" ({m} GPUs)"));
        writeln!(
            out,
            "  `{}`{}: {} before, peak {} of max {max}{max_gpus}; peak {} GPUs reserved of {}; {} GPUs needed; {} after",
            escape(&g.group),
            g.instance_type
                .as_deref()
                .map_or(String::new(), |t| format!(" ({})", escape(t))),
            plural(g.instances_before as usize, "instance", "instances"),
            g.peak_instances,
            g.peak_gpus_reserved,
            g.peak_gpus,
            g.gpus_needed,
            g.instances_after
        )?;
    }
    if !a.timeline.is_empty() {
        writeln!(out, "  time line:")?;
        for (i, s) in a.timeline.iter().enumerate() {
            let rules: Vec<&str> = s.rules.iter().map(|r| r.as_str()).collect();
            let cite = if rules.is_empty() {
                String::new()
            } else {
                format!("  [{}]", rules.join(", "))
            };
            writeln!(
                out,
                "    {:>2}. {}{cite}",
                i + 1,
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

fn dollars((lo, hi): (f64, f64)) -> String {
    if (hi - lo).abs() < 0.005 {
        format!("${lo:.2}")
    } else {
        format!("${lo:.2} to ${hi:.2}")
    }
}
