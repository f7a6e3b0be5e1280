//! The user data of a launch template or instance: decoded, and read as the ECS agent's
//! configuration.

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use ecs_gpu_model::{Loc, Mark, Node, Resource, Value};

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
    /// The decoded text of a template (a heredoc, `templatefile`, a `cloudinit_config`) with
    /// unknown parts, each written as [`HOLE`]: every line without one is known whole.
    Holed(String),
    /// Only these fragments are known to be in it.
    Partial(Vec<String>),
    /// Nothing is known (an unknown value, or bytes that are not text, such as gzip).
    Unknown,
}

/// Where an unknown part of [`UserData::Holed`] stands.
pub const HOLE: char = '\0';

/// What user data does with an `ecs.config` variable ([`UserData::setting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting<'a> {
    /// It is not assigned.
    Unset,
    /// Its last assignment, with this value (quotes removed).
    Value(&'a str),
    /// It is assigned a value that is not known (`ECS_CLUSTER=${aws_ecs_cluster.main.id}`).
    UnknownValue,
    /// Whether it is assigned is not known.
    Unknown,
}

impl UserData {
    /// The text that is certainly there.
    pub fn known_parts(&self) -> Vec<&str> {
        match self {
            UserData::Known(s) => vec![s.as_str()],
            UserData::Holed(s) => s.split(HOLE).filter(|p| !p.is_empty()).collect(),
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

    /// The whole text when known, or the text of a template with its unknown parts written as
    /// [`HOLE`] (which no search for a name or marker matches). `None` when only fragments or
    /// nothing is known.
    pub fn known_text(&self) -> Option<&str> {
        match self {
            UserData::Holed(s) => Some(s),
            other => other.full(),
        }
    }

    /// What the user data does with the `ecs.config` variable `variable`: its last assignment
    /// outside `#` comments ([`config_value`]). In a template with unknown parts, a line without
    /// one is known whole, and an unknown part stands for no more than its place needs
    /// (`may_assign_any`): the value of the assignment it is written in, a word of a command that
    /// does not write the agent's configuration, or, at the start of a line or elsewhere in a line
    /// that writes it, anything (then the setting is unknown, unless a known line after it assigns
    /// the variable).
    pub fn setting(&self, variable: &str) -> Setting<'_> {
        match self {
            UserData::Absent => Setting::Unset,
            UserData::Known(text) => {
                config_value(text, variable).map_or(Setting::Unset, Setting::Value)
            }
            UserData::Holed(text) => holed_setting(text, variable),
            UserData::Partial(_) | UserData::Unknown => Setting::Unknown,
        }
    }
}

/// [`UserData::setting`] of a template's text with [`HOLE`]s.
fn holed_setting<'a>(text: &'a str, variable: &str) -> Setting<'a> {
    // Cloud-config writes files from YAML values: any unknown part there may be a file's content.
    let cloud_config = text.contains("#cloud-config") || text.contains("write_files");
    let mut setting = Setting::Unset;
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        if line
            .match_indices(HOLE)
            .any(|(at, _)| cloud_config || may_assign_any(line, at))
        {
            setting = Setting::Unknown;
        }
        if let Some(value) = config_value(line, variable) {
            setting = if value.contains(HOLE) {
                Setting::UnknownValue
            } else {
                Setting::Value(value)
            };
        }
    }
    setting
}

/// Whether the unknown part at byte `at` of `line` may assign any `ecs.config` variable: it is
/// at the start of the line (it may be whole lines), in the name of an assignment (`ECS_${x}=1`),
/// or a word of a line that writes the agent's configuration (`echo ${x} >> /etc/ecs/ecs.config`).
/// The value of an assignment (`ECS_CLUSTER=${x}`, `"ECS_CLUSTER=${x}"`) assigns nothing else,
/// and a word of another command (`--region ${x}`, `"region": "${x}"`) writes no configuration.
fn may_assign_any(line: &str, at: usize) -> bool {
    let before = &line[..at];
    if before
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\''))
        .is_empty()
    {
        return true;
    }
    let separator = |c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '(' | ')');
    let word_before = before.rsplit(separator).next().unwrap_or_default();
    if word_before.contains('=') {
        return false;
    }
    let after = &line[at + HOLE.len_utf8()..];
    let word_after = after.split(separator).next().unwrap_or_default();
    word_after.contains('=') || line.contains("ecs.config")
}

/// The `user_data` (or `user_data_base64`) argument of a launch template, a launch
/// configuration, an instance or a Spot Fleet's launch specification.
fn user_data_node(template: &Resource) -> Option<&Node> {
    let body = inline_specification(template).map_or(&template.body, |spec| &spec.body);
    body.attr("user_data").or_else(|| {
        (is_standalone_instance(template) || is_launch_configuration(template))
            .then(|| template.body.attr("user_data_base64"))
            .flatten()
    })
}

/// How the user data is hidden: a rule that quotes a value read from it (an `ECS_CLUSTER`)
/// quotes [`Mark::label`] instead when it is. The last guard hides the whole hidden text, not a
/// line or a value taken from it.
pub fn user_data_mark(template: &Resource) -> Mark {
    user_data_node(template).map_or(Mark::None, Node::hidden)
}

/// The user data of a launch template, or of an `aws_instance` (its `user_data`, or
/// `user_data_base64`). Both are read alike: text that is base64 is decoded, other text is the
/// script itself.
pub fn user_data(template: &Resource) -> (UserData, Option<Loc>) {
    let Some(node) = user_data_node(template) else {
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
        Value::Unknown(u) => match u.partial_text() {
            // The text of a template: the hole marker must not be in its own text.
            Some(t) if !t.text.contains(HOLE) => {
                let mut text = String::with_capacity(t.text.len() + t.holes.len());
                let mut from = 0;
                for &at in &t.holes {
                    text.push_str(t.text.get(from..at).unwrap_or_default());
                    text.push(HOLE);
                    from = at;
                }
                text.push_str(t.text.get(from..).unwrap_or_default());
                UserData::Holed(text)
            }
            _ if !u.fragments.is_empty() => UserData::Partial(u.fragments.clone()),
            _ => UserData::Unknown,
        },
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

/// Whether the text makes `nvidia` Docker's default runtime (`--default-runtime nvidia` in
/// `/etc/sysconfig/docker`, `"default-runtime": "nvidia"` in `/etc/docker/daemon.json`): the manual
/// GPU-sharing recipe, with which every container sees the GPUs its `NVIDIA_VISIBLE_DEVICES` names.
pub fn sets_nvidia_default_runtime(text: &str) -> bool {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|line| {
            line.match_indices("default-runtime").any(|(i, m)| {
                let rest = line[i + m.len()..].trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | ':' | '=' | '\\')
                });
                rest.starts_with("nvidia")
            })
        })
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
