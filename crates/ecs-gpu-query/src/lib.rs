//! The Amazon ECS cluster query language: the expressions of `memberOf` placement constraints and of
//! `list-container-instances --filter`.
//!
//! [`Expression::parse`] builds a typed tree ([`Expr`]) or a [`ParseError`] that says where and what
//! was expected. [`Expression::evaluate`] evaluates it over what is known about a container instance
//! ([`Facts`]) in three-valued logic: a subject that is not known makes its condition
//! [`Truth::Unknown`], and `&&`, `||`, `!` follow Kleene's tables, so an unknown only decides the result
//! when it could. [`matching_instance_types`] is the question rule GPU401 asks: on which of these
//! instance types could the expression hold?
//!
//! Subjects, operators and their word forms come from the catalog's query language facts (source
//! keys ECS-2023, AGENT). Regular expressions (`=~`, `matches`) have Java's `String.matches` meaning:
//! the pattern must match the whole value.
//!
//! ```
//! use ecs_gpu_query::{matching_instance_types, ContainerInstance, Expression, Truth};
//!
//! let e = Expression::parse("attribute:ecs.instance-type =~ g5.* and attribute:ecs.availability-zone != us-east-1d")
//!     .unwrap();
//!
//! // A fully known instance.
//! let mut i = ContainerInstance::default();
//! i.attributes.insert("ecs.instance-type".into(), Some("g5.xlarge".into()));
//! i.attributes.insert("ecs.availability-zone".into(), Some("us-east-1a".into()));
//! assert_eq!(e.evaluate(&i), Truth::True);
//!
//! // Only the instance type known: the zone decides, so g5 is "maybe" and g4dn is "no".
//! let m = matching_instance_types(&e, &["g5.xlarge", "g4dn.xlarge"]);
//! assert_eq!(m[0].result, Truth::Unknown);
//! assert_eq!(m[1].result, Truth::False);
//!
//! let err = Expression::parse("attribute:ecs.instance-type = g5.xlarge").unwrap_err();
//! assert!(err.to_string().starts_with("expected an operator"));
//! ```

pub mod ast;
mod eval;
mod language;
mod parse;

use std::borrow::Cow;

use ecs_gpu_catalog::{catalog, Lookup};

pub use ast::{Argument, BoolOp, Condition, Expr, Literal, Operator, Span, Subject};
pub use eval::{
    eval_condition, format_instant, parse_instant, whole_match_regex, ContainerInstance, Fact,
    Facts, Truth,
};
pub use language::{
    CPU_ARCHITECTURE_ATTRIBUTE, INSTANCE_TYPE_ATTRIBUTE, ORDERING_OPERATOR_WORDS, OS_TYPE_ATTRIBUTE,
};
pub use parse::{ParseError, Precedence, MAX_NESTING};

/// A parsed cluster query language expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    text: String,
    root: Expr,
    /// The tree with `||` binding tighter, when the expression mixes `&&` and `||` without
    /// parentheses (the ECS guide does not give their precedence).
    alternative: Option<Expr>,
}

impl Expression {
    /// Parses an expression, with `&&` binding tighter than `||` (as in Java).
    pub fn parse(text: &str) -> Result<Expression, ParseError> {
        let parsed = parse::parse(text, Precedence::AndFirst)?;
        let alternative = if parsed.mixed {
            Some(parse::parse(text, Precedence::OrFirst)?.root)
        } else {
            None
        };
        Ok(Expression {
            text: text.to_string(),
            root: parsed.root,
            alternative,
        })
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The tree (with `&&` binding tighter than `||`).
    pub fn root(&self) -> &Expr {
        &self.root
    }

    /// Whether `&&` and `||` are mixed without parentheses, so the meaning depends on a precedence
    /// the ECS guide does not state.
    pub fn ambiguous_precedence(&self) -> bool {
        self.alternative.is_some()
    }

    /// Every condition, in source order.
    pub fn conditions(&self) -> Vec<&Condition> {
        self.root.conditions()
    }

    /// Whether a condition tests this attribute (`attribute:<name>`).
    pub fn mentions_attribute(&self, name: &str) -> bool {
        self.conditions()
            .iter()
            .any(|c| c.subject.attribute() == Some(name))
    }

    /// Evaluates the expression. When its meaning depends on the precedence of `&&` and `||`
    /// ([`Expression::ambiguous_precedence`]), both readings are evaluated and a result is only known
    /// when they agree.
    pub fn evaluate(&self, facts: &dyn Facts) -> Truth {
        let main = eval::eval(&self.root, facts);
        match &self.alternative {
            Some(alt) => main.agree(eval::eval(alt, facts)),
            None => main,
        }
    }

    /// Evaluates the expression with one reading of `&&` and `||`, even when they are mixed without
    /// parentheses: for a caller that has chosen a precedence (`ecs-gpu diagnose` documents Java's,
    /// [`Precedence::AndFirst`]) rather than asking whether the result depends on it.
    pub fn evaluate_with(&self, precedence: Precedence, facts: &dyn Facts) -> Truth {
        match (precedence, &self.alternative) {
            (Precedence::OrFirst, Some(alt)) => eval::eval(alt, facts),
            _ => eval::eval(&self.root, facts),
        }
    }
}

impl std::str::FromStr for Expression {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Expression::parse(s)
    }
}

/// What a container instance of a given type is known to have, before any instance exists: its
/// `ecs.instance-type`, and `ecs.cpu-architecture` when the catalog knows the type's architecture.
/// Every other subject is unknown, `ecs.os-type` included: the AMI decides it, and any instance
/// type may run a Windows AMI (for CPU tasks; GPU tasks are Linux only, source key ECS-GPU, which
/// is GPU104's finding, not this one's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstanceTypeFacts<'a> {
    pub instance_type: &'a str,
}

impl Facts for InstanceTypeFacts<'_> {
    fn fact(&self, subject: &Subject) -> Fact<'_> {
        let Subject::Attribute(name) = subject else {
            return Fact::Unknown;
        };
        match name.as_str() {
            INSTANCE_TYPE_ATTRIBUTE => Fact::value(self.instance_type),
            CPU_ARCHITECTURE_ATTRIBUTE => match catalog().lookup(self.instance_type) {
                Lookup::Known(t) => t.architecture.map_or(Fact::Unknown, |a| {
                    Fact::Values(vec![Cow::Borrowed(a.as_str())])
                }),
                _ => Fact::Unknown,
            },
            _ => Fact::Unknown,
        }
    }
}

/// Whether an expression can hold on an instance of one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstanceTypeMatch<'a> {
    pub instance_type: &'a str,
    /// `False`: no instance of this type can ever satisfy the expression. `Unknown`: it depends on
    /// something not known before an instance exists (its zone, a custom attribute...).
    pub result: Truth,
}

/// Evaluates `expr` for each candidate instance type, knowing only what [`InstanceTypeFacts`] knows.
/// A placement constraint matches no instance the capacity can launch exactly when every result is
/// [`Truth::False`] (see [`matches_none`]).
pub fn matching_instance_types<'a>(
    expr: &Expression,
    candidates: &[&'a str],
) -> Vec<InstanceTypeMatch<'a>> {
    candidates
        .iter()
        .map(|&t| InstanceTypeMatch {
            instance_type: t,
            result: expr.evaluate(&InstanceTypeFacts { instance_type: t }),
        })
        .collect()
}

/// Whether the expression writes `&&` or `||` against other text (`a==x||b==y`): the ECS guide
/// writes them between spaces and does not say how ECS reads them otherwise, so a checker does not
/// judge such an expression (the parser reads `x||b` as one value).
pub fn has_unspaced_symbol_operator(text: &str) -> bool {
    ["&&", "||"].iter().any(|op| {
        text.match_indices(op).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + op.len()..].chars().next();
            !before.is_some_and(char::is_whitespace) || !after.is_some_and(char::is_whitespace)
        })
    })
}

/// Whether the expression is false for every candidate (and there is at least one candidate).
pub fn matches_none(expr: &Expression, candidates: &[&str]) -> bool {
    !candidates.is_empty()
        && matching_instance_types(expr, candidates)
            .iter()
            .all(|m| m.result == Truth::False)
}

#[cfg(test)]
mod tests;
