//! The native-syntax parser: a scannerless recursive descent over the source bytes.
//!
//! Newlines are the one context-sensitive part of HCL. A body and an object constructor end an
//! item at a newline, so there a newline is a token; inside `( )`, `[ ]`, a `for` expression (tuple
//! or object), an interpolation `${ }` and a directive `%{ }` it is plain whitespace. The parser
//! keeps one flag, [`Parser::newlines`], saved and restored around each bracketed construct, and
//! [`Parser::skip_trivia`] consults it. That is what lets `{ for k in x : k =>\n a &&\n b }` parse
//! (the `for` turns newlines off for everything up to its closing brace) while `{ a = 1\n b = 2 }`
//! still splits into two items, exactly as Terraform does.

use crate::ast::*;
use crate::ParseError;
use std::collections::HashMap;
use std::mem::size_of;

/// Deeper nesting than this is refused.
pub(crate) const MAX_DEPTH: u32 = 256;

/// Stack the recursion may use before nesting is refused, whatever the depth. An optimised build
/// needs about 2.5 KiB per level (256 levels fit), an unoptimised one up to 18 KiB, where this
/// budget stops it first (around 60 levels, still far deeper than any real configuration), so
/// that a 2 MiB thread (a test thread, a rayon worker) never overflows.
pub(crate) const STACK_BUDGET: usize = 1 << 20;

/// An address in the current stack frame, to measure how much stack the recursion has used.
#[inline(always)]
pub(crate) fn stack_addr() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

type PResult<T> = Result<T, ParseError>;

#[derive(Debug)]
pub(crate) struct Parser<'a> {
    pub(crate) src: &'a str,
    pub(crate) b: &'a [u8],
    pub(crate) pos: usize,
    depth: u32,
    stack_base: usize,
    /// Whether a newline ends the current construct (body, object) or is whitespace.
    pub(crate) newlines: bool,
    pub(crate) comments: Vec<Comment>,
    /// What the syntax tree built so far may still take, in bytes ([`crate::tree_budget`]).
    pub(crate) tree_left: usize,
}

/// The bytes of the new buffer `v` allocates on its next push (0 when it has room): what a
/// vector the tree keeps is charged as it grows.
fn grown<T>(v: &Vec<T>) -> usize {
    if v.len() < v.capacity() {
        return 0;
    }
    // A vector's first allocation holds four small items; each growth doubles it.
    (2 * v.capacity()).max(4) * size_of::<T>()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TemplateMode {
    /// A `"..."` string: escapes, ends at the closing quote, no raw newline.
    Quoted,
    /// A heredoc body ending at byte `end`; `flush` for `<<-` (indentation removed).
    Heredoc { end: usize, flush: bool },
    /// A whole file (`templatefile`): no escapes, ends at the end of the text.
    Standalone,
}

enum Piece {
    Lit {
        text: String,
        span: Span,
    },
    Interp {
        expr: Expr,
        strip_left: bool,
        strip_right: bool,
    },
    Dir {
        dir: Directive,
        strip_left: bool,
        strip_right: bool,
        span: Span,
    },
}

/// Boxed as in [`TemplatePart`]: a template keeps one piece per directive until it is nested.
enum Directive {
    If(Box<Expr>),
    Else,
    EndIf,
    For {
        key_var: Option<Box<Ident>>,
        value_var: Box<Ident>,
        collection: Box<Expr>,
    },
    EndFor,
}

pub(crate) fn is_id_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || (!c.is_ascii() && c.is_alphabetic())
}

pub(crate) fn is_id_continue(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == '_'
        || c == '-'
        || (!c.is_ascii() && (c.is_alphanumeric() || is_mark(c)))
}

/// Combining marks and connector punctuation commonly found in identifiers (ID_Continue beyond
/// letters and digits), without a Unicode table dependency.
fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0487 | 0x0591..=0x05BD | 0x0610..=0x061A | 0x064B..=0x065F
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200C | 0x200D
        | 0x203F | 0x2040 | 0x20D0..=0x20FF | 0x302A..=0x302F | 0x3099 | 0x309A | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F | 0xFE33 | 0xFE34 | 0xFE4D..=0xFE4F | 0xFF3F | 0xE0100..=0xE01EF)
}

fn binop_prec(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 1,
        BinaryOp::And => 2,
        BinaryOp::Eq | BinaryOp::NotEq => 3,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 4,
        BinaryOp::Add | BinaryOp::Sub => 5,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 6,
    }
}

fn err<T>(message: impl Into<String>, span: Span) -> PResult<T> {
    Err(ParseError {
        message: message.into(),
        span,
    })
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Parser<'a> {
        let mut p = Parser {
            src,
            b: src.as_bytes(),
            pos: 0,
            depth: 0,
            stack_base: stack_addr(),
            newlines: true,
            comments: Vec::new(),
            tree_left: crate::tree_budget(src.len()),
        };
        if src.starts_with('\u{feff}') {
            p.pos = 3;
        }
        p
    }

    // ---------------------------------------------------------------- low level

    /// The source text of a span.
    fn text(&self, span: Span) -> &'a str {
        let src: &'a str = self.src;
        &src[span.start as usize..span.end as usize]
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.b.get(self.pos + n).copied()
    }

    fn at(&self, s: &str) -> bool {
        self.b[self.pos.min(self.b.len())..].starts_with(s.as_bytes())
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.src.get(pos..).and_then(|s| s.chars().next())
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH || stack_addr().abs_diff(self.stack_base) > STACK_BUDGET {
            return err(crate::NESTING_TOO_DEEP, self.token_span(self.pos));
        }
        Ok(())
    }

    /// Counts `bytes` of syntax tree against the file's budget: past it, the file is refused
    /// before the tree can take more memory than the budget allows. What the parser keeps is
    /// charged when it is made (a node, a name's text, a comment, a vector's new buffer when it
    /// grows, a template's pieces).
    fn charge(&mut self, bytes: usize) -> PResult<()> {
        match self.tree_left.checked_sub(bytes) {
            Some(left) => {
                self.tree_left = left;
                Ok(())
            }
            None => err(
                format!(
                    "{} ({} MiB plus {} bytes per byte of the file): this file is too dense to \
                     check",
                    crate::OVER_BUDGET,
                    crate::TREE_BUDGET_BASE >> 20,
                    crate::TREE_BUDGET_PER_BYTE
                ),
                self.token_span(self.pos),
            ),
        }
    }

    /// A built expression node, charged to the budget.
    fn node(&mut self, kind: ExprKind, span: Span) -> PResult<Expr> {
        self.charge(size_of::<Expr>())?;
        Ok(Expr { kind, span })
    }

    /// A built string of `len` bytes (a name, a number, a literal's text), charged to the budget:
    /// at least a word, what the allocator takes for the smallest.
    fn charge_text(&mut self, len: usize) -> PResult<()> {
        self.charge(len.max(size_of::<usize>()))
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Loops that build a left-deep tree of traversals or prefixes count each level as nesting
    /// too: the tree they build is as deep, and every later walk over it recurses that deep.
    /// (Operator chains do not: see [`Parser::parse_binary`].)
    fn leave_n(&mut self, n: u32) {
        self.depth -= n;
    }

    /// Whether the keyword `kw` stands at the cursor as a whole word.
    fn at_keyword(&self, kw: &str) -> bool {
        self.at(kw)
            && !self
                .char_at(self.pos + kw.len())
                .is_some_and(is_id_continue)
    }

    fn ident_end(&self, start: usize) -> usize {
        let mut i = start;
        // ASCII fast path, then the general case for any non-ASCII character.
        while i < self.b.len() {
            let c = self.b[i];
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' {
                i += 1;
            } else if c >= 0x80 {
                match self.char_at(i) {
                    Some(ch) if is_id_continue(ch) => i += ch.len_utf8(),
                    _ => break,
                }
            } else {
                break;
            }
        }
        i
    }

    fn at_ident_start(&self) -> bool {
        match self.peek() {
            Some(c) if c < 0x80 => c.is_ascii_alphabetic() || c == b'_',
            Some(_) => self.char_at(self.pos).is_some_and(is_id_start),
            None => false,
        }
    }

    /// The span of the token starting at `at`, for error messages.
    fn token_span(&self, at: usize) -> Span {
        let at = at.min(self.b.len());
        let end = match self.b.get(at) {
            None => at,
            Some(b'\r') if self.b.get(at + 1) == Some(&b'\n') => at + 2,
            Some(c) if c.is_ascii_digit() => {
                let mut i = at;
                while i < self.b.len() && (self.b[i].is_ascii_alphanumeric() || self.b[i] == b'.') {
                    i += 1;
                }
                i
            }
            _ => match self.char_at(at) {
                Some(ch) if is_id_start(ch) => self.ident_end(at),
                Some(ch) => at + ch.len_utf8(),
                None => at + 1,
            },
        };
        Span::new(at, end)
    }

    /// Describes the token at `at` ("end of file", "newline", "`]`").
    fn describe(&self, at: usize) -> String {
        match self.b.get(at) {
            None => "end of file".to_string(),
            Some(b'\n') => "newline".to_string(),
            Some(b'\r') if self.b.get(at + 1) == Some(&b'\n') => "newline".to_string(),
            _ => {
                let span = self.token_span(at);
                let text = self
                    .src
                    .get(span.start as usize..span.end as usize)
                    .unwrap_or("?");
                let text = if text.chars().count() > 40 {
                    text.chars().take(40).collect::<String>() + "…"
                } else {
                    text.to_string()
                };
                match text.as_str() {
                    "`" => "a backtick".to_string(),
                    t if t.chars().all(|c| c.is_control()) => {
                        format!("control character {:?}", t)
                    }
                    _ => format!("`{text}`"),
                }
            }
        }
    }

    /// "expected X, found Y" at the cursor.
    fn expected<T>(&self, what: &str) -> PResult<T> {
        err(
            format!("expected {what}, found {}", self.describe(self.pos)),
            self.token_span(self.pos),
        )
    }

    /// Like [`Parser::expected`], with a hint when the cause is an expression continued over
    /// a line break where newlines end it (a body, an object): Terraform refuses those too.
    fn expected_continuation<T>(&self, what: &str) -> PResult<T> {
        let after_break = self.newlines && self.at_newline();
        let before_operator = self.newlines
            && self.b[..self.pos.min(self.b.len())]
                .iter()
                .rev()
                .find(|c| !matches!(c, b' ' | b'\t'))
                .is_some_and(|&c| c == b'\n')
            && (self.peek_binop().is_some() || matches!(self.peek(), Some(b'?' | b':')));
        if after_break || before_operator {
            return err(
                format!(
                    "expected {what}, found {}: an expression continues on the next line only inside parentheses, brackets or a `for` expression",
                    self.describe(self.pos)
                ),
                self.token_span(self.pos),
            );
        }
        self.expected(what)
    }

    fn expect_byte(&mut self, c: u8, what: &str) -> PResult<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            self.expected(what)
        }
    }

    fn push_comment(&mut self, start: usize, end: usize, text: &str) -> PResult<()> {
        // Lookahead may scan a comment twice; keep the first scan only.
        if self
            .comments
            .last()
            .is_some_and(|c| c.span.start as usize >= start)
        {
            return Ok(());
        }
        self.charge(text.len() + grown(&self.comments))?;
        self.comments.push(Comment {
            text: text.trim().to_string(),
            span: Span::new(start, end),
        });
        Ok(())
    }

    /// Skips spaces, tabs, comments, and newlines when they are not significant here.
    pub(crate) fn skip_trivia(&mut self) -> PResult<()> {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' => self.pos += 1,
                // CRLF is a newline; a lone CR is no whitespace in HCL (Terraform: "Invalid
                // character"), so it is left to be reported.
                b'\r' if self.peek_at(1) == Some(b'\n') && !self.newlines => self.pos += 2,
                b'\n' if !self.newlines => self.pos += 1,
                b'#' => self.line_comment(1)?,
                b'/' if self.peek_at(1) == Some(b'/') => self.line_comment(2)?,
                b'/' if self.peek_at(1) == Some(b'*') => {
                    let start = self.pos;
                    let body = start + 2;
                    match self.src[body..].find("*/") {
                        Some(i) => {
                            self.pos = body + i + 2;
                            let text = &self.src[body..body + i];
                            self.push_comment(start, self.pos, text)?;
                        }
                        None => {
                            return err(
                                "unterminated comment: expected `*/` before the end of file",
                                Span::new(start, start + 2),
                            )
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Skips trivia and any newlines.
    fn skip_all(&mut self) -> PResult<()> {
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some(b'\n') => self.pos += 1,
                Some(b'\r') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                _ => return Ok(()),
            }
        }
    }

    fn line_comment(&mut self, marker: usize) -> PResult<()> {
        let start = self.pos;
        let end = self.src[start..]
            .find('\n')
            .map_or(self.b.len(), |i| start + i);
        let text_end = if end > start && self.b[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        self.pos = end;
        let text = &self.src[(start + marker).min(text_end)..text_end];
        self.push_comment(start, text_end, text)
    }

    fn at_newline(&self) -> bool {
        matches!(self.peek(), Some(b'\n'))
            || (self.peek() == Some(b'\r') && self.peek_at(1) == Some(b'\n'))
    }

    fn parse_ident(&mut self, what: &str) -> PResult<Ident> {
        if !self.at_ident_start() {
            return self.expected(what);
        }
        let start = self.pos;
        let end = self.ident_end(start);
        self.pos = end;
        self.charge_text(end - start)?;
        Ok(Ident {
            name: self.src[start..end].to_string(),
            span: Span::new(start, end),
        })
    }

    // ---------------------------------------------------------------- bodies

    pub(crate) fn parse_file(&mut self) -> PResult<File> {
        let body = self.parse_body(None)?;
        Ok(File {
            body,
            comments: std::mem::take(&mut self.comments),
        })
    }

    /// A body: attributes and blocks, one per line. `open` is the block's `{` (None at top level).
    fn parse_body(&mut self, open: Option<usize>) -> PResult<Body> {
        self.enter()?;
        let saved = self.newlines;
        self.newlines = true;
        let start = self.pos;
        let mut items = Vec::new();
        let mut names = HashMap::new();
        let end;
        loop {
            self.skip_all()?;
            match self.peek() {
                None => {
                    if let Some(open) = open {
                        return err(
                            "expected `}` to close the block, found end of file",
                            Span::new(open, open + 1),
                        );
                    }
                    end = self.pos;
                    break;
                }
                Some(b'}') if open.is_some() => {
                    end = self.pos;
                    break;
                }
                _ => {}
            }
            if !self.at_ident_start() {
                return self.expected_continuation("an attribute name or a block type");
            }
            let item = self.parse_item()?;
            if let Item::Attribute(a) = &item {
                self.check_redefined(&items, &mut names, a.name.span)?;
            }
            let last_is_block = matches!(item, Item::Block(_));
            self.charge(grown(&items))?;
            items.push(item);
            self.skip_trivia()?;
            match self.peek() {
                None => {}
                _ if self.at_newline() => {}
                _ => {
                    let what = if last_is_block {
                        "a newline after the block's closing `}`"
                    } else {
                        "a newline after the attribute value"
                    };
                    return self.expected(what);
                }
            }
        }
        self.newlines = saved;
        self.leave();
        Ok(Body {
            items,
            span: Span::new(start, end),
        })
    }

    /// Terraform refuses a body that sets one argument twice (objects, unlike bodies, may
    /// repeat keys). The earlier names are the attributes of `items`; names compare by their
    /// source text.
    ///
    /// A small body is searched; past 32 items the names go into `names`, so that a `.tfvars`
    /// with thousands of arguments stays linear.
    fn check_redefined(
        &self,
        items: &[Item],
        names: &mut HashMap<&'a str, Span>,
        attr: Span,
    ) -> PResult<()> {
        let name = self.text(attr);
        let mut earlier = items.iter().filter_map(|i| match i {
            Item::Attribute(a) => Some(a.name.span),
            Item::Block(_) => None,
        });
        let first = if items.len() < 32 {
            earlier.find(|s| self.text(*s) == name)
        } else {
            if names.is_empty() {
                for s in earlier {
                    names.entry(self.text(s)).or_insert(s);
                }
            }
            match names.get(name) {
                Some(span) => Some(*span),
                None => {
                    names.insert(name, attr);
                    None
                }
            }
        };
        match first {
            Some(span) => {
                let (line, _) = crate::line_col(self.src, span.start);
                err(
                    format!(
                        "the argument `{name}` was already set on line {line}; each argument may be set only once"
                    ),
                    attr,
                )
            }
            None => Ok(()),
        }
    }

    /// An attribute or a block.
    fn parse_item(&mut self) -> PResult<Item> {
        let name = self.parse_ident("an attribute name or a block type")?;
        self.skip_trivia()?;
        if self.peek() == Some(b'=') && self.peek_at(1) != Some(b'=') {
            self.pos += 1;
            self.skip_trivia()?;
            let value = self.parse_expr()?;
            let span = name.span.to(value.span);
            return Ok(Item::Attribute(Attribute { name, value, span }));
        }
        let mut labels = Vec::new();
        let label_start = self.pos;
        loop {
            match self.peek() {
                Some(b'{') => break,
                Some(b'"') => {
                    let start = self.pos;
                    let t = self.parse_quoted()?;
                    let span = Span::new(start, self.pos);
                    match t.as_literal() {
                        Some(text) => labels.push(Ident {
                            name: text.to_string(),
                            span,
                        }),
                        None => {
                            return err(
                                "a block label must be a literal string, without `${` or `%{`",
                                span,
                            )
                        }
                    }
                }
                _ if self.at_ident_start() => {
                    let label = self.parse_ident("a block label")?;
                    labels.push(label);
                }
                _ => {
                    let what = if self.pos == label_start {
                        format!("`=`, a block label or `{{` after `{}`", name.name)
                    } else {
                        "`{` after block labels".to_string()
                    };
                    return self.expected(&what);
                }
            }
            self.skip_trivia()?;
        }
        let open = self.pos;
        self.pos += 1;
        self.skip_trivia()?;
        let body = if self.at_newline() {
            self.parse_body(Some(open))?
        } else if self.peek() == Some(b'}') {
            Body {
                items: Vec::new(),
                span: Span::new(self.pos, self.pos),
            }
        } else {
            // A single-line block holds at most one attribute: `a { b = 1 }`.
            let start = self.pos;
            let attr_name = self.parse_ident("an attribute name or a newline after `{`")?;
            self.skip_trivia()?;
            if !(self.peek() == Some(b'=') && self.peek_at(1) != Some(b'=')) {
                return self.expected(
                    "`=` after the attribute name (a single-line block holds one attribute)",
                );
            }
            self.pos += 1;
            self.skip_trivia()?;
            self.enter()?;
            let value = self.parse_expr()?;
            self.leave();
            let span = attr_name.span.to(value.span);
            self.skip_trivia()?;
            if self.peek() != Some(b'}') {
                return self.expected("`}` to close the single-line block");
            }
            Body {
                items: vec![Item::Attribute(Attribute {
                    name: attr_name,
                    value,
                    span,
                })],
                span: Span::new(start, self.pos),
            }
        };
        // parse_body stops at the `}`.
        if self.peek() != Some(b'}') {
            return self.expected("`}` to close the block");
        }
        self.pos += 1;
        let span = name.span.to(Span::new(self.pos - 1, self.pos));
        Ok(Item::Block(Block {
            kind: name,
            labels,
            body,
            span,
        }))
    }

    // ---------------------------------------------------------------- expressions

    pub(crate) fn parse_expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.parse_conditional();
        self.leave();
        r
    }

    fn parse_conditional(&mut self) -> PResult<Expr> {
        let cond = self.parse_binary(1)?;
        self.skip_trivia()?;
        if self.peek() != Some(b'?') {
            return Ok(cond);
        }
        self.pos += 1;
        self.skip_trivia()?;
        let then = self.parse_expr()?;
        self.skip_trivia()?;
        if self.peek() != Some(b':') {
            return self.expected("`:` in the conditional expression");
        }
        self.pos += 1;
        self.skip_trivia()?;
        let otherwise = self.parse_expr()?;
        let span = cond.span.to(otherwise.span);
        self.node(
            ExprKind::Conditional {
                condition: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            span,
        )
    }

    fn peek_binop(&self) -> Option<(BinaryOp, usize)> {
        let c = self.peek()?;
        let n = self.peek_at(1);
        Some(match (c, n) {
            (b'|', Some(b'|')) => (BinaryOp::Or, 2),
            (b'&', Some(b'&')) => (BinaryOp::And, 2),
            (b'=', Some(b'=')) => (BinaryOp::Eq, 2),
            (b'!', Some(b'=')) => (BinaryOp::NotEq, 2),
            (b'<', Some(b'=')) => (BinaryOp::Le, 2),
            (b'>', Some(b'=')) => (BinaryOp::Ge, 2),
            (b'<', _) => (BinaryOp::Lt, 1),
            (b'>', _) => (BinaryOp::Gt, 1),
            (b'+', _) => (BinaryOp::Add, 1),
            (b'-', _) => (BinaryOp::Sub, 1),
            (b'*', _) => (BinaryOp::Mul, 1),
            (b'/', _) => (BinaryOp::Div, 1),
            (b'%', _) => (BinaryOp::Mod, 1),
            _ => return None,
        })
    }

    /// Precedence climbing: operators of precedence `min` or higher, left-associative. A chain
    /// of operators is a loop, not nesting: `1 + 1 + ... + 1` of any length is accepted, as
    /// Terraform accepts it (the recursion goes at most one level per precedence). The left-deep
    /// tree it builds is walked without recursion along its left side: [`Expr`]'s `Drop`, and the
    /// evaluator.
    fn parse_binary(&mut self, min: u8) -> PResult<Expr> {
        let mut left = self.parse_unary()?;
        loop {
            self.skip_trivia()?;
            let Some((op, len)) = self.peek_binop() else {
                break;
            };
            let prec = binop_prec(op);
            if prec < min {
                break;
            }
            self.pos += len;
            self.skip_trivia()?;
            let right = if prec < 6 {
                self.parse_binary(prec + 1)?
            } else {
                self.parse_unary()?
            };
            let span = left.span.to(right.span);
            let kind = ExprKind::Binary {
                op,
                left: Box::new(left),
                right: Box::new(right),
            };
            left = self.node(kind, span)?;
        }
        Ok(left)
    }

    fn parse_unary(&mut self) -> PResult<Expr> {
        let mut ops = Vec::new();
        loop {
            match self.peek() {
                Some(b'!') if self.peek_at(1) != Some(b'=') => ops.push((UnaryOp::Not, self.pos)),
                Some(b'-') => ops.push((UnaryOp::Negate, self.pos)),
                _ => break,
            }
            self.enter()?;
            self.pos += 1;
            self.skip_trivia()?;
        }
        let mut e = self.parse_postfix()?;
        self.leave_n(ops.len() as u32);
        while let Some((op, start)) = ops.pop() {
            let span = Span::new(start, e.span.end as usize);
            let kind = ExprKind::Unary {
                op,
                operand: Box::new(e),
            };
            e = self.node(kind, span)?;
        }
        Ok(e)
    }

    fn parse_postfix(&mut self) -> PResult<Expr> {
        let mut e = self.parse_term()?;
        let mut levels = 0;
        loop {
            let save = self.pos;
            self.skip_trivia()?;
            if matches!(self.peek(), Some(b'.' | b'[')) {
                self.enter()?;
                levels += 1;
            }
            match self.peek() {
                Some(b'.') if self.peek_at(1) != Some(b'.') => {
                    // Terraform allows spaces and comments after the dot: `a. b`, `a. *`.
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'*') {
                        self.pos += 1;
                        e = self.parse_splat(e, false)?;
                    } else {
                        e = self.parse_dot(e)?;
                    }
                }
                Some(b'[') => {
                    let open = self.pos;
                    self.pos += 1;
                    let saved = self.newlines;
                    self.newlines = false;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'*') {
                        self.pos += 1;
                        self.skip_trivia()?;
                        self.expect_byte(b']', "`]` after `[*`")?;
                        self.newlines = saved;
                        e = self.parse_splat(e, true)?;
                    } else {
                        e = self.finish_index(e, open)?;
                        self.newlines = saved;
                    }
                }
                _ => {
                    self.pos = save;
                    break;
                }
            }
        }
        self.leave_n(levels);
        Ok(e)
    }

    /// After `target.`: an attribute name or a legacy index `.0`.
    fn parse_dot(&mut self, target: Expr) -> PResult<Expr> {
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            // The whole number token, as Terraform reads it; `a.0.1` reads `0.1`, which is no
            // index.
            let index = self.parse_number()?;
            let n = self.text(index.span);
            if n.contains('.') {
                return err(
                    format!(
                        "invalid legacy index `.{n}`: write `[{}]`",
                        n.replace('.', "][")
                    ),
                    index.span,
                );
            }
            let span = target.span.to(index.span);
            return self.node(
                ExprKind::Index {
                    target: Box::new(target),
                    index: Box::new(index),
                },
                span,
            );
        }
        let name = self.parse_ident("an attribute name after `.`")?;
        let span = target.span.to(name.span);
        self.node(
            ExprKind::GetAttr {
                target: Box::new(target),
                name,
            },
            span,
        )
    }

    /// After `target[` (not a splat), with newlines off.
    fn finish_index(&mut self, target: Expr, open: usize) -> PResult<Expr> {
        let index = self.parse_expr()?;
        self.skip_trivia()?;
        if self.peek() != Some(b']') {
            return self.expected(&format!("`]` to close the index opened at byte {open}"));
        }
        self.pos += 1;
        let span = target.span.to(Span::new(self.pos - 1, self.pos));
        self.node(
            ExprKind::Index {
                target: Box::new(target),
                index: Box::new(index),
            },
            span,
        )
    }

    /// After `[*]` (`full`) or `.*`: the traversal applied to each element.
    fn parse_splat(&mut self, target: Expr, full: bool) -> PResult<Expr> {
        let mut each = self.node(ExprKind::SplatItem, Span::new(self.pos, self.pos))?;
        let mut levels = 0;
        let mut traversed = false;
        loop {
            let save = self.pos;
            self.skip_trivia()?;
            if matches!(self.peek(), Some(b'.' | b'[')) {
                self.enter()?;
                levels += 1;
            }
            match self.peek() {
                Some(b'.') if self.peek_at(1) != Some(b'.') => {
                    self.pos += 1;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'*') {
                        // another splat: it applies to this one's result
                        self.pos = save;
                        break;
                    }
                    each = self.parse_dot(each)?;
                    traversed = true;
                }
                Some(b'[') if full => {
                    let open = self.pos;
                    self.pos += 1;
                    let saved = self.newlines;
                    self.newlines = false;
                    self.skip_trivia()?;
                    if self.peek() == Some(b'*') {
                        self.newlines = saved;
                        self.pos = save;
                        break;
                    }
                    each = self.finish_index(each, open)?;
                    traversed = true;
                    self.newlines = saved;
                }
                _ => {
                    self.pos = save;
                    break;
                }
            }
        }
        self.leave_n(levels);
        let end = if traversed {
            each.span.end as usize
        } else {
            self.pos
        };
        let span = Span::new(
            target.span.start as usize,
            end.max(target.span.end as usize),
        );
        self.node(
            ExprKind::Splat {
                target: Box::new(target),
                each: Box::new(each),
                full,
            },
            span,
        )
    }

    fn parse_term(&mut self) -> PResult<Expr> {
        let start = self.pos;
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let saved = self.newlines;
                self.newlines = false;
                self.skip_trivia()?;
                let inner = self.parse_expr()?;
                self.skip_trivia()?;
                if self.peek() != Some(b')') {
                    return self.expected("`)` to close the parenthesis");
                }
                self.pos += 1;
                self.newlines = saved;
                let span = Span::new(start, self.pos);
                self.node(ExprKind::Parens(Box::new(inner)), span)
            }
            Some(b'[') => self.parse_tuple(),
            Some(b'{') => self.parse_brace(),
            Some(b'"') => {
                let t = self.parse_quoted()?;
                self.node(ExprKind::Template(t), Span::new(start, self.pos))
            }
            Some(b'<') if self.at("<<") => self.parse_heredoc(),
            Some(c) if c.is_ascii_digit() => self.parse_number(),
            _ if self.at_ident_start() => self.parse_name(),
            _ => self.expected_continuation("an expression"),
        }
    }

    fn parse_number(&mut self) -> PResult<Expr> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            p.pos > s
        };
        digits(self);
        if self.peek() == Some(b'.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
            digits(self);
        }
        if matches!(self.peek(), Some(b'e') | Some(b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+') | Some(b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                self.pos = save;
            }
        }
        let span = Span::new(start, self.pos);
        self.charge_text(self.pos - start)?;
        self.node(
            ExprKind::Number(self.src[start..self.pos].to_string()),
            span,
        )
    }

    /// A name: a keyword literal, a variable or a function call (`f(...)`, `provider::p::f(...)`).
    fn parse_name(&mut self) -> PResult<Expr> {
        let first = self.parse_ident("an expression")?;
        let start = first.span.start as usize;
        let mut name = first;
        let mut qualified = false;
        loop {
            let save = self.pos;
            self.skip_trivia()?;
            if !self.at("::") {
                self.pos = save;
                break;
            }
            self.pos += 2;
            self.skip_trivia()?;
            let next = self.parse_ident("a function name after `::`")?;
            // A qualified name is built in any case: the error messages show it.
            if !qualified && name.name.is_empty() {
                name.name = self.text(name.span).to_string();
            }
            qualified = true;
            name.name.push_str("::");
            name.name.push_str(&next.name);
            name.span = name.span.to(next.span);
        }
        let save = self.pos;
        self.skip_trivia()?;
        if self.peek() == Some(b'(') {
            return self.parse_call(name);
        }
        self.pos = save;
        if qualified {
            return self.expected(&format!("`(` after the function name `{}`", name.name));
        }
        let kind = match name.name.as_str() {
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "null" => ExprKind::Null,
            _ => ExprKind::Variable(name),
        };
        self.node(kind, Span::new(start, self.pos))
    }

    fn parse_call(&mut self, name: Ident) -> PResult<Expr> {
        self.pos += 1; // (
        let saved = self.newlines;
        self.newlines = false;
        let mut args = Vec::new();
        let mut expand_final = false;
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b')') {
                break;
            }
            let arg = self.parse_expr()?;
            self.charge(grown(&args))?;
            args.push(arg);
            self.skip_trivia()?;
            if self.at("...") {
                self.pos += 3;
                expand_final = true;
                self.skip_trivia()?;
                if self.peek() != Some(b')') {
                    return self.expected("`)` after the `...` expansion of the last argument");
                }
                break;
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => break,
                _ => {
                    return self
                        .expected(&format!("`,` or `)` in the arguments of `{}`", name.name))
                }
            }
        }
        self.pos += 1;
        self.newlines = saved;
        let span = name.span.to(Span::new(self.pos - 1, self.pos));
        args.shrink_to_fit();
        self.node(
            ExprKind::Call {
                name: Box::new(name),
                args,
                expand_final,
            },
            span,
        )
    }

    fn parse_tuple(&mut self) -> PResult<Expr> {
        let start = self.pos;
        self.pos += 1;
        let saved = self.newlines;
        self.newlines = false;
        self.skip_trivia()?;
        if self.at_keyword("for") {
            let e = self.parse_for(start, false)?;
            self.newlines = saved;
            return Ok(e);
        }
        let mut items = Vec::new();
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b']') {
                break;
            }
            let item = self.parse_expr()?;
            self.charge(grown(&items))?;
            items.push(item);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => break,
                _ => return self.expected("`,` or `]` in the tuple"),
            }
        }
        self.pos += 1;
        self.newlines = saved;
        // A vector's first allocation holds four items: a list of a million one-item objects
        // would keep three empty items (hundreds of bytes) each.
        items.shrink_to_fit();
        self.node(ExprKind::Tuple(items), Span::new(start, self.pos))
    }

    /// `{`: an object constructor or an object `for` expression.
    fn parse_brace(&mut self) -> PResult<Expr> {
        let start = self.pos;
        self.pos += 1;
        let saved = self.newlines;
        self.newlines = false;
        let after_open = self.pos;
        self.skip_trivia()?;
        if self.at_keyword("for") {
            let e = self.parse_for(start, true)?;
            self.newlines = saved;
            return Ok(e);
        }
        self.pos = after_open;
        self.newlines = true;
        let mut items = Vec::new();
        loop {
            self.skip_all()?;
            if self.peek() == Some(b'}') {
                break;
            }
            let key = self.parse_object_key()?;
            self.skip_trivia()?;
            match self.peek() {
                Some(b'=') if self.peek_at(1) != Some(b'=') => self.pos += 1,
                Some(b':') => self.pos += 1,
                _ => return self.expected("`=` or `:` after the object key"),
            }
            self.skip_trivia()?;
            let value = self.parse_expr()?;
            self.charge(grown(&items))?;
            items.push(ObjectItem { key, value });
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ if self.at_newline() => {}
                _ => return self.expected("`,`, a newline or `}` after the object item"),
            }
        }
        self.pos += 1;
        self.newlines = saved;
        // A vector's first allocation holds four items: a list of a million one-item objects
        // would keep three empty items (hundreds of bytes) each.
        items.shrink_to_fit();
        self.node(ExprKind::Object(items), Span::new(start, self.pos))
    }

    fn parse_object_key(&mut self) -> PResult<ObjectKey> {
        if self.at_ident_start() {
            let save = self.pos;
            let id = self.parse_ident("an object key")?;
            self.skip_trivia()?;
            let is_name = match self.peek() {
                Some(b'=') => self.peek_at(1) != Some(b'='),
                Some(b':') => self.peek_at(1) != Some(b':'),
                _ => false,
            };
            if is_name {
                return Ok(ObjectKey::Name(id));
            }
            self.pos = save;
        }
        if !self.at_ident_start()
            && !matches!(
                self.peek(),
                Some(b'"' | b'(' | b'<' | b'-' | b'!' | b'[' | b'{')
            )
            && !self.peek().is_some_and(|c| c.is_ascii_digit())
        {
            return self.expected_continuation("an object key or `}`");
        }
        Ok(ObjectKey::Expr(self.parse_expr()?))
    }

    /// `for k, v in coll : ...` after `[` or `{` (the cursor is on `for`), with newlines off.
    fn parse_for(&mut self, open: usize, object: bool) -> PResult<Expr> {
        self.enter()?;
        self.pos += 3;
        self.skip_trivia()?;
        let first = self.parse_ident("a variable name after `for`")?;
        self.skip_trivia()?;
        let (key_var, value_var) = if self.peek() == Some(b',') {
            self.pos += 1;
            self.skip_trivia()?;
            let second = self.parse_ident("a second variable name after `,`")?;
            self.skip_trivia()?;
            (Some(first), second)
        } else {
            (None, first)
        };
        if !self.at_keyword("in") {
            return self.expected("`in` after the `for` variables");
        }
        self.pos += 2;
        self.skip_trivia()?;
        let collection = self.parse_expr()?;
        self.skip_trivia()?;
        self.expect_byte(b':', "`:` after the `for` collection")?;
        self.skip_trivia()?;
        let key = if object {
            let k = self.parse_expr()?;
            self.skip_trivia()?;
            if !self.at("=>") {
                return self.expected("`=>` after the key of an object `for` expression");
            }
            self.pos += 2;
            self.skip_trivia()?;
            Some(k)
        } else {
            None
        };
        let value = self.parse_expr()?;
        self.skip_trivia()?;
        let mut grouping = false;
        if object && self.at("...") {
            self.pos += 3;
            grouping = true;
            self.skip_trivia()?;
        }
        let condition = if self.at_keyword("if") {
            self.pos += 2;
            self.skip_trivia()?;
            let c = self.parse_expr()?;
            self.skip_trivia()?;
            Some(Box::new(c))
        } else {
            None
        };
        let close = if object { b'}' } else { b']' };
        if self.peek() != Some(close) {
            let what = if object {
                "`if` or `}` to close the object `for` expression"
            } else {
                "`if` or `]` to close the tuple `for` expression"
            };
            return self.expected(what);
        }
        self.pos += 1;
        self.leave();
        let span = Span::new(open, self.pos);
        let collection = Box::new(collection);
        let value = Box::new(value);
        let key_var = key_var.map(Box::new);
        let value_var = Box::new(value_var);
        let kind = match key {
            Some(key) => ExprKind::ForObject {
                key_var,
                value_var,
                collection,
                key: Box::new(key),
                value,
                grouping,
                condition,
            },
            None => ExprKind::ForTuple {
                key_var,
                value_var,
                collection,
                value,
                condition,
            },
        };
        self.node(kind, span)
    }

    // ---------------------------------------------------------------- templates

    /// A quoted string; the cursor is on the opening quote and ends after the closing one.
    pub(crate) fn parse_quoted(&mut self) -> PResult<Template> {
        let open = self.pos;
        self.pos += 1;
        // Fast path: most strings are plain text (no escape, interpolation or directive).
        let body = self.pos;
        let plain_end = self.b[body..]
            .iter()
            .position(|&c| matches!(c, b'"' | b'\\' | b'$' | b'%' | b'\n' | b'\r'))
            .map(|i| body + i);
        if let Some(end) = plain_end.filter(|&e| self.b[e] == b'"') {
            self.pos = end + 1;
            let parts = if end == body {
                Vec::new()
            } else {
                vec![TemplatePart::Literal {
                    text: self.src[body..end].to_string(),
                    span: Span::new(body, end),
                }]
            };
            return Ok(Template {
                parts,
                heredoc: false,
            });
        }
        let t = self.parse_template_body(TemplateMode::Quoted, open)?;
        // parse_template_body stops on the closing quote.
        self.pos += 1;
        Ok(t)
    }

    fn parse_heredoc(&mut self) -> PResult<Expr> {
        let start = self.pos;
        self.pos += 2;
        let flush = self.peek() == Some(b'-');
        if flush {
            self.pos += 1;
        }
        let marker = self.parse_ident("a heredoc marker after `<<`")?;
        let marker = self.text(marker.span);
        let header_span = Span::new(start, self.pos);
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
        if self.peek() != Some(b'\n') {
            return self.expected(&format!("a newline after the heredoc marker `{marker}`"));
        }
        self.pos += 1;
        let body_start = self.pos;
        // Find the closing line: optional indentation, the marker, optional trailing spaces.
        let mut line = body_start;
        let (end, after) = loop {
            if line >= self.b.len() {
                return err(
                    format!(
                        "unterminated heredoc: expected a line `{marker}` to close it before the end of file"
                    ),
                    header_span,
                );
            }
            let line_end = self.src[line..]
                .find('\n')
                .map_or(self.b.len(), |i| line + i);
            let text = &self.src[line..line_end];
            let trimmed = text.trim_start_matches([' ', '\t']);
            if let Some(rest) = trimmed.strip_prefix(marker) {
                if rest.trim_end_matches([' ', '\t', '\r']).is_empty() {
                    let marker_end = line + (text.len() - trimmed.len()) + marker.len();
                    break (line, marker_end);
                }
            }
            line = line_end + 1;
        };
        let mut t = self.parse_template_body(TemplateMode::Heredoc { end, flush }, start)?;
        t.heredoc = true;
        self.pos = after;
        let span = Span::new(start, after);
        self.node(ExprKind::Template(t), span)
    }

    /// Parses template content from the cursor according to `mode`. `open` is where the
    /// template started, for "unterminated" errors.
    pub(crate) fn parse_template_body(
        &mut self,
        mode: TemplateMode,
        open: usize,
    ) -> PResult<Template> {
        let pieces = self.scan_pieces(mode, open)?;
        let mut pieces = apply_strip(pieces);
        if let TemplateMode::Heredoc { flush: true, .. } = mode {
            flush_indentation(&mut pieces);
        }
        let mut it = pieces.into_iter().peekable();
        let (t, end) = self.nest(&mut it)?;
        match end {
            None => Ok(t),
            Some((dir, span)) => {
                let opening = if dir == "endfor" { "for" } else { "if" };
                err(
                    format!("unexpected `%{{ {dir} }}` without an opening `%{{ {opening} }}`"),
                    span,
                )
            }
        }
    }

    fn scan_pieces(&mut self, mode: TemplateMode, open: usize) -> PResult<Vec<Piece>> {
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let mut lit_start = self.pos;
        macro_rules! flush {
            () => {
                if !lit.is_empty() {
                    self.charge(size_of::<TemplatePart>() + lit.len() + grown(&pieces))?;
                    pieces.push(Piece::Lit {
                        text: std::mem::take(&mut lit),
                        span: Span::new(lit_start, self.pos),
                    });
                }
            };
        }
        loop {
            match mode {
                TemplateMode::Quoted => match self.peek() {
                    Some(b'"') => break,
                    None | Some(b'\n') => return err(
                        "unterminated string: expected a closing `\"` before the end of the line",
                        Span::new(open, self.pos),
                    ),
                    Some(b'\r') if self.peek_at(1) == Some(b'\n') => return err(
                        "unterminated string: expected a closing `\"` before the end of the line",
                        Span::new(open, self.pos),
                    ),
                    _ => {}
                },
                TemplateMode::Heredoc { end, .. } => {
                    if self.pos > end {
                        return err(
                            "an interpolation runs past the heredoc's closing marker",
                            Span::new(open, self.pos),
                        );
                    }
                    if self.pos == end {
                        break;
                    }
                }
                TemplateMode::Standalone => {
                    if self.pos >= self.b.len() {
                        break;
                    }
                }
            }
            let Some(c) = self.peek() else { break };
            match c {
                b'$' | b'%' if self.peek_at(1) == Some(b'{') => {
                    flush!();
                    let piece = if c == b'$' {
                        self.parse_interp()?
                    } else {
                        self.parse_directive()?
                    };
                    self.charge(size_of::<TemplatePart>() + grown(&pieces))?;
                    pieces.push(piece);
                    lit_start = self.pos;
                }
                b'$' | b'%' if self.peek_at(1) == Some(c) && self.peek_at(2) == Some(b'{') => {
                    lit.push(c as char);
                    lit.push('{');
                    self.pos += 3;
                }
                b'\\' if mode == TemplateMode::Quoted => self.parse_escape(&mut lit)?,
                b'\r' if self.peek_at(1) != Some(b'\n') && mode != TemplateMode::Standalone => {
                    // Terraform: "Invalid character" (a lone carriage return)
                    return err(
                        "a carriage return without a line feed is not allowed in a string",
                        Span::new(self.pos, self.pos + 1),
                    );
                }
                b'\r' | b'\n' if mode != TemplateMode::Quoted && self.at_newline() => {
                    lit.push('\n');
                    self.pos += if c == b'\r' { 2 } else { 1 };
                    // Heredoc literals end at each newline, so that `<<-` can find line starts
                    // after strip markers have been applied.
                    flush!();
                    lit_start = self.pos;
                }
                _ => {
                    // Copy a run of ordinary text at once.
                    let run_start = self.pos;
                    let mut i = self.pos + 1;
                    let stop = match mode {
                        TemplateMode::Heredoc { end, .. } => end,
                        _ => self.b.len(),
                    };
                    while i < stop
                        && !matches!(self.b[i], b'$' | b'%' | b'\\' | b'"' | b'\n' | b'\r')
                    {
                        i += 1;
                    }
                    while !self.src.is_char_boundary(i) {
                        i += 1;
                    }
                    lit.push_str(&self.src[run_start..i]);
                    self.pos = i;
                }
            }
        }
        flush!();
        Ok(pieces)
    }

    fn parse_escape(&mut self, lit: &mut String) -> PResult<()> {
        let start = self.pos;
        let Some(c) = self.peek_at(1) else {
            return err(
                "unterminated string: expected a closing `\"`",
                Span::new(start, start + 1),
            );
        };
        let simple = match c {
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            _ => None,
        };
        if let Some(ch) = simple {
            lit.push(ch);
            self.pos += 2;
            return Ok(());
        }
        let len = match c {
            b'u' => 4,
            b'U' => 8,
            _ => {
                let span = self.token_span(start + 1);
                return err(
                    format!(
                        "invalid escape sequence `\\{}`: expected one of `\\n`, `\\r`, `\\t`, `\\\"`, `\\\\`, `\\uNNNN`, `\\UNNNNNNNN`",
                        self.char_at(start + 1).unwrap_or('?')
                    ),
                    Span::new(start, span.end as usize),
                );
            }
        };
        let hex_start = start + 2;
        let hex = self.src.get(hex_start..hex_start + len);
        let ch = hex
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32);
        match ch {
            Some(ch) => {
                lit.push(ch);
                self.pos = hex_start + len;
                Ok(())
            }
            None => err(
                format!(
                    "invalid unicode escape: expected {len} hexadecimal digits naming a character after `\\{}`",
                    c as char
                ),
                Span::new(start, (hex_start + len).min(self.b.len())),
            ),
        }
    }

    /// `${ expr }`, the cursor on `$`.
    fn parse_interp(&mut self) -> PResult<Piece> {
        self.pos += 2;
        let strip_left = self.peek() == Some(b'~');
        if strip_left {
            self.pos += 1;
        }
        let saved = self.newlines;
        self.newlines = false;
        self.skip_trivia()?;
        let expr = self.parse_expr()?;
        self.skip_trivia()?;
        let strip_right = self.peek() == Some(b'~');
        if strip_right {
            self.pos += 1;
        }
        if self.peek() != Some(b'}') {
            return self.expected("`}` to close the interpolation `${`");
        }
        self.pos += 1;
        self.newlines = saved;
        Ok(Piece::Interp {
            expr,
            strip_left,
            strip_right,
        })
    }

    /// `%{ if/else/endif/for/endfor }`, the cursor on `%`.
    fn parse_directive(&mut self) -> PResult<Piece> {
        let open = self.pos;
        self.pos += 2;
        let strip_left = self.peek() == Some(b'~');
        if strip_left {
            self.pos += 1;
        }
        let saved = self.newlines;
        self.newlines = false;
        self.skip_trivia()?;
        let dir = if self.at_keyword("if") {
            self.pos += 2;
            self.skip_trivia()?;
            Directive::If(Box::new(self.parse_expr()?))
        } else if self.at_keyword("else") {
            self.pos += 4;
            Directive::Else
        } else if self.at_keyword("endif") {
            self.pos += 5;
            Directive::EndIf
        } else if self.at_keyword("endfor") {
            self.pos += 6;
            Directive::EndFor
        } else if self.at_keyword("for") {
            self.pos += 3;
            self.skip_trivia()?;
            let first = self.parse_ident("a variable name after `for`")?;
            self.skip_trivia()?;
            let (key_var, value_var) = if self.peek() == Some(b',') {
                self.pos += 1;
                self.skip_trivia()?;
                let second = self.parse_ident("a second variable name after `,`")?;
                self.skip_trivia()?;
                (Some(first), second)
            } else {
                (None, first)
            };
            if !self.at_keyword("in") {
                return self.expected("`in` after the `for` variables");
            }
            self.pos += 2;
            self.skip_trivia()?;
            Directive::For {
                key_var: key_var.map(Box::new),
                value_var: Box::new(value_var),
                collection: Box::new(self.parse_expr()?),
            }
        } else {
            return self.expected("`if`, `else`, `endif`, `for` or `endfor` after `%{`");
        };
        self.skip_trivia()?;
        let strip_right = self.peek() == Some(b'~');
        if strip_right {
            self.pos += 1;
        }
        if self.peek() != Some(b'}') {
            return self.expected("`}` to close the template directive");
        }
        self.pos += 1;
        self.newlines = saved;
        Ok(Piece::Dir {
            dir,
            strip_left,
            strip_right,
            span: Span::new(open, self.pos),
        })
    }

    /// Builds the nested template from the flat pieces, up to a closing directive
    /// (`else`/`endif`/`endfor`), which is returned with its span.
    fn nest(
        &mut self,
        it: &mut std::iter::Peekable<std::vec::IntoIter<Piece>>,
    ) -> PResult<(Template, Option<(&'static str, Span)>)> {
        self.enter()?;
        let mut parts = Vec::new();
        while let Some(piece) = it.next() {
            match piece {
                Piece::Lit { text, span } => {
                    if text.is_empty() {
                        continue;
                    }
                    if let Some(TemplatePart::Literal {
                        text: prev,
                        span: prev_span,
                    }) = parts.last_mut()
                    {
                        prev.push_str(&text);
                        *prev_span = prev_span.to(span);
                    } else {
                        parts.push(TemplatePart::Literal { text, span });
                    }
                }
                Piece::Interp { expr, .. } => {
                    parts.push(TemplatePart::Interpolation(expr));
                }
                Piece::Dir { dir, span, .. } => match dir {
                    Directive::Else => {
                        self.leave();
                        return Ok((
                            Template {
                                parts,
                                heredoc: false,
                            },
                            Some(("else", span)),
                        ));
                    }
                    Directive::EndIf => {
                        self.leave();
                        return Ok((
                            Template {
                                parts,
                                heredoc: false,
                            },
                            Some(("endif", span)),
                        ));
                    }
                    Directive::EndFor => {
                        self.leave();
                        return Ok((
                            Template {
                                parts,
                                heredoc: false,
                            },
                            Some(("endfor", span)),
                        ));
                    }
                    Directive::If(condition) => {
                        let (then, end) = self.nest(it)?;
                        let (otherwise, end) = match end {
                            Some(("else", _)) => {
                                let (o, end) = self.nest(it)?;
                                (Some(o), end)
                            }
                            other => (None, other),
                        };
                        let close = match end {
                            Some(("endif", s)) => s,
                            Some((other, s)) => {
                                return err(
                                    format!("expected `%{{ endif }}` to close `%{{ if }}`, found `%{{ {other} }}`"),
                                    s,
                                )
                            }
                            None => {
                                return err(
                                    "expected `%{ endif }` to close this `%{ if }`, found the end of the template",
                                    span,
                                )
                            }
                        };
                        parts.push(TemplatePart::If {
                            condition,
                            then,
                            otherwise: otherwise.map(Box::new),
                            span: span.to(close),
                        });
                    }
                    Directive::For {
                        key_var,
                        value_var,
                        collection,
                    } => {
                        let (body, end) = self.nest(it)?;
                        let close = match end {
                            Some(("endfor", s)) => s,
                            Some((other, s)) => {
                                return err(
                                    format!("expected `%{{ endfor }}` to close `%{{ for }}`, found `%{{ {other} }}`"),
                                    s,
                                )
                            }
                            None => {
                                return err(
                                    "expected `%{ endfor }` to close this `%{ for }`, found the end of the template",
                                    span,
                                )
                            }
                        };
                        parts.push(TemplatePart::For {
                            key_var,
                            value_var,
                            collection,
                            body,
                            span: span.to(close),
                        });
                    }
                },
            }
        }
        self.leave();
        Ok((
            Template {
                parts,
                heredoc: false,
            },
            None,
        ))
    }

    /// Parses one expression filling the whole text.
    pub(crate) fn parse_whole_expression(&mut self) -> PResult<Expr> {
        self.newlines = false;
        self.skip_trivia()?;
        let e = self.parse_expr()?;
        self.skip_trivia()?;
        if self.pos < self.b.len() {
            return self.expected("the end of the expression");
        }
        Ok(e)
    }
}

/// Removes `<<-` indentation, as Terraform does: after strip markers, each line's first piece
/// counts its leading whitespace characters, except a whitespace-only line (blank); a line that
/// starts with an interpolation or directive, or with a literal emptied by a strip marker, counts
/// zero. The smallest count is removed from every counted literal.
fn flush_indentation(pieces: &mut [Piece]) {
    let mut min = usize::MAX;
    let mut adjust = Vec::new();
    let mut line_start = true;
    for (i, piece) in pieces.iter().enumerate() {
        if line_start {
            line_start = false;
            match piece {
                Piece::Lit { text, .. } => {
                    let rest = text.trim_start();
                    if !(rest.is_empty() && text.ends_with('\n')) {
                        let spaces = text[..text.len() - rest.len()].chars().count();
                        min = min.min(spaces);
                        adjust.push(i);
                    }
                }
                _ => min = 0,
            }
        }
        if let Piece::Lit { text, .. } = piece {
            if text.ends_with('\n') {
                line_start = true;
            }
        }
    }
    if min == 0 || min == usize::MAX {
        return;
    }
    for i in adjust {
        if let Some(Piece::Lit { text, .. }) = pieces.get_mut(i) {
            let cut: usize = text.chars().take(min).map(char::len_utf8).sum();
            text.drain(..cut);
        }
    }
}

/// Applies `~` strip markers: `${~`/`%{~` trims trailing whitespace from the literal before,
/// `~}` trims leading whitespace from the literal after.
fn apply_strip(mut pieces: Vec<Piece>) -> Vec<Piece> {
    for i in 0..pieces.len() {
        let (left, right) = match &pieces[i] {
            Piece::Interp {
                strip_left,
                strip_right,
                ..
            }
            | Piece::Dir {
                strip_left,
                strip_right,
                ..
            } => (*strip_left, *strip_right),
            Piece::Lit { .. } => continue,
        };
        if left && i > 0 {
            if let Piece::Lit { text, .. } = &mut pieces[i - 1] {
                let n = text.trim_end().len();
                text.truncate(n);
            }
        }
        if right {
            if let Some(Piece::Lit { text, .. }) = pieces.get_mut(i + 1) {
                let n = text.len() - text.trim_start().len();
                text.drain(..n);
            }
        }
    }
    pieces
}
