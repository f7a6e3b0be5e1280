//! A fast recognizer for the bodies [`crate::parse_skipping`] only checks.
//!
//! Checking a body with the parser walks every grammar level of every expression (a conditional,
//! then a binary chain, a unary, a traversal, a term), and at each level skips trivia and looks
//! for its operator again. Whether a body is valid does not depend on those levels: operators all
//! chain the same way, whatever their precedence. So the recognizer reads an expression as one
//! flat loop (prefixes, a term, traversals, then an operator or the end), with the parser's own
//! trivia skipping, newline rules and comment collection, and builds nothing.
//!
//! It never reports an error. It answers `true` only where the parser accepts the body, with
//! the cursor where the parser leaves it and the same comments collected; anything it does not
//! handle itself (a `for` expression, a template directive, a legacy index `a.0`, a provider
//! function `p::f`, a name beyond ASCII, more than [`MAX_NAMES`] arguments in one body,
//! nesting beyond [`MAX_DEPTH`], and every error) makes it answer `false`, and the caller
//! checks the body with the parser from its start, which gives the error when there is one.
//! `tests/skipping.rs` and `tests/properties.rs` compare both ways on every repository file,
//! on mutations of them and on generated text; the unit tests below compare the recognizer with
//! the parser body by body.

use super::Parser;

/// The recognizer leaves deeper nesting to the parser. Its count is at least the parser's own
/// ([`super::MAX_DEPTH`]) at the same place, and this limit is low enough that the parser's stack
/// budget ([`super::STACK_BUDGET`]) is never reached below it either, even unoptimised (about 18
/// KiB a level): what the recognizer accepts never fails for nesting in the parser.
pub(super) const MAX_DEPTH: u32 = 40;

/// Arguments of one body the recognizer compares for a repeated name (the parser refuses an
/// argument set twice); a body with more is left to the parser.
pub(super) const MAX_NAMES: usize = 32;

/// `Some(())`: recognized; `None`: left to the parser.
type Seen = Option<()>;

impl Parser<'_> {
    /// Recognizes the body of a block from the cursor (just after the `{` and the trivia after it,
    /// at a newline) to its closing `}`, where it leaves the cursor, as [`Parser::parse_body`]
    /// does. `false`: the body is left to the parser; the cursor and the comments collected are
    /// then wherever the recognizer stopped, and the caller restores them.
    pub(super) fn recognize_body(&mut self) -> bool {
        let newlines = self.newlines;
        let seen = self.seen_body(self.depth).is_some();
        self.newlines = newlines;
        seen
    }

    /// Recognizes one item of a body (an attribute or a block, the cursor on its name) as
    /// [`Parser::parse_item`] reads it, in the body the parser is in. `Some(name)`: recognized,
    /// with the span of the attribute's name (`None` for a block); `None`: left to the parser,
    /// as for [`Parser::recognize_body`].
    pub(super) fn recognize_item(&mut self) -> Option<Option<crate::Span>> {
        let newlines = self.newlines;
        let seen = self.seen_item(self.depth);
        self.newlines = newlines;
        seen.map(|name| name.map(|(start, end)| crate::Span::new(start, end)))
    }

    /// An item of a body: `Some(Some(name))` with an attribute's name, `Some(None)` for a block.
    fn seen_item(&mut self, depth: u32) -> Option<Option<(usize, usize)>> {
        if !is_ascii_name_start(self.peek()?) {
            return None;
        }
        let start = self.pos;
        let end = self.ascii_name_end()?;
        self.pos = end;
        self.gap()?;
        if self.peek() == Some(b'=') && self.peek_at(1) != Some(b'=') {
            self.pos += 1;
            self.gap()?;
            self.seen_expr(depth)?;
            Some(Some((start, end)))
        } else {
            self.seen_block(depth)?;
            Some(None)
        }
    }

    /// [`Parser::parse_body`] of a block.
    fn seen_body(&mut self, depth: u32) -> Seen {
        let depth = deeper(depth, 1)?;
        let newlines = self.newlines;
        self.newlines = true;
        let mut names = [(0usize, 0usize); MAX_NAMES];
        let mut count = 0;
        loop {
            self.gaps()?;
            if self.peek()? == b'}' {
                break;
            }
            if let Some((start, end)) = self.seen_item(depth)? {
                let name = &self.b[start..end];
                if count == MAX_NAMES || names[..count].iter().any(|&(s, e)| &self.b[s..e] == name)
                {
                    return None;
                }
                names[count] = (start, end);
                count += 1;
            }
            self.gap()?;
            if self.peek().is_some() && !self.at_newline() {
                return None;
            }
        }
        self.newlines = newlines;
        Some(())
    }

    /// The rest of a nested block after its type ([`Parser::parse_item`]): labels, then the body
    /// through its closing `}`.
    fn seen_block(&mut self, depth: u32) -> Seen {
        loop {
            match self.peek()? {
                b'{' => break,
                // A label must be a literal: only the plain ones are recognized.
                b'"' => {
                    let body = self.pos + 1;
                    let end = body + self.b.get(body..)?.iter().position(|&c| ends_plain(c))?;
                    if self.b[end] != b'"' {
                        return None;
                    }
                    self.pos = end + 1;
                }
                c if is_ascii_name_start(c) => self.pos = self.ascii_name_end()?,
                _ => return None,
            }
            self.gap()?;
        }
        self.pos += 1;
        self.gap()?;
        if self.at_newline() {
            self.seen_body(depth)?;
        } else if self.peek() != Some(b'}') {
            // A single-line block holds one attribute.
            if !is_ascii_name_start(self.peek()?) {
                return None;
            }
            self.pos = self.ascii_name_end()?;
            self.gap()?;
            if !(self.peek() == Some(b'=') && self.peek_at(1) != Some(b'=')) {
                return None;
            }
            self.pos += 1;
            self.gap()?;
            self.seen_expr(deeper(depth, 1)?)?;
            self.gap()?;
        }
        if self.peek() != Some(b'}') {
            return None;
        }
        self.pos += 1;
        Some(())
    }

    /// An expression ([`Parser::parse_expr`]): operands joined by binary operators, each with its
    /// prefixes and traversals, then perhaps `? :`. `depth` only grows along the way: the parser
    /// counts each prefix and traversal while its chain lasts (an operator chain is not nesting).
    fn seen_expr(&mut self, depth: u32) -> Seen {
        let mut depth = deeper(depth, 1)?;
        loop {
            while match self.peek() {
                Some(b'!') => self.peek_at(1) != Some(b'='),
                Some(b'-') => true,
                _ => false,
            } {
                depth = deeper(depth, 1)?;
                self.pos += 1;
                self.gap()?;
            }
            self.seen_term(depth)?;
            self.seen_traversals(&mut depth)?;
            self.gap()?;
            let Some((_, len)) = self.peek_binop() else {
                break;
            };
            self.pos += len;
            self.gap()?;
        }
        if self.peek() == Some(b'?') {
            self.pos += 1;
            self.gap()?;
            self.seen_expr(depth)?;
            self.gap()?;
            if self.peek() != Some(b':') {
                return None;
            }
            self.pos += 1;
            self.gap()?;
            self.seen_expr(depth)?;
        }
        Some(())
    }

    /// `.name`, `.*`, `[*]` and `[index]` after a term ([`Parser::parse_postfix`] and
    /// [`Parser::parse_splat`], which accept the same sequences), the cursor left after the last.
    fn seen_traversals(&mut self, depth: &mut u32) -> Seen {
        loop {
            let save = self.pos;
            self.gap()?;
            match self.peek() {
                Some(b'.') if self.peek_at(1) != Some(b'.') => {
                    *depth = deeper(*depth, 1)?;
                    self.pos += 1;
                    self.gap()?;
                    match self.peek()? {
                        b'*' => self.pos += 1,
                        c if is_ascii_name_start(c) => self.pos = self.ascii_name_end()?,
                        // `a.0`, a legacy index, or an error.
                        _ => return None,
                    }
                }
                Some(b'[') => {
                    *depth = deeper(*depth, 1)?;
                    self.pos += 1;
                    let newlines = self.newlines;
                    self.newlines = false;
                    self.gap()?;
                    if self.peek() == Some(b'*') {
                        self.pos += 1;
                    } else {
                        self.seen_expr(*depth)?;
                    }
                    self.gap()?;
                    if self.peek() != Some(b']') {
                        return None;
                    }
                    self.pos += 1;
                    self.newlines = newlines;
                }
                _ => {
                    self.pos = save;
                    return Some(());
                }
            }
        }
    }

    /// [`Parser::parse_term`].
    fn seen_term(&mut self, depth: u32) -> Seen {
        match self.peek()? {
            b'(' => {
                self.pos += 1;
                let newlines = self.newlines;
                self.newlines = false;
                self.gap()?;
                self.seen_expr(depth)?;
                self.gap()?;
                if self.peek() != Some(b')') {
                    return None;
                }
                self.pos += 1;
                self.newlines = newlines;
            }
            b'[' => self.seen_tuple(depth)?,
            b'{' => self.seen_object(depth)?,
            b'"' => self.seen_quoted(depth)?,
            b'<' if self.at("<<") => self.seen_heredoc(depth)?,
            c if c.is_ascii_digit() => self.seen_number(),
            c if is_ascii_name_start(c) => self.seen_name(depth)?,
            _ => return None,
        }
        Some(())
    }

    /// [`Parser::parse_number`], which accepts whatever follows the first digit.
    fn seen_number(&mut self) {
        let digits = |p: &mut Self| {
            let start = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            p.pos > start
        };
        digits(self);
        if self.peek() == Some(b'.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
            digits(self);
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                self.pos = save;
            }
        }
    }

    /// A name or a function call ([`Parser::parse_name`]; a provider function `p::f` is left to
    /// the parser).
    fn seen_name(&mut self, depth: u32) -> Seen {
        self.pos = self.ascii_name_end()?;
        let save = self.pos;
        self.gap()?;
        if self.at("::") {
            return None;
        }
        if self.peek() != Some(b'(') {
            self.pos = save;
            return Some(());
        }
        // [`Parser::parse_call`]
        self.pos += 1;
        let newlines = self.newlines;
        self.newlines = false;
        loop {
            self.gap()?;
            if self.peek() == Some(b')') {
                break;
            }
            self.seen_expr(depth)?;
            self.gap()?;
            if self.at("...") {
                self.pos += 3;
                self.gap()?;
                if self.peek() != Some(b')') {
                    return None;
                }
                break;
            }
            match self.peek()? {
                b',' => self.pos += 1,
                b')' => break,
                _ => return None,
            }
        }
        self.pos += 1;
        self.newlines = newlines;
        Some(())
    }

    /// [`Parser::parse_tuple`] (a `for` expression is left to the parser).
    fn seen_tuple(&mut self, depth: u32) -> Seen {
        self.pos += 1;
        let newlines = self.newlines;
        self.newlines = false;
        self.gap()?;
        if self.at_keyword("for") {
            return None;
        }
        loop {
            self.gap()?;
            if self.peek() == Some(b']') {
                break;
            }
            self.seen_expr(depth)?;
            self.gap()?;
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => break,
                _ => return None,
            }
        }
        self.pos += 1;
        self.newlines = newlines;
        Some(())
    }

    /// [`Parser::parse_brace`]: an object constructor (a `for` expression is left to the parser).
    fn seen_object(&mut self, depth: u32) -> Seen {
        self.pos += 1;
        let newlines = self.newlines;
        self.newlines = false;
        let after_open = self.pos;
        self.gap()?;
        if self.at_keyword("for") {
            return None;
        }
        self.pos = after_open;
        self.newlines = true;
        loop {
            self.gaps()?;
            if self.peek() == Some(b'}') {
                break;
            }
            self.seen_object_key(depth)?;
            self.gap()?;
            match self.peek()? {
                b'=' if self.peek_at(1) != Some(b'=') => self.pos += 1,
                b':' => self.pos += 1,
                _ => return None,
            }
            self.gap()?;
            self.seen_expr(depth)?;
            self.gap()?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => break,
                _ if self.at_newline() => {}
                _ => return None,
            }
        }
        self.pos += 1;
        self.newlines = newlines;
        Some(())
    }

    /// [`Parser::parse_object_key`]: a name followed by `=` or `:`, else an expression.
    fn seen_object_key(&mut self, depth: u32) -> Seen {
        let c = self.peek()?;
        if is_ascii_name_start(c) {
            let save = self.pos;
            self.pos = self.ascii_name_end()?;
            self.gap()?;
            let is_name = match self.peek() {
                Some(b'=') => self.peek_at(1) != Some(b'='),
                Some(b':') => self.peek_at(1) != Some(b':'),
                _ => false,
            };
            if is_name {
                return Some(());
            }
            self.pos = save;
        } else if !(c.is_ascii_digit()
            || matches!(c, b'"' | b'(' | b'<' | b'-' | b'!' | b'[' | b'{'))
        {
            return None;
        }
        self.seen_expr(depth)
    }

    /// A quoted template ([`Parser::parse_quoted`] and [`Parser::scan_pieces`]); a directive
    /// `%{` is left to the parser.
    fn seen_quoted(&mut self, depth: u32) -> Seen {
        self.pos += 1;
        loop {
            let run = self
                .b
                .get(self.pos..)?
                .iter()
                .position(|&c| ends_plain(c))?;
            self.pos += run;
            match self.b[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => self.seen_escape()?,
                c @ (b'$' | b'%') => self.seen_template_mark(c, depth)?,
                // A line break ends no string.
                _ => return None,
            }
        }
    }

    /// `$` or `%` in a template: `${` an interpolation, `$${` or `%%{` literal text, anything
    /// else itself (a directive `%{` is left to the parser).
    fn seen_template_mark(&mut self, c: u8, depth: u32) -> Seen {
        match self.peek_at(1) {
            Some(b'{') if c == b'$' => self.seen_interpolation(depth)?,
            Some(b'{') => return None,
            Some(n) if n == c && self.peek_at(2) == Some(b'{') => self.pos += 3,
            _ => self.pos += 1,
        }
        Some(())
    }

    /// [`Parser::parse_escape`].
    fn seen_escape(&mut self) -> Seen {
        let len = match self.peek_at(1)? {
            b'n' | b'r' | b't' | b'"' | b'\\' => {
                self.pos += 2;
                return Some(());
            }
            b'u' => 4,
            b'U' => 8,
            _ => return None,
        };
        let hex = self.src.get(self.pos + 2..self.pos + 2 + len)?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
        self.pos += 2 + len;
        Some(())
    }

    /// `${ expr }` ([`Parser::parse_interp`]), the cursor on `$`.
    fn seen_interpolation(&mut self, depth: u32) -> Seen {
        self.pos += 2;
        if self.peek() == Some(b'~') {
            self.pos += 1;
        }
        let newlines = self.newlines;
        self.newlines = false;
        self.gap()?;
        // The template's own level, then the expression's.
        self.seen_expr(deeper(depth, 1)?)?;
        self.gap()?;
        if self.peek() == Some(b'~') {
            self.pos += 1;
        }
        if self.peek() != Some(b'}') {
            return None;
        }
        self.pos += 1;
        self.newlines = newlines;
        Some(())
    }

    /// [`Parser::parse_heredoc`]: the marker, the closing line found as the parser finds it, then
    /// the template up to it.
    fn seen_heredoc(&mut self, depth: u32) -> Seen {
        self.pos += 2;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if !is_ascii_name_start(self.peek()?) {
            return None;
        }
        let start = self.pos;
        self.pos = self.ascii_name_end()?;
        let src: &str = self.src;
        let marker = &src[start..self.pos];
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
        if self.peek() != Some(b'\n') {
            return None;
        }
        self.pos += 1;
        let mut line = self.pos;
        let (end, after) = loop {
            if line >= self.b.len() {
                return None;
            }
            let line_end =
                memchr::memchr(b'\n', &self.b[line..]).map_or(self.b.len(), |i| line + i);
            let text = &src[line..line_end];
            let trimmed = text.trim_start_matches([' ', '\t']);
            if let Some(rest) = trimmed.strip_prefix(marker) {
                if rest.trim_end_matches([' ', '\t', '\r']).is_empty() {
                    break (line, line + (text.len() - trimmed.len()) + marker.len());
                }
            }
            line = line_end + 1;
        };
        // [`Parser::scan_pieces`] in a heredoc: no escapes, line breaks are text.
        loop {
            if self.pos > end {
                return None;
            }
            if self.pos == end {
                break;
            }
            match self.b[self.pos] {
                c @ (b'$' | b'%') => self.seen_template_mark(c, depth)?,
                b'\n' => self.pos += 1,
                b'\r' if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                b'\r' => return None,
                _ => {
                    let run = self.b[self.pos + 1..end]
                        .iter()
                        .position(|&c| matches!(c, b'$' | b'%' | b'\n' | b'\r'))
                        .map_or(end, |i| self.pos + 1 + i);
                    self.pos = run;
                }
            }
        }
        self.pos = after;
        Some(())
    }

    /// [`Parser::skip_trivia`], with what is not a comment skipped here: it is called at every
    /// token, and most of the time finds one space or none.
    #[inline(always)]
    fn gap(&mut self) -> Seen {
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b' ' | b'\t' => self.pos += 1,
                b'\n' if !self.newlines => self.pos += 1,
                b'\r' if !self.newlines && self.peek_at(1) == Some(b'\n') => self.pos += 2,
                // Comments are the parser's to collect.
                b'#' | b'/' => return self.skip_trivia().ok(),
                _ => break,
            }
        }
        Some(())
    }

    /// [`Parser::skip_all`]: trivia and line breaks.
    fn gaps(&mut self) -> Seen {
        loop {
            self.gap()?;
            match self.peek() {
                Some(b'\n') => self.pos += 1,
                Some(b'\r') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => return Some(()),
            }
        }
    }

    /// The end of the ASCII name at the cursor (its first byte a letter or `_`); `None` when a
    /// character beyond ASCII follows, which the parser may read as part of the name.
    fn ascii_name_end(&self) -> Option<usize> {
        let rest = &self.b[self.pos..];
        let len = rest
            .iter()
            .position(|&c| CLASS[usize::from(c)] & NAME == 0)
            .unwrap_or(rest.len());
        match rest.get(len) {
            Some(&c) if c >= 0x80 => None,
            _ => Some(self.pos + len),
        }
    }
}

/// The depth `by` levels deeper, unless past [`MAX_DEPTH`].
fn deeper(depth: u32, by: u32) -> Option<u32> {
    let d = depth.checked_add(by)?;
    (d <= MAX_DEPTH).then_some(d)
}

fn is_ascii_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

/// The bytes that end a run of plain text in a quoted string.
fn ends_plain(c: u8) -> bool {
    CLASS[usize::from(c)] & ENDS_PLAIN != 0
}

/// [`CLASS`]: a byte of an ASCII name (a letter, a digit, `_` or `-`).
const NAME: u8 = 1;
/// [`CLASS`]: a byte that ends a run of plain text in a quoted string (`"`, `\\`, `$`, `%`, a
/// line break).
const ENDS_PLAIN: u8 = 2;

/// What each byte is, looked up once per byte in the loops over names and strings.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            t[c] = NAME;
        }
        if matches!(b, b'"' | b'\\' | b'$' | b'%' | b'\n' | b'\r') {
            t[c] = ENDS_PLAIN;
        }
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::super::Parser;
    use crate::{parse, Item};

    /// How a body at `start` (a newline after the `{` at `open`) fares: the recognizer's answer
    /// (its end and comments when it recognizes it) and the parser's, both as in
    /// [`Parser::checked_body`].
    fn both(text: &str, open: usize, start: usize) -> (Option<(usize, Vec<crate::Comment>)>, bool) {
        let at = |build: bool| {
            let mut p = Parser::new(text);
            p.pos = start;
            p.depth = 1;
            p.build = build;
            p
        };
        let mut r = at(false);
        let seen = r.recognize_body().then(|| (r.pos, r.comments.clone()));
        let mut p = at(false);
        let parsed = p.parse_body(Some(open));
        if let Some((end, comments)) = &seen {
            assert!(
                parsed.is_ok(),
                "recognized, but the parser refuses it: {:?}\n{}",
                parsed.err(),
                &text[start..]
            );
            assert_eq!(*end, p.pos, "not the parser's end:\n{}", &text[start..]);
            assert_eq!(
                *comments,
                p.comments,
                "not the parser's comments:\n{}",
                &text[start..]
            );
        }
        (seen, parsed.is_ok())
    }

    /// The `(open, start)` of each top-level block body of a text that parses.
    fn bodies(text: &str) -> Vec<(usize, usize)> {
        let Ok(file) = parse(text) else {
            return Vec::new();
        };
        file.body
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Block(b) => {
                    let start = b.body.span.start as usize;
                    let open = text[..start].rfind('{')?;
                    text[start..]
                        .starts_with(['\n', '\r'])
                        .then_some((open, start))
                }
                Item::Attribute(_) => None,
            })
            .collect()
    }

    fn repository_files() -> Vec<String> {
        fn collect(dir: &std::path::Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if p.is_dir() {
                    if !matches!(name.as_str(), "target" | ".git" | ".terraform" | "out") {
                        collect(&p, out);
                    }
                } else if name.ends_with(".tf") {
                    out.extend(std::fs::read_to_string(&p));
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut out = Vec::new();
        for dir in ["crates", "terraform", "examples"] {
            collect(&root.join(dir), &mut out);
        }
        out
    }

    #[test]
    fn recognizes_what_the_parser_accepts_on_every_repository_block() {
        let (mut bodies_seen, mut recognized) = (0, 0);
        for text in repository_files() {
            for (open, start) in bodies(&text) {
                bodies_seen += 1;
                let (seen, parsed) = both(&text, open, start);
                assert!(parsed, "the parser refuses a body of a file it parses");
                recognized += usize::from(seen.is_some());
            }
        }
        // Not a recognizer that leaves everything to the parser.
        assert!(bodies_seen > 1000, "{bodies_seen} bodies");
        assert!(
            recognized * 100 >= bodies_seen * 95,
            "{recognized} of {bodies_seen} bodies recognized"
        );
    }

    #[test]
    fn never_recognizes_what_the_parser_refuses_in_mutated_blocks() {
        // A byte taken out, or one put in, at about 30 places of each body.
        const INSERTED: [&str; 14] = [
            "{", "}", "\"", "\n", "=", "$", "%", "[", "#", ".", "~", "é", "\r", "::",
        ];
        let (mut refused, mut both_accept) = (0, 0);
        for text in repository_files() {
            for (n, (open, start)) in bodies(&text).into_iter().enumerate() {
                let end = text[start..].len().min(2000) + start;
                let step = ((end - start) / 30).max(1);
                let mut at = start + n % step;
                while at < end {
                    if text.is_char_boundary(at) && text.is_char_boundary(at + 1) {
                        let mut out = text.clone();
                        out.remove(at);
                        let mut put = text.clone();
                        put.insert_str(at, INSERTED[(at / step + n) % INSERTED.len()]);
                        for t in [&out, &put] {
                            match both(t, open, start) {
                                (_, false) => refused += 1,
                                (Some(_), true) => both_accept += 1,
                                (None, true) => {}
                            }
                        }
                    }
                    at += step;
                }
            }
        }
        assert!(
            refused > 1000 && both_accept > 1000,
            "{refused} refused, {both_accept} recognized"
        );
    }

    /// The body of `resource "x" "y" {` + `inner` + `}`, recognized or not (and agreeing with
    /// the parser either way).
    fn recognized(inner: &str) -> bool {
        let text = format!("resource \"x\" \"y\" {{\n{inner}\n}}\n");
        let (open, start) = (text.find('{').unwrap_or(0), text.find('\n').unwrap_or(0));
        both(&text, open, start).0.is_some()
    }

    #[test]
    fn recognizes_the_usual_constructs() {
        for inner in [
            "a = 1\nb = \"s\"\nc = true",
            "a = var.x.y[0].z\nb = aws_subnet.x[*].id\nc = data.d.e.*.f",
            "a = f(1, [2, 3], { k = v, l: w }, g(x)...)",
            "a = x ? y : z ? 1 : -2\nb = !x && y || a == b",
            "a = \"${var.x}-%%{y}-$${z} \\\"q\\\" \\u00e9\"",
            "a = <<EOT\n  text ${x}\n  more\n  EOT",
            "a = <<-EOT\n    text\n    EOT\nb = 2",
            "nested \"label\" {\n  x = 1 # a comment\n  // another\n}\n/* block */ y = 2",
            "one { x = 1 }\nempty {}\nlist = [\n  1,\n  2,\n]",
            "obj = {\n  a = 1\n  \"b\" = 2, c = 3\n  (var.k) = 4\n}",
            "a = 1.5e3 + 2 * (3 - 4) / 5 % 6",
            "lifecycle {\n  ignore_changes = [tags]\n}",
        ] {
            assert!(recognized(inner), "not recognized:\n{inner}");
        }
    }

    #[test]
    fn leaves_to_the_parser_what_it_does_not_handle() {
        let deep = format!("a = {}1{}", "(".repeat(45), ")".repeat(45));
        let names: String = (0..40).map(|i| format!("a{i} = 1\n")).collect();
        for inner in [
            "a = [for x in y : x]",
            "a = { for k, v in m : k => v }",
            "a = \"%{ if x }y%{ endif }\"",
            "a = x.0",
            "a = provider::p::f(1)",
            "é = 1",
            "a = 1\na = 2",
            deep.as_str(),
            names.as_str(),
        ] {
            assert!(!recognized(inner), "recognized:\n{inner}");
        }
    }
}
