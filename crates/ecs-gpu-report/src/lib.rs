//! Diagnostics as data, and one renderer per output format.
//!
//! A rule decides what is wrong and produces a [`Diagnostic`]; a renderer ([`human`], [`json`],
//! [`sarif`], [`github`], [`gitlab`]) decides how it looks. Neither does the other's job. Renderers write to any
//! [`std::io::Write`] and return its errors; they never print on their own.
//!
//! ```
//! use ecs_gpu_report::{Diagnostic, Format, Location, Report, RenderOptions, Severity};
//!
//! let mut report = Report::new(1);
//! report.diagnostics.push(Diagnostic {
//!     rule: "GPU101".into(),
//!     name: "gpu-task-on-fargate".into(),
//!     severity: Severity::Error,
//!     message: "the GPU task definition `aws_ecs_task_definition.app` is Fargate-compatible".into(),
//!     location: Some(Location { file: "main.tf".into(), line: 3, column: 3, end_line: 3, end_column: 40 }),
//!     resource: Some("aws_ecs_task_definition.app".into()),
//!     module: None,
//!     instances: Vec::new(),
//!     help: Some("use `requires_compatibilities = [\"EC2\"]`".into()),
//!     labels: Vec::new(),
//!     omitted: 0,
//! });
//! let mut out = Vec::new();
//! ecs_gpu_report::render(Format::Json, &report, &RenderOptions::default(), &mut out).unwrap();
//! assert!(String::from_utf8(out).unwrap().contains("\"rule\": \"GPU101\""));
//! assert_eq!(report.summary().errors, 1);
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
mod redact;
pub mod sarif;

pub use human::plural;
pub use redact::Redactions;

/// How bad a finding is.
///
/// Ordered from least to most severe, so `severity >= fail_on` reads as it should.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// The task runs, but it will hurt.
    Warning,
    /// The task will never run, or the apply will fail.
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A severity name that is not `error`, `warning` or `info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSeverityError(pub String);

impl fmt::Display for ParseSeverityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown severity `{}` (expected `error`, `warning` or `info`)",
            self.0
        )
    }
}

impl std::error::Error for ParseSeverityError {}

impl FromStr for Severity {
    type Err = ParseSeverityError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            "info" => Ok(Severity::Info),
            _ => Err(ParseSeverityError(s.to_string())),
        }
    }
}

/// A span in a file: 1-based lines and columns (columns count characters), the end exclusive.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The path as the user would write it (relative to the current directory when under it),
    /// with `/` separators.
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// A secondary place that explains the finding (the other end of a cross-resource link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub location: Location,
    /// Lowercase, no trailing period, like a message.
    pub message: String,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable rule ID, `GPU101`.
    pub rule: String,
    /// Kebab-case rule name, `gpu-task-on-fargate`.
    pub name: String,
    pub severity: Severity,
    /// Lowercase, no trailing period, identifiers in backticks.
    pub message: String,
    /// Where the problem is written. `None` only for findings about the run itself.
    pub location: Option<Location>,
    /// The resource address relative to its module, `aws_ecs_task_definition.app`.
    pub resource: Option<String>,
    /// The module address, `module.gpu`; `None` in a root module.
    pub module: Option<String>,
    /// When the same finding (rule, place, message) comes from several instances of a module
    /// (`module.head`, `module.workers`), all of their addresses, sorted; [`Diagnostic::module`]
    /// is the first. Empty otherwise.
    pub instances: Vec<String>,
    /// The remedy.
    pub help: Option<String>,
    pub labels: Vec<Label>,
    /// How many more findings of this rule at this place are not listed
    /// ([`Report::cap_per_place`]); 0 when none.
    pub omitted: usize,
}

impl Diagnostic {
    /// The resource's full address, with its module's (`module.gpu.aws_ecs_task_definition.app`),
    /// when there is a resource.
    pub fn address(&self) -> Option<String> {
        let r = self.resource.as_ref()?;
        Some(match &self.module {
            Some(m) => format!("{m}.{r}"),
            None => r.clone(),
        })
    }

    /// What a report says of [`Diagnostic::omitted`]: "12 more findings of `GPU105` here are not
    /// listed" (`None` when none are left out).
    pub fn omitted_note(&self) -> Option<String> {
        match self.omitted {
            0 => None,
            1 => Some(format!(
                "1 more finding of `{}` here is not listed",
                self.rule
            )),
            n => Some(format!(
                "{n} more findings of `{}` here are not listed",
                self.rule
            )),
        }
    }

    /// The order diagnostics are printed in: by file, line, column, then rule.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            self.location.is_none(),
            self.location.as_ref(),
            self.rule.as_str(),
            self.message.as_str(),
        )
    }
}

/// What a rule is, for renderers that describe rules (SARIF's `tool.driver.rules`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo {
    pub id: String,
    pub name: String,
    pub default_severity: Severity,
    /// One line: what the rule finds.
    pub summary: String,
    /// A paragraph: what the rule checks (SARIF's `fullDescription`).
    pub description: String,
    /// The full documentation, Markdown, with the headings What it checks / Why it matters /
    /// Example / How to fix.
    pub doc: String,
}

/// A file that could not be read or parsed. It was skipped, every other file was checked, and the
/// command exits with status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// As [`Location::file`].
    pub file: String,
    /// 1-based, when the problem has a place.
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The reader's or parser's message.
    pub message: String,
}

impl Problem {
    /// One sentence for a report: "`main.tf` could not be read or parsed, so it was not checked:
    /// `<message>`".
    pub fn sentence(&self) -> String {
        format!(
            "{} could not be read or parsed, so it was not checked: {}",
            self.file, self.message
        )
    }
}

/// Everything a renderer needs.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// Files that could not be read or parsed. The human format leaves them to the binary, which
    /// prints them on stderr for every format; the others also carry them, so that a CI report
    /// shows why the run failed.
    pub problems: Vec<Problem>,
    /// Number of files checked.
    pub files: usize,
    /// The rules that ran (SARIF lists them).
    pub rules: Vec<RuleInfo>,
    /// File texts by [`Location::file`], for the human renderer's source excerpts.
    pub sources: BTreeMap<String, String>,
}

/// Counts by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Report {
    pub fn new(files: usize) -> Report {
        Report {
            files,
            ..Report::default()
        }
    }

    pub fn summary(&self) -> Summary {
        let count = |s| {
            self.diagnostics
                .iter()
                .filter(|d| d.severity == s)
                .map(|d| 1 + d.omitted)
                .sum()
        };
        Summary {
            files: self.files,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
        }
    }

    /// Sorts the diagnostics into printing order.
    pub fn sort(&mut self) {
        self.diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }

    /// Keeps the first `max` findings of each rule at each place (in printing order) and counts
    /// the others in the last one kept ([`Diagnostic::omitted`]), which every format says. One
    /// line of code can make a million findings (a `for` over a `range` that builds containers, in
    /// a resource with a `count`): the first few say all there is to say, and the output stays
    /// near the size of the code. The summary still counts them all.
    pub fn cap_per_place(&mut self, max: usize) {
        let max = max.max(1);
        self.sort();
        let mut kept: Vec<Diagnostic> = Vec::with_capacity(self.diagnostics.len().min(1 << 16));
        let mut in_place = 0;
        for d in std::mem::take(&mut self.diagnostics) {
            let same_place = kept
                .last()
                .is_some_and(|k| k.rule == d.rule && k.location == d.location);
            in_place = if same_place { in_place + 1 } else { 1 };
            if in_place > max {
                if let Some(last) = kept.last_mut() {
                    last.omitted += 1 + d.omitted;
                }
            } else {
                kept.push(d);
            }
        }
        self.diagnostics = kept;
    }
}

/// Most findings of one rule at one place a report lists ([`Report::cap_per_place`]).
pub const MAX_PER_PLACE: usize = 100;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Human,
    Json,
    Sarif,
    Github,
    Gitlab,
}

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Human,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Gitlab,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Gitlab => "gitlab",
        }
    }
}

/// Options that change how a report looks, not what it says.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// ANSI colour (human format only). The binary turns it on only when stdout is a terminal and
    /// `NO_COLOR` is not set.
    pub color: bool,
    /// The tool version written into SARIF.
    pub version: Option<String>,
}

/// Whether a character must not reach a terminal or a line-oriented format as it is: a control
/// character (C0, DEL, C1: a newline would start a line that looks like another finding, `ESC`
/// starts a terminal escape sequence), or a Unicode character that reorders or breaks lines
/// (bidirectional overrides and isolates, the line and paragraph separators), which can make
/// text read differently from what it is.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
        )
}

/// Text from the checked files (a container name, a path, a value) made safe to print on a
/// terminal or in a line-oriented format: every character [`needs_escape`] says is unsafe is
/// written as Rust writes it in a string literal (`\n`, `\r`, `\t`, `\u{1b}`); everything else
/// is unchanged. The human, GitHub and GitLab renderers pass every text through it, and so does
/// the binary for what it prints on stderr.
///
/// ```
/// assert_eq!(ecs_gpu_report::escape_control("ok\nx\u{1b}[31m"), "ok\\nx\\u{1b}[31m");
/// assert_eq!(ecs_gpu_report::escape_control("plain `text`"), "plain `text`");
/// ```
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// The most characters of one quoted piece of input (between backticks) an error line shows.
pub const MAX_QUOTED_CHARS: usize = 200;

/// The most characters of one error line.
pub const MAX_ERROR_LINE_CHARS: usize = 4_000;

/// An error or problem line for stderr: control characters escaped ([`escape_control`]), each
/// piece quoted in backticks cut to [`MAX_QUOTED_CHARS`] characters, and the whole line to
/// [`MAX_ERROR_LINE_CHARS`], each cut said with `…` and how many characters are not shown. What
/// an error quotes comes from the input (a saved service name of 100 MB made one line of 100 MB),
/// and a line must stay a line a reader can read.
///
/// ```
/// let long = "n".repeat(1_000);
/// let line = ecs_gpu_report::error_line(&format!("no service `{long}`\nknown: none"));
/// assert!(line.len() < 300);
/// assert!(line.starts_with("no service `nnn"));
/// assert!(line.ends_with("… (800 more characters)`\\nknown: none"));
/// ```
pub fn error_line(s: &str) -> String {
    let escaped = escape_control(s);
    let mut out = String::with_capacity(escaped.len().min(MAX_ERROR_LINE_CHARS + 64));
    let mut shown = 0usize;
    for (i, piece) in escaped.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd pieces are quoted.
        let limit = if i % 2 == 1 {
            MAX_QUOTED_CHARS
        } else {
            usize::MAX
        };
        let limit = limit.min(MAX_ERROR_LINE_CHARS.saturating_sub(shown));
        match piece.char_indices().nth(limit) {
            None => {
                out.push_str(piece);
                shown += piece.chars().count();
            }
            Some((at, _)) => {
                let more = piece[at..].chars().count();
                out.push_str(&piece[..at]);
                out.push_str(&format!("… ({more} more characters)"));
                shown += limit;
            }
        }
        if shown >= MAX_ERROR_LINE_CHARS {
            break;
        }
    }
    out
}

/// Appends `c` to `out`, escaped as [`escape_control`] escapes it.
pub(crate) fn push_escaped(out: &mut String, c: char) {
    use fmt::Write as _;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// Renders a report in a format.
pub fn render(
    format: Format,
    report: &Report,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::render(report, options, out),
        Format::Json => json::render(report, out),
        Format::Sarif => sarif::render(report, options, out),
        Format::Github => github::render(report, out),
        Format::Gitlab => gitlab::render(report, out),
    }
}

#[cfg(test)]
pub(crate) mod test_report;

/// Module instances in backticks, separated by commas: "`module.head`, `module.workers`".
pub(crate) fn instances_text(instances: &[String]) -> String {
    instances
        .iter()
        .map(|m| format!("`{m}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rule: &str, line: u32, message: &str) -> Diagnostic {
        Diagnostic {
            rule: rule.into(),
            name: "n".into(),
            severity: Severity::Info,
            message: message.into(),
            location: Some(Location {
                file: "main.tf".into(),
                line,
                column: 1,
                end_line: line,
                end_column: 2,
            }),
            resource: None,
            module: None,
            instances: Vec::new(),
            help: None,
            labels: Vec::new(),
            omitted: 0,
        }
    }

    /// A rule's findings at one place past the cap are counted in the last one kept; other rules
    /// and other places keep theirs, and the summary counts every finding.
    #[test]
    fn findings_past_the_cap_at_one_place_are_counted_not_listed() {
        let mut report = Report::new(1);
        for i in 0..250 {
            report
                .diagnostics
                .push(at("GPU105", 3, &format!("c{i:03}")));
        }
        for i in 0..5 {
            report.diagnostics.push(at("GPU101", 3, &format!("t{i}")));
            report.diagnostics.push(at("GPU105", 4, &format!("d{i}")));
        }
        report.cap_per_place(100);
        let at3: Vec<&Diagnostic> = report
            .diagnostics
            .iter()
            .filter(|d| d.rule == "GPU105" && d.location.as_ref().unwrap().line == 3)
            .collect();
        assert_eq!(at3.len(), 100);
        assert_eq!(at3[99].omitted, 150);
        assert_eq!(at3[99].message, "c099");
        assert_eq!(
            at3[99].omitted_note().unwrap(),
            "150 more findings of `GPU105` here are not listed"
        );
        assert_eq!(report.diagnostics.len(), 110);
        assert_eq!(report.summary().infos, 260);
    }

    /// A text hidden for one resource is hidden in its findings only; a text hidden everywhere,
    /// in every finding; a short text only where it is quoted whole.
    #[test]
    fn hidden_texts_are_replaced_in_every_text_of_their_findings() {
        let mut r = Redactions::new([
            ("S3CRET-TOKEN".to_string(), "(sensitive)"),
            ("7".to_string(), "(ephemeral)"),
        ]);
        r.add_for_resource(
            "aws_ecs_task_definition.a".into(),
            Some("module.m".into()),
            [("inner-name".to_string(), "(sensitive)")],
        );
        let mut mine = at(
            "GPU101",
            1,
            "container `inner-name` of S3CRET-TOKEN has `7` GPUs, 7 left",
        );
        mine.resource = Some("aws_ecs_task_definition.a".into());
        mine.module = Some("module.m".into());
        mine.help = Some("rename `inner-name`".into());
        let mut other = mine.clone();
        other.module = None;
        r.apply(&mut mine);
        r.apply(&mut other);
        assert_eq!(
            mine.message,
            "container `(sensitive)` of (sensitive) has `(ephemeral)` GPUs, 7 left"
        );
        assert_eq!(mine.help.as_deref(), Some("rename `(sensitive)`"));
        assert_eq!(
            other.message,
            "container `inner-name` of (sensitive) has `(ephemeral)` GPUs, 7 left"
        );
    }
}
