//! `--format gitlab`: a GitLab Code Quality report (the subset of the Code Climate issue format
//! that GitLab reads from `artifacts:reports:codequality`), for the merge request widget.
//!
//! Each finding with a location becomes one issue: `description` (the rule, the message, the
//! resource and the help), `check_name` (the rule ID), `fingerprint`, `severity` and
//! `location.path` (as in the other formats: relative to the folder `check` ran in, which in a
//! GitLab job is the repository's root) with `location.lines`; `type` and `categories` make it a valid Code Climate issue too. GitLab tells
//! new findings from fixed ones by `fingerprint`, so it is the SARIF fingerprint (rule, file,
//! resource and message, never line numbers: a finding keeps it when lines move), and two findings
//! that would share one get a count after it (`-2`, `-3`, in printing order), because GitLab
//! counts a fingerprint once. Findings about the run itself have no file, which GitLab requires:
//! they are left to the other formats, as in SARIF. A file that could not be read or parsed is an
//! issue of its own (`ecs-gpu/parse-error`, `blocker`), so that the merge request says why the
//! job failed.

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::{json, Value};

use crate::{escape_control as esc, sarif, Report, Severity};

/// The `check_name` of a file that could not be read or parsed.
const PARSE_ERROR: &str = "ecs-gpu/parse-error";

/// A report path as GitLab reads it: relative, `/` separators, no leading `./`, control
/// characters escaped.
fn path(file: &str) -> String {
    let file = file.replace('\\', "/");
    esc(file.trim_start_matches("./")).into_owned()
}

/// GitLab's scale is `info`, `minor`, `major`, `critical`, `blocker`. An error is a task that never
/// runs or an apply that fails; a warning is a task that runs and will hurt.
fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "critical",
        Severity::Warning => "major",
        Severity::Info => "info",
    }
}

/// The Code Quality issues of a report: the findings in printing order, then the files that could
/// not be read or parsed.
pub fn to_value(report: &Report) -> Value {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut issues: Vec<Value> = report
        .diagnostics
        .iter()
        .filter_map(|d| {
            let loc = d.location.as_ref()?;
            let base = sarif::fingerprint(d);
            let count = seen.entry(base.clone()).or_insert(0);
            *count += 1;
            let fingerprint = match *count {
                1 => base,
                n => format!("{base}-{n}"),
            };
            // One line: the merge request widget shows text from the checked files as it is.
            let mut description = format!("{} {}: {}", d.rule, d.name, esc(&d.message));
            if let Some(address) = d.address() {
                description.push_str(&format!(" (resource: `{}`)", esc(&address)));
            }
            if !d.instances.is_empty() {
                description.push_str(&format!(
                    " (instances: {})",
                    esc(&crate::instances_text(&d.instances))
                ));
            }
            if let Some(note) = d.omitted_note() {
                description.push_str(&format!(" ({note})"));
            }
            if let Some(h) = &d.help {
                description.push_str(&format!("; help: {}", esc(h)));
            }
            Some(json!({
                "type": "issue",
                "check_name": d.rule,
                "description": description,
                "categories": ["Bug Risk"],
                "severity": severity(d.severity),
                "fingerprint": fingerprint,
                "location": {
                    "path": path(&loc.file),
                    "lines": { "begin": loc.line, "end": loc.end_line },
                },
            }))
        })
        .collect();
    // A file that could not be read or parsed: an issue of its own, at its place, so that the
    // merge request says why the job failed.
    let problems = report.problems.iter().map(|p| {
        let line = p.line.unwrap_or(1);
        json!({
            "type": "issue",
            "check_name": PARSE_ERROR,
            "description": esc(&p.sentence()),
            "categories": ["Bug Risk"],
            "severity": "blocker",
            "fingerprint": sarif::fingerprint_of(&[PARSE_ERROR, &p.file, &p.message]),
            "location": {
                "path": path(&p.file),
                "lines": { "begin": line, "end": line },
            },
        })
    });
    issues.extend(problems);
    Value::Array(issues)
}

pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &to_value(report))?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitlab_format_snapshot() {
        let mut out = Vec::new();
        render(&crate::test_report::sample(), &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn fingerprints_are_unique_and_survive_moved_lines() {
        let mut report = crate::test_report::sample();
        let first = report.diagnostics[0].clone();
        let mut moved = first.clone();
        let loc = moved.location.as_mut().unwrap();
        loc.line += 20;
        loc.end_line += 20;
        report.diagnostics.push(moved);
        let v = to_value(&report);
        let issues = v.as_array().unwrap();
        // The info without a location is not in the report; the error and its copy both are, and
        // the file that did not parse comes last.
        assert_eq!(issues.len(), 4);
        assert_eq!(issues[3]["check_name"], PARSE_ERROR);
        assert_eq!(issues[3]["location"]["lines"]["begin"], 4);
        let fingerprints: Vec<&str> = issues
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap())
            .collect();
        let base = sarif::fingerprint(&first);
        assert_eq!(fingerprints[0], base);
        assert_eq!(fingerprints[2], format!("{base}-2"));
        assert_ne!(fingerprints[0], fingerprints[1]);
        assert_eq!(issues[2]["location"]["lines"]["begin"], 23);
    }

    #[test]
    fn severities_follow_gitlab_scale() {
        let v = to_value(&crate::test_report::sample());
        let issues = v.as_array().unwrap();
        assert_eq!(issues[0]["severity"], "critical");
        assert_eq!(issues[1]["severity"], "major");
        assert_eq!(severity(Severity::Info), "info");
    }

    /// A container name holding a newline and a forged finding, escape sequences, a carriage
    /// return and a bidirectional override: no forged line, nothing raw reaches the terminal or
    /// the merge request widget.
    #[test]
    fn control_characters_are_escaped_in_every_text() {
        let report = crate::test_report::hostile();
        let mut out = Vec::new();
        render(&report, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        crate::test_report::assert_not_forged(&out);
    }
}
