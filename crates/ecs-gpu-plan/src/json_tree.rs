//! JSON values as the reader keeps them: a compact tree.
//!
//! A plan's GPU-stack resources are mostly small objects (`tags`, one-element blocks such as
//! `deployment_circuit_breaker`), and `serde_json::Value` with the workspace's `preserve_order`
//! spends several hundred bytes on each: an index table, an entry vector that grows by doubling and
//! an 80-byte node per value. Here an object is one exact-size slice of entries sorted by key, a
//! list one exact-size slice, a node 24 bytes, and a string ([`Str`]) lives in its node when it is
//! short (most keys and values of a plan are), else in one exact-size box. Nothing here keeps the
//! order of an object's keys, because nothing the effects say depends on it.
//!
//! Equality is `serde_json::Value`'s: objects compare by their entries whatever their order, and
//! numbers by serde_json's `Number` (so `1` and `1.0` differ, as they do there).

use std::fmt;
use std::ops::Deref;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

/// A JSON value.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Str),
    Array(Box<[Value]>),
    Object(Map),
}

/// A JSON object: its entries sorted by key, one per key (the last one, as serde_json keeps it).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Map(Box<[(Str, Value)]>);

/// A string: in place when it fits (no allocation), else boxed.
#[derive(Clone)]
pub(crate) enum Str {
    Inline(u8, [u8; INLINE]),
    Boxed(Box<str>),
}

/// The longest string kept in place: what fits beside the two bytes of tag and length in the 24
/// bytes a boxed string takes with its tag.
const INLINE: usize = 22;

impl From<&str> for Str {
    fn from(s: &str) -> Self {
        match u8::try_from(s.len()) {
            Ok(n) if s.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..s.len()].copy_from_slice(s.as_bytes());
                Str::Inline(n, bytes)
            }
            _ => Str::Boxed(s.into()),
        }
    }
}

impl Deref for Str {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            // Always the bytes of a whole `str` (see `from`), so never the empty fallback.
            Str::Inline(n, bytes) => std::str::from_utf8(&bytes[..usize::from(*n)]).unwrap_or(""),
            Str::Boxed(s) => s,
        }
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Str {}

impl Ord for Str {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl Visitor<'_> for StrVisitor {
            type Value = Str;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Str, E> {
                Ok(s.into())
            }
        }
        de.deserialize_str(StrVisitor)
    }
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// The value of `key` when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|o| o.get(key))
    }
}

impl Map {
    /// Sorts `entries` by key; of the entries with the same key, the last one stays.
    pub fn from_entries(mut entries: Vec<(Str, Value)>) -> Self {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        // The sort is stable, so equal keys are in input order: `dedup_by` drops the later of two
        // equal entries, after moving its value into the earlier one.
        entries.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                std::mem::swap(&mut later.1, &mut earlier.1);
            }
            same
        });
        Map(entries.into_boxed_slice())
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        let i = self.0.binary_search_by(|(k, _)| (**k).cmp(key)).ok()?;
        Some(&self.0[i].1)
    }

    /// Moves the value of `key` out, leaving `null` in its place.
    pub fn take(&mut self, key: &str) -> Option<Value> {
        let i = self.0.binary_search_by(|(k, _)| (**k).cmp(key)).ok()?;
        Some(std::mem::take(&mut self.0[i].1))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| &**k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
}

/// Compact JSON, as `serde_json::Value` writes it (object keys sorted).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::String(s) => write!(f, "{}", serde_json::Value::from(&**s)),
            Value::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Object(o) => {
                f.write_str("{")?;
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}:{v}", serde_json::Value::from(k))?;
                }
                f.write_str("}")
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

// The same conversions as `serde_json::Value`'s own visitor.
impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.into()))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        Value::deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items.into_boxed_slice()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Str, Value>()? {
            entries.push((k, v));
        }
        Ok(Value::Object(Map::from_entries(entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn objects_are_equal_whatever_the_order_of_their_keys() {
        assert_eq!(
            parse(r#"{"a":1,"b":[true,null]}"#),
            parse(r#"{"b":[true,null],"a":1}"#)
        );
        assert_ne!(parse(r#"{"a":1}"#), parse(r#"{"a":1.0}"#));
        assert_ne!(parse(r#"{"a":1}"#), parse(r#"{"a":1,"b":null}"#));
    }

    #[test]
    fn the_last_of_two_equal_keys_wins_as_in_serde_json() {
        let text = r#"{"b":1,"a":2,"b":3,"b":4}"#;
        let v = parse(text);
        assert_eq!(v.get("b"), Some(&Value::Number(4.into())));
        assert_eq!(v.get("a"), Some(&Value::Number(2.into())));
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(theirs["b"], 4);
    }

    #[test]
    fn a_node_is_24_bytes_and_strings_of_any_length_round_trip() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
        for n in [0, 1, INLINE, INLINE + 1, 300] {
            let s = "é".repeat(n / 2) + &"x".repeat(n % 2);
            assert_eq!(&*Str::from(s.as_str()), s);
            let v = parse(&serde_json::Value::from(s.clone()).to_string());
            assert_eq!(v.as_str(), Some(s.as_str()));
        }
    }

    #[test]
    fn take_leaves_null() {
        let mut m = Map::from_entries(vec![("x".into(), Value::Bool(true))]);
        assert_eq!(m.take("x"), Some(Value::Bool(true)));
        assert_eq!(m.get("x"), Some(&Value::Null));
        assert_eq!(m.take("y"), None);
    }

    #[test]
    fn displays_as_compact_json() {
        let text = r#"{"a":[1,-2,1.5,"q\"\n",null,false],"b":{}}"#;
        assert_eq!(parse(text).to_string(), text);
    }
}
