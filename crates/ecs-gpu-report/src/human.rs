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

/// At most this many characters of a source line are shown: a longer line (minified JSON, a
/// one-line `jsonencode`) is cut to a window around the span, marked with `…` where it was cut, as
/// rustc and ruff cut them. The window starts up to [`CONTEXT_BEFORE`] characters before the span.
const WINDOW: usize = 120;
const CONTEXT_BEFORE: usize = 40;
/// At most this many characters of a message, a help line or a label are shown; the rest is cut
/// with `…` (a message can quote a value from the checked files, a container name of any length).
const MAX_TEXT: usize = 1000;
/// The human format stops printing findings once it has written this much: past it, one line says
/// how many findings were left out (`--format json` lists them all). Every finding is at most a
/// few windows and texts long, so the output stays near this bound.
pub const MAX_OUTPUT_BYTES: usize = 8 * 1024 * 1024;
/// Characters between two marks of a [`Source`]'s character index.
const MARK_EVERY: usize = 64;

/// Text for a terminal: control characters escaped ([`crate::escape_control`]), cut at
/// [`MAX_TEXT`] characters.
fn text(s: &str) -> String {
    let escaped = crate::escape_control(s);
    match escaped.char_indices().nth(MAX_TEXT) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped.into_owned(),
    }
}

fn position(l: &Location) -> String {
    format!("{}:{}:{}", text(&l.file), l.line, l.column)
}

/// A file's text with the index that finds its lines and columns without walking the text from
/// its start for each excerpt (a file with thousands of findings would take time quadratic in
/// them). Built once per file, when its first excerpt is shown.
struct Source<'a> {
    text: &'a str,
    /// The byte offset of each line's start.
    starts: Vec<usize>,
    /// For text that is not ASCII (where a column in characters is not a byte offset): the byte
    /// offset of every [`MARK_EVERY`]th character.
    marks: Option<Vec<usize>>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Source<'a> {
        let mut starts = vec![0];
        starts.extend(memchr_newlines(text).map(|i| i + 1));
        let marks = (!text.is_ascii()).then(|| {
            text.char_indices()
                .step_by(MARK_EVERY)
                .map(|(i, _)| i)
                .collect()
        });
        count_work(text.len());
        Source {
            text,
            starts,
            marks,
        }
    }

    /// The 1-based line `n` without its line ending, and the byte offset of its start, as
    /// `str::lines` would give it.
    fn line(&self, n: u32) -> Option<(usize, &'a str)> {
        let i = usize::try_from(n).ok()?.checked_sub(1)?;
        let start = *self.starts.get(i)?;
        if start == self.text.len() && i > 0 {
            // After the last newline: `lines` has no such line.
            return None;
        }
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.text.len(), |next| next - 1);
        let line = &self.text[start..end];
        Some((start, line.strip_suffix('\r').unwrap_or(line)))
    }

    /// The byte offset in `line` (which starts at byte `start` of the text) of its character
    /// `col` (0-based), or the line's length when it has fewer characters.
    fn byte_of_char(&self, start: usize, line: &str, col: usize) -> usize {
        let Some(marks) = &self.marks else {
            return col.min(line.len());
        };
        // The character index of the line's start: from the mark before it.
        let k = marks.partition_point(|&m| m <= start).saturating_sub(1);
        let from = marks.get(k).copied().unwrap_or(0);
        let before = self.text[from..start].chars().count();
        count_work(start - from);
        let target = k * MARK_EVERY + before + col;
        let Some(&mark) = marks.get(target / MARK_EVERY) else {
            return line.len();
        };
        let rest = &self.text[mark..];
        let offset = rest
            .char_indices()
            .nth(target % MARK_EVERY)
            .map_or(rest.len(), |(i, _)| i);
        count_work(offset);
        (mark + offset).saturating_sub(start).min(line.len())
    }
}

/// The positions just after each `\n`, minus one: the newlines of `text`.
fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i)
}

#[cfg(test)]
thread_local! {
    /// Bytes of source text looked at while finding lines and columns (tests check it stays
    /// linear in the input).
    static WORK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count_work(_bytes: usize) {
    #[cfg(test)]
    WORK.with(|w| w.set(w.get() + _bytes));
}

/// The excerpts' sources, each indexed on first use.
struct Sources<'a> {
    report: &'a Report,
    indexed: std::collections::HashMap<&'a str, Source<'a>>,
}

impl<'a> Sources<'a> {
    fn get(&mut self, file: &str) -> Option<&Source<'a>> {
        let (name, text) = self.report.sources.get_key_value(file)?;
        Some(
            self.indexed
                .entry(name.as_str())
                .or_insert_with(|| Source::new(text)),
        )
    }
}

/// A source line as shown: at most [`WINDOW`] characters around the span, cut with `…`, tabs as
/// spaces and control characters escaped; with the display columns (0-based, end exclusive)
/// the underline goes between.
fn shown_line(source: &Source<'_>, l: &Location) -> Option<(String, usize, usize)> {
    let (start, line) = source.line(l.line)?;
    let col = usize::try_from(l.column.max(1) - 1).unwrap_or(0);
    // The underline's end, in characters (exclusive): the span's end on the same line, else the
    // end of the line; at least one character, and at most one past the line's end.
    let span_end = if l.end_line == l.line {
        usize::try_from(l.end_column.max(1) - 1)
            .unwrap_or(0)
            .max(col + 1)
    } else {
        usize::MAX
    };
    // A line that fits is shown whole; a longer one from a little before the span.
    let fits = line.len() <= WINDOW || line.chars().nth(WINDOW).is_none();
    let first = if fits {
        0
    } else {
        col.saturating_sub(CONTEXT_BEFORE)
    };
    let from = source.byte_of_char(start, line, first);
    // A line whose span starts past its end is shown from its last window.
    let (first, from) = if from == line.len() && first > 0 {
        let tail = line.len().saturating_sub(WINDOW);
        let tail = (0..=tail)
            .rev()
            .find(|&i| line.is_char_boundary(i))
            .unwrap_or(0);
        let chars = line[tail..].chars().count();
        (col.min(first + chars).saturating_sub(chars), tail)
    } else {
        (first, from)
    };
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    let mut under = (None, None);
    let mut chars = line[from..].chars();
    let mut index = first;
    count_work(WINDOW);
    while index < first + WINDOW {
        if index == col {
            under.0 = Some(shown.chars().count());
        }
        if index == span_end {
            under.1 = Some(shown.chars().count());
        }
        let Some(c) = chars.next() else {
            break;
        };
        match c {
            '\t' => shown.push(' '),
            c => crate::push_escaped(&mut shown, c),
        }
        index += 1;
    }
    let line_end = shown.chars().count();
    let cut = chars.next().is_some();
    if cut {
        shown.push('…');
    }
    // A span past the end of the line: one mark just after it.
    let begin = under.0.unwrap_or(line_end);
    let end = under.1.unwrap_or(line_end);
    Some((shown, begin, end.max(begin + 1)))
}

/// The excerpt of one span: the first line of the span, underlined from its column to its end (or
/// to the end of the line when the span goes on).
fn excerpt(
    sources: &mut Sources<'_>,
    l: &Location,
    ch: char,
    color: &str,
    gutter: usize,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some((line, begin, end)) = sources.get(&l.file).and_then(|s| shown_line(s, l)) else {
        return Ok(());
    };
    let number = format!("{:>gutter$}", l.line);
    let pad = " ".repeat(gutter);
    let under = ch.to_string().repeat(end - begin);
    writeln!(out, "{pad} {}", style.gutter("|"))?;
    writeln!(out, "{} {}", style.gutter(&format!("{number} |")), line)?;
    writeln!(
        out,
        "{pad} {} {}{}",
        style.gutter("|"),
        " ".repeat(begin),
        style.paint(color, &under)
    )
}

fn diagnostic(
    sources: &mut Sources<'_>,
    d: &Diagnostic,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let head = format!(
        "{} {} {}: {}",
        style.severity(d.severity),
        style.bold(&text(&d.rule)),
        text(&d.name),
        style.bold(&text(&d.message))
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
        excerpt(
            sources,
            l,
            '^',
            style.marker(d.severity),
            gutter,
            style,
            out,
        )?;
    }
    for label in &d.labels {
        writeln!(out, "{pad} {}", style.gutter("|"))?;
        writeln!(
            out,
            "{}: {}: {}",
            position(&label.location),
            style.paint("1;36", "note"),
            text(&label.message)
        )?;
        excerpt(sources, &label.location, '-', "1;34", gutter, style, out)?;
    }
    if let Some(r) = &d.resource {
        let r = text(r);
        match &d.module {
            _ if !d.instances.is_empty() => writeln!(
                out,
                "{pad} {} resource: `{r}` in {}",
                style.gutter("="),
                text(&crate::instances_text(&d.instances))
            )?,
            Some(m) => writeln!(
                out,
                "{pad} {} resource: `{r}` in `{}`",
                style.gutter("="),
                text(m)
            )?,
            None => writeln!(out, "{pad} {} resource: `{r}`", style.gutter("="))?,
        }
    } else if !d.instances.is_empty() {
        writeln!(
            out,
            "{pad} {} in {}",
            style.gutter("="),
            text(&crate::instances_text(&d.instances))
        )?;
    }
    if let Some(note) = d.omitted_note() {
        writeln!(
            out,
            "{pad} {} {} {note}",
            style.gutter("="),
            style.paint("1;36", "note:")
        )?;
    }
    if let Some(h) = &d.help {
        writeln!(
            out,
            "{pad} {} {} {}",
            style.gutter("="),
            style.paint("1;32", "help:"),
            text(h)
        )?;
    }
    writeln!(out)
}

/// A writer that counts what goes through it.
struct Counting<'w> {
    out: &'w mut dyn Write,
    written: usize,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.written += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `1 file`, `2 files`: a count with its noun, for every command's messages.
pub fn plural<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    format!("{n} {}", if n == N::from(1) { one } else { many })
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
    render_bounded(report, options, MAX_OUTPUT_BYTES, out)
}

/// [`render`], stopping after `limit` bytes of findings.
fn render_bounded(
    report: &Report,
    options: &RenderOptions,
    limit: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let style = Style {
        color: options.color,
    };
    let mut sources = Sources {
        report,
        indexed: Default::default(),
    };
    let mut out = Counting { out, written: 0 };
    for (i, d) in report.diagnostics.iter().enumerate() {
        if out.written >= limit {
            let left = report.diagnostics.len() - i;
            writeln!(
                out,
                "{} not shown: the human format stops after {} MiB of output (`--format json` lists every finding)\n",
                plural(left, "more finding", "more findings"),
                limit / (1024 * 1024)
            )?;
            break;
        }
        diagnostic(&mut sources, d, &style, &mut out)?;
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

    /// A container name holding a newline and a forged finding, escape sequences, a carriage
    /// return and a bidirectional override: no forged line, nothing raw reaches the terminal or
    /// the terminal.
    #[test]
    fn control_characters_are_escaped_in_every_text() {
        let report = crate::test_report::hostile();
        let mut out = Vec::new();
        render(&report, &RenderOptions::default(), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        crate::test_report::assert_not_forged(&out);
    }

    /// A report of one file `text` with a finding at each `(line, column, end_column)`.
    fn findings_in(text: &str, spans: &[(u32, u32, u32)]) -> Report {
        let mut report = Report::new(1);
        report.sources.insert("big.tf".into(), text.into());
        for &(line, column, end_column) in spans {
            report.diagnostics.push(Diagnostic {
                rule: "GPU105".into(),
                name: "nvidia-driver-capabilities".into(),
                severity: Severity::Info,
                message: "m".into(),
                location: Some(Location {
                    file: "big.tf".into(),
                    line,
                    column,
                    end_line: line,
                    end_column,
                }),
                resource: None,
                module: None,
                instances: Vec::new(),
                help: None,
                labels: Vec::new(),
                omitted: 0,
            });
        }
        report
    }

    /// Renders and returns the output and the bytes of source looked at.
    fn render_counting(report: &Report) -> (String, usize) {
        WORK.with(|w| w.set(0));
        let mut out = Vec::new();
        render(report, &RenderOptions::default(), &mut out).unwrap();
        (
            String::from_utf8(out).unwrap(),
            WORK.with(std::cell::Cell::get),
        )
    }

    /// The text under the underline of the first excerpt of `out` (what the carets point at).
    fn underlined(out: &str) -> String {
        let lines: Vec<&str> = out.lines().collect();
        let i = lines.iter().position(|l| l.contains('^')).unwrap();
        let marks = lines[i];
        let shown = lines[i - 1];
        let bar = marks.find('|').unwrap();
        let begin = marks.find('^').unwrap() - bar - 2;
        let width = marks.matches('^').count();
        let body: Vec<char> = shown[shown.find('|').unwrap() + 2..].chars().collect();
        body[begin..begin + width].iter().collect()
    }

    /// An excerpt used to walk the file's lines from its start, so a file with
    /// thousands of findings took time quadratic in them. The work is now linear: the file is
    /// indexed once, and each excerpt looks at a window of its line.
    #[test]
    fn many_findings_in_one_big_file_take_linear_work() {
        let n = 20_000u32;
        let text: String = (0..n)
            .map(|i| format!("  name_{i} = \"value\"\n"))
            .collect();
        let spans: Vec<(u32, u32, u32)> = (1..=n).map(|l| (l, 3, 7)).collect();
        let (out, work) = render_counting(&findings_in(&text, &spans));
        assert_eq!(out.matches("^^^^").count(), n as usize);
        // Linear: the file once, then a window per excerpt. Walking from the start for each
        // excerpt would be about n * text.len() / 2, a thousand times more.
        assert!(
            work <= 2 * text.len() + spans.len() * (WINDOW + MARK_EVERY * 4),
            "{work} bytes looked at for {} bytes of text",
            text.len()
        );
        assert!(underlined(&out).starts_with("name"), "{}", underlined(&out));
    }

    /// A one-line file (a `jsonencode` of 368 KB, minified task-definition JSON) with
    /// many findings printed the whole line for each. Each excerpt is now a window of at most
    /// [`WINDOW`] characters around the span, cut with `…`, and the carets still point at the
    /// span; the work stays linear even when columns are not bytes (text that is not ASCII).
    #[test]
    fn a_long_line_is_cut_to_a_window_around_the_span() {
        for unit in [
            "{\"name\":\"gpu\",\"cpu\":1}",
            "{\"name\":\"gpü\",\"cpu\":1}",
        ] {
            let line = unit.repeat(368 * 1024 / unit.len());
            let chars: Vec<char> = line.chars().collect();
            let unit_chars = unit.chars().count() as u32;
            let spans: Vec<(u32, u32, u32)> = (0..2_000u32)
                .map(|i| {
                    let col = 1 + (i * 7 + 2) * unit_chars;
                    (1, col + 1, col + 7)
                })
                .collect();
            let (out, work) = render_counting(&findings_in(&line, &spans));
            for excerpt in out.lines().filter(|l| l.starts_with("1 |")) {
                assert!(excerpt.chars().count() <= WINDOW + 6, "{excerpt}");
                assert!(excerpt.starts_with("1 | …") && excerpt.ends_with('…'));
            }
            assert!(out.len() < 2_000 * 600, "{} bytes of output", out.len());
            assert!(work <= 2 * line.len() + spans.len() * (2 * WINDOW + MARK_EVERY * 8));
            let (_, col, end) = spans[0];
            let expected: String = chars[col as usize - 1..end as usize - 1].iter().collect();
            assert_eq!(underlined(&out), expected);
        }
    }

    /// The start of a line, its end, a span past the end, a span going on to the next line, a
    /// tab and an escaped control character: the carets point at the span's text as shown.
    #[test]
    fn the_underline_points_at_the_span_in_the_window() {
        let long = format!("{}TARGET{}", "a".repeat(300), "b".repeat(300));
        let cases: Vec<(String, (u32, u32, u32), &str)> = vec![
            (long.clone(), (1, 301, 307), "TARGET"),
            (long.clone(), (1, 1, 4), "aaa"),
            (long.clone(), (1, 605, 607), "bb"),
            ("x\t= \u{1b}[1mSPAN".into(), (1, 5, 13), "\\u{1b}[1mSPAN"),
            ("short".into(), (1, 4, 99), "rt"),
        ];
        for (text, span, want) in cases {
            let (out, _) = render_counting(&findings_in(&text, &[span]));
            assert_eq!(underlined(&out), want, "{span:?} in {out}");
        }
        // A line that fits the window is shown whole, wherever the span is.
        let fits = format!("{}X", " ".repeat(WINDOW - 1));
        let (out, _) = render_counting(&findings_in(
            &fits,
            &[(1, WINDOW as u32, WINDOW as u32 + 1)],
        ));
        assert!(out.contains(&format!("1 | {fits}\n")), "{out}");
        assert_eq!(underlined(&out), "X");
        let (out, _) = render_counting(&findings_in(&long, &[(1, 700, 701)]));
        assert!(out.lines().any(|l| l.starts_with("1 | …b")), "{out}");
        assert_eq!(out.matches('^').count(), 1);
    }

    /// The total is bounded. Past the limit, one line says how many findings were
    /// left out, and the summary still comes last.
    #[test]
    fn the_output_stops_at_its_limit_with_a_count_of_what_was_left_out() {
        let text: String = (0..1_000).map(|i| format!("x{i} = 1\n")).collect();
        let spans: Vec<(u32, u32, u32)> = (1..=1_000).map(|l| (l, 1, 3)).collect();
        let report = findings_in(&text, &spans);
        let mut out = Vec::new();
        render_bounded(&report, &RenderOptions::default(), 10_000, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.len() < 10_000 + 1_000, "{}", out.len());
        let shown = out.matches("info GPU105").count();
        assert!(shown > 10 && shown < 1_000);
        assert!(
            out.contains(&format!("{} more findings not shown", 1_000 - shown)),
            "{out}"
        );
        assert!(out.ends_with("0 errors, 0 warnings, 1000 infos in 1 file\n"));
    }

    /// A message quoting a huge value from the checked files is cut.
    #[test]
    fn a_huge_message_is_cut() {
        let mut report = findings_in("x = 1\n", &[(1, 1, 2)]);
        report.diagnostics[0].message = format!("container `{}`", "n".repeat(100_000));
        let (out, _) = render_counting(&report);
        assert!(out.len() < 2 * MAX_TEXT + 500);
        assert!(out.contains("nnn…"));
    }

    /// A benchmark, not a test of correctness (ignored; run with `--ignored --nocapture`): the
    /// human format of many findings in one big file takes about the time of the JSON format.
    #[test]
    #[ignore = "benchmark: prints timings"]
    #[allow(clippy::print_stderr, reason = "a benchmark's figure is its output")]
    fn bench_human_against_json_on_one_big_file() {
        let n = 100_000u32;
        let text: String = (0..n)
            .map(|i| format!("  name_{i} = \"value\"\n"))
            .collect();
        let spans: Vec<(u32, u32, u32)> = (1..=n).map(|l| (l, 3, 7)).collect();
        let report = findings_in(&text, &spans);
        let time = |f: &dyn Fn(&mut Vec<u8>)| {
            let start = std::time::Instant::now();
            let mut out = Vec::new();
            f(&mut out);
            (start.elapsed(), out.len())
        };
        let human = time(&|out| render(&report, &RenderOptions::default(), out).unwrap());
        let json = time(&|out| crate::json::render(&report, out).unwrap());
        eprintln!(
            "{n} findings in a {} byte file: human {:?} ({} bytes), json {:?} ({} bytes)",
            text.len(),
            human.0,
            human.1,
            json.0,
            json.1
        );
        assert!(human.0 < json.0 * 10 + std::time::Duration::from_secs(1));
    }
}
