//! Reading attribute values with their sensitivity and unknownness.
//!
//! Every value that reaches a message goes through [`Side::get`] and [`Val::show`]: a value under a
//! sensitive mark (`before_sensitive`, `after_sensitive`, `sensitive_values`) is never returned as
//! known, and a value under an `after_unknown` mark is never guessed.

use crate::json_tree::Value;

static NULL: Value = Value::Null;

/// One side of a resource: its values, their sensitivity mask and (for planned values) the mask of
/// the values known only after apply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side<'a> {
    pub values: &'a Value,
    pub sensitive: &'a Value,
    pub unknown: &'a Value,
}

/// An attribute as a message may use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Val<'a> {
    Known(&'a Value),
    /// Known only after apply.
    Unknown,
    /// Marked sensitive (wholly or in part): never shown.
    Sensitive,
    /// Not set (absent or null).
    Absent,
}

impl<'a> Side<'a> {
    pub fn empty() -> Self {
        Side {
            values: &NULL,
            sensitive: &NULL,
            unknown: &NULL,
        }
    }

    /// The attribute at `path` (object keys, or list indexes as decimal strings).
    pub fn get(&self, path: &[&str]) -> Val<'a> {
        if marked(self.sensitive, path, true) {
            return Val::Sensitive;
        }
        if marked(self.unknown, path, false) {
            return Val::Unknown;
        }
        match lookup(self.values, path) {
            None | Some(Value::Null) => Val::Absent,
            Some(v) => Val::Known(v),
        }
    }

    /// The raw value at `path`, for comparisons only: never put it in a message.
    pub fn raw(&self, path: &[&str]) -> Option<&'a Value> {
        lookup(self.values, path).filter(|v| !v.is_null())
    }

    /// Whether any part of the value at `path` is known only after apply.
    pub fn is_unknown(&self, path: &[&str]) -> bool {
        marked(self.unknown, path, true)
    }

    pub fn str(&self, path: &[&str]) -> Option<&'a str> {
        self.raw(path).and_then(Value::as_str)
    }

    pub fn bool(&self, path: &[&str]) -> Option<bool> {
        self.raw(path).and_then(Value::as_bool)
    }

    /// Whether the block at `path` is a non-empty list (a nested block that is present).
    pub fn has_block(&self, path: &[&str]) -> bool {
        match self.raw(path) {
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(_)) => true,
            _ => self.is_unknown(path),
        }
    }
}

impl Val<'_> {
    /// The value for a message: scalars as written, `(known after apply)`, `(sensitive)`, `not set`.
    pub fn show(&self) -> String {
        match self {
            Val::Known(Value::String(s)) => s.to_string(),
            Val::Known(Value::Number(n)) => n.to_string(),
            Val::Known(Value::Bool(b)) => b.to_string(),
            Val::Known(_) => "(a structured value)".to_string(),
            Val::Unknown => "(known after apply)".to_string(),
            Val::Sensitive => "(sensitive)".to_string(),
            Val::Absent => "not set".to_string(),
        }
    }

    /// A known number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Known(v) => v.as_f64(),
            _ => None,
        }
    }
}

fn step<'v>(v: &'v Value, seg: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) => m.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    }
}

pub(crate) fn lookup<'v>(mut v: &'v Value, path: &[&str]) -> Option<&'v Value> {
    for seg in path {
        v = step(v, seg)?;
    }
    Some(v)
}

/// Whether a mask (`true` = marked, objects and lists of masks) marks `path`: the path itself, one of
/// its ancestors, or (when `inside`) anything beneath it.
pub(crate) fn marked(mask: &Value, path: &[&str], inside: bool) -> bool {
    let mut m = mask;
    for seg in path {
        if m == &Value::Bool(true) {
            return true;
        }
        match step(m, seg) {
            Some(next) => m = next,
            None => return false,
        }
    }
    if inside {
        any_true(m)
    } else {
        m == &Value::Bool(true)
    }
}

pub(crate) fn any_true(mask: &Value) -> bool {
    match mask {
        Value::Bool(b) => *b,
        Value::Array(a) => a.iter().any(any_true),
        Value::Object(o) => o.values().any(any_true),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(v: serde_json::Value) -> Value {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_nested_sensitive_mark_hides_the_value_and_its_parents() {
        let values = json(serde_json::json!({"a": {"b": "secret", "c": "open"}}));
        let sensitive = json(serde_json::json!({"a": {"b": true}}));
        let side = Side {
            values: &values,
            sensitive: &sensitive,
            unknown: &NULL,
        };
        assert_eq!(side.get(&["a", "b"]), Val::Sensitive);
        assert_eq!(side.get(&["a"]), Val::Sensitive);
        assert_eq!(side.get(&["a", "c"]).show(), "open");
    }

    #[test]
    fn a_whole_sensitive_attribute_hides_its_children() {
        let values = json(serde_json::json!({"a": [{"b": "secret"}]}));
        let sensitive = json(serde_json::json!({"a": true}));
        let side = Side {
            values: &values,
            sensitive: &sensitive,
            unknown: &NULL,
        };
        assert_eq!(side.get(&["a", "0", "b"]), Val::Sensitive);
    }

    #[test]
    fn unknown_is_not_absent() {
        let values = json(serde_json::json!({}));
        let unknown = json(serde_json::json!({"image_id": true}));
        let side = Side {
            values: &values,
            sensitive: &NULL,
            unknown: &unknown,
        };
        assert_eq!(side.get(&["image_id"]).show(), "(known after apply)");
    }
}
