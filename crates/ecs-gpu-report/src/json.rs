//! `--format json`: `{"version": 1, "command": "check", "diagnostics": [...], "summary": {...},
//! "problems": [...]}` (the envelope of docs/json.md), one object per finding with the same keys
//! in the same order every time, and one per file that could not be read or parsed (`file`,
//! `line`, `column`, `message`; empty when every file was read).

use std::io::{self, Write};

use serde_json::Value;

use crate::{Diagnostic, Report};

/// The JSON document's schema version.
pub const VERSION: u32 = 1;

/// The JSON value of a report.
pub fn to_value(report: &Report) -> Value {
    serde_json::to_value(Document::of(report)).unwrap_or(Value::Null)
}

/// The document as written: serialized straight from the report, with no intermediate value.
#[derive(serde::Serialize)]
struct Document<'a> {
    version: u32,
    command: &'static str,
    diagnostics: Vec<Entry<'a>>,
    summary: crate::Summary,
    problems: Vec<ProblemEntry<'a>>,
}

/// A file that could not be read or parsed.
#[derive(serde::Serialize)]
struct ProblemEntry<'a> {
    file: &'a str,
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
}

/// One diagnostic, with the documented keys in their documented order.
#[derive(serde::Serialize)]
struct Entry<'a> {
    rule: &'a str,
    name: &'a str,
    severity: crate::Severity,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    end_line: Option<u32>,
    end_column: Option<u32>,
    resource: Option<&'a str>,
    module: Option<&'a str>,
    /// Every module instance the finding comes from, when there are several.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    instances: &'a [String],
    help: Option<&'a str>,
    /// How many more findings of this rule at this place are not listed.
    #[serde(skip_serializing_if = "is_zero")]
    omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> Document<'a> {
    fn of(report: &'a Report) -> Document<'a> {
        Document {
            version: VERSION,
            command: "check",
            diagnostics: report.diagnostics.iter().map(Entry::of).collect(),
            summary: report.summary(),
            problems: report
                .problems
                .iter()
                .map(|p| ProblemEntry {
                    file: &p.file,
                    line: p.line,
                    column: p.column,
                    message: &p.message,
                })
                .collect(),
        }
    }
}

impl<'a> Entry<'a> {
    fn of(d: &'a Diagnostic) -> Entry<'a> {
        let loc = d.location.as_ref();
        Entry {
            rule: &d.rule,
            name: &d.name,
            severity: d.severity,
            message: &d.message,
            file: loc.map(|l| l.file.as_str()),
            line: loc.map(|l| l.line),
            column: loc.map(|l| l.column),
            end_line: loc.map(|l| l.end_line),
            end_column: loc.map(|l| l.end_column),
            resource: d.resource.as_deref(),
            module: d.module.as_deref(),
            instances: &d.instances,
            help: d.help.as_deref(),
            omitted: d.omitted,
        }
    }
}

pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    // Serialized into memory, then written at once: serde writes many small pieces, and each
    // through `dyn Write` is a call.
    let mut text = serde_json::to_vec_pretty(&Document::of(report))?;
    text.push(b'\n');
    out.write_all(&text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_format_snapshot() {
        let mut out = Vec::new();
        super::render(&crate::test_report::sample(), &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn json_has_exactly_the_documented_keys() {
        let v = super::to_value(&crate::test_report::sample());
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let documented = ["version", "command", "diagnostics", "summary", "problems"];
        assert_eq!(keys, documented);
        let p = v["problems"][0].as_object().unwrap();
        let keys: Vec<&str> = p.keys().map(String::as_str).collect();
        assert_eq!(keys, ["file", "line", "column", "message"]);
        let d = v["diagnostics"][0].as_object().unwrap();
        let keys: Vec<&str> = d.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "rule",
                "name",
                "severity",
                "message",
                "file",
                "line",
                "column",
                "end_line",
                "end_column",
                "resource",
                "module",
                "help"
            ]
        );
        let s = v["summary"].as_object().unwrap();
        let keys: Vec<&str> = s.keys().map(String::as_str).collect();
        assert_eq!(keys, ["files", "errors", "warnings", "infos"]);
    }
}
