//! Encoding functions: JSON, base64 and URLs.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;

use super::*;
use crate::json::{json_value_to_node, JsonLocs};

/// `jsonencode(x)`: a string that keeps `x`'s structure ([`Value::Json`]). The argument is moved
/// out of `args`, not copied: container definitions are the biggest values. On failure `args` is
/// left whole, for the error's references.
pub(super) fn jsonencode(args: &mut Vec<Node>) -> Outcome {
    exactly::<1>(args)?;
    if let Some(Value::Unknown(u)) = args.first().map(|n| &n.value) {
        return Err(Fail::Unknown(u.clone()));
    }
    let arg = args.pop().ok_or(Fail::Error)?;
    new_value(Value::Json(std::sync::Arc::new(arg)))
}

/// `jsondecode(text)`: the decoded value, placed at the call.
pub(super) fn jsondecode(args: &[Node], loc: Option<Loc>) -> Outcome {
    let [arg] = exactly(args)?;
    // A template with unknown parts: its JSON read with holes, as it will decode.
    if let Value::Unknown(u) = &arg.value {
        if let Some(node) = u
            .text
            .as_deref()
            .filter(|t| !t.base64)
            .and_then(|t| crate::json_holes::parse(t, loc))
        {
            return Ok(node);
        }
        let mut u = u.clone();
        u.derived();
        return Err(Fail::Unknown(u));
    }
    let text = to_str(arg)?;
    let json = crate::json::parse_json(&text).ok_or(Fail::Error)?;
    Ok(json_value_to_node(json, JsonLocs::Fixed(loc)))
}

/// `base64encode(text)`. Of a template with unknown parts, the unknown result keeps the
/// template's known text, marked as encoded: user data is read decoded, so its known lines stay
/// known.
pub(super) fn base64encode(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    if let Value::Unknown(u) = &arg.value {
        if let Some(text) = u.text.as_deref().filter(|t| !t.base64) {
            let mut u = u.clone();
            u.entries.clear();
            u.text = Some(std::sync::Arc::new(crate::value::HoledText {
                base64: true,
                ..text.clone()
            }));
            return new_value(Value::Unknown(u));
        }
    }
    new_string(BASE64.encode(to_str(arg)?.as_bytes()))
}

/// `base64gzip(text)`: the compressed bytes are not computed; the text is known to be inside.
pub(super) fn base64gzip(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    let text = to_str(arg)?;
    Err(Fail::Unknown(Box::new(Unknown {
        reason: UnknownReason::Unsupported,
        refs: Vec::new(),
        fragments: vec![text],
        entries: Vec::new(),
        text: None,
    })))
}

pub(super) fn base64decode(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    let bytes = BASE64
        .decode(to_str(arg)?.as_bytes())
        .map_err(|_| Fail::Error)?;
    new_string(String::from_utf8(bytes).map_err(|_| Fail::Error)?)
}

pub(super) fn urlencode(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    let mut out = String::new();
    for byte in to_str(arg)?.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else if byte == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    new_string(out)
}
