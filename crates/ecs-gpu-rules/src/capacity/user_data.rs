//! The user data of a launch template or instance: decoded, and read as the ECS agent's
//! configuration.

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use ecs_gpu_model::{Loc, Resource, Value};

use super::graph::{inline_specification, is_launch_configuration, is_standalone_instance};
use crate::{reads, Reads};

/// What [`user_data`] reads.
pub const USER_DATA: Reads = reads! {
    arguments: {
        "aws_instance": ["user_data", "user_data_base64"],
        "aws_launch_configuration": ["user_data", "user_data_base64"],
        "aws_launch_template": ["user_data"],
        "aws_spot_fleet_request": ["launch_specification"],
    },
};

/// What is known of a launch template's user data (decoded from base64).
#[derive(Debug, Clone, PartialEq)]
pub enum UserData {
    /// No `user_data` argument.
    Absent,
    /// The whole decoded text.
    Known(String),
    /// Only these fragments are known to be in it.
    Partial(Vec<String>),
    /// Nothing is known (an unknown value, or bytes that are not text, such as gzip).
    Unknown,
}

impl UserData {
    /// The text that is certainly there.
    pub fn known_parts(&self) -> Vec<&str> {
        match self {
            UserData::Known(s) => vec![s.as_str()],
            UserData::Partial(f) => f.iter().map(String::as_str).collect(),
            UserData::Absent | UserData::Unknown => Vec::new(),
        }
    }

    /// The whole text, when known (empty when absent).
    pub fn full(&self) -> Option<&str> {
        match self {
            UserData::Absent => Some(""),
            UserData::Known(s) => Some(s),
            _ => None,
        }
    }
}

/// The user data of a launch template, or of an `aws_instance` (its `user_data`, or
/// `user_data_base64`). Both are read alike: text that is base64 is decoded, other text is the
/// script itself.
pub fn user_data(template: &Resource) -> (UserData, Option<Loc>) {
    let body = inline_specification(template).map_or(&template.body, |spec| &spec.body);
    let node = body.attr("user_data").or_else(|| {
        (is_standalone_instance(template) || is_launch_configuration(template))
            .then(|| template.body.attr("user_data_base64"))
            .flatten()
    });
    let Some(node) = node else {
        return (UserData::Absent, None);
    };
    let data = match &node.value {
        Value::Null => UserData::Absent,
        Value::String(s) => match base64_decode(s) {
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(text) => UserData::Known(text),
                Err(_) => UserData::Unknown,
            },
            // Not base64: the text itself (the provider sends what it is given).
            None => UserData::Known(s.to_string()),
        },
        Value::Unknown(u) if !u.fragments.is_empty() => UserData::Partial(u.fragments.clone()),
        _ => UserData::Unknown,
    };
    (data, node.loc)
}

/// Standard base64, leniently: line breaks are skipped, up to two `=` may end it whatever its
/// length, and the bits after the last byte may be set. `None` when it is not base64.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireNone)
            .with_decode_allow_trailing_bits(true),
    );
    let text: Vec<u8> = s.bytes().filter(|b| !matches!(b, b'\n' | b'\r')).collect();
    let data = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(&text);
    if data.is_empty() {
        return None;
    }
    LENIENT.decode(data).ok()
}

/// The value a user data text gives an `ecs.config` variable, as the last `NAME=value` assignment
/// written in it (quotes removed). Lines that are comments (`#`) are skipped.
pub fn config_value<'a>(text: &'a str, variable: &str) -> Option<&'a str> {
    let mut last = None;
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find(variable) {
            let before_ok = rest[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            let after = &rest[i + variable.len()..];
            rest = after;
            if !before_ok {
                continue;
            }
            if let Some(v) = after.strip_prefix('=') {
                let v = v.trim_start_matches(['"', '\'']);
                let end = v
                    .find(|c: char| {
                        c.is_whitespace() || c == '"' || c == '\'' || c == '>' || c == ';'
                    })
                    .unwrap_or(v.len());
                last = Some(&v[..end]);
            }
        }
    }
    last
}

/// Whether a user data text may take its ECS configuration from somewhere else (a download, an
/// included URL, a parameter or secret read at boot): then what the text does not say proves nothing.
pub fn fetches_config(text: &str) -> bool {
    const MARKERS: [&str; 15] = [
        "#include",
        "s3://",
        "aws s3",
        "aws ssm",
        "aws secretsmanager",
        "aws appconfig",
        "curl",
        "wget",
        "Invoke-WebRequest",
        "source ",
        "EnvironmentFile",
        "ansible",
        // Parts whose content is encoded (MIME multipart, cloud-config `write_files`).
        "Content-Transfer-Encoding",
        "encoding: b64",
        "encoding: gz",
    ];
    MARKERS.iter().any(|m| text.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_rejects_text() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("#!/bin/bash\necho hi"), None);
        assert_eq!(base64_decode(""), None);
    }

    /// What user data counts as base64, pinned so that a decoder change keeps the same answers:
    /// padding is optional and its amount is not checked (up to two), line breaks are skipped
    /// anywhere, unused bits may be set, and nothing else is accepted.
    #[test]
    fn base64_accepts_what_it_always_accepted() {
        let hello = Some(&b"hello"[..]);
        for ok in [
            "aGVsbG8=",
            "aGVsbG8",
            "aGVsbG8==",
            "aGVs\r\nbG8=\n",
            "aGVsbG8=\n=",
            "aGVsbG9",
        ] {
            assert_eq!(base64_decode(ok).as_deref(), hello, "{ok:?}");
        }
        assert_eq!(base64_decode("aGVs=").as_deref(), Some(&b"hel"[..]));
        assert_eq!(
            base64_decode("+/+/").as_deref(),
            Some(&[0xfb, 0xff, 0xbf][..])
        );
        for bad in [
            "aGVsbG8===",
            "aGVs=bG8",
            "aGVsb",
            "aGVs bG8=",
            "aGVs\tbG8=",
            "-_-_",
            "==",
            "\n",
            "aGVsbG8=x",
        ] {
            assert_eq!(base64_decode(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn config_values_take_the_last_uncommented_assignment() {
        let t = "#!/bin/bash\n# ECS_ENABLE_GPU_SUPPORT=false\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\necho \"ECS_ENABLE_GPU_SUPPORT=true\" >> /etc/ecs/ecs.config\n";
        assert_eq!(config_value(t, "ECS_CLUSTER"), Some("gpu"));
        assert_eq!(config_value(t, "ECS_ENABLE_GPU_SUPPORT"), Some("true"));
        assert_eq!(config_value("MY_ECS_CLUSTER=x", "ECS_CLUSTER"), None);
        assert_eq!(
            config_value("ECS_CLUSTER=${cluster}", "ECS_CLUSTER"),
            Some("${cluster}")
        );
    }
}
