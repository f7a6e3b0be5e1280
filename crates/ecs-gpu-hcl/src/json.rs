//! A span-keeping JSON parser: task-definition files and `.tf.json` need line numbers for every
//! diagnostic, and duplicate keys must be kept (the last one wins when read, as in Terraform).

use crate::ast::Span;

/// A JSON value with the span of its source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    pub value: JsonValue,
    pub span: Span,
}

impl Json {
    /// The value of the object member `key`: the last one when the key is repeated (the one that
    /// counts when read, as in Terraform); `None` for a missing key or a value that is not an
    /// object.
    pub fn member(&self, key: &str) -> Option<&Json> {
        match &self.value {
            JsonValue::Object(members) => members
                .iter()
                .rev()
                .find(|m| m.key == key)
                .map(|m| &m.value),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    /// The number as written.
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in source order, duplicates kept.
    Object(Vec<JsonMember>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct JsonMember {
    pub key: String,
    pub key_span: Span,
    pub value: Json,
}

/// Deeper nesting than this is refused, so that no input can exhaust the stack.
const MAX_DEPTH: u32 = 256;

/// Parses JSON text (RFC 8259; a leading byte-order mark is allowed). Duplicate object keys are
/// kept in source order.
pub fn parse(text: &str) -> Result<Json, crate::ParseError> {
    parse_within(text, crate::json_tree_budget(text.len())).map(|(json, _)| json)
}

/// [`parse`], within a syntax-tree budget of `budget` bytes instead of
/// [`json_tree_budget`](crate::json_tree_budget) (see [`crate::parse_within`]). Returns the
/// bytes the tree was charged with it.
pub fn parse_within(text: &str, budget: usize) -> Result<(Json, usize), crate::ParseError> {
    let mut p = JsonParser {
        src: text,
        b: text.as_bytes(),
        pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
        depth: 0,
        stack_base: crate::parser::stack_addr(),
        tree_left: budget,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.pos < p.b.len() {
        return p.expected("the end of the JSON text");
    }
    Ok((v, budget - p.tree_left))
}

struct JsonParser<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    depth: u32,
    stack_base: usize,
    /// What is left of the tree's memory budget ([`crate::json_tree_budget`]), in bytes.
    tree_left: usize,
}

type JResult<T> = Result<T, crate::ParseError>;

impl JsonParser<'_> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn token_span(&self) -> Span {
        let len = self.src[self.pos.min(self.src.len())..]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        Span::new(self.pos, self.pos + len)
    }

    fn describe(&self) -> String {
        match self.src[self.pos.min(self.src.len())..].chars().next() {
            None => "end of file".to_string(),
            Some('\n') => "newline".to_string(),
            Some(c) if c.is_control() => format!("control character {c:?}"),
            Some(c) => format!("`{c}`"),
        }
    }

    fn expected<T>(&self, what: &str) -> JResult<T> {
        Err(crate::ParseError {
            message: format!("expected {what}, found {}", self.describe()),
            span: self.token_span(),
        })
    }

    fn value(&mut self) -> JResult<Json> {
        self.charge(size_of::<Json>())?;
        let start = self.pos;
        let value = match self.b.get(self.pos) {
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') => JsonValue::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => {
                for (word, v) in [
                    ("true", JsonValue::Bool(true)),
                    ("false", JsonValue::Bool(false)),
                    ("null", JsonValue::Null),
                ] {
                    if self.b[self.pos..].starts_with(word.as_bytes()) {
                        self.pos += word.len();
                        return Ok(Json {
                            value: v,
                            span: Span::new(start, self.pos),
                        });
                    }
                }
                return self.expected("a JSON value");
            }
        };
        Ok(Json {
            value,
            span: Span::new(start, self.pos),
        })
    }

    fn enter(&mut self) -> JResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH
            || crate::parser::stack_addr().abs_diff(self.stack_base) > crate::parser::STACK_BUDGET
        {
            return Err(crate::ParseError {
                message: crate::NESTING_TOO_DEEP.to_string(),
                span: self.token_span(),
            });
        }
        Ok(())
    }

    /// Counts `bytes` of tree against the file's budget, as the HCL parser does: a value, a
    /// member, a string's text, charged when made. The budget also bounds what the model builds
    /// from the tree (a value and an entry per node, of about the same size), so a file made of a
    /// long run of tiny objects is refused before either takes more than ten times its size.
    fn charge(&mut self, bytes: usize) -> JResult<()> {
        match self.tree_left.checked_sub(bytes) {
            Some(left) => {
                self.tree_left = left;
                Ok(())
            }
            None => Err(crate::ParseError {
                message: format!(
                    "{} ({} MiB plus {} bytes per byte of the file): this file is too dense to \
                     check",
                    crate::OVER_BUDGET,
                    crate::TREE_BUDGET_BASE >> 20,
                    crate::JSON_TREE_BUDGET_PER_BYTE
                ),
                span: self.token_span(),
            }),
        }
    }

    fn array(&mut self) -> JResult<JsonValue> {
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
        } else {
            loop {
                self.ws();
                items.push(self.value()?);
                self.ws();
                match self.b.get(self.pos) {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return self.expected("`,` or `]` in the array"),
                }
            }
        }
        self.depth -= 1;
        // A vector's first allocation holds four items: a list of a million two-member objects
        // would keep two empty members each.
        items.shrink_to_fit();
        Ok(JsonValue::Array(items))
    }

    fn object(&mut self) -> JResult<JsonValue> {
        self.enter()?;
        self.pos += 1;
        let mut members = Vec::new();
        self.ws();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
        } else {
            loop {
                self.ws();
                if self.b.get(self.pos) != Some(&b'"') {
                    return self.expected("a string key in the object");
                }
                self.charge(size_of::<JsonMember>())?;
                let key_start = self.pos;
                let key = self.string()?;
                let key_span = Span::new(key_start, self.pos);
                self.ws();
                if self.b.get(self.pos) != Some(&b':') {
                    return self.expected("`:` after the object key");
                }
                self.pos += 1;
                self.ws();
                let value = self.value()?;
                members.push(JsonMember {
                    key,
                    key_span,
                    value,
                });
                self.ws();
                match self.b.get(self.pos) {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return self.expected("`,` or `}` in the object"),
                }
            }
        }
        self.depth -= 1;
        members.shrink_to_fit();
        Ok(JsonValue::Object(members))
    }

    fn number(&mut self) -> JResult<JsonValue> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.b.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - s
        };
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.b.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.expected("a digit in the number"),
        }
        if self.b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return self.expected("a digit after the decimal point");
            }
        }
        if matches!(self.b.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return self.expected("a digit in the exponent");
            }
        }
        let text = &self.src[start..self.pos];
        self.charge(text.len().max(size_of::<usize>()))?;
        Ok(JsonValue::Number(text.to_string()))
    }

    fn hex4(&mut self) -> JResult<u32> {
        let h = self
            .src
            .get(self.pos..self.pos + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match h {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => self.expected("4 hexadecimal digits after `\\u`"),
        }
    }

    fn string(&mut self) -> JResult<String> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run = self.pos;
            while self
                .b
                .get(self.pos)
                .is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20)
            {
                self.pos += 1;
            }
            out.push_str(&self.src[run..self.pos]);
            match self.b.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    // At least a word: what the allocator takes for the smallest.
                    self.charge(out.len().max(size_of::<usize>()))?;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = self.b.get(self.pos).copied();
                    self.pos += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.b[self.pos..].starts_with(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    self.pos = save;
                                    0xFFFD
                                }
                            } else {
                                hi
                            };
                            // A lone surrogate cannot be a Rust char: keep the replacement
                            // character, as lenient JSON readers do.
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => {
                            self.pos -= 1;
                            return self.expected("an escape (`\\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t`, `\\u`)");
                        }
                    }
                }
                None => {
                    return Err(crate::ParseError {
                        message: "unterminated string: expected a closing `\"`".to_string(),
                        span: Span::new(open, self.pos),
                    })
                }
                Some(_) => {
                    return self.expected("a closing `\"` (control characters must be escaped)");
                }
            }
        }
    }
}
