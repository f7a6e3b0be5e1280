//! The syntax tree. Every node keeps the byte span of its source text, so that any diagnostic can
//! point at the exact place. The tree keeps what Terraform's native syntax has (HCL 2) and nothing
//! the evaluator never uses (no whitespace or comment trivia, except the comments [`File::comments`]
//! collects for suppressions).

/// A byte range `start..end` in one source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: u32::try_from(start).unwrap_or(u32::MAX),
            end: u32::try_from(end).unwrap_or(u32::MAX),
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A name with its span (an attribute name, a block type or label, an object key written as a name).
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A file's top level, or the inside of a block.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Body {
    /// Attributes and blocks in source order.
    pub items: Vec<Item>,
    /// Span of the body's content (inside the braces for a block).
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Attribute(Attribute),
    Block(Block),
}

/// `name = expr`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub value: Expr,
    /// From the name to the end of the value.
    pub span: Span,
}

/// `type "label" label2 { body }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: Ident,
    /// Labels, quoted or bare, unquoted.
    pub labels: Vec<Ident>,
    pub body: Body,
    /// From the type to the closing brace.
    pub span: Span,
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Drops the left side of an operator chain (`1 + 1 + ... + 1`, a left-deep tree as long as the
/// chain) in a loop: the derived drop would recurse once per operator.
impl Drop for Expr {
    fn drop(&mut self) {
        let ExprKind::Binary { left, .. } = &mut self.kind else {
            return;
        };
        if !matches!(left.kind, ExprKind::Binary { .. }) {
            return;
        }
        let mut next = std::mem::replace(&mut left.kind, ExprKind::Null);
        while let ExprKind::Binary { left, .. } = &mut next {
            let deeper = std::mem::replace(&mut left.kind, ExprKind::Null);
            // `next` now holds a shallow node (its left side is `null`), dropped here.
            next = deeper;
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    /// The number as written (`1`, `0.5`, `1e3`); the evaluator decides its precision.
    Number(String),
    /// A quoted string or heredoc. A template without interpolations or directives is a single
    /// [`TemplatePart::Literal`].
    Template(Template),
    /// A bare name: `var`, `local`, `aws_ecs_service`, `count`, `each`, `path`, a `for` variable.
    Variable(Ident),
    /// `name(args...)`, `name(args...)` with `...` expansion of the last argument (`expand_final`).
    /// Provider functions (`provider::aws::arn_parse`) keep the whole `::` name.
    Call {
        name: Box<Ident>,
        args: Vec<Expr>,
        expand_final: bool,
    },
    /// `[a, b]`.
    Tuple(Vec<Expr>),
    /// `{ k = v, "k2": v2, (expr) = v }`. Duplicate keys are kept here in source order; the
    /// evaluator applies Terraform's rule (the last one wins).
    Object(Vec<ObjectItem>),
    /// `expr.name`.
    GetAttr {
        target: Box<Expr>,
        name: Ident,
    },
    /// `expr[index]`, and the legacy `expr.0` (as an index with a number key).
    Index {
        target: Box<Expr>,
        index: Box<Expr>,
    },
    /// `expr[*].rest` (`full` = true) or `expr.*.rest` (attribute-only splat). `each` is the traversal
    /// applied to every element, written relative to [`ExprKind::SplatItem`].
    Splat {
        target: Box<Expr>,
        each: Box<Expr>,
        full: bool,
    },
    /// The element inside a splat's `each`.
    SplatItem,
    /// `[for k, v in coll : expr if cond]` (`key_var` is `k` when two variables are given).
    ForTuple {
        key_var: Option<Box<Ident>>,
        value_var: Box<Ident>,
        collection: Box<Expr>,
        value: Box<Expr>,
        condition: Option<Box<Expr>>,
    },
    /// `{for k, v in coll : key => value... if cond}`.
    ForObject {
        key_var: Option<Box<Ident>>,
        value_var: Box<Ident>,
        collection: Box<Expr>,
        key: Box<Expr>,
        value: Box<Expr>,
        /// `...` after the value: group values by key.
        grouping: bool,
        condition: Option<Box<Expr>>,
    },
    Conditional {
        condition: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `(expr)`: kept because a parenthesized name as an object key is an expression, not a name.
    Parens(Box<Expr>),
}

/// One `key = value` (or `key: value`) of an object constructor.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectItem {
    pub key: ObjectKey,
    pub value: Expr,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ObjectKey {
    /// A bare name: the key is the name itself (`{ image = ... }`).
    Name(Ident),
    /// Any other expression (a quoted string, `(var.k)`, a template): evaluated.
    Expr(Expr),
}

impl ObjectKey {
    pub fn span(&self) -> Span {
        match self {
            ObjectKey::Name(i) => i.span,
            ObjectKey::Expr(e) => e.span,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Not,
    Negate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// A string template: literal text, interpolations and directives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Template {
    pub parts: Vec<TemplatePart>,
    /// A heredoc (`<<EOT` / `<<-EOT`); indentation of `<<-` is already removed from the literals.
    pub heredoc: bool,
}

impl Template {
    /// The text, when the template is a plain literal (no interpolation, no directive).
    pub fn as_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [TemplatePart::Literal { text, .. }] => Some(text),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TemplatePart {
    /// Text with escapes (`\n`, `$${`, `%%{`) already resolved. `span` covers the source text.
    Literal { text: String, span: Span },
    /// `${ expr }` (strip markers `~` are applied to the neighbouring literals).
    Interpolation(Expr),
    /// `%{ if cond }...%{ else }...%{ endif }`.
    If {
        condition: Box<Expr>,
        then: Template,
        otherwise: Option<Box<Template>>,
        span: Span,
    },
    /// `%{ for k, v in coll }...%{ endfor }`.
    For {
        key_var: Option<Box<Ident>>,
        value_var: Box<Ident>,
        collection: Box<Expr>,
        body: Template,
        span: Span,
    },
}

/// A `#`, `//` or `/* */` comment, for suppressions (`# ecs-gpu:ignore GPU303 reason`).
#[derive(Debug, Clone, PartialEq)]
pub struct Comment {
    /// The comment text without its markers, trimmed.
    pub text: String,
    pub span: Span,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct File {
    pub body: Body,
    pub comments: Vec<Comment>,
}
