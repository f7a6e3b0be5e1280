//! Why an input could not be read as a Terraform plan.

use std::io;

/// An input that is not a readable Terraform plan. The messages never quote a value from the input:
/// a value may be sensitive.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // The cause is part of the message and not a `source`: a caller that prints the error chain
    // would print it twice.
    #[error("cannot read the plan: {0}")]
    Io(io::Error),
    #[error("the input is empty: expected the JSON of `terraform show -json PLANFILE`")]
    Empty,
    #[error(
        "this is a binary Terraform plan file, not its JSON: run `terraform show -json PLANFILE > plan.json` in the Terraform working directory and read plan.json"
    )]
    BinaryPlan,
    #[error(
        "this is UTF-16 text, not UTF-8 JSON (Windows PowerShell's `>` writes UTF-16): write the plan with `terraform show -json tfplan | Out-File -Encoding utf8 plan.json`, or pipe it to `ecs-gpu plan -`"
    )]
    Utf16,
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    InvalidJson {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("not a readable plan: at line {line}, column {column}: {message}")]
    Malformed {
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "this is a Terraform state file ({what}), not a plan: run `terraform plan -out tfplan` and `terraform show -json tfplan`"
    )]
    StateFile { what: &'static str },
    #[error("not a readable plan: {message} (at line {line}, column {column})")]
    WrongShape {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("this is {what}, not a Terraform plan: expected the JSON of `terraform show -json PLANFILE`")]
    NotAPlan { what: String },
    /// Format 0.x (Terraform 0.12 to 1.0) or 2.x and later. The format's documentation says to
    /// reject a major version the reader does not know, and 0.x came before the 1.0 compatibility
    /// promise, so both are refused (docs/plan.md).
    #[error(
        "plan format `{version}` is not read: ecs-gpu reads plan format 1.x, which Terraform 1.1 and later write; make the plan and its JSON with Terraform 1.1 or later"
    )]
    UnsupportedFormat { version: String },
    #[error("`format_version` must be a version string such as \"1.2\"")]
    BadFormatVersion,
}

impl Error {
    /// Maps a serde_json error without its message's quoted values: serde_json's data errors quote
    /// the offending value ("invalid type: string \"...\""), which may be a secret.
    pub(crate) fn from_json(e: serde_json::Error) -> Self {
        use serde_json::error::Category;
        match e.classify() {
            Category::Io => Error::Io(e.into()),
            Category::Eof if e.line() <= 1 && e.column() == 0 => Error::Empty,
            Category::Syntax | Category::Eof => Error::InvalidJson {
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            },
            Category::Data if e.to_string().starts_with(crate::parse::WRONG_SHAPE) => {
                let text = strip_position(&e.to_string());
                Error::WrongShape {
                    line: e.line(),
                    column: e.column(),
                    message: ecs_gpu_report::escape_control(
                        &text[crate::parse::WRONG_SHAPE.len()..],
                    )
                    .into_owned(),
                }
            }
            Category::Data => Error::Malformed {
                line: e.line(),
                column: e.column(),
                message: redact(&strip_position(&e.to_string())),
            },
        }
    }
}

/// serde_json appends " at line L column C"; the error carries them as fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Keeps what was expected, drops what was found: `invalid type: string "hunter2", expected a
/// sequence` becomes `unexpected value, expected a sequence`.
fn redact(message: &str) -> String {
    let quoted = [
        "invalid type",
        "invalid value",
        "invalid length",
        "unknown variant",
    ];
    if quoted.iter().any(|q| message.starts_with(q)) {
        match message.find(", expected ") {
            Some(i) => format!("unexpected value{}", &message[i..]),
            None => "unexpected value".to_string(),
        }
    } else if message.contains('"') || message.contains('`') {
        // Custom messages may quote input; keep only the unquoted head.
        let end = message.find(['"', '`']).unwrap_or(message.len());
        message[..end].trim_end().to_string()
    } else {
        message.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_errors_do_not_quote_the_value() {
        let e: serde_json::Error = serde_json::from_str::<Vec<u8>>("\"hunter2\"").unwrap_err();
        let msg = Error::from_json(e).to_string();
        assert!(!msg.contains("hunter2"), "{msg}");
        assert!(msg.contains("expected a sequence"), "{msg}");
    }

    #[test]
    fn missing_field_keeps_the_field_name_without_quotes() {
        assert_eq!(redact("missing field `type`"), "missing field");
    }
}
