//! The ECS cluster query language of `memberOf` placement constraints: a parser and an evaluator over
//! container instances.
//!
//! The grammar is the one the ECS guide gives (source key ECS-2023, mirrored in
//! `catalog().query_language`): `subject operator [argument]`, joined with `&&`/`and`, `||`/`or`,
//! negated with `!`/`not`, grouped with parentheses. `and` binds tighter than `or`. Operator and
//! boolean word forms are read from the catalog, so the two cannot drift apart.
//!
//! Matching (`=~`, `!~`) is Java's `String.matches`: the whole value must match, so the pattern is
//! anchored at both ends. A negated comparison (`!=`, `!in`, `!~`) on an attribute the instance does
//! not have is true: it is the negation of the positive comparison, which is false.

use std::cmp::Ordering;
use std::fmt;

use ecs_gpu_catalog::catalog;
use regex::Regex;

use crate::input::ContainerInstance;

/// A parsed expression.
#[derive(Debug, Clone)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Cmp(Comparison),
}

/// `subject operator [argument]`.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub subject: Subject,
    pub op: Op,
    /// The argument: none for `exists`, the list for `in`, otherwise one value.
    pub args: Vec<String>,
    regex: Option<Regex>,
}

/// What a comparison looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// `attribute:<name>`.
    Attribute(String),
    AgentConnected,
    AgentVersion,
    Ec2InstanceId,
    RegisteredAt,
    RunningTasksCount,
    /// `task:group`: the group of the task being placed (`service:<name>` for a service's tasks).
    TaskGroup,
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Attribute(n) => write!(f, "attribute:{n}"),
            Subject::AgentConnected => f.write_str("agentConnected"),
            Subject::AgentVersion => f.write_str("agentVersion"),
            Subject::Ec2InstanceId => f.write_str("ec2InstanceId"),
            Subject::RegisteredAt => f.write_str("registeredAt"),
            Subject::RunningTasksCount => f.write_str("runningTasksCount"),
            Subject::TaskGroup => f.write_str("task:group"),
        }
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    Exists,
    NotExists,
    In,
    NotIn,
    Matches,
    NotMatches,
}

impl Op {
    /// The operator in its symbol form, as the catalog lists it.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Exists => "exists",
            Op::NotExists => "!exists",
            Op::In => "in",
            Op::NotIn => "!in",
            Op::Matches => "=~",
            Op::NotMatches => "!~",
        }
    }

    const ALL: [Op; 12] = [
        Op::Eq,
        Op::Ne,
        Op::Gt,
        Op::Ge,
        Op::Lt,
        Op::Le,
        Op::Exists,
        Op::NotExists,
        Op::In,
        Op::NotIn,
        Op::Matches,
        Op::NotMatches,
    ];

    fn from_symbol(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.symbol() == s)
    }
}

/// Why an expression does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at character {}", position + 1)]
pub struct ParseError {
    /// Byte offset in the expression.
    pub position: usize,
    pub message: String,
}

/// What an expression is evaluated against: one container instance, and the group of the task being
/// placed.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub instance: &'a ContainerInstance,
    pub task_group: Option<&'a str>,
}

impl Expr {
    /// Parses a `memberOf` expression.
    pub fn parse(text: &str) -> Result<Expr, ParseError> {
        let mut p = Parser { s: text, pos: 0 };
        let e = p.or()?;
        p.ws();
        if p.pos < p.s.len() {
            return Err(p.err(format!("unexpected `{}`", p.rest_word())));
        }
        Ok(e)
    }

    /// Whether the instance satisfies the expression.
    pub fn eval(&self, cx: &Context<'_>) -> bool {
        match self {
            Expr::And(a, b) => a.eval(cx) && b.eval(cx),
            Expr::Or(a, b) => a.eval(cx) || b.eval(cx),
            Expr::Not(a) => !a.eval(cx),
            Expr::Cmp(c) => c.eval(cx),
        }
    }

    /// Every comparison in the expression, left to right.
    pub fn comparisons(&self) -> Vec<&Comparison> {
        let mut v = Vec::new();
        self.collect(&mut v);
        v
    }

    fn collect<'a>(&'a self, v: &mut Vec<&'a Comparison>) {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.collect(v);
                b.collect(v);
            }
            Expr::Not(a) => a.collect(v),
            Expr::Cmp(c) => v.push(c),
        }
    }
}

impl Comparison {
    /// The subject's value on an instance: `None` when the instance does not have it.
    pub fn value(&self, cx: &Context<'_>) -> Option<String> {
        let i = cx.instance;
        match &self.subject {
            Subject::Attribute(n) => i.attribute(n).map(str::to_string),
            Subject::AgentConnected => Some(i.agent_connected.to_string()),
            Subject::AgentVersion => i.version_info.as_ref()?.agent_version.clone(),
            Subject::Ec2InstanceId => i.ec2_instance_id.clone(),
            Subject::RegisteredAt => i.registered_at.as_ref().map(ToString::to_string),
            Subject::RunningTasksCount => Some(i.running_tasks_count.to_string()),
            Subject::TaskGroup => cx.task_group.map(str::to_string),
        }
    }

    /// Whether the instance satisfies this comparison alone.
    pub fn eval(&self, cx: &Context<'_>) -> bool {
        let v = self.value(cx);
        let arg = self.args.first().map_or("", String::as_str);
        match self.op {
            Op::Exists => v.is_some(),
            Op::NotExists => v.is_none(),
            Op::Eq => v.is_some_and(|v| v == arg),
            Op::Ne => v.is_none_or(|v| v != arg),
            Op::In => v.is_some_and(|v| self.args.contains(&v)),
            Op::NotIn => v.is_none_or(|v| !self.args.contains(&v)),
            Op::Matches => v.is_some_and(|v| self.regex.as_ref().is_some_and(|r| r.is_match(&v))),
            Op::NotMatches => {
                v.is_none_or(|v| !self.regex.as_ref().is_some_and(|r| r.is_match(&v)))
            }
            Op::Gt | Op::Ge | Op::Lt | Op::Le => v.is_some_and(|v| {
                let o = compare(&v, arg);
                match self.op {
                    Op::Gt => o == Ordering::Greater,
                    Op::Ge => o != Ordering::Less,
                    Op::Lt => o == Ordering::Less,
                    _ => o != Ordering::Greater,
                }
            }),
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.subject, self.op.symbol())?;
        match self.op {
            Op::Exists | Op::NotExists => Ok(()),
            Op::In | Op::NotIn => write!(f, " [{}]", self.args.join(", ")),
            _ => write!(f, " {}", self.args.first().map_or("", String::as_str)),
        }
    }
}

/// Numbers compare as numbers, dotted versions (`1.80.0`) part by part, anything else as text (ISO
/// timestamps sort correctly as text).
fn compare(a: &str, b: &str) -> Ordering {
    if let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) {
        return x.total_cmp(&y);
    }
    let parts = |s: &str| -> Option<Vec<u64>> {
        s.trim_start_matches('v')
            .split('.')
            .map(|p| p.parse().ok())
            .collect()
    };
    if let (Some(x), Some(y)) = (parts(a), parts(b)) {
        return x.cmp(&y);
    }
    a.cmp(b)
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, message: String) -> ParseError {
        ParseError {
            position: self.pos,
            message,
        }
    }

    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn rest_word(&self) -> &str {
        self.rest().split_whitespace().next().unwrap_or("")
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    /// Consumes a word (`and`, `or`, `not`, an operator word) if the input continues with it followed
    /// by a word boundary.
    fn eat_word(&mut self, w: &str) -> bool {
        let r = self.rest();
        if r.len() >= w.len() && r[..w.len()].eq_ignore_ascii_case(w) {
            let after = r[w.len()..].chars().next();
            if after.is_none_or(|c| c.is_whitespace() || "()[".contains(c)) {
                self.pos += w.len();
                return true;
            }
        }
        false
    }

    fn eat(&mut self, sym: &str) -> bool {
        if self.rest().starts_with(sym) {
            self.pos += sym.len();
            true
        } else {
            false
        }
    }

    fn boolean_word(sym: &str) -> Vec<&'static str> {
        catalog()
            .query_language
            .boolean_words
            .iter()
            .filter(|(_, s)| s.as_str() == sym)
            .map(|(w, _)| w.as_str())
            .collect()
    }

    fn eat_boolean(&mut self, sym: &str) -> bool {
        self.ws();
        if self.eat(sym) {
            return true;
        }
        Self::boolean_word(sym)
            .into_iter()
            .any(|w| self.eat_word(w))
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.and()?;
        while self.eat_boolean("||") {
            let r = self.and()?;
            e = Expr::Or(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.unary()?;
        while self.eat_boolean("&&") {
            let r = self.unary()?;
            e = Expr::And(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.ws();
        if self.rest().is_empty() {
            return Err(self.err("expected an expression, found the end".to_string()));
        }
        if self.eat_boolean("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let e = self.or()?;
            self.ws();
            if !self.eat(")") {
                return Err(self.err("expected `)`".to_string()));
            }
            return Ok(e);
        }
        self.comparison().map(Expr::Cmp)
    }

    fn comparison(&mut self) -> Result<Comparison, ParseError> {
        let start = self.pos;
        let subject_text: String = self
            .rest()
            .chars()
            .take_while(|c| !c.is_whitespace() && !"=!<>()[],".contains(*c))
            .collect();
        if subject_text.is_empty() {
            return Err(self.err(format!("expected a subject, found `{}`", self.rest_word())));
        }
        self.pos += subject_text.len();
        let subject = parse_subject(&subject_text).ok_or_else(|| ParseError {
            position: start,
            message: format!(
                "unknown subject `{subject_text}`; subjects are {}",
                catalog().query_language.subjects.join(", ")
            ),
        })?;
        self.ws();
        let op_pos = self.pos;
        let op = self.operator().ok_or_else(|| ParseError {
            position: op_pos,
            message: format!(
                "expected an operator after `{subject}`, found `{}`",
                self.rest_word()
            ),
        })?;
        let args = match op {
            Op::Exists | Op::NotExists => Vec::new(),
            Op::In | Op::NotIn => self.list()?,
            _ => vec![self.value()?],
        };
        let regex = match op {
            Op::Matches | Op::NotMatches => {
                // Java's `matches` is a full match: anchor the pattern.
                let pattern = format!("^(?:{})$", args[0]);
                Some(Regex::new(&pattern).map_err(|e| ParseError {
                    position: op_pos,
                    message: format!("`{}` is not a usable regular expression: {e}", args[0]),
                })?)
            }
            _ => None,
        };
        Ok(Comparison {
            subject,
            op,
            args,
            regex,
        })
    }

    fn operator(&mut self) -> Option<Op> {
        // Longest symbols first, so `>=` is not read as `>`.
        for sym in [
            "==", "!=", ">=", "<=", "=~", "!~", "!exists", "!in", ">", "<",
        ] {
            if sym.starts_with('!') && sym.len() > 2 {
                if self.eat_word(sym) {
                    return Op::from_symbol(sym);
                }
            } else if self.eat(sym) {
                return Op::from_symbol(sym);
            }
        }
        for w in ["exists", "in"] {
            if self.eat_word(w) {
                return Op::from_symbol(w);
            }
        }
        let words = &catalog().query_language.operator_words;
        // Longest words first, so `not_equals` is not cut at a shorter word.
        let mut by_len: Vec<(&String, &String)> = words.iter().collect();
        by_len.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
        for (w, sym) in by_len {
            if self.eat_word(w) {
                return Op::from_symbol(sym);
            }
        }
        None
    }

    fn value(&mut self) -> Result<String, ParseError> {
        self.ws();
        let mut depth = 0usize;
        let mut end = 0;
        for (i, c) in self.rest().char_indices() {
            if c.is_whitespace() {
                break;
            }
            match c {
                '(' => depth += 1,
                // A `)` with nothing open closes a group around the comparison.
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                _ => {}
            }
            end = i + c.len_utf8();
        }
        if end == 0 {
            return Err(self.err("expected a value, found the end".to_string()));
        }
        let v = self.rest()[..end].to_string();
        self.pos += end;
        Ok(v)
    }

    fn list(&mut self) -> Result<Vec<String>, ParseError> {
        self.ws();
        if !self.eat("[") {
            return Err(self.err(format!(
                "expected a list `[a, b]` after `in`, found `{}`",
                self.rest_word()
            )));
        }
        let Some(close) = self.rest().find(']') else {
            return Err(self.err("the list has no closing `]`".to_string()));
        };
        let inner = &self.rest()[..close];
        let items: Vec<String> = inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if items.is_empty() {
            return Err(self.err("the list is empty".to_string()));
        }
        self.pos += close + 1;
        Ok(items)
    }
}

fn parse_subject(s: &str) -> Option<Subject> {
    if let Some(name) = s.strip_prefix("attribute:") {
        return (!name.is_empty()).then(|| Subject::Attribute(name.to_string()));
    }
    Some(match s {
        "agentConnected" => Subject::AgentConnected,
        "agentVersion" => Subject::AgentVersion,
        "ec2InstanceId" => Subject::Ec2InstanceId,
        "registeredAt" => Subject::RegisteredAt,
        "runningTasksCount" => Subject::RunningTasksCount,
        "task:group" => Subject::TaskGroup,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Attribute, VersionInfo};

    fn instance(attrs: &[(&str, &str)]) -> ContainerInstance {
        ContainerInstance {
            ec2_instance_id: Some("i-0123".into()),
            agent_connected: true,
            running_tasks_count: 2,
            version_info: Some(VersionInfo {
                agent_version: Some("1.80.0".into()),
                ..VersionInfo::default()
            }),
            registered_at: Some(crate::input::Timestamp::Text(
                "2026-01-02T03:04:05+00:00".into(),
            )),
            attributes: attrs
                .iter()
                .map(|(n, v)| Attribute {
                    name: (*n).into(),
                    value: (!v.is_empty()).then(|| (*v).into()),
                })
                .collect(),
            ..ContainerInstance::default()
        }
    }

    fn g5() -> ContainerInstance {
        instance(&[
            ("ecs.instance-type", "g5.xlarge"),
            ("ecs.availability-zone", "us-east-1a"),
            ("ecs.capability.nvidia-driver-version.580.159.03", ""),
            ("team", "ml"),
        ])
    }

    fn eval(e: &str, i: &ContainerInstance) -> bool {
        let cx = Context {
            instance: i,
            task_group: Some("service:train"),
        };
        Expr::parse(e)
            .unwrap_or_else(|err| panic!("{e}: {err}"))
            .eval(&cx)
    }

    #[test]
    fn equality_and_inequality() {
        let i = g5();
        assert!(eval("attribute:ecs.instance-type == g5.xlarge", &i));
        assert!(!eval("attribute:ecs.instance-type == g5.xlarg", &i));
        assert!(eval("attribute:ecs.instance-type != g5.2xlarge", &i));
        assert!(eval("attribute:ecs.instance-type equals g5.xlarge", &i));
        assert!(eval("attribute:ecs.instance-type not_equals g6.xlarge", &i));
        // Glued operators, as people type them.
        assert!(eval("attribute:ecs.instance-type==g5.xlarge", &i));
    }

    #[test]
    fn lists() {
        let i = g5();
        assert!(eval(
            "attribute:ecs.availability-zone in [us-east-1a, us-east-1b]",
            &i
        ));
        assert!(!eval("attribute:ecs.availability-zone in [us-east-1c]", &i));
        assert!(eval("attribute:ecs.availability-zone !in [us-east-1c]", &i));
        assert!(eval(
            "attribute:ecs.availability-zone not_in [us-east-1c,us-east-1d]",
            &i
        ));
    }

    #[test]
    fn regex_is_a_full_match_like_java_matches() {
        let i = g5();
        assert!(eval("attribute:ecs.instance-type =~ g5.*", &i));
        assert!(eval("attribute:ecs.instance-type =~ (g5|g6)\\..*", &i));
        // Java's matches() needs the whole value: `g5` alone does not match `g5.xlarge`.
        assert!(!eval("attribute:ecs.instance-type =~ g5", &i));
        assert!(!eval("attribute:ecs.instance-type =~ g6.*", &i));
        assert!(eval("attribute:ecs.instance-type !~ g6.*", &i));
        assert!(eval("attribute:ecs.instance-type matches g5\\.x.*", &i));
        assert!(eval("attribute:ecs.instance-type not_matches p.*", &i));
    }

    #[test]
    fn exists_and_missing_attributes() {
        let i = g5();
        assert!(eval("attribute:team exists", &i));
        assert!(eval(
            "attribute:ecs.capability.nvidia-driver-version.580.159.03 exists",
            &i
        ));
        assert!(!eval("attribute:gpu exists", &i));
        assert!(eval("attribute:gpu !exists", &i));
        assert!(eval("attribute:gpu not_exists", &i));
        // A comparison with an attribute the instance lacks: the positive form is false.
        assert!(!eval("attribute:gpu == yes", &i));
        assert!(eval("attribute:gpu != yes", &i));
    }

    #[test]
    fn booleans_precedence_and_parentheses() {
        let i = g5();
        assert!(eval(
            "attribute:ecs.instance-type =~ g5.* and attribute:ecs.availability-zone != us-east-1d",
            &i
        ));
        assert!(eval(
            "attribute:ecs.instance-type == p5.48xlarge || attribute:team == ml",
            &i
        ));
        // `and` binds tighter than `or`: false || (true && true).
        assert!(eval(
            "attribute:team == x or attribute:team == ml and agentConnected == true",
            &i
        ));
        assert!(!eval(
            "(attribute:team == x or attribute:team == ml) and agentConnected == false",
            &i
        ));
        assert!(eval("!(attribute:team == x)", &i));
        assert!(eval("not attribute:team == x", &i));
        assert!(!eval(
            "not (attribute:team == ml && attribute:team exists)",
            &i
        ));
        assert!(eval(
            "(attribute:ecs.instance-type =~ (g5|g6).*) && (attribute:team in [ml])",
            &i
        ));
    }

    #[test]
    fn other_subjects() {
        let i = g5();
        assert!(eval("ec2InstanceId == i-0123", &i));
        assert!(eval("ec2InstanceId in [i-0123, i-0456]", &i));
        assert!(eval("agentConnected == true", &i));
        assert!(eval("agentVersion >= 1.79.2", &i));
        assert!(!eval("agentVersion > 1.100.0", &i));
        assert!(eval("runningTasksCount < 3", &i));
        assert!(eval("runningTasksCount <= 2", &i));
        assert!(!eval("runningTasksCount > 2", &i));
        assert!(eval("registeredAt > 2025-12-31", &i));
        assert!(eval("task:group == service:train", &i));
        assert!(!eval("task:group =~ service:web.*", &i));
    }

    #[test]
    fn parse_errors_say_where() {
        for (e, want) in [
            ("", "expected an expression"),
            ("attribute:ecs.instance-type", "expected an operator"),
            (
                "attribute:ecs.instance-type ~= g5.*",
                "expected an operator",
            ),
            ("instance-type == g5.xlarge", "unknown subject"),
            ("attribute:a in us-east-1a", "expected a list"),
            ("attribute:a in [x", "no closing"),
            ("(attribute:a exists", "expected `)`"),
            ("attribute:a == x y", "unexpected `y`"),
            ("attribute:a =~ (", "not a usable regular expression"),
            ("attribute:a ==", "expected a value"),
        ] {
            let err = Expr::parse(e).expect_err(e);
            assert!(err.message.contains(want), "{e}: {err}");
        }
    }

    /// Every operator and word the catalog lists is one the parser reads (drift check).
    #[test]
    fn parser_reads_every_catalog_operator() {
        let ql = &catalog().query_language;
        for sym in &ql.operators {
            assert!(Op::from_symbol(sym).is_some(), "operator {sym}");
        }
        let i = g5();
        for (word, sym) in &ql.operator_words {
            let arg = match sym.as_str() {
                "!exists" => String::new(),
                "!in" => " [x]".to_string(),
                _ => " x".to_string(),
            };
            let text = format!("attribute:team {word}{arg}");
            let e = Expr::parse(&text).unwrap_or_else(|err| panic!("{text}: {err}"));
            let Expr::Cmp(c) = &e else { panic!("{text}") };
            assert_eq!(c.op.symbol(), sym);
            let _ = e.eval(&Context {
                instance: &i,
                task_group: None,
            });
        }
        for s in &ql.subjects {
            let s = s.replace("<name>", "x");
            assert!(parse_subject(&s).is_some(), "subject {s}");
        }
    }
}
