//! `--format human`: for each finding, `file:line:col: severity RULE name: message`, the source
//! excerpt with the span underlined, each secondary label with its own excerpt, the resource, and a
//! `help:` line; then a one-line summary. ANSI colour only when [`RenderOptions::color`] is set.

use std::io::{self, Write};

use crate::{Diagnostic, Location, RenderOptions, Report, Severity, Summary};

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn severity(&self, s: Severity) -> String {
        let code = match s {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
        };
        self.paint(code, s.as_str())
    }

    fn marker(&self, s: Severity) -> &'static str {
        match s {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
        }
    }

    fn gutter(&self, s: &str) -> String {
        self.paint("1;34", s)
    }

    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
}

fn position(l: &Location) -> String {
    format!("{}:{}:{}", l.file, l.line, l.column)
}

/// The excerpt of one span: the first line of the span, underlined from its column to its end (or
/// to the end of the line when the span goes on).
fn excerpt(
    report: &Report,
    l: &Location,
    ch: char,
    color: &str,
    gutter: usize,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some(line) = report
        .sources
        .get(&l.file)
        .and_then(|t| t.lines().nth(l.line.saturating_sub(1) as usize))
    else {
        return Ok(());
    };
    let line = line.trim_end_matches('\r').replace('\t', " ");
    let number = format!("{:>gutter$}", l.line);
    let pad = " ".repeat(gutter);
    let len = line.chars().count() as u32;
    let start = l.column.max(1);
    let end = if l.end_line == l.line {
        l.end_column.max(start + 1)
    } else {
        len + 1
    };
    let width = end
        .saturating_sub(start)
        .clamp(1, (len + 1).saturating_sub(start).max(1));
    let under = ch.to_string().repeat(width as usize);
    writeln!(out, "{pad} {}", style.gutter("|"))?;
    writeln!(out, "{} {}", style.gutter(&format!("{number} |")), line)?;
    writeln!(
        out,
        "{pad} {} {}{}",
        style.gutter("|"),
        " ".repeat(start.saturating_sub(1) as usize),
        style.paint(color, &under)
    )
}

fn diagnostic(
    report: &Report,
    d: &Diagnostic,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let head = format!(
        "{} {} {}: {}",
        style.severity(d.severity),
        style.bold(&d.rule),
        d.name,
        style.bold(&d.message)
    );
    match &d.location {
        Some(l) => writeln!(out, "{}: {head}", position(l))?,
        None => writeln!(out, "{head}")?,
    }
    let gutter = d
        .location
        .iter()
        .chain(d.labels.iter().map(|l| &l.location))
        .map(|l| l.line.to_string().len())
        .max()
        .unwrap_or(1);
    let pad = " ".repeat(gutter);
    if let Some(l) = &d.location {
        excerpt(report, l, '^', style.marker(d.severity), gutter, style, out)?;
    }
    for label in &d.labels {
        writeln!(out, "{pad} {}", style.gutter("|"))?;
        writeln!(
            out,
            "{}: {}: {}",
            position(&label.location),
            style.paint("1;36", "note"),
            label.message
        )?;
        excerpt(report, &label.location, '-', "1;34", gutter, style, out)?;
    }
    if let Some(r) = &d.resource {
        match &d.module {
            _ if !d.instances.is_empty() => writeln!(
                out,
                "{pad} {} resource: `{r}` in {}",
                style.gutter("="),
                crate::instances_text(&d.instances)
            )?,
            Some(m) => writeln!(out, "{pad} {} resource: `{r}` in `{m}`", style.gutter("="))?,
            None => writeln!(out, "{pad} {} resource: `{r}`", style.gutter("="))?,
        }
    } else if !d.instances.is_empty() {
        writeln!(
            out,
            "{pad} {} in {}",
            style.gutter("="),
            crate::instances_text(&d.instances)
        )?;
    }
    if let Some(h) = &d.help {
        writeln!(
            out,
            "{pad} {} {} {h}",
            style.gutter("="),
            style.paint("1;32", "help:")
        )?;
    }
    writeln!(out)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `3 errors, 1 warning, 0 infos in 12 files`.
pub fn summary_line(s: &Summary) -> String {
    format!(
        "{}, {}, {} in {}",
        plural(s.errors, "error", "errors"),
        plural(s.warnings, "warning", "warnings"),
        plural(s.infos, "info", "infos"),
        plural(s.files, "file", "files"),
    )
}

pub fn render(report: &Report, options: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let style = Style {
        color: options.color,
    };
    for d in &report.diagnostics {
        diagnostic(report, d, &style, out)?;
    }
    let line = summary_line(&report.summary());
    writeln!(out, "{}", style.bold(&line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_format_snapshot() {
        let mut out = Vec::new();
        render(
            &crate::test_report::sample(),
            &RenderOptions::default(),
            &mut out,
        )
        .unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn human_format_without_color_has_no_escape_codes() {
        let mut out = Vec::new();
        render(
            &crate::test_report::sample(),
            &RenderOptions::default(),
            &mut out,
        )
        .unwrap();
        assert!(!out.contains(&0x1b));
        let mut colored = Vec::new();
        let options = RenderOptions {
            color: true,
            ..RenderOptions::default()
        };
        render(&crate::test_report::sample(), &options, &mut colored).unwrap();
        assert!(colored.contains(&0x1b));
    }

    #[test]
    fn a_span_past_the_end_of_the_line_is_clamped() {
        let mut report = crate::test_report::sample();
        let d = &mut report.diagnostics[0];
        d.location.as_mut().unwrap().end_column = 500;
        let mut out = Vec::new();
        render(&report, &RenderOptions::default(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let caret_line = text.lines().find(|l| l.contains('^')).unwrap();
        assert_eq!(caret_line.trim_end().matches('^').count(), 11);
    }
}
