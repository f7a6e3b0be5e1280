//! `--format github`: GitHub Actions workflow commands, one annotation per finding
//! (`::error file=main.tf,line=3,col=30,endLine=3,endColumn=41,title=GPU101 gpu-task-on-fargate::...`).

use std::io::{self, Write};

use crate::{escape_control as esc, Report, Severity};

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// Escapes a command's data (the message): `%`, `\r` and `\n`. Text from the checked files goes
/// through [`crate::escape_control`] first, so that only the renderer's own line breaks are left.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property value: the data escapes plus `:` and `,`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    // A file that could not be read or parsed: an error annotation at its place.
    for p in &report.problems {
        let mut props = vec![format!("file={}", escape_property(&esc(&p.file)))];
        if let Some(l) = p.line {
            props.push(format!("line={l}"));
            if let Some(c) = p.column {
                props.push(format!("col={c}"));
            }
        }
        props.push(format!(
            "title={}",
            escape_property("ecs-gpu: file not checked")
        ));
        writeln!(
            out,
            "::error {}::{}",
            props.join(","),
            escape_data(&esc(&p.sentence()))
        )?;
    }
    for d in &report.diagnostics {
        let mut props = Vec::new();
        if let Some(l) = &d.location {
            props.push(format!("file={}", escape_property(&esc(&l.file))));
            props.push(format!("line={}", l.line));
            props.push(format!("col={}", l.column));
            props.push(format!("endLine={}", l.end_line));
            props.push(format!("endColumn={}", l.end_column));
        }
        props.push(format!(
            "title={}",
            escape_property(&esc(&format!("{} {}", d.rule, d.name)))
        ));
        // The message, the resource and the help on lines of their own: the only line breaks.
        let mut message = esc(&d.message).into_owned();
        if let Some(address) = d.address() {
            message.push_str(&format!("\nresource: {}", esc(&address)));
        }
        if !d.instances.is_empty() {
            message.push_str(&format!("\ninstances: {}", esc(&d.instances.join(", "))));
        }
        if let Some(note) = d.omitted_note() {
            message.push_str(&format!("\nnote: {note}"));
        }
        if let Some(h) = &d.help {
            message.push_str(&format!("\nhelp: {}", esc(h)));
        }
        writeln!(
            out,
            "::{} {}::{}",
            command(d.severity),
            props.join(","),
            escape_data(&message)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_format_snapshot() {
        let mut out = Vec::new();
        render(&crate::test_report::sample(), &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    }

    #[test]
    fn properties_escape_colon_and_comma() {
        assert_eq!(escape_property("a:b,c%d\ne\r"), "a%3Ab%2Cc%25d%0Ae%0D");
        assert_eq!(escape_data("a:b,c%d\n"), "a:b,c%25d%0A");
    }

    /// A container name holding a newline and a forged finding, escape sequences, a carriage
    /// return and a bidirectional override: no forged line, nothing raw reaches the terminal or
    /// the GitHub log.
    #[test]
    fn control_characters_are_escaped_in_every_text() {
        let report = crate::test_report::hostile();
        let mut out = Vec::new();
        render(&report, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        crate::test_report::assert_not_forged(&out);
    }
}
