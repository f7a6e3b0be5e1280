//! The parser: a hand-written recursive descent over the expression text.
//!
//! Grammar (subjects, operators and their word forms come from the catalog's query language facts):
//!
//! ```text
//! expr      := or                      (with the default precedence: `!` > `&&` > `||`)
//! or        := and (("||" | "or") and)*
//! and       := unary (("&&" | "and") unary)*
//! unary     := ("!" | "not") unary | "(" expr ")" | condition
//! condition := subject operator [argument]
//! argument  := value | "[" value ("," value)* "]"
//! value     := 'quoted' | "quoted" | bare text up to whitespace (and `,` `]` inside a list;
//!              a `)` closes a value only when the value opened no `(` of its own)
//! ```
//!
//! The parser is deliberately lenient wherever the ECS guide does not say that ECS rejects the
//! input, because a syntax error becomes an error-severity finding (GPU402) and a wrong finding is
//! worse than a missed one: keywords and subjects are matched case-insensitively, any operator is
//! accepted with any subject, `in` accepts a single value without brackets, and arguments are not
//! validated against the subject's type (dates, numbers). What it rejects is what no reading of the
//! grammar accepts: an unknown subject or operator, a missing argument, an unbalanced parenthesis or
//! bracket, an empty expression, and text left over after a complete expression.

use std::fmt;

use crate::ast::{Argument, BoolOp, Condition, Expr, Literal, Operator, Span, Subject};
use crate::language::{self, Language};

/// A syntax error: where, what was expected, and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Where the problem is (an empty span at the end for "unexpected end").
    pub span: Span,
    /// What would have been accepted here (`an operator (==, !=, ...)`).
    pub expected: String,
    /// What is there instead, or `None` at the end of the expression.
    pub found: Option<String>,
    /// 1-based column (in characters) of `span.start`.
    pub column: usize,
    /// The expression nests parentheses or negations deeper than [`MAX_NESTING`]: not read, and
    /// not known to be invalid (ECS does not say how deep it reads).
    pub too_deep: bool,
}

/// The deepest nesting of parentheses and negations read. Deeper expressions are refused with a
/// [`ParseError`] whose `too_deep` is set, instead of exhausting the stack.
pub const MAX_NESTING: usize = 128;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.found {
            Some(found) => write!(
                f,
                "expected {} at column {}, found `{found}`",
                self.expected, self.column
            ),
            None => write!(
                f,
                "expected {} at column {}, found the end of the expression",
                self.expected, self.column
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// How `&&` and `||` bind when they are mixed without parentheses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precedence {
    /// `a || b && c` is `a || (b && c)`, as in Java (the ECS guide does not say).
    #[default]
    AndFirst,
    /// `a || b && c` is `(a || b) && c`: the other reading, used to find out whether an expression's
    /// meaning depends on the precedence (see [`crate::Expression::ambiguous_precedence`]).
    OrFirst,
}

pub(crate) struct Parsed {
    pub root: Expr,
    /// An unparenthesized chain mixes `&&` and `||`.
    pub mixed: bool,
}

pub(crate) fn parse(text: &str, precedence: Precedence) -> Result<Parsed, ParseError> {
    let lang = language::language();
    let mut p = Parser {
        text,
        pos: 0,
        lang,
        precedence,
        mixed: false,
        depth: 0,
    };
    p.skip_ws();
    if p.at_end() {
        return Err(p.error_here("a condition (`subject operator [argument]`)"));
    }
    let root = p.expr()?;
    p.skip_ws();
    if !p.at_end() {
        let expected = if p.peek() == Some(')') {
            "`&&`, `||` or the end of the expression (this `)` has no `(`)"
        } else {
            "`&&`, `and`, `||`, `or` or the end of the expression"
        };
        return Err(p.error_here(expected));
    }
    Ok(Parsed {
        root,
        mixed: p.mixed,
    })
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    lang: &'static Language,
    precedence: Precedence,
    mixed: bool,
    /// Parentheses and negations open at the cursor.
    depth: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }

    fn column(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())].chars().count() + 1
    }

    /// The token-ish text at the cursor, for "found `...`".
    fn found_here(&self) -> Option<String> {
        let rest = self.rest();
        if rest.is_empty() {
            return None;
        }
        let first = rest.chars().next().unwrap_or(' ');
        let token: String = if is_word_char(first) {
            rest.chars()
                .take_while(|&c| !c.is_whitespace() && !"()[],".contains(c))
                .collect()
        } else if "()[],".contains(first) {
            first.to_string()
        } else {
            rest.chars()
                .take_while(|&c| !c.is_whitespace() && !is_word_char(c) && !"()[],".contains(c))
                .collect()
        };
        Some(token)
    }

    fn error_here(&self, expected: &str) -> ParseError {
        let found = self.found_here();
        let len = found.as_ref().map_or(0, String::len);
        ParseError {
            span: Span::new(self.pos, self.pos + len),
            expected: expected.to_string(),
            found,
            column: self.column(self.pos),
            too_deep: false,
        }
    }

    /// A keyword (`and`, `not`, `equals`) at the cursor, case-insensitive, followed by a non-word
    /// character or the end.
    fn keyword(&self, word: &str) -> bool {
        let rest = self.rest();
        rest.len() >= word.len()
            && rest.is_char_boundary(word.len())
            && rest[..word.len()].eq_ignore_ascii_case(word)
            && !rest[word.len()..].starts_with(is_word_char)
    }

    /// The boolean operator at the cursor, and its length.
    fn bool_op(&self) -> Option<(BoolOp, usize)> {
        for (sym, op) in [("&&", BoolOp::And), ("||", BoolOp::Or)] {
            if self.lang.boolean_symbol(sym) && self.rest().starts_with(sym) {
                return Some((op, sym.len()));
            }
        }
        for (word, sym) in &self.lang.boolean_words {
            let op = match sym.as_str() {
                "&&" => BoolOp::And,
                "||" => BoolOp::Or,
                _ => continue,
            };
            if self.keyword(word) {
                return Some((op, word.len()));
            }
        }
        None
    }

    fn not_op(&self) -> Option<usize> {
        if self.lang.boolean_symbol("!") && self.rest().starts_with('!') {
            return Some(1);
        }
        self.lang
            .boolean_words
            .iter()
            .find(|(word, sym)| sym.as_str() == "!" && self.keyword(word))
            .map(|(word, _)| word.len())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let (outer, inner) = match self.precedence {
            Precedence::AndFirst => (BoolOp::Or, BoolOp::And),
            Precedence::OrFirst => (BoolOp::And, BoolOp::Or),
        };
        self.chain(outer, Some(inner))
    }

    /// A chain of `op`-joined operands, each a chain of the tighter operator (`tighter`), or a unary.
    fn chain(&mut self, op: BoolOp, tighter: Option<BoolOp>) -> Result<Expr, ParseError> {
        let mut left = match tighter {
            Some(t) => self.chain(t, None)?,
            None => self.unary()?,
        };
        loop {
            self.skip_ws();
            match self.bool_op() {
                Some((found, len)) if found == op => {
                    self.pos += len;
                    self.skip_ws();
                    let right = match tighter {
                        Some(t) => self.chain(t, None)?,
                        None => self.unary()?,
                    };
                    if tighter.is_some()
                        && (is_binary(&left, tighter) || is_binary(&right, tighter))
                    {
                        self.mixed = true;
                    }
                    let span = left.span().to(right.span());
                    left = Expr::Binary {
                        op,
                        left: Box::new(left),
                        right: Box::new(right),
                        span,
                    };
                }
                _ => return Ok(left),
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.skip_ws();
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let mut e = self.error_here(&format!("at most {MAX_NESTING} nested parentheses"));
            e.too_deep = true;
            return Err(e);
        }
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Expr, ParseError> {
        let start = self.pos;
        if self.peek() == Some('(') {
            self.pos += 1;
            self.skip_ws();
            if self.peek() == Some(')') {
                return Err(self.error_here("an expression inside the parentheses"));
            }
            let inner = self.expr()?;
            self.skip_ws();
            if self.peek() != Some(')') {
                return Err(self.error_here("`)`, `&&` or `||`"));
            }
            self.pos += 1;
            return Ok(Expr::Group {
                inner: Box::new(inner),
                span: Span::new(start, self.pos),
            });
        }
        if let Some(len) = self.not_op() {
            self.pos += len;
            self.skip_ws();
            if self.at_end() {
                return Err(self.error_here("an expression after `not`"));
            }
            let operand = self.unary()?;
            let span = Span::new(start, operand.span().end);
            return Ok(Expr::Not {
                operand: Box::new(operand),
                span,
            });
        }
        self.condition().map(Expr::Condition)
    }

    fn condition(&mut self) -> Result<Condition, ParseError> {
        let start = self.pos;
        let (subject, subject_span) = self.subject()?;
        self.skip_ws();
        let (operator, operator_span) = self.operator()?;
        let argument = if operator.is_unary() {
            Argument::None
        } else {
            self.skip_ws();
            self.argument(operator)?
        };
        let end = match &argument {
            Argument::None => operator_span.end,
            Argument::Value(v) => v.span.end,
            Argument::List { span, .. } => span.end,
        };
        Ok(Condition {
            subject,
            subject_span,
            operator,
            operator_span,
            argument,
            span: Span::new(start, end),
        })
    }

    fn subject(&mut self) -> Result<(Subject, Span), ParseError> {
        let start = self.pos;
        for written in &self.lang.subjects {
            if let Some(prefix) = written.strip_suffix("<name>") {
                let rest = self.rest();
                if rest.len() >= prefix.len()
                    && rest.is_char_boundary(prefix.len())
                    && rest[..prefix.len()].eq_ignore_ascii_case(prefix)
                {
                    let name: String = rest[prefix.len()..]
                        .chars()
                        .take_while(|&c| language::is_attribute_name_char(c))
                        .collect();
                    if name.is_empty() {
                        self.pos += prefix.len();
                        return Err(self.error_here(
                            "an attribute name (letters, digits, `-`, `_`, `/`, `\\`, `.`)",
                        ));
                    }
                    self.pos += prefix.len() + name.len();
                    let subject = language::subject_from_prefixed(prefix, name);
                    return Ok((subject, Span::new(start, self.pos)));
                }
            } else if self.keyword_subject(written) {
                self.pos += written.len();
                return Ok((
                    language::subject_from_name(written),
                    Span::new(start, self.pos),
                ));
            }
        }
        Err(self.error_here(&format!(
            "a subject ({})",
            self.lang
                .subjects
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }

    /// A fixed subject (`task:group`, `agentConnected`), not followed by a name character.
    fn keyword_subject(&self, written: &str) -> bool {
        let rest = self.rest();
        rest.len() >= written.len()
            && rest.is_char_boundary(written.len())
            && rest[..written.len()].eq_ignore_ascii_case(written)
            && !rest[written.len()..].starts_with(language::is_attribute_name_char)
    }

    fn operator(&mut self) -> Result<(Operator, Span), ParseError> {
        let start = self.pos;
        // Longest symbol first, so `!=` is not read as `!` and `>=` not as `>`.
        for (sym, op) in &self.lang.operator_symbols {
            let rest = self.rest();
            let alpha_end = sym.ends_with(is_word_char);
            if rest.len() >= sym.len()
                && rest.is_char_boundary(sym.len())
                && rest[..sym.len()].eq_ignore_ascii_case(sym)
                && !(alpha_end && rest[sym.len()..].starts_with(is_word_char))
            {
                self.pos += sym.len();
                return Ok((*op, Span::new(start, self.pos)));
            }
        }
        for (word, op) in &self.lang.operator_words {
            if self.keyword(word) {
                self.pos += word.len();
                return Ok((*op, Span::new(start, self.pos)));
            }
        }
        Err(self.error_here(&format!(
            "an operator ({})",
            self.lang
                .operator_symbols
                .iter()
                .map(|(s, _)| *s)
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }

    fn argument(&mut self, operator: Operator) -> Result<Argument, ParseError> {
        if self.peek() == Some('[') {
            if !operator.takes_list() {
                // `== [a]` is not in the grammar; read it as the literal text it is, so that a value
                // starting with `[` (a regular expression class) still parses.
                return self.value(false).map(Argument::Value);
            }
            let start = self.pos;
            self.pos += 1;
            let mut items = Vec::new();
            loop {
                self.skip_ws();
                if self.peek() == Some(']') && items.is_empty() {
                    return Err(self.error_here("a value in the list"));
                }
                items.push(self.value(true)?);
                self.skip_ws();
                match self.peek() {
                    Some(',') => self.pos += 1,
                    Some(']') => {
                        self.pos += 1;
                        return Ok(Argument::List {
                            items,
                            span: Span::new(start, self.pos),
                        });
                    }
                    _ => return Err(self.error_here("`,` or `]`")),
                }
            }
        }
        self.value(false).map(Argument::Value)
    }

    fn value(&mut self, in_list: bool) -> Result<Literal, ParseError> {
        let start = self.pos;
        match self.peek() {
            Some(q @ ('\'' | '"')) => {
                let body = &self.rest()[1..];
                let Some(close) = body.find(q) else {
                    return Err(ParseError {
                        span: Span::new(start, self.text.len()),
                        expected: format!("a closing `{q}`"),
                        found: None,
                        column: self.column(self.text.len()),
                        too_deep: false,
                    });
                };
                let text = body[..close].to_string();
                self.pos += 1 + close + 1;
                Ok(Literal {
                    text,
                    span: Span::new(start, self.pos),
                })
            }
            _ => {
                let mut depth = 0usize;
                let mut end = self.pos;
                for (i, c) in self.rest().char_indices() {
                    if c.is_whitespace()
                        || (in_list && (c == ',' || c == ']'))
                        || (c == ')' && depth == 0)
                    {
                        break;
                    }
                    if c == '(' {
                        depth += 1;
                    } else if c == ')' {
                        depth -= 1;
                    }
                    end = self.pos + i + c.len_utf8();
                }
                if end == self.pos {
                    return Err(self.error_here("an argument"));
                }
                let text = self.text[self.pos..end].to_string();
                self.pos = end;
                Ok(Literal {
                    text,
                    span: Span::new(start, end),
                })
            }
        }
    }
}

fn is_binary(e: &Expr, op: Option<BoolOp>) -> bool {
    matches!(e, Expr::Binary { op: o, .. } if Some(*o) == op)
}
