//! JSON in and out: span-keeping JSON to [`Node`], and [`Node`] to the exact text Terraform's
//! `jsonencode` writes (object keys sorted, minimal numbers, HTML-safe escapes as Go writes them).

use ecs_gpu_hcl::json::{Json, JsonValue};

use crate::value::{format_number, Entry, Loc, Node, Object, Unknown, UnknownReason, Value};
use crate::FileId;

/// Deepest JSON nesting converted; deeper values become unknown rather than a stack overflow.
const MAX_DEPTH: usize = 512;

/// Where the locations of converted JSON point.
#[derive(Clone, Copy)]
pub(crate) enum JsonLocs {
    /// Into a loaded JSON file: each value at its own span.
    File(FileId),
    /// Everything at one place (a string literal holding the JSON), or nowhere.
    Fixed(Option<Loc>),
}

impl JsonLocs {
    fn loc(self, span: ecs_gpu_hcl::Span) -> Option<Loc> {
        match self {
            JsonLocs::File(file) => Some(Loc { file, span }),
            JsonLocs::Fixed(loc) => loc,
        }
    }
}

/// Converts parsed JSON into a node, consuming it: each part of the tree is freed as soon as its
/// value is built (strings move, not copy), so the tree and the values are never both whole in
/// memory. Numbers that do not fit an `f64` stay numbers (rounded); duplicate object keys keep the
/// last value and record the earlier ones as discarded.
pub(crate) fn json_value_to_node(json: Json, locs: JsonLocs) -> Node {
    convert(json, locs, 0)
}

fn convert(json: Json, locs: JsonLocs, depth: usize) -> Node {
    let loc = locs.loc(json.span);
    if depth > MAX_DEPTH {
        return Node::new(
            Value::Unknown(Box::new(Unknown {
                reason: UnknownReason::Unsupported,
                ..Unknown::default()
            })),
            loc,
        );
    }
    let value = match json.value {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(b),
        JsonValue::Number(n) => match n.parse::<f64>() {
            Ok(f) => Value::Number(crate::value::clamp_number(f)),
            Err(_) => Value::Unknown(Box::new(Unknown {
                reason: UnknownReason::Error,
                ..Unknown::default()
            })),
        },
        JsonValue::String(s) => Value::String(s.into()),
        JsonValue::Array(items) => Value::List(
            items
                .into_iter()
                .map(|i| convert(i, locs, depth + 1))
                .collect(),
        ),
        JsonValue::Object(members) => {
            // Sized once: a vector grown by pushes keeps room for four entries in every
            // two-member object (a million of them in a long `environment` list).
            let mut entries = Vec::with_capacity(members.len());
            for m in members {
                entries.push(Entry {
                    key: m.key,
                    key_loc: locs.loc(m.key_span),
                    value: convert(m.value, locs, depth + 1),
                });
            }
            Value::Object(object_from(entries))
        }
    };
    Node::new(value, loc)
}

/// The object of entries in written order. A repeated key keeps its last value at its first
/// position (Terraform's order is by key anyway); each value it replaces goes to `discarded`, in the
/// order the replacements are written. Repeats are found by sorting positions by key, so an object
/// of any size costs `n log n`, never one comparison per pair of keys.
pub(crate) fn object_from(entries: Vec<Entry>) -> Object {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    // Stable: the positions of one key stay in written order.
    order.sort_by(|&a, &b| entries[a].key.cmp(&entries[b].key));
    // (replacing position, replaced position), and (first position, last position) per repeated key.
    let mut replaced = Vec::new();
    let mut moved = Vec::new();
    for same in order.chunk_by(|&a, &b| entries[a].key == entries[b].key) {
        if let [first, .., last] = same {
            replaced.extend(same.windows(2).map(|w| (w[1], w[0])));
            moved.push((*first, *last));
        }
    }
    if replaced.is_empty() {
        let mut entries = entries;
        entries.shrink_to_fit();
        return Object {
            entries,
            ..Object::default()
        };
    }
    replaced.sort_unstable();
    let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    let mut obj = Object::default();
    for (_, old) in replaced {
        if let Some(e) = slots[old].take() {
            obj.discarded.push(e);
        }
    }
    for (first, last) in moved {
        slots[first] = slots[last].take();
    }
    obj.entries = slots.into_iter().flatten().collect();
    obj
}

/// Parses JSON text into a node whose locations all point at `loc`.
pub(crate) fn json_text_to_node(text: &str, loc: Option<Loc>) -> Option<Node> {
    let json = parse_json(text)?;
    Some(json_value_to_node(json, JsonLocs::Fixed(loc)))
}

/// Parses JSON text with the project's parser, never panicking.
pub(crate) fn parse_json(text: &str) -> Option<Json> {
    crate::parse::transient_json(text).ok()
}

/// The JSON text of a fully known node, as Terraform's `jsonencode` writes it.
pub(crate) fn node_to_json_text(node: &Node) -> Option<String> {
    let mut out = String::new();
    write_json(node, &mut out, 0)?;
    Some(out)
}

fn write_json(node: &Node, out: &mut String, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&format_number(*n)),
        Value::String(s) => write_json_string(s, out),
        Value::Json(inner) => {
            let text = node_to_json_text(inner)?;
            write_json_string(&text, out);
        }
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(obj) => {
            out.push('{');
            for (i, e) in sorted_entries(obj).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(&e.key, out);
                out.push(':');
                write_json(&e.value, out, depth + 1)?;
            }
            out.push('}');
        }
        Value::Unknown(_) => return None,
    }
    Some(())
}

/// An object's entries in Terraform's iteration order: by key, bytewise.
pub(crate) fn sorted_entries(obj: &Object) -> Vec<&Entry> {
    let mut v: Vec<&Entry> = obj.entries.iter().collect();
    v.sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
    v
}

/// A JSON string as Go's `encoding/json` writes it (HTML-safe: `<`, `>`, `&` escaped, and U+2028,
/// U+2029).
pub(crate) fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Node {
    /// The JSON text of a fully known value (`None` if any part is unknown).
    pub fn to_json_text(&self) -> Option<String> {
        node_to_json_text(self)
    }
}
