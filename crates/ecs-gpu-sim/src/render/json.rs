//! The json format: `{"version": 1, "command": "simulate", "answers": [...], "summary": {...}}`.

use std::io::{self, Write};

use serde::Serialize;

use crate::Report;

/// Writes the report as pretty JSON, with a summary of the verdicts.
///
/// Every string keeps its exact value for a JSON reader, but a character the report crate's
/// escaper would escape ([`ecs_gpu_report::needs_escape`]: a control character, a bidirectional
/// override, a line separator) is written as a JSON `\u` escape, never raw: serde_json writes DEL,
/// the C1 controls and U+2028 as they are, and a raw U+202E reorders a terminal line when the file
/// is shown with `cat`.
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
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, Escaping::default());
    value.serialize(&mut ser).map_err(io::Error::other)?;
    writeln!(out)
}

/// serde_json's pretty formatter, with the unsafe characters of string fragments escaped.
#[derive(Default)]
struct Escaping(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(ecs_gpu_report::needs_escape) {
            w.write_all(&rest.as_bytes()[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            // Every such character is in the Basic Multilingual Plane: one `\u` escape.
            write!(w, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}
