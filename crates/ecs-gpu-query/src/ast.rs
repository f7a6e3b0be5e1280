//! The typed syntax tree of a cluster query language expression.

use std::fmt;

/// A byte range `start..end` in the expression text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// What a condition tests.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// `agentConnected`.
    AgentConnected,
    /// `agentVersion`.
    AgentVersion,
    /// `attribute:<name>`: a built-in (`ecs.instance-type`) or custom attribute.
    Attribute(String),
    /// `ec2InstanceId`.
    Ec2InstanceId,
    /// `registeredAt`.
    RegisteredAt,
    /// `runningTasksCount`.
    RunningTasksCount,
    /// `task:group`.
    TaskGroup,
    /// A subject the catalog lists that this crate has no semantics for (always unknown).
    Other(String),
}

impl Subject {
    /// The attribute name, for `attribute:<name>`.
    pub fn attribute(&self) -> Option<&str> {
        match self {
            Subject::Attribute(n) => Some(n),
            _ => None,
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::AgentConnected => f.write_str("agentConnected"),
            Subject::AgentVersion => f.write_str("agentVersion"),
            Subject::Attribute(n) => write!(f, "attribute:{n}"),
            Subject::Ec2InstanceId => f.write_str("ec2InstanceId"),
            Subject::RegisteredAt => f.write_str("registeredAt"),
            Subject::RunningTasksCount => f.write_str("runningTasksCount"),
            Subject::TaskGroup => f.write_str("task:group"),
            Subject::Other(n) => f.write_str(n),
        }
    }
}

/// A comparison operator (each has a symbol and, for most, a word form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `==`, `equals`.
    Eq,
    /// `!=`, `not_equals`.
    NotEq,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `exists` (takes no argument).
    Exists,
    /// `!exists`, `not_exists` (takes no argument).
    NotExists,
    /// `in [a, b]`.
    In,
    /// `!in`, `not_in`.
    NotIn,
    /// `=~`, `matches`: a Java regular expression that must match the whole value.
    Matches,
    /// `!~`, `not_matches`.
    NotMatches,
}

impl Operator {
    /// Every operator.
    pub const ALL: [Operator; 12] = [
        Operator::Eq,
        Operator::NotEq,
        Operator::Gt,
        Operator::Ge,
        Operator::Lt,
        Operator::Le,
        Operator::Exists,
        Operator::NotExists,
        Operator::In,
        Operator::NotIn,
        Operator::Matches,
        Operator::NotMatches,
    ];

    /// The symbol as the catalog (and the ECS guide) writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Operator::Eq => "==",
            Operator::NotEq => "!=",
            Operator::Gt => ">",
            Operator::Ge => ">=",
            Operator::Lt => "<",
            Operator::Le => "<=",
            Operator::Exists => "exists",
            Operator::NotExists => "!exists",
            Operator::In => "in",
            Operator::NotIn => "!in",
            Operator::Matches => "=~",
            Operator::NotMatches => "!~",
        }
    }

    pub fn from_symbol(s: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|o| o.symbol() == s)
    }

    /// Whether it takes no argument (`exists`, `!exists`).
    pub fn is_unary(self) -> bool {
        matches!(self, Operator::Exists | Operator::NotExists)
    }

    /// Whether its argument is a list (`in`, `!in`).
    pub fn takes_list(self) -> bool {
        matches!(self, Operator::In | Operator::NotIn)
    }

    /// The positive operator this one negates (`!=` → `==`), if it is a negation.
    pub fn negated(self) -> Option<Operator> {
        match self {
            Operator::NotEq => Some(Operator::Eq),
            Operator::NotExists => Some(Operator::Exists),
            Operator::NotIn => Some(Operator::In),
            Operator::NotMatches => Some(Operator::Matches),
            _ => None,
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// One literal argument (quotes removed) and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    pub text: String,
    pub span: Span,
}

/// The argument of a condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Argument {
    /// `exists` / `!exists`.
    None,
    /// A single literal (for `in`/`!in` written without brackets, a one-element list).
    Value(Literal),
    /// `[a, b, ...]`.
    List { items: Vec<Literal>, span: Span },
}

impl Argument {
    /// The literals, whatever the form.
    pub fn values(&self) -> &[Literal] {
        match self {
            Argument::None => &[],
            Argument::Value(v) => std::slice::from_ref(v),
            Argument::List { items, .. } => items,
        }
    }
}

/// `subject operator [argument]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub subject: Subject,
    pub subject_span: Span,
    pub operator: Operator,
    pub operator_span: Span,
    pub argument: Argument,
    /// The whole condition.
    pub span: Span,
}

impl fmt::Display for Literal {
    /// The text, quoted (`'a b'`) only when it would not read back as one value bare: empty, or
    /// holding whitespace, a quote, `,`, `[`, `]` or a `)` that closes nothing (a regular
    /// expression's balanced parentheses stay bare).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.text;
        let mut depth = 0usize;
        let mut stray_paren = false;
        for c in t.chars() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => stray_paren = true,
                ')' => depth -= 1,
                _ => {}
            }
        }
        let needs_quotes = t.is_empty()
            || stray_paren
            || t.chars()
                .any(|c| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '[' | ']'));
        if !needs_quotes {
            f.write_str(t)
        } else if t.contains('\'') {
            write!(f, "\"{t}\"")
        } else {
            write!(f, "'{t}'")
        }
    }
}

impl fmt::Display for Argument {
    /// Nothing for `exists`, `[a, b]` for a list, the value otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Argument::None => Ok(()),
            Argument::Value(v) => v.fmt(f),
            Argument::List { items, .. } => {
                f.write_str("[")?;
                for (k, v) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    v.fmt(f)?;
                }
                f.write_str("]")
            }
        }
    }
}

impl fmt::Display for Condition {
    /// The condition in a normal form: the operator's symbol (`==` for `equals`), the subject as the
    /// catalog spells it, one space between the parts (`attribute:a == x`, `attribute:a in [x, y]`,
    /// `attribute:a exists`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.subject, self.operator)?;
        match &self.argument {
            Argument::None => Ok(()),
            a => write!(f, " {a}"),
        }
    }
}

/// `&&` or `||`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

/// A (compound) expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Condition(Condition),
    /// `!e`, `not e`, `not(e)`.
    Not {
        operand: Box<Expr>,
        span: Span,
    },
    /// `a && b`, `a and b`, `a || b`, `a or b`.
    Binary {
        op: BoolOp,
        left: Box<Expr>,
        right: Box<Expr>,
        span: Span,
    },
    /// `( e )`: kept so that the grouping the author wrote is visible.
    Group {
        inner: Box<Expr>,
        span: Span,
    },
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Condition(c) => c.span,
            Expr::Not { span, .. } | Expr::Binary { span, .. } | Expr::Group { span, .. } => *span,
        }
    }

    /// Every condition, in source order.
    pub fn conditions(&self) -> Vec<&Condition> {
        let mut out = Vec::new();
        self.collect_conditions(&mut out);
        out
    }

    fn collect_conditions<'a>(&'a self, out: &mut Vec<&'a Condition>) {
        match self {
            Expr::Condition(c) => out.push(c),
            Expr::Not { operand, .. } => operand.collect_conditions(out),
            Expr::Binary { left, right, .. } => {
                left.collect_conditions(out);
                right.collect_conditions(out);
            }
            Expr::Group { inner, .. } => inner.collect_conditions(out),
        }
    }
}
