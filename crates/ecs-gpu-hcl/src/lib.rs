//! A span-keeping parser for Terraform's native syntax (HCL 2) and for JSON, written for ecs-gpu.
//!
//! It accepts what Terraform accepts, including duplicate object keys and object `for` values that
//! continue over several lines, keeps the byte span of every node, and builds only the tree the
//! checker evaluates. Errors carry the span and what was expected, and refuse what Terraform's
//! own parser refuses (an argument set twice in a body, an expression continued over a line break
//! outside brackets). No input panics or overflows the stack: nesting deeper than 256 levels, or
//! than 1 MiB of stack, is an error ("nesting too deep"). `docs/parser.md` has the design, the
//! tests against Terraform and the benchmark.
//!
//! ```
//! use ecs_gpu_hcl::{parse, ExprKind, Item};
//!
//! let file = parse("locals {\n  x = { a = 1, a = 2 }\n}\n").unwrap();
//! let Item::Block(locals) = &file.body.items[0] else { panic!() };
//! let Item::Attribute(x) = &locals.body.items[0] else { panic!() };
//! let ExprKind::Object(items) = &x.value.kind else { panic!() };
//! assert_eq!(items.len(), 2); // both `a` are kept; the evaluator applies last-wins
//! ```

pub mod ast;
pub mod json;
mod lines;
mod parser;
pub mod sexp;

#[cfg(test)]
mod tests;

pub use ast::*;
pub use lines::LineIndex;

/// A syntax error: where, and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// For example "expected `=` or a block label, found `}`".
    pub message: String,
    pub span: Span,
}

impl ParseError {
    /// Whether the text passed one of the parser's limits (nesting deeper than it reads, a
    /// syntax tree over its memory budget) rather than being invalid: the text may be what
    /// Terraform accepts, but it is not checked.
    pub fn is_limit(&self) -> bool {
        self.message == NESTING_TOO_DEEP || self.is_over_budget()
    }

    /// Whether the syntax tree passed the memory budget it was given.
    pub fn is_over_budget(&self) -> bool {
        self.message.starts_with(OVER_BUDGET)
    }
}

/// The message of nesting past the parser's limit.
pub(crate) const NESTING_TOO_DEEP: &str = "nesting too deep";
/// How the message of a syntax tree over its memory budget starts.
pub(crate) const OVER_BUDGET: &str = "syntax tree over its memory budget";

/// The memory a file's syntax tree may take, in bytes, before the file is refused ("syntax tree
/// over its memory budget"): [`TREE_BUDGET_BASE`] plus [`TREE_BUDGET_PER_BYTE`] bytes per byte of
/// the text. Real Terraform stays far below it (`docs/limits.md`); a file past it is a long run of
/// tiny nodes (`[{a=1},{a=1},...]` over megabytes), whose tree would otherwise take tens of times
/// the file's size.
pub fn tree_budget(text_len: usize) -> usize {
    TREE_BUDGET_BASE.saturating_add(text_len.saturating_mul(TREE_BUDGET_PER_BYTE))
}

/// See [`tree_budget`].
pub const TREE_BUDGET_BASE: usize = 16 << 20;
/// See [`tree_budget`].
pub const TREE_BUDGET_PER_BYTE: usize = 6;

/// The memory a JSON file's syntax tree may take, in bytes: as [`tree_budget`], with
/// [`JSON_TREE_BUDGET_PER_BYTE`] bytes per byte. Less than HCL's: the model builds a value for every
/// node of a JSON file (a task definition, `.tf.json`, a tfvars file) while its tree is still
/// partly alive, and both together stay within ten times the file.
pub fn json_tree_budget(text_len: usize) -> usize {
    TREE_BUDGET_BASE.saturating_add(text_len.saturating_mul(JSON_TREE_BUDGET_PER_BYTE))
}

/// See [`json_tree_budget`].
pub const JSON_TREE_BUDGET_PER_BYTE: usize = 4;

/// Parses a `.tf` or `.tfvars` file.
pub fn parse(text: &str) -> Result<File, ParseError> {
    parser::Parser::new(text).parse_file()
}

/// [`parse`], within a syntax-tree budget of `budget` bytes instead of [`tree_budget`] (a caller
/// that holds the trees of many files at once gives each file what is left of one budget for all
/// of them). Returns the bytes the tree was charged with it.
pub fn parse_within(text: &str, budget: usize) -> Result<(File, usize), ParseError> {
    let mut p = parser::Parser::new(text);
    p.tree_left = budget;
    let file = p.parse_file()?;
    Ok((file, budget - p.tree_left))
}

/// [`parse_template`], within a syntax-tree budget (see [`parse_within`]).
pub fn parse_template_within(text: &str, budget: usize) -> Result<(Template, usize), ParseError> {
    let mut p = parser::Parser::new(text);
    p.tree_left = budget;
    let start = p.pos;
    let template = p.parse_template_body(parser::TemplateMode::Standalone, start)?;
    Ok((template, budget - p.tree_left))
}

/// Parses a standalone template (the contents of a `templatefile` file): literal text,
/// `${...}` interpolations and `%{...}` directives.
pub fn parse_template(text: &str) -> Result<Template, ParseError> {
    let mut p = parser::Parser::new(text);
    let start = p.pos;
    p.parse_template_body(parser::TemplateMode::Standalone, start)
}

/// Parses a single expression (used by tests and by `--var name=value`).
pub fn parse_expression(text: &str) -> Result<Expr, ParseError> {
    parser::Parser::new(text).parse_whole_expression()
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: u32) -> (u32, u32) {
    let offset = (offset as usize).min(text.len());
    let before = &text[..text.floor_char_boundary_compat(offset)];
    let line = count_newlines(before.as_bytes()) + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

/// The `\n` bytes of `bytes`, counted 64 at a time into a byte (which the compiler turns into
/// vector instructions).
fn count_newlines(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(64);
    let mut n = 0;
    for chunk in &mut chunks {
        let mut in_chunk = 0u8;
        for &b in chunk {
            in_chunk += u8::from(b == b'\n');
        }
        n += usize::from(in_chunk);
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

trait FloorCharBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorCharBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while i > 0 && !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}
