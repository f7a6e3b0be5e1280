//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning accepts it. Rules carry their help (text
//! and Markdown) and default level; results carry a relative artifact URI, a region, and a
//! `partialFingerprints` entry that does not change when lines move (rule, file, resource and
//! message only), so an alert survives unrelated edits above it.

use std::io::{self, Write};

use serde_json::{json, Value};

use crate::{Diagnostic, Location, RenderOptions, Report, Severity};

/// Where each rule's documentation is published.
pub const RULE_DOCS_BASE: &str = "https://github.com/ecs-gpu/ecs-gpu/blob/main/docs/rules/";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A relative URI reference for a path: `/` separators, no leading `./`, and everything outside
/// RFC 3986's unreserved characters (and `/`) percent-encoded.
pub fn artifact_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let path = path.trim_start_matches("./");
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A stable fingerprint: 128 bits of FNV-1a over the rule, file, resource and message (never line
/// numbers), as 32 hex digits.
pub fn fingerprint(d: &Diagnostic) -> String {
    let file = d.location.as_ref().map_or("", |l| l.file.as_str());
    let resource = d.address().unwrap_or_default();
    fingerprint_of(&[d.rule.as_str(), file, resource.as_str(), d.message.as_str()])
}

/// 128 bits of FNV-1a over the parts, each followed by a zero byte, as 32 hex digits.
pub fn fingerprint_of(parts: &[&str]) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x6c62_272e_07bb_0142;
    for part in parts {
        for &byte in part.as_bytes().iter().chain(std::iter::once(&0u8)) {
            a = (a ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            b = (b ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3 ^ 0x5bd1_e995);
        }
    }
    format!("{a:016x}{b:016x}")
}

fn physical(l: &Location) -> Value {
    json!({
        "artifactLocation": { "uri": artifact_uri(&l.file), "uriBaseId": "%SRCROOT%" },
        "region": {
            "startLine": l.line,
            "startColumn": l.column,
            "endLine": l.end_line,
            "endColumn": l.end_column,
        },
    })
}

fn result(d: &Diagnostic, rule_index: Option<usize>) -> Option<Value> {
    // GitHub code scanning rejects results without a location; findings about the run itself
    // (which have none) are left to the other formats.
    let loc = d.location.as_ref()?;
    let mut text = d.message.clone();
    if let Some(h) = &d.help {
        text.push_str(&format!("\nhelp: {h}"));
    }
    let mut location = json!({ "physicalLocation": physical(loc) });
    if !d.instances.is_empty() {
        text.push_str(&format!("\ninstances: {}", d.instances.join(", ")));
    }
    if let Some(note) = d.omitted_note() {
        text.push_str(&format!("\nnote: {note}"));
    }
    if let Some(name) = d.address() {
        location["logicalLocations"] = json!([{ "fullyQualifiedName": name, "kind": "resource" }]);
    }
    let mut v = json!({
        "ruleId": d.rule,
        "level": level(d.severity),
        "message": { "text": text },
        "locations": [location],
        "partialFingerprints": { "ecsGpuFingerprint/v1": fingerprint(d) },
    });
    if let Some(i) = rule_index {
        v["ruleIndex"] = json!(i);
    }
    if !d.labels.is_empty() {
        v["relatedLocations"] = d
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                json!({
                    "id": i + 1,
                    "physicalLocation": physical(&l.location),
                    "message": { "text": l.message },
                })
            })
            .collect();
    }
    Some(v)
}

/// The SARIF log of a report.
pub fn to_value(report: &Report, options: &RenderOptions) -> Value {
    let rules: Vec<Value> = report
        .rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.description },
                "helpUri": format!("{RULE_DOCS_BASE}{}.md", r.id),
                "help": { "text": r.doc, "markdown": r.doc },
                "defaultConfiguration": { "level": level(r.default_severity) },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .filter_map(|d| result(d, report.rules.iter().position(|r| r.id == d.rule)))
        .collect();
    let mut driver = json!({
        "name": "ecs-gpu",
        "informationUri": "https://github.com/ecs-gpu/ecs-gpu",
        "rules": rules,
    });
    if let Some(v) = &options.version {
        driver["version"] = json!(v);
        driver["semanticVersion"] = json!(v);
    }
    // A file that could not be read or parsed is a tool execution notification (SARIF 2.1.0,
    // §3.20.21): the run did not check it.
    let notifications: Vec<Value> = report
        .problems
        .iter()
        .map(|p| {
            let mut region = serde_json::Map::new();
            if let Some(l) = p.line {
                region.insert("startLine".into(), json!(l));
                if let Some(c) = p.column {
                    region.insert("startColumn".into(), json!(c));
                }
            }
            let mut physical = json!({
                "artifactLocation": { "uri": artifact_uri(&p.file), "uriBaseId": "%SRCROOT%" },
            });
            if !region.is_empty() {
                physical["region"] = Value::Object(region);
            }
            json!({
                "level": "error",
                "message": { "text": format!("{}: {}", p.file, p.message) },
                "locations": [{ "physicalLocation": physical }],
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver },
            "invocations": [{
                "executionSuccessful": report.problems.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": { "%SRCROOT%": { "description": { "text": "the directory ecs-gpu ran in" } } },
            "results": results,
        }],
    })
}

pub fn render(report: &Report, options: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &to_value(report, options))?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sarif_format_snapshot() {
        let options = RenderOptions {
            version: Some("0.1.0".into()),
            ..RenderOptions::default()
        };
        let mut out = Vec::new();
        render(&crate::test_report::sample(), &options, &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn fingerprint_ignores_line_numbers() {
        let report = crate::test_report::sample();
        let a = report.diagnostics[0].clone();
        let mut b = a.clone();
        let loc = b.location.as_mut().unwrap();
        loc.line += 10;
        loc.end_line += 10;
        assert_eq!(fingerprint(&a), fingerprint(&b));
        b.message.push('x');
        assert_ne!(fingerprint(&a), fingerprint(&b));
    }

    #[test]
    fn uri_is_relative_and_encoded() {
        assert_eq!(artifact_uri("./a b/main.tf"), "a%20b/main.tf");
        assert_eq!(artifact_uri("modules\\gpu\\x.tf"), "modules/gpu/x.tf");
    }
}
