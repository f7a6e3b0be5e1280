//! Three-valued evaluation over what is known about a container instance.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use regex::Regex;

use crate::ast::{Argument, BoolOp, Condition, Expr, Operator, Subject};

/// A truth value of Kleene's three-valued logic: `Unknown` is "could be either".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Truth {
    True,
    False,
    Unknown,
}

impl Truth {
    pub fn from_bool(b: bool) -> Truth {
        if b {
            Truth::True
        } else {
            Truth::False
        }
    }

    pub fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Unknown,
        }
    }

    pub fn or(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Unknown,
        }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }

    /// `Some(b)` when known.
    pub fn known(self) -> Option<bool> {
        match self {
            Truth::True => Some(true),
            Truth::False => Some(false),
            Truth::Unknown => None,
        }
    }

    /// The two readings agree, or it is unknown.
    pub fn agree(self, other: Truth) -> Truth {
        if self == other {
            self
        } else {
            Truth::Unknown
        }
    }
}

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Truth::True => "true",
            Truth::False => "false",
            Truth::Unknown => "unknown",
        })
    }
}

/// What is known about one subject of one container instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact<'a> {
    /// The subject has these values (an attribute or `ec2InstanceId` has one; `task:group` has one
    /// per running task's group, and may have none). An attribute that exists without a value (a
    /// name-only attribute such as `ecs.capability.nvidia-driver-version.<v>`) has one empty value.
    Values(Vec<Cow<'a, str>>),
    /// The subject is known not to exist (an attribute the instance does not have).
    Absent,
    /// Nothing is known.
    Unknown,
}

impl<'a> Fact<'a> {
    pub fn value(v: impl Into<Cow<'a, str>>) -> Fact<'a> {
        Fact::Values(vec![v.into()])
    }
}

/// What an evaluation knows about a container instance.
pub trait Facts {
    fn fact(&self, subject: &Subject) -> Fact<'_>;
}

/// A fully known container instance: everything a query can test. Attributes not in
/// [`ContainerInstance::attributes`] are absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerInstance {
    /// Attribute name → value (`None` for a name-only attribute).
    pub attributes: BTreeMap<String, Option<String>>,
    pub ec2_instance_id: Option<String>,
    pub agent_connected: Option<bool>,
    pub agent_version: Option<String>,
    pub running_tasks_count: Option<u64>,
    /// As ECS returns it (`2018-06-18T22:28:28Z`, with or without time or offset).
    pub registered_at: Option<String>,
    /// The groups of the tasks running on it (`service:web`, `family:app`).
    pub task_groups: Vec<String>,
}

fn opt(v: Option<Cow<'_, str>>) -> Fact<'_> {
    v.map_or(Fact::Absent, |v| Fact::Values(vec![v]))
}

impl Facts for ContainerInstance {
    fn fact(&self, subject: &Subject) -> Fact<'_> {
        match subject {
            Subject::Attribute(name) => match self.attributes.get(name) {
                Some(v) => Fact::value(v.as_deref().unwrap_or("")),
                None => Fact::Absent,
            },
            Subject::Ec2InstanceId => opt(self.ec2_instance_id.as_deref().map(Cow::Borrowed)),
            Subject::AgentConnected => opt(self.agent_connected.map(|b| Cow::Owned(b.to_string()))),
            Subject::AgentVersion => opt(self.agent_version.as_deref().map(Cow::Borrowed)),
            Subject::RunningTasksCount => {
                opt(self.running_tasks_count.map(|n| Cow::Owned(n.to_string())))
            }
            Subject::RegisteredAt => opt(self.registered_at.as_deref().map(Cow::Borrowed)),
            Subject::TaskGroup => Fact::Values(
                self.task_groups
                    .iter()
                    .map(|g| Cow::Borrowed(g.as_str()))
                    .collect(),
            ),
            Subject::Other(_) => Fact::Unknown,
        }
    }
}

/// Any facts function: `|subject| Fact::Unknown`.
impl<F> Facts for F
where
    F: Fn(&Subject) -> Fact<'static>,
{
    fn fact(&self, subject: &Subject) -> Fact<'_> {
        self(subject)
    }
}

pub(crate) fn eval(expr: &Expr, facts: &dyn Facts) -> Truth {
    match expr {
        Expr::Condition(c) => eval_condition(c, facts),
        Expr::Not { operand, .. } => eval(operand, facts).not(),
        Expr::Group { inner, .. } => eval(inner, facts),
        Expr::Binary {
            op, left, right, ..
        } => {
            let l = eval(left, facts);
            let r = eval(right, facts);
            match op {
                BoolOp::And => l.and(r),
                BoolOp::Or => l.or(r),
            }
        }
    }
}

/// Evaluates one condition. A negated operator is the negation of its positive form, so an absent
/// subject makes `==`, `in`, `=~` false and `!=`, `!in`, `!~` true.
pub fn eval_condition(c: &Condition, facts: &dyn Facts) -> Truth {
    if let Some(positive) = c.operator.negated() {
        return positive_condition(c, positive, facts).not();
    }
    positive_condition(c, c.operator, facts)
}

fn positive_condition(c: &Condition, op: Operator, facts: &dyn Facts) -> Truth {
    let values = match facts.fact(&c.subject) {
        Fact::Unknown => return Truth::Unknown,
        Fact::Absent => Vec::new(),
        Fact::Values(v) => v,
    };
    if op == Operator::Exists {
        return Truth::from_bool(!values.is_empty());
    }
    // Several values (task groups): the condition holds when it holds for one of them.
    let mut result = Truth::False;
    for v in &values {
        result = result.or(test_value(c, op, v));
        if result == Truth::True {
            break;
        }
    }
    result
}

fn test_value(c: &Condition, op: Operator, value: &str) -> Truth {
    let args = c.argument.values();
    match op {
        Operator::Eq | Operator::In => Truth::from_bool(args.iter().any(|a| a.text == value)),
        Operator::Matches => {
            let mut result = Truth::False;
            for a in args {
                result = result.or(match whole_match_regex(&a.text) {
                    Some(re) => Truth::from_bool(re.is_match(value)),
                    None => Truth::Unknown,
                });
            }
            result
        }
        Operator::Gt | Operator::Ge | Operator::Lt | Operator::Le => {
            let Argument::Value(arg) = &c.argument else {
                return Truth::Unknown;
            };
            match compare(&c.subject, value, &arg.text) {
                Some(ord) => Truth::from_bool(match op {
                    Operator::Gt => ord == Ordering::Greater,
                    Operator::Ge => ord != Ordering::Less,
                    Operator::Lt => ord == Ordering::Less,
                    _ => ord != Ordering::Greater,
                }),
                None => Truth::Unknown,
            }
        }
        // Negated operators are handled by the caller.
        Operator::NotEq
        | Operator::NotIn
        | Operator::NotMatches
        | Operator::Exists
        | Operator::NotExists => Truth::Unknown,
    }
}

/// The Java `String.matches` semantics: the pattern must match the whole value. `None` when the
/// pattern is not one the `regex` crate accepts (Java-only syntax such as look-around or possessive
/// quantifiers): the result is then unknown, never a guess.
pub fn whole_match_regex(pattern: &str) -> Option<Regex> {
    Regex::new(&format!("^(?:{pattern})$")).ok()
}

/// Orders a subject's value against an argument: versions for `agentVersion`, numbers for
/// `runningTasksCount`, instants for `registeredAt`, numbers for attributes when both sides are
/// numbers. `None` when they cannot be ordered (ECS does not document how it orders other attribute
/// values, so nothing is claimed).
fn compare(subject: &Subject, value: &str, arg: &str) -> Option<Ordering> {
    match subject {
        Subject::AgentVersion => compare_versions(value, arg),
        Subject::RegisteredAt => Some(parse_instant(value)?.cmp(&parse_instant(arg)?)),
        Subject::RunningTasksCount | Subject::Attribute(_) => {
            let a: f64 = value.trim().parse().ok()?;
            let b: f64 = arg.trim().parse().ok()?;
            a.partial_cmp(&b)
        }
        _ => None,
    }
}

fn compare_versions(a: &str, b: &str) -> Option<Ordering> {
    let parse = |s: &str| -> Option<Vec<u64>> {
        s.trim()
            .trim_start_matches('v')
            .split('.')
            .map(|p| p.parse().ok())
            .collect()
    };
    let (mut a, mut b) = (parse(a)?, parse(b)?);
    let n = a.len().max(b.len());
    a.resize(n, 0);
    b.resize(n, 0);
    Some(a.cmp(&b))
}

/// Seconds since the Unix epoch of `2018-06-18`, `2018-06-18T22:28:28`, `2018-06-18T22:28:28Z`
/// or `2018-06-18T22:28:28+00:00` (the formats the ECS guide lists for `registeredAt`), read as UTC
/// when no offset is given. Fractional seconds are accepted and ignored.
pub fn parse_instant(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = match s.split_once(['T', 't', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut d = date.split('-');
    let year: i64 = d.next()?.parse().ok()?;
    let month: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    if d.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut secs = days_from_civil(year, month, day) * 86_400;
    if let Some(time) = time {
        let (clock, offset) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
            (c, 0)
        } else if let Some(i) = time.rfind(['+', '-']) {
            let (c, off) = time.split_at(i);
            let sign = if off.starts_with('-') { -1 } else { 1 };
            let (h, m) = off[1..].split_once(':').unwrap_or((&off[1..], "0"));
            let h: i64 = h.parse().ok()?;
            let m: i64 = m.parse().ok()?;
            (c, sign * (h * 3600 + m * 60))
        } else {
            (time, 0)
        };
        let mut parts = clock.split(':');
        let h: i64 = parts.next()?.parse().ok()?;
        let m: i64 = parts.next().unwrap_or("0").parse().ok()?;
        let sec: f64 = parts.next().unwrap_or("0").parse().ok()?;
        if parts.next().is_some() || h > 23 || m > 59 || !(0.0..61.0).contains(&sec) {
            return None;
        }
        #[allow(clippy::cast_possible_truncation)]
        let sec = sec.trunc() as i64;
        secs += h * 3600 + m * 60 + sec - offset;
    }
    Some(secs)
}

/// The instant `secs` seconds after the Unix epoch as `2018-06-18T22:28:28Z`, a format
/// [`parse_instant`] reads back: for a `registeredAt` that is only known as epoch seconds (the AWS
/// CLI v1 prints timestamps that way).
pub fn format_instant(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's algorithm, the
/// inverse of [`days_from_civil`]).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
