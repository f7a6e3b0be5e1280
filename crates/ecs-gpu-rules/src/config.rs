//! Which rules run and how severe they are: `--select`, `--ignore`, and `.ecs-gpu.toml`.
//!
//! ```toml
//! select = ["GPU1", "GPU201"]   # rule IDs or ID prefixes; "ALL" for every rule (the default)
//! ignore = ["GPU404"]
//! fail-on = "warning"           # error (default), warning or info
//!
//! [severity]                    # per-rule severity overrides
//! GPU303 = "error"
//! ```

use std::collections::BTreeMap;

use ecs_gpu_report::Severity;

use crate::{registry::RULES, Rule};

/// A configuration problem.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid TOML, or not the configuration's shape: one line, with the place
    /// (1-based line and column, when the parser gives one).
    #[error("{}{message}", place(*.line, *.column))]
    Toml {
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    /// A `[severity]` value that is not a severity.
    #[error("`[severity]` `{code}`: {message}")]
    Severity { code: String, message: String },
    #[error("`{code}` is not a rule ID or prefix{}", did_you_mean(.code))]
    UnknownRule { code: String },
}

fn place(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{l}:{c}: "),
        (Some(l), None) => format!("{l}: "),
        _ => String::new(),
    }
}

impl ConfigError {
    /// A TOML error as one line at its place: the parser's message spans several lines, with an
    /// excerpt of the file.
    fn toml(text: &str, e: &toml::de::Error) -> ConfigError {
        let (line, column) = match e.span() {
            Some(span) => {
                let before = text.get(..span.start).unwrap_or(text);
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        let message = e
            .message()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(", ");
        ConfigError::Toml {
            line,
            column,
            message,
        }
    }
}

fn did_you_mean(code: &str) -> String {
    let near = crate::nearest_ids(code, 3);
    if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", near.join(", "))
    }
}

/// `.ecs-gpu.toml`, as written.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    pub select: Option<Vec<String>>,
    #[serde(default)]
    pub ignore: Vec<String>,
    pub fail_on: Option<String>,
    #[serde(default)]
    pub severity: BTreeMap<String, String>,
}

impl FileConfig {
    pub fn parse(text: &str) -> Result<FileConfig, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::toml(text, &e))
    }
}

/// The settings a run uses.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Rule IDs or prefixes; `None` (or `ALL`) selects every rule.
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub severity: BTreeMap<String, Severity>,
}

fn matches(code: &str, rule: &Rule) -> bool {
    code.eq_ignore_ascii_case("ALL") || rule.id.starts_with(&code.to_ascii_uppercase())
}

/// Checks that a code names at least one rule.
pub fn validate_code(code: &str) -> Result<(), ConfigError> {
    if RULES.iter().any(|r| matches(code, r)) && !code.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::UnknownRule {
            code: code.to_string(),
        })
    }
}

impl Settings {
    /// Settings from a configuration file (validated).
    pub fn from_file(config: &FileConfig) -> Result<Settings, ConfigError> {
        let mut s = Settings {
            select: config.select.clone(),
            ignore: config.ignore.clone(),
            severity: BTreeMap::new(),
        };
        for (code, sev) in &config.severity {
            validate_code(code)?;
            let sev: Severity = sev
                .parse()
                .map_err(
                    |e: ecs_gpu_report::ParseSeverityError| ConfigError::Severity {
                        code: code.clone(),
                        message: e.to_string(),
                    },
                )?;
            s.severity.insert(code.to_ascii_uppercase(), sev);
        }
        s.validate()?;
        Ok(s)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        for code in self.select.iter().flatten().chain(&self.ignore) {
            validate_code(code)?;
        }
        Ok(())
    }

    /// Whether a rule runs.
    pub fn enabled(&self, rule: &Rule) -> bool {
        let selected = match &self.select {
            None => true,
            Some(codes) => codes.iter().any(|c| matches(c, rule)),
        };
        selected && !self.ignore.iter().any(|c| matches(c, rule))
    }

    /// The severity override for a rule (the longest matching code wins).
    pub fn severity_for(&self, rule: &Rule) -> Option<Severity> {
        self.severity
            .iter()
            .filter(|(code, _)| matches(code, rule))
            .max_by_key(|(code, _)| code.len())
            .map(|(_, s)| *s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str) -> &'static Rule {
        crate::rule(id).unwrap()
    }

    #[test]
    fn select_takes_ids_and_prefixes_and_ignore_wins() {
        let s = Settings {
            select: Some(vec!["GPU1".into(), "gpu003".into()]),
            ignore: vec!["GPU105".into()],
            ..Settings::default()
        };
        assert!(s.enabled(rule("GPU101")));
        assert!(s.enabled(rule("GPU003")));
        assert!(!s.enabled(rule("GPU105")));
        assert!(!s.enabled(rule("GPU001")));
        assert!(Settings::default().enabled(rule("GPU001")));
    }

    #[test]
    fn the_file_is_parsed_and_validated() {
        let f = FileConfig::parse(
            "select = [\"ALL\"]\nignore = [\"GPU10\"]\nfail-on = \"warning\"\n[severity]\nGPU105 = \"error\"\nGPU1 = \"info\"\n",
        )
        .unwrap();
        let s = Settings::from_file(&f).unwrap();
        assert_eq!(f.fail_on.as_deref(), Some("warning"));
        assert!(!s.enabled(rule("GPU101")));
        // The longest matching code wins.
        assert_eq!(s.severity_for(rule("GPU105")), Some(Severity::Error));
        assert_eq!(s.severity_for(rule("GPU108")), Some(Severity::Info));
        assert_eq!(s.severity_for(rule("GPU003")), None);
    }

    #[test]
    fn typos_are_errors_not_silence() {
        assert!(FileConfig::parse("selekt = []").is_err());
        let f = FileConfig::parse("ignore = [\"GPU9\"]").unwrap();
        let e = Settings::from_file(&f).unwrap_err().to_string();
        assert!(e.contains("GPU9"), "{e}");
        let f = FileConfig::parse("[severity]\nGPU101 = \"fatal\"").unwrap();
        assert!(Settings::from_file(&f).is_err());
    }

    /// A TOML error was 11 to 13 lines (the parser's excerpt of the file) and was
    /// printed twice; it is one line that starts with its place.
    #[test]
    fn a_toml_error_is_one_line_with_its_place() {
        for (text, want) in [
            ("select = [1 2]\n", "1:13: invalid array, expected `]`"),
            ("ignore = []\nselekt = []\n", "2:1: unknown field `selekt`"),
            (
                "fail-on = 3\n",
                "1:11: invalid type: integer `3`, expected a string",
            ),
            ("[severity]\nGPU101 = \"a\"\n[severity]\n", "3:"),
        ] {
            let e = FileConfig::parse(text).unwrap_err().to_string();
            assert!(!e.contains('\n'), "{e:?}");
            assert!(e.starts_with(want), "{text:?}: {e:?}");
        }
    }
}
