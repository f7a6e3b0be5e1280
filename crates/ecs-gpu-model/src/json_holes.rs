//! JSON text with holes: a template (heredoc, quoted template, `templatefile`) whose known text is
//! JSON but some of whose interpolations or directives are unknown, read as far as it can be known.
//!
//! A hole is assumed to stand for what can stand at its place in valid JSON, and no more than the
//! place needs:
//!
//! - inside a string (`"image": "${aws_ecr_repository.x.repository_url}:1"`): text of that string
//!   (it closes no quote), so only that string is unknown, with the known text as fragments;
//! - in value position (`"cpu": ${var.cpu}`): one value, unknown; a partly unknown `jsonencode`
//!   there is that value, with its known parts;
//! - between array elements (`%{ for }` producing elements, `${join(",", ...)}`): any number of
//!   elements and commas, so the array has an unknown element and its known elements stay known;
//! - between object members (`%{ if }` producing a member): any number of members, so the object
//!   is partly known ([`Unknown::entries`]): only the members written after the last such hole
//!   are certain (an earlier one could be repeated, and so replaced, by the hole);
//! - anywhere else (a hole that must hold a `:` or spans several members and values): balanced
//!   JSON, so the unknown is the smallest enclosing object whose end the known text shows.
//!
//! Known text that is not JSON whatever the holes hold (a raw newline in a string, a trailing
//! comma), or a hole whose extent the known text cannot bound, gives nothing: the whole text stays
//! unknown. Nothing here is quadratic: one pass over the text and the holes.

use std::sync::Arc;

use crate::json::object_from;
use crate::value::{
    Entry, Hole, HoledText, Loc, Node, Reference, Source, Unknown, UnknownReason, Value,
};

/// Deepest nesting read; deeper text stays wholly unknown.
const MAX_DEPTH: usize = 256;

/// Reads `text` as JSON with holes; every known value is placed where its text is written, or at
/// `loc` when that is not known. `None` when the known text is not JSON or a hole cannot be
/// bounded.
pub(crate) fn parse(text: &HoledText, loc: Option<Loc>) -> Option<Node> {
    let mut p = Parser {
        b: text.text.as_bytes(),
        text: &text.text,
        holes: &text.holes,
        sources: &text.sources,
        next: 0,
        pos: if text.text.starts_with('\u{feff}') {
            3
        } else {
            0
        },
        depth: 0,
        loc,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.pos == p.b.len() && !p.hole_here()).then_some(v)
}

struct Parser<'a> {
    b: &'a [u8],
    text: &'a str,
    holes: &'a [Hole],
    sources: &'a [Source],
    /// The first hole not yet passed.
    next: usize,
    pos: usize,
    depth: usize,
    loc: Option<Loc>,
}

/// What the holes taken at one place amount to.
#[derive(Default)]
struct Taken {
    reason: Option<UnknownReason>,
    refs: Vec<Reference>,
    /// The only hole taken, when it was one.
    single: Option<Node>,
    count: usize,
}

impl Taken {
    fn add(&mut self, node: &Node) {
        let (reason, refs) = match &node.value {
            Value::Unknown(u) => (u.reason, u.refs.clone()),
            _ => match crate::value::deep_unknown(node) {
                Some(u) => (u.reason, u.refs),
                None => (UnknownReason::AfterApply, Vec::new()),
            },
        };
        self.reason.get_or_insert(reason);
        crate::value::merge_refs(&mut self.refs, refs);
        self.count += 1;
        self.single = (self.count == 1).then(|| node.clone());
    }

    fn merge(&mut self, other: Taken) {
        if let Some(r) = other.reason {
            self.reason.get_or_insert(r);
        }
        crate::value::merge_refs(&mut self.refs, other.refs);
        self.count += other.count;
        self.single = None;
    }

    fn unknown(self) -> Box<Unknown> {
        Box::new(Unknown {
            reason: self.reason.unwrap_or_default(),
            refs: self.refs,
            ..Unknown::default()
        })
    }
}

impl Parser<'_> {
    fn hole_here(&self) -> bool {
        self.holes.get(self.next).is_some_and(|h| h.at <= self.pos)
    }

    /// Takes every hole at the current place.
    fn take_holes(&mut self, into: &mut Taken) {
        while let Some(h) = self.holes.get(self.next).filter(|h| h.at <= self.pos) {
            into.add(&h.node);
            self.next += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips known whitespace (never a hole).
    fn ws(&mut self) {
        while !self.hole_here() && matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// A value read from `start` to here.
    fn node(&self, start: usize, value: Value) -> Node {
        Node::new(value, self.loc_of(start, self.pos))
    }

    /// Where the text from `start` to `end` is written: in the source run that holds its start
    /// (cut at the run's end), else the template's place.
    fn loc_of(&self, start: usize, end: usize) -> Option<Loc> {
        let i = self
            .sources
            .partition_point(|s| s.at <= start)
            .checked_sub(1);
        let Some(s) = i.and_then(|i| self.sources.get(i)) else {
            return self.loc;
        };
        let len = (s.loc.span.end - s.loc.span.start) as usize;
        if start >= s.at + len {
            return self.loc;
        }
        let from = s.loc.span.start as usize + (start - s.at);
        let to = s.loc.span.start as usize + (end.min(s.at + len) - s.at);
        Some(Loc {
            file: s.loc.file,
            span: ecs_gpu_hcl::Span::new(from, to.max(from)),
        })
    }

    fn value(&mut self) -> Option<Node> {
        if self.hole_here() {
            return Some(self.hole_value(self.pos));
        }
        let start = self.pos;
        match self.peek()? {
            b'{' => self.nested(Self::object),
            b'[' => self.nested(Self::array),
            b'"' => self.string().map(|s| match s {
                Ok(s) => self.node(start, Value::String(s.into())),
                Err(u) => self.node(start, Value::Unknown(u)),
            }),
            _ => self.scalar(),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Option<Node>) -> Option<Node> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    /// A value that holes make unknown: the holes here, and the scalar text and further holes
    /// around them (`${var.cpu}`, `1${var.zeros}`), up to the next structural character.
    fn hole_value(&mut self, start: usize) -> Node {
        let mut taken = Taken::default();
        let mut text = start < self.pos;
        loop {
            if self.hole_here() {
                self.take_holes(&mut taken);
            } else if self.peek().is_some_and(is_scalar_byte) {
                self.pos += 1;
                text = true;
            } else if matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                // Whitespace ends the value unless a hole follows it (`${a} ${b}`).
                let save = self.pos;
                self.ws();
                if !self.hole_here() {
                    self.pos = save;
                    break;
                }
            } else {
                break;
            }
        }
        match (taken.single.take(), text) {
            (Some(single), false) => match single.value {
                // A partly unknown `jsonencode(...)`: in value position, its value.
                Value::Json(inner) if crate::budget::charge_copy(&inner) => {
                    let mut v = Arc::unwrap_or_clone(inner);
                    if v.loc.is_none() {
                        v.loc = single.loc;
                    }
                    v
                }
                Value::Unknown(_) => single,
                _ => self.node(start, Value::Unknown(taken.unknown())),
            },
            _ => self.node(start, Value::Unknown(taken.unknown())),
        }
    }

    /// `true`, `false`, `null` or a number, possibly continued by a hole (then unknown).
    fn scalar(&mut self) -> Option<Node> {
        let start = self.pos;
        while !self.hole_here() && self.peek().is_some_and(is_scalar_byte) {
            self.pos += 1;
        }
        if self.hole_here() {
            return Some(self.hole_value(start));
        }
        let word = &self.text[start..self.pos];
        let value = match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            _ if is_json_number(word) => {
                Value::Number(crate::value::clamp_number(word.parse::<f64>().ok()?))
            }
            _ => return None,
        };
        Some(self.node(start, value))
    }

    /// A string at `"`: its text, or (with a hole inside) an unknown with its known text as
    /// fragments. `None` when the known text is not a JSON string.
    fn string(&mut self) -> Option<Result<String, Box<Unknown>>> {
        self.pos += 1;
        let mut out = String::new();
        let mut taken = Taken::default();
        let mut fragments: Vec<String> = Vec::new();
        loop {
            if self.hole_here() {
                self.take_holes(&mut taken);
                crate::value::add_fragments(&mut fragments, [&std::mem::take(&mut out)]);
                continue;
            }
            let run = self.pos;
            while self
                .b
                .get(self.pos)
                .is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20)
                && !self.hole_here()
            {
                self.pos += 1;
            }
            out.push_str(&self.text[run..self.pos]);
            if self.hole_here() {
                continue;
            }
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    if self.hole_here() {
                        // The hole's text starts with the escaped character.
                        continue;
                    }
                    self.escape(&mut out)?;
                }
                _ => return None,
            }
        }
        if taken.count == 0 {
            return Some(Ok(out));
        }
        crate::value::add_fragments(&mut fragments, [&out]);
        let mut u = taken.unknown();
        u.fragments = fragments;
        Some(Err(u))
    }

    /// The escape after a `\`.
    fn escape(&mut self, out: &mut String) -> Option<()> {
        let c = self.peek()?;
        self.pos += 1;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let hi = self.hex4()?;
                let code =
                    if (0xD800..0xDC00).contains(&hi) && self.b[self.pos..].starts_with(b"\\u") {
                        let save = self.pos;
                        self.pos += 2;
                        match self.hex4() {
                            Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            }
                            _ => {
                                self.pos = save;
                                0xFFFD
                            }
                        }
                    } else {
                        hi
                    };
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            _ => return None,
        }
        Some(())
    }

    fn hex4(&mut self) -> Option<u32> {
        let end = self.pos + 4;
        // A hole among the digits: not a known escape.
        if self.holes.get(self.next).is_some_and(|h| h.at < end) {
            return None;
        }
        let h = self
            .text
            .get(self.pos..end)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())?;
        self.pos = end;
        Some(h)
    }

    /// An array at `[`. A hole between elements stands for any number of elements: one unknown
    /// element, and the known elements around it.
    fn array(&mut self) -> Option<Node> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        // After `[` or `,`: a value must come (after `[`, or `]`).
        let mut expect_value = true;
        let mut after_hole = false;
        loop {
            self.ws();
            if self.hole_here() {
                items.push(self.hole_value(self.pos));
                expect_value = false;
                after_hole = true;
                continue;
            }
            match self.peek()? {
                b']' if !expect_value || items.is_empty() => {
                    self.pos += 1;
                    return Some(self.node(start, Value::List(items)));
                }
                b',' if !expect_value => {
                    self.pos += 1;
                    expect_value = true;
                    after_hole = false;
                }
                b']' | b',' => return None,
                // After a hole, a known element may follow without a comma (the hole's text
                // ended with it).
                _ if expect_value || after_hole => {
                    items.push(self.value()?);
                    expect_value = false;
                    after_hole = false;
                }
                _ => return None,
            }
        }
    }

    /// An object at `{`. Holes between members make it partly known; a hole that leaves the
    /// members unclear makes it unknown up to its closing brace.
    fn object(&mut self) -> Option<Node> {
        let start = self.pos;
        self.pos += 1;
        let mut entries = Vec::new();
        // Holes among the members (and unknown keys): the object is then partly known.
        let mut uncertain = Taken::default();
        // Whether a hole was in a place that could have held a separator.
        let mut hole_near = false;
        #[derive(PartialEq)]
        enum At {
            Start,
            Key,
            AfterValue,
            AfterHole,
        }
        let mut at = At::Start;
        loop {
            self.ws();
            if self.hole_here() {
                // Any number of members: those before may be repeated, so replaced.
                self.take_holes(&mut uncertain);
                entries.clear();
                at = At::AfterHole;
                hole_near = true;
                continue;
            }
            match (self.peek()?, &at) {
                (b'}', At::Start | At::AfterValue | At::AfterHole) => {
                    self.pos += 1;
                    break;
                }
                (b',', At::AfterValue | At::AfterHole) => {
                    self.pos += 1;
                    at = At::Key;
                }
                (b'"', At::Start | At::Key | At::AfterHole) => {
                    let key_start = self.pos;
                    let key = self.string()?;
                    let key_loc = self.loc_of(key_start, self.pos);
                    self.ws();
                    if self.hole_here() || self.peek() != Some(b':') {
                        return self.unknown_object(start, uncertain, hole_near || key.is_err());
                    }
                    self.pos += 1;
                    self.ws();
                    let value_is_hole = self.hole_here();
                    let value = self.value()?;
                    hole_near |= value_is_hole;
                    match key {
                        Ok(key) => entries.push(Entry {
                            key,
                            key_loc,
                            value,
                        }),
                        // An unknown key may be any key written before.
                        Err(u) => {
                            uncertain.merge(Taken {
                                reason: Some(u.reason),
                                refs: u.refs,
                                single: None,
                                count: 1,
                            });
                            entries.clear();
                        }
                    }
                    at = At::AfterValue;
                }
                // The hole was the key.
                (b':', At::AfterHole) => {
                    self.pos += 1;
                    self.ws();
                    self.value()?;
                    at = At::AfterValue;
                }
                _ => return self.unknown_object(start, uncertain, hole_near),
            }
        }
        let obj = object_from(entries);
        if uncertain.count == 0 {
            return Some(self.node(start, Value::Object(obj)));
        }
        let mut u = uncertain.unknown();
        u.entries = obj.entries;
        Some(self.node(start, Value::Unknown(u)))
    }

    /// The rest of an object whose members holes leave unclear: unknown, up to the `}` that
    /// closes it. `None` when no hole is near (the known text is not JSON) or the known text does
    /// not close it.
    fn unknown_object(&mut self, start: usize, mut taken: Taken, hole_near: bool) -> Option<Node> {
        if !hole_near {
            return None;
        }
        let mut depth = 0usize;
        loop {
            self.take_holes(&mut taken);
            match self.peek()? {
                b'"' => match self.string()? {
                    Ok(_) => {}
                    Err(u) => taken.merge(Taken {
                        reason: Some(u.reason),
                        refs: u.refs,
                        single: None,
                        count: 1,
                    }),
                },
                b'{' | b'[' => {
                    depth += 1;
                    self.pos += 1;
                }
                b'}' if depth == 0 => {
                    self.pos += 1;
                    break;
                }
                b']' if depth == 0 => return None,
                b'}' | b']' => {
                    depth -= 1;
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
        Some(self.node(start, Value::Unknown(taken.unknown())))
    }
}

/// A byte of `true`, `false`, `null` or a number.
fn is_scalar_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-')
}

/// Whether `s` is a number as JSON writes it.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

impl Node {
    /// The structure behind a JSON string: the `jsonencode` argument itself, or a known string
    /// parsed as JSON (locations then point at the string), or a template's JSON text read with
    /// its unknown parts as holes (see `json_holes`). `None` when unknown or not JSON. A sensitive
    /// (or ephemeral) string gives a wholly sensitive structure, as Terraform's `jsondecode` does.
    pub fn json(&self) -> Option<std::borrow::Cow<'_, Node>> {
        let mut decoded = match &self.value {
            Value::Json(inner) => return Some(std::borrow::Cow::Borrowed(inner)),
            Value::String(s) => crate::json::json_text_to_node(s, self.loc)?,
            Value::Unknown(u) => parse(u.text.as_deref().filter(|t| !t.base64)?, self.loc)?,
            _ => return None,
        };
        decoded.raise_mark(self.mark);
        Some(std::borrow::Cow::Owned(decoded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with a hole at each `¤`, each an unknown that refers to `aws_x.h<n>`.
    fn holed(text: &str) -> HoledText {
        let mut out = HoledText::default();
        for (i, piece) in text.split('¤').enumerate() {
            if i > 0 {
                let refs = vec![Reference {
                    address: format!("aws_x.h{i}"),
                    key: None,
                    attribute: Vec::new(),
                    module: crate::ModuleId(0),
                }];
                let u = Unknown {
                    refs,
                    ..Unknown::default()
                };
                out.holes.push(Hole {
                    at: out.text.len(),
                    node: Node::new(Value::Unknown(Box::new(u)), None),
                });
            }
            out.text.push_str(piece);
        }
        out
    }

    fn read(text: &str) -> Option<Node> {
        parse(&holed(text), None)
    }

    fn known_json(n: &Node) -> String {
        n.to_json_text().unwrap()
    }

    #[test]
    fn a_hole_inside_a_string_makes_only_that_string_unknown() {
        let n = read(r#"[{"name": "app", "image": "¤:latest", "cpu": 10}]"#).unwrap();
        let c = &n.as_list().unwrap()[0];
        assert_eq!(c.get("name").unwrap().as_str().unwrap(), "app");
        assert_eq!(c.get("cpu").unwrap().as_f64(), Some(10.0));
        let Value::Unknown(u) = &c.get("image").unwrap().value else {
            panic!("the image is not unknown: {c:?}");
        };
        assert_eq!(u.fragments, vec![":latest".to_string()]);
        assert_eq!(u.refs[0].address, "aws_x.h1");
    }

    #[test]
    fn a_hole_in_value_position_makes_only_that_value_unknown() {
        let n = read("{\"cpu\": ¤, \"memory\": 1¤, \"gpu\": \"1\"}").unwrap();
        assert!(n.get("cpu").unwrap().is_unknown());
        assert!(n.get("memory").unwrap().is_unknown());
        assert_eq!(n.get("gpu").unwrap().as_str().unwrap(), "1");
        assert_eq!(n.as_object().unwrap().entries.len(), 3);
    }

    #[test]
    fn a_hole_between_array_elements_is_an_unknown_element_beside_the_known_ones() {
        // `%{ for }` producing elements, then a known element with no comma before it.
        let n = read(r#"[ ¤ {"name": "gpu"}, ¤ ]"#).unwrap();
        let items = n.as_list().unwrap();
        assert_eq!(items.len(), 3);
        assert!(items[0].is_unknown() && items[2].is_unknown());
        assert_eq!(known_json(&items[1]), r#"{"name":"gpu"}"#);
    }

    #[test]
    fn a_hole_among_members_keeps_only_the_members_after_it() {
        let n = read(r#"{"a": 1, ¤ "b": 2, "c": 3}"#).unwrap();
        let Value::Unknown(u) = &n.value else {
            panic!("the object is known: {n:?}");
        };
        let keys: Vec<&str> = u.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["b", "c"]);
        // A hole that was a key (`${k}: 1`) and an unknown key count the same way.
        for text in [r#"{"a": 1, ¤: 2, "c": 3}"#, r#"{"a": 1, "¤": 2, "c": 3}"#] {
            let n = read(text).unwrap();
            let Value::Unknown(u) = &n.value else {
                panic!("the object is known: {n:?}");
            };
            let keys: Vec<&str> = u.entries.iter().map(|e| e.key.as_str()).collect();
            assert_eq!(keys, ["c"], "{text}");
        }
    }

    #[test]
    fn a_hole_spanning_members_makes_the_enclosing_object_unknown_up_to_its_brace() {
        let n = read(r#"[{"a": ¤ "b": [1, {"c": "}"}]}, {"d": 4}]"#).unwrap();
        let items = n.as_list().unwrap();
        assert!(items[0].is_unknown());
        assert!(matches!(&items[0].value, Value::Unknown(u) if u.entries.is_empty()));
        assert_eq!(known_json(&items[1]), r#"{"d":4}"#);
    }

    #[test]
    fn text_that_is_not_json_whatever_the_holes_hold_is_not_read() {
        for text in [
            r#"[{"a": "¤", "b": 1,}]"#,
            "[{\"a\": \"¤\", \"b\": \"raw\nnewline\"}]",
            r#"[{"a": ¤} {"b": 1}]"#,
            r#"[{"a": ¤}, tru]"#,
            r#"[{"a": "\x¤"}]"#,
            "[¤",
        ] {
            assert!(read(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn a_hole_whose_extent_cannot_be_bounded_leaves_the_whole_text_unknown() {
        for text in [
            // The hole must open an object that the known text closes.
            r#"[¤ "a": 1}]"#,
            r#"{"a": ¤ "b": 1"#,
            // Around the whole value.
            r#"¤[1]"#,
            r#"[1]¤"#,
        ] {
            assert!(read(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn a_partly_unknown_jsonencode_in_value_position_is_its_value() {
        let inner = Node::new(
            Value::List(vec![
                Node::new(Value::String("x".into()), None),
                Node::new(Value::Unknown(Box::default()), None),
            ]),
            None,
        );
        let mut text = holed(r#"{"command": ¤, "image": "¤"}"#);
        text.holes[0].node = Node::new(Value::Json(Arc::new(inner.clone())), None);
        text.holes[1].node = Node::new(Value::Json(Arc::new(inner.clone())), None);
        let n = parse(&text, None).unwrap();
        assert_eq!(n.get("command").unwrap(), &inner);
        assert!(n.get("image").unwrap().is_unknown());
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let text = format!("{}¤{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(read(&text).is_none());
        let ok = format!("{}¤{}", "[".repeat(100), "]".repeat(100));
        assert!(read(&ok).is_some());
    }

    #[test]
    fn many_holes_are_read_in_one_pass() {
        let mut text = String::from("[");
        for i in 0..100_000 {
            if i > 0 {
                text.push(',');
            }
            text.push_str(r#"{"image": "¤", "cpu": ¤, ¤ "name": "n"}"#);
        }
        text.push(']');
        let n = read(&text).unwrap();
        assert_eq!(n.as_list().unwrap().len(), 100_000);
    }
}
