//! Terraform's built-in functions, with Terraform's semantics, grouped by family as Terraform's
//! `internal/lang/funcs` is, behind one table ([`FUNCTIONS`]). A function over an unknown argument
//! gives an unknown carrying the arguments' references; a function the evaluator does not know
//! gives `Unknown(Unsupported)`.

mod conversion;
mod encoding;
mod filesystem;
mod format;
mod string;

use ecs_gpu_hcl::ast::{Expr, Ident, Span};

use crate::eval::{deep_refs, deep_unknown, merge_refs, to_num, to_str, values_equal, Cx, Fail};
use crate::loader::Ev;
use crate::value::{Loc, Node, Object, Unknown, UnknownReason, Value};
use Arguments::{Known, Partial};
use Body::{Files, Lazy, Placed, Values, Whole};

/// What a function gives: a value, or why there is none.
type Outcome = Result<Node, Fail>;

/// Whether a function is called when its arguments are not all known.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arguments {
    /// Not called: the call's result is unknown, with every argument's references.
    Known,
    /// Called: the function handles unknown arguments (or parts of them) itself.
    Partial,
}

/// What a function's body takes.
#[derive(Clone, Copy)]
enum Body {
    /// The argument expressions, to evaluate itself and see their errors (`try`, `can`).
    Lazy(fn(&mut Ev, &Cx<'_>, Option<Loc>, &[Expr]) -> Node),
    /// The argument values, to move the one argument into the result, with any error inside it
    /// (`jsonencode`).
    Whole(fn(&mut Vec<Node>) -> Outcome),
    /// The argument values.
    Values(fn(&[Node]) -> Outcome),
    /// The argument values and the call's place, for the values it builds (`jsondecode`).
    Placed(fn(&[Node], Option<Loc>) -> Outcome),
    /// The argument values and the evaluator, to read files.
    Files(fn(&mut Ev, &Cx<'_>, Option<Loc>, &[Node]) -> Outcome),
}

/// Every function the evaluator knows, sorted by name.
#[rustfmt::skip]
static FUNCTIONS: &[(&str, Arguments, Body)] = &[
    ("base64decode", Known, Values(encoding::base64decode)),
    ("base64encode", Partial, Values(encoding::base64encode)),
    ("base64gzip", Partial, Values(encoding::base64gzip)),
    ("basename", Known, Values(filesystem::basename)),
    ("can", Partial, Lazy(conversion::can)),
    ("chomp", Known, Values(string::chomp)),
    ("dirname", Known, Values(filesystem::dirname)),
    ("endswith", Known, Values(string::endswith)),
    ("file", Known, Files(filesystem::file)),
    ("filebase64", Known, Files(filesystem::filebase64)),
    ("fileexists", Known, Files(filesystem::fileexists)),
    ("format", Known, Values(string::format)),
    ("formatlist", Known, Values(string::formatlist)),
    ("indent", Known, Values(string::indent)),
    ("join", Partial, Values(string::join)),
    ("jsondecode", Partial, Placed(encoding::jsondecode)),
    ("jsonencode", Partial, Whole(encoding::jsonencode)),
    ("lower", Known, Values(string::lower)),
    ("nonsensitive", Partial, Values(conversion::sensitivity)),
    ("regex", Known, Values(string::regex)),
    ("regexall", Known, Values(string::regexall)),
    ("replace", Known, Values(string::replace)),
    ("sensitive", Partial, Values(conversion::sensitivity)),
    ("split", Known, Values(string::split)),
    ("startswith", Known, Values(string::startswith)),
    ("strcontains", Known, Values(string::strcontains)),
    ("strrev", Known, Values(string::strrev)),
    ("substr", Known, Values(string::substr)),
    ("templatefile", Partial, Files(filesystem::templatefile)),
    ("title", Known, Values(string::title)),
    ("tobool", Known, Values(conversion::tobool)),
    ("tolist", Partial, Values(conversion::tolist)),
    ("tomap", Partial, Values(conversion::tomap)),
    ("tonumber", Known, Values(conversion::tonumber)),
    ("toset", Known, Values(conversion::toset)),
    ("tostring", Known, Values(conversion::tostring)),
    ("trim", Known, Values(string::trim)),
    ("trimprefix", Known, Values(string::trimprefix)),
    ("trimspace", Known, Values(string::trimspace)),
    ("trimsuffix", Known, Values(string::trimsuffix)),
    ("try", Partial, Lazy(conversion::try_)),
    ("type", Partial, Values(conversion::type_)),
    ("upper", Known, Values(string::upper)),
    ("urlencode", Known, Values(encoding::urlencode)),
];

/// The function named `name`, if the evaluator knows it.
fn lookup(name: &str) -> Option<(Arguments, Body)> {
    let found = FUNCTIONS.binary_search_by_key(&name, |(known, ..)| known);
    found.ok().map(|i| (FUNCTIONS[i].1, FUNCTIONS[i].2))
}

fn new_value(value: Value) -> Outcome {
    Ok(Node::new(value, None))
}

fn new_string(text: String) -> Outcome {
    Ok(string_node(text))
}

fn string_node(text: String) -> Node {
    Node::new(Value::String(text.into()), None)
}

/// The failure of what the evaluator does not model: the result is unknown, not an error.
fn unsupported() -> Fail {
    Fail::Unknown(Box::new(Unknown {
        reason: UnknownReason::Unsupported,
        ..Unknown::default()
    }))
}

/// The arguments of a function that takes exactly `N`.
fn exactly<const N: usize>(args: &[Node]) -> Result<&[Node; N], Fail> {
    args.try_into().map_err(|_| Fail::Error)
}

fn arity(args: &[Node], min: usize, max: usize) -> Result<(), Fail> {
    if args.len() < min || args.len() > max {
        Err(Fail::Error)
    } else {
        Ok(())
    }
}

/// Whether an evaluation error happened anywhere inside a value.
pub(crate) fn has_error(node: &Node) -> bool {
    fn walk(node: &Node, depth: usize) -> bool {
        if depth > crate::eval::MAX_DEPTH {
            return false;
        }
        match &node.value {
            Value::Unknown(u) => u.reason == UnknownReason::Error,
            Value::List(items) => items.iter().any(|i| walk(i, depth + 1)),
            // A discarded duplicate was still evaluated: its error is the object's.
            Value::Object(o) => o
                .entries
                .iter()
                .chain(&o.discarded)
                .any(|e| walk(&e.value, depth + 1)),
            Value::Json(inner) => walk(inner, depth + 1),
            _ => false,
        }
    }
    walk(node, 0)
}

fn as_list(node: &Node) -> Result<&[Node], Fail> {
    match &node.value {
        Value::List(items) => Ok(items),
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

fn as_object(node: &Node) -> Result<&Object, Fail> {
    match &node.value {
        Value::Object(o) => Ok(o),
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

/// A whole number small enough to be exact.
fn to_int(node: &Node) -> Result<i64, Fail> {
    let number = to_num(node)?;
    if number.fract() != 0.0 || number.abs() > 9e15 {
        return Err(Fail::Error);
    }
    Ok(number as i64)
}

/// Strings, numbers and bools mixed in one collection become strings, as Terraform unifies them.
pub(crate) fn unify(items: Vec<Node>) -> Vec<Node> {
    let any_string = items
        .iter()
        .any(|i| matches!(i.value, Value::String(_) | Value::Json(_)));
    let all_primitive = items.iter().all(|i| {
        matches!(
            i.value,
            Value::String(_)
                | Value::Number(_)
                | Value::Bool(_)
                | Value::Null
                | Value::Unknown(_)
                | Value::Json(_)
        )
    });
    if !(any_string && all_primitive) {
        return items;
    }
    items
        .into_iter()
        .map(|i| match &i.value {
            Value::Number(_) | Value::Bool(_) => match to_str(&i) {
                Ok(t) => Node::new(Value::String(t.into()), i.loc),
                Err(_) => i,
            },
            _ => i,
        })
        .collect()
}

/// A set: duplicates removed, ordered as Terraform orders sets (strings bytewise, numbers by value).
pub(crate) fn set_of(items: Vec<Node>) -> Vec<Node> {
    // A jsonencode result is a string like any other in a set.
    let items: Vec<Node> = unify(items)
        .into_iter()
        .map(|i| match &i.value {
            Value::Json(_) => match to_str(&i) {
                Ok(t) => Node::new(Value::String(t.into()), i.loc),
                Err(_) => i,
            },
            _ => i,
        })
        .collect();
    let mut out: Vec<Node> = Vec::new();
    for i in items {
        if !out.iter().any(|o| values_equal(o, &i) == Some(true)) {
            out.push(i);
        }
    }
    if out.iter().all(|i| matches!(i.value, Value::String(_))) {
        out.sort_by(|a, b| match (&a.value, &b.value) {
            (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
            _ => std::cmp::Ordering::Equal,
        });
    } else if out.iter().all(|i| matches!(i.value, Value::Number(_))) {
        out.sort_by(|a, b| match (&a.value, &b.value) {
            (Value::Number(x), Value::Number(y)) => {
                x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal)
            }
            _ => std::cmp::Ordering::Equal,
        });
    } else if out.iter().all(|i| matches!(i.value, Value::Bool(_))) {
        out.sort_by_key(|i| i.as_bool());
    }
    out
}

/// The unknown result of a function whose arguments are not all known: references of every
/// argument, and the reason of the first unknown.
fn unknown_of(args: &[Node]) -> Option<Box<Unknown>> {
    let first = args.iter().find_map(deep_unknown)?;
    Some(Box::new(Unknown {
        reason: first.reason,
        refs: refs_of(args),
        ..Unknown::default()
    }))
}

/// Every reference of every argument.
fn refs_of(args: &[Node]) -> Vec<crate::value::Reference> {
    let mut refs = Vec::new();
    for arg in args {
        merge_refs(&mut refs, deep_refs(arg));
    }
    refs
}

pub(crate) fn call(
    ev: &mut Ev,
    cx: &Cx<'_>,
    span: Span,
    name: &Ident,
    args: &[Expr],
    expand_final: bool,
) -> Node {
    let loc = cx.loc(span);
    let function = lookup(&name.name);
    if let Some((_, Lazy(body))) = function {
        return body(ev, cx, loc, args);
    }
    let mut values: Vec<Node> = args.iter().map(|a| ev.eval(cx, a)).collect();
    if expand_final {
        match values.pop() {
            Some(last) => match &last.value {
                Value::List(items) => values.extend(items.iter().cloned()),
                Value::Unknown(u) => {
                    let mut u = u.clone();
                    u.derived();
                    merge_refs(&mut u.refs, refs_of(&values));
                    return Node::new(Value::Unknown(u), loc);
                }
                _ => return Node::new(crate::eval::error_value(), loc),
            },
            None => return Node::new(crate::eval::error_value(), loc),
        }
    }
    // An error anywhere in an argument is an error of the call, as in Terraform. `jsonencode` keeps
    // its structure (and the error inside it) so rules still see the rest of the document.
    if !matches!(function, Some((_, Whole(_)))) && values.iter().any(has_error) {
        return Node::new(Fail::Error.with_refs(refs_of(&values)).into_value(), loc);
    }
    if !matches!(function, Some((Partial, _))) && !LEGACY_PARTIAL.contains(&name.name.as_str()) {
        if let Some(u) = unknown_of(&values) {
            return Node::new(Value::Unknown(u), loc);
        }
    }
    // A result computed from a sensitive argument is sensitive, as in Terraform (over-marking a
    // part that came from elsewhere only hides it in messages). `jsonencode` marks its text and
    // keeps the marks of the parts inside, so a rule may still quote the other fields.
    let sensitive = match name.name.as_str() {
        "sensitive" => Some(true),
        "nonsensitive" => Some(false),
        _ if values.iter().any(Node::is_sensitive) => Some(true),
        _ => None,
    };
    let result = match function {
        Some((_, Whole(body))) => body(&mut values),
        Some((_, Values(body))) => body(&values),
        Some((_, Placed(body))) => body(&values, loc),
        Some((_, Files(body))) => body(ev, cx, loc, &values),
        // `try` and `can` returned above.
        Some((_, Lazy(_))) => Err(unsupported()),
        None => builtin(&name.name, &values),
    };
    let result = match (result, sensitive) {
        (Ok(mut n), Some(mark)) => {
            if matches!(n.value, Value::Json(_)) {
                n.sensitive = mark;
            } else {
                n.mark_sensitive(mark);
            }
            Ok(n)
        }
        (r, _) => r,
    };
    match result {
        Ok(n) if matches!(&n.value, Value::String(t) if t.len() > crate::eval::MAX_STRING) => {
            Node::new(unsupported().into_value(), loc)
        }
        Ok(mut n) => {
            if n.loc.is_none() {
                n.loc = loc;
            }
            n
        }
        Err(f) => Node::new(f.with_refs(refs_of(&values)).into_value(), loc),
    }
}

/// Functions not yet in [`FUNCTIONS`] that take partly unknown arguments.
const LEGACY_PARTIAL: &[&str] = &[
    "length",
    "concat",
    "merge",
    "flatten",
    "lookup",
    "element",
    "keys",
    "values",
    "coalesce",
    "coalescelist",
    "one",
    "slice",
    "reverse",
    "zipmap",
    "contains",
    "compact",
];

type R = Outcome;
fn v(value: Value) -> R {
    new_value(value)
}
use crate::eval::to_bool;
use crate::json::sorted_entries;
use crate::value::Entry;
use {as_list as list, as_object as object, to_int as int};

fn builtin(name: &str, a: &[Node]) -> R {
    match name {
        // Collections.
        "length" => {
            arity(a, 1, 1)?;
            let n = match &a[0].value {
                Value::List(items) => items.len(),
                Value::Object(o) => o.entries.len(),
                Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                // Only strings and collections have a length.
                Value::Null | Value::Number(_) | Value::Bool(_) => return Err(Fail::Error),
                _ => to_str(&a[0])?.chars().count(),
            };
            v(Value::Number(n as f64))
        }
        "concat" => {
            let mut out = Vec::new();
            for l in a {
                out.extend(list(l)?.iter().cloned());
            }
            v(Value::List(out))
        }
        "merge" => {
            // With an unknown argument the result is unknown (its keys are not known), but the
            // entries of the arguments after the last unknown one are in it, with their values:
            // a later argument wins. They are kept as the unknown's entries (a container
            // definition's `merge(var.defaults, { resourceRequirements = [...] })` still reserves
            // GPUs). An entry written before an unknown argument may be replaced by it: dropped.
            let mut obj = Object::default();
            let mut unknown: Option<Box<Unknown>> = None;
            for o in a {
                let entries = match &o.value {
                    Value::Null => continue,
                    Value::Unknown(u) => {
                        unknown = Some(Box::new(Unknown {
                            reason: u.reason,
                            ..Unknown::default()
                        }));
                        obj.entries.clear();
                        // A partly known object (an inner `merge`): its known entries are in.
                        &u.entries
                    }
                    _ => &object(o)?.entries,
                };
                for e in entries {
                    if let Some(pos) = obj.entries.iter().position(|x| x.key == e.key) {
                        obj.entries[pos] = e.clone();
                    } else {
                        obj.entries.push(e.clone());
                    }
                }
            }
            match unknown {
                None => v(Value::Object(obj)),
                Some(mut u) => {
                    // What it depends on: every argument, as for any unknown result.
                    for arg in a {
                        merge_refs(&mut u.refs, deep_refs(arg));
                    }
                    u.entries = obj.entries;
                    v(Value::Unknown(u))
                }
            }
        }
        "flatten" => {
            arity(a, 1, 1)?;
            fn flat(items: &[Node], out: &mut Vec<Node>, depth: usize) -> Result<(), Fail> {
                if depth > 256 {
                    return Err(Fail::Error);
                }
                for i in items {
                    match &i.value {
                        Value::List(inner) => flat(inner, out, depth + 1)?,
                        Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                        _ => out.push(i.clone()),
                    }
                }
                Ok(())
            }
            let mut out = Vec::new();
            flat(list(&a[0])?, &mut out, 0)?;
            v(Value::List(out))
        }
        "lookup" => {
            arity(a, 2, 3)?;
            let key = to_str(&a[1])?;
            let o = object(&a[0])?;
            match o.get(&key) {
                Some(n) => Ok(n.clone()),
                None => match a.get(2) {
                    Some(d) => Ok(d.clone()),
                    None => Err(Fail::Error),
                },
            }
        }
        "element" => {
            arity(a, 2, 2)?;
            let items = list(&a[0])?;
            let i = int(&a[1])?;
            if items.is_empty() {
                return Err(Fail::Error);
            }
            // A negative index wraps for a list and fails for a tuple; the two are not told apart
            // here, so it stays unknown.
            let r = i % items.len() as i64;
            if r < 0 {
                return Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })));
            }
            Ok(items[r as usize].clone())
        }
        "index" => {
            arity(a, 2, 2)?;
            let items = list(&a[0])?;
            for (i, x) in items.iter().enumerate() {
                if values_equal(x, &a[1]) == Some(true) {
                    return v(Value::Number(i as f64));
                }
            }
            Err(Fail::Error)
        }
        "keys" => {
            arity(a, 1, 1)?;
            let o = object(&a[0])?;
            v(Value::List(
                sorted_entries(o)
                    .into_iter()
                    .map(|e| Node::new(Value::String(e.key.clone().into()), e.key_loc))
                    .collect(),
            ))
        }
        "values" => {
            arity(a, 1, 1)?;
            let o = object(&a[0])?;
            v(Value::List(
                sorted_entries(o)
                    .into_iter()
                    .map(|e| e.value.clone())
                    .collect(),
            ))
        }
        "contains" => {
            arity(a, 2, 2)?;
            let items = list(&a[0])?;
            let mut unknown = false;
            for x in items {
                match values_equal(x, &a[1]) {
                    Some(true) => return v(Value::Bool(true)),
                    Some(false) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                return Err(Fail::Unknown(unknown_of(a).unwrap_or_default()));
            }
            v(Value::Bool(false))
        }
        "distinct" => {
            arity(a, 1, 1)?;
            let mut out: Vec<Node> = Vec::new();
            for x in list(&a[0])? {
                if !out.iter().any(|o| values_equal(o, x) == Some(true)) {
                    out.push(x.clone());
                }
            }
            v(Value::List(out))
        }
        "compact" => {
            arity(a, 1, 1)?;
            let mut out = Vec::new();
            for x in list(&a[0])? {
                match &x.value {
                    Value::Null => {}
                    Value::String(t) if t.is_empty() => {}
                    Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                    _ => out.push(Node::new(Value::String(to_str(x)?.into()), x.loc)),
                }
            }
            v(Value::List(out))
        }
        "coalesce" => {
            for x in a {
                match &x.value {
                    Value::Null => {}
                    Value::String(t) if t.is_empty() => {}
                    Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                    _ => {
                        let others_string = a.iter().any(|o| matches!(o.value, Value::String(_)));
                        if others_string && matches!(x.value, Value::Number(_) | Value::Bool(_)) {
                            return Ok(Node::new(Value::String(to_str(x)?.into()), x.loc));
                        }
                        return Ok(x.clone());
                    }
                }
            }
            Err(Fail::Error)
        }
        "coalescelist" => {
            for x in a {
                match &x.value {
                    Value::List(items) if items.is_empty() => {}
                    Value::List(_) => return Ok(x.clone()),
                    Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                    _ => return Err(Fail::Error),
                }
            }
            Err(Fail::Error)
        }
        "one" => {
            arity(a, 1, 1)?;
            if matches!(a[0].value, Value::Null) {
                return v(Value::Null);
            }
            let items = list(&a[0])?;
            match items.len() {
                0 => v(Value::Null),
                1 => Ok(items[0].clone()),
                _ => Err(Fail::Error),
            }
        }
        "range" => {
            arity(a, 1, 3)?;
            let nums: Vec<f64> = a.iter().map(to_num).collect::<Result<_, _>>()?;
            let (start, end, step) = match nums.as_slice() {
                [e] => (0.0, *e, 1.0),
                [s0, e] => (*s0, *e, if e >= s0 { 1.0 } else { -1.0 }),
                [s0, e, st] => (*s0, *e, *st),
                _ => return Err(Fail::Error),
            };
            if step == 0.0 || (step > 0.0 && start > end) || (step < 0.0 && start < end) {
                if step == 0.0 && start != end {
                    return Err(Fail::Error);
                }
                return v(Value::List(Vec::new()));
            }
            let mut out = Vec::new();
            let mut x = start;
            while (step > 0.0 && x < end) || (step < 0.0 && x > end) {
                out.push(Node::new(Value::Number(x), None));
                if out.len() > 1024 {
                    return Err(Fail::Error);
                }
                x += step;
            }
            v(Value::List(out))
        }
        "zipmap" => {
            arity(a, 2, 2)?;
            let k = list(&a[0])?;
            let vs = list(&a[1])?;
            if k.len() != vs.len() {
                return Err(Fail::Error);
            }
            let mut obj = Object::default();
            for (key, value) in k.iter().zip(vs) {
                let ks = to_str(key)?;
                if let Some(pos) = obj.entries.iter().position(|e| e.key == ks) {
                    obj.entries.remove(pos);
                }
                obj.entries.push(Entry {
                    key: ks,
                    key_loc: key.loc,
                    value: value.clone(),
                });
            }
            v(Value::Object(obj))
        }
        "sort" => {
            arity(a, 1, 1)?;
            let mut strs: Vec<(String, Option<Loc>)> = Vec::new();
            for x in list(&a[0])? {
                if matches!(x.value, Value::Null) {
                    return Err(Fail::Error);
                }
                strs.push((to_str(x)?, x.loc));
            }
            strs.sort_by(|x, y| x.0.as_bytes().cmp(y.0.as_bytes()));
            v(Value::List(
                strs.into_iter()
                    .map(|(t, l)| Node::new(Value::String(t.into()), l))
                    .collect(),
            ))
        }
        "reverse" => {
            arity(a, 1, 1)?;
            let mut items = list(&a[0])?.to_vec();
            items.reverse();
            v(Value::List(items))
        }
        "slice" => {
            arity(a, 3, 3)?;
            let items = list(&a[0])?;
            let start = int(&a[1])?;
            let end = int(&a[2])?;
            if start < 0 || end < start || end as usize > items.len() {
                return Err(Fail::Error);
            }
            v(Value::List(items[start as usize..end as usize].to_vec()))
        }
        "sum" => {
            arity(a, 1, 1)?;
            let items = list(&a[0])?;
            if items.is_empty() {
                return Err(Fail::Error);
            }
            let mut t = 0.0;
            for x in items {
                t += to_num(x)?;
            }
            v(Value::Number(t))
        }
        "alltrue" | "anytrue" => {
            arity(a, 1, 1)?;
            let items = list(&a[0])?;
            let mut bools = Vec::new();
            for x in items {
                bools.push(to_bool(x)?);
            }
            v(Value::Bool(if name == "alltrue" {
                bools.iter().all(|b| *b)
            } else {
                bools.iter().any(|b| *b)
            }))
        }
        "setunion" | "setintersection" | "setsubtract" => {
            if a.is_empty() || (name == "setsubtract" && a.len() != 2) {
                return Err(Fail::Error);
            }
            // The sets' element types are unified across all the arguments first.
            let mut all = Vec::new();
            let mut sizes = Vec::new();
            for l in a {
                let items = list(l)?;
                sizes.push(items.len());
                all.extend(items.iter().cloned());
            }
            let all = unify(all);
            let mut sets: Vec<Vec<Node>> = Vec::new();
            let mut rest = all.as_slice();
            for n in sizes {
                let (head, tail) = rest.split_at(n);
                sets.push(head.to_vec());
                rest = tail;
            }
            let contains =
                |set: &[Node], x: &Node| set.iter().any(|y| values_equal(x, y) == Some(true));
            let out: Vec<Node> = match name {
                "setunion" => sets.concat(),
                "setintersection" => sets[0]
                    .iter()
                    .filter(|x| sets[1..].iter().all(|s| contains(s, x)))
                    .cloned()
                    .collect(),
                _ => sets[0]
                    .iter()
                    .filter(|x| !contains(&sets[1], x))
                    .cloned()
                    .collect(),
            };
            v(Value::List(set_of(out)))
        }
        // Numbers.
        "min" | "max" => {
            if a.is_empty() {
                return Err(Fail::Error);
            }
            let nums: Vec<f64> = a.iter().map(to_num).collect::<Result<_, _>>()?;
            let r = if name == "min" {
                nums.iter().copied().fold(f64::INFINITY, f64::min)
            } else {
                nums.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            };
            v(Value::Number(r))
        }
        "abs" => {
            arity(a, 1, 1)?;
            v(Value::Number(to_num(&a[0])?.abs()))
        }
        "ceil" => {
            arity(a, 1, 1)?;
            v(Value::Number(to_num(&a[0])?.ceil() + 0.0))
        }
        "floor" => {
            arity(a, 1, 1)?;
            v(Value::Number(to_num(&a[0])?.floor() + 0.0))
        }
        "signum" => {
            arity(a, 1, 1)?;
            // Terraform's signum takes whole numbers only.
            let n = int(&a[0])? as f64;
            v(Value::Number(if n > 0.0 {
                1.0
            } else if n < 0.0 {
                -1.0
            } else {
                0.0
            }))
        }
        "pow" => {
            arity(a, 2, 2)?;
            let r = to_num(&a[0])?.powf(to_num(&a[1])?);
            if !r.is_finite() {
                return Err(Fail::Error);
            }
            v(Value::Number(r))
        }
        "parseint" => {
            arity(a, 2, 2)?;
            // The first argument must be a string, not a number converted to one.
            if !matches!(a[0].value, Value::String(_) | Value::Json(_)) {
                return Err(Fail::Error);
            }
            let t = to_str(&a[0])?;
            let base = int(&a[1])?;
            if !(2..=62).contains(&base) || base > 36 {
                return Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })));
            }
            let n = i64::from_str_radix(&t, base as u32).map_err(|_| Fail::Error)?;
            v(Value::Number(n as f64))
        }
        _ => Err(Fail::Unknown(Box::new(Unknown {
            reason: UnknownReason::Unsupported,
            ..Unknown::default()
        }))),
    }
}

#[cfg(test)]
mod tests {
    use super::FUNCTIONS;

    /// [`super::lookup`] searches the table by halves: a name out of order would not be found.
    #[test]
    fn the_table_is_sorted_by_name_without_repeats() {
        for pair in FUNCTIONS.windows(2) {
            assert!(
                pair[0].0 < pair[1].0,
                "`{}` before `{}`",
                pair[0].0,
                pair[1].0
            );
        }
    }
}
