//! Terraform's built-in functions, with Terraform's semantics. A function over an unknown argument
//! gives an unknown carrying the arguments' references; a function the evaluator does not know
//! gives `Unknown(Unsupported)`.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use ecs_gpu_hcl::ast::{Expr, Ident, Span};

use crate::eval::{
    deep_refs, deep_unknown, error_value, merge_refs, to_bool, to_num, to_str, values_equal, Cx,
    Fail, Scope,
};
use crate::json::{json_value_to_node, node_to_json_text, sorted_entries, JsonLocs};
use crate::loader::Ev;
use crate::value::{Entry, Loc, Node, Object, Unknown, UnknownReason, Value};

type R = Result<Node, Fail>;

fn v(value: Value) -> R {
    Ok(Node::new(value, None))
}

fn s(text: String) -> R {
    v(Value::String(text.into()))
}

/// Whether an evaluation error happened anywhere inside a value.
pub(crate) fn has_error(n: &Node) -> bool {
    fn go(n: &Node, d: usize) -> bool {
        if d > crate::eval::MAX_DEPTH {
            return false;
        }
        match &n.value {
            Value::Unknown(u) => u.reason == UnknownReason::Error,
            Value::List(items) => items.iter().any(|i| go(i, d + 1)),
            // A discarded duplicate was still evaluated: its error is the object's.
            Value::Object(o) => o
                .entries
                .iter()
                .chain(&o.discarded)
                .any(|e| go(&e.value, d + 1)),
            Value::Json(inner) => go(inner, d + 1),
            _ => false,
        }
    }
    go(n, 0)
}

fn list(n: &Node) -> Result<&[Node], Fail> {
    match &n.value {
        Value::List(items) => Ok(items),
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

fn object(n: &Node) -> Result<&Object, Fail> {
    match &n.value {
        Value::Object(o) => Ok(o),
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

fn int(n: &Node) -> Result<i64, Fail> {
    let f = to_num(n)?;
    if f.fract() != 0.0 || f.abs() > 9e15 {
        return Err(Fail::Error);
    }
    Ok(f as i64)
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
    let mut refs = Vec::new();
    for a in args {
        merge_refs(&mut refs, deep_refs(a));
    }
    Some(Box::new(Unknown {
        reason: first.reason,
        refs,
        ..Unknown::default()
    }))
}

/// Functions that take partly unknown arguments and handle them themselves.
const PARTIAL: &[&str] = &[
    "jsonencode",
    "jsondecode",
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
    "tolist",
    "tomap",
    "slice",
    "reverse",
    "zipmap",
    "sensitive",
    "nonsensitive",
    "base64encode",
    "base64gzip",
    "join",
    "contains",
    "compact",
    "templatefile",
    "type",
];

pub(crate) fn call(
    ev: &mut Ev,
    cx: &Cx<'_>,
    span: Span,
    name: &Ident,
    args: &[Expr],
    expand_final: bool,
) -> Node {
    let loc = cx.loc(span);
    let fname = name.name.as_str();
    // Functions that evaluate their arguments themselves.
    match fname {
        "try" => {
            for a in args {
                let n = ev.eval(cx, a);
                if has_error(&n) {
                    continue;
                }
                if let Some(u) = deep_unknown(&n) {
                    let mut u = u;
                    u.derived();
                    return Node::new(Value::Unknown(u), loc);
                }
                return n;
            }
            return Node::new(error_value(), loc);
        }
        "can" => {
            let Some(a) = args.first() else {
                return Node::new(error_value(), loc);
            };
            let n = ev.eval(cx, a);
            let value = if has_error(&n) {
                Value::Bool(false)
            } else if let Some(u) = deep_unknown(&n) {
                let mut u = u;
                u.derived();
                Value::Unknown(u)
            } else {
                Value::Bool(true)
            };
            return Node::new(value, loc);
        }
        _ => {}
    }
    let mut vals: Vec<Node> = args.iter().map(|a| ev.eval(cx, a)).collect();
    if expand_final {
        match vals.pop() {
            Some(last) => match &last.value {
                Value::List(items) => vals.extend(items.iter().cloned()),
                Value::Unknown(u) => {
                    let mut u = u.clone();
                    u.derived();
                    for a in &vals {
                        merge_refs(&mut u.refs, deep_refs(a));
                    }
                    return Node::new(Value::Unknown(u), loc);
                }
                _ => return Node::new(error_value(), loc),
            },
            None => return Node::new(error_value(), loc),
        }
    }
    // An error anywhere in an argument is an error of the call, as in Terraform. `jsonencode` keeps
    // its structure (and the error inside it) so rules still see the rest of the document.
    if fname != "jsonencode" && vals.iter().any(has_error) {
        let mut refs = Vec::new();
        for a in &vals {
            merge_refs(&mut refs, deep_refs(a));
        }
        return Node::new(Fail::Error.with_refs(refs).into_value(), loc);
    }
    if !PARTIAL.contains(&fname) {
        if let Some(u) = unknown_of(&vals) {
            return Node::new(Value::Unknown(u), loc);
        }
    }
    // A result computed from a sensitive argument is sensitive, as in Terraform (over-marking a
    // part that came from elsewhere only hides it in messages). `jsonencode` marks its text and
    // keeps the marks of the parts inside, so a rule may still quote the other fields.
    let sensitive = match fname {
        "sensitive" => Some(true),
        "nonsensitive" => Some(false),
        _ if vals.iter().any(Node::is_sensitive) => Some(true),
        _ => None,
    };
    let result = if fname == "jsonencode" {
        jsonencode(&mut vals)
    } else {
        builtin(ev, cx, loc, fname, &vals)
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
            Node::new(
                Value::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })),
                loc,
            )
        }
        Ok(mut n) => {
            if n.loc.is_none() {
                n.loc = loc;
            }
            n
        }
        Err(f) => {
            let mut refs = Vec::new();
            for a in &vals {
                merge_refs(&mut refs, deep_refs(a));
            }
            Node::new(f.with_refs(refs).into_value(), loc)
        }
    }
}

/// `jsonencode(x)`: a string that keeps `x`'s structure ([`Value::Json`]). The argument is moved
/// out of `vals`, not copied: container definitions are the biggest values. On failure `vals` is
/// left whole, for the error's references.
fn jsonencode(vals: &mut Vec<Node>) -> R {
    arity(vals, 1, 1)?;
    if let Some(Value::Unknown(u)) = vals.first().map(|n| &n.value) {
        return Err(Fail::Unknown(u.clone()));
    }
    let arg = vals.pop().ok_or(Fail::Error)?;
    v(Value::Json(std::sync::Arc::new(arg)))
}

fn arity(args: &[Node], min: usize, max: usize) -> Result<(), Fail> {
    if args.len() < min || args.len() > max {
        Err(Fail::Error)
    } else {
        Ok(())
    }
}

fn builtin(ev: &mut Ev, cx: &Cx<'_>, loc: Option<Loc>, name: &str, a: &[Node]) -> R {
    match name {
        // Encoding (`jsonencode`: [`jsonencode`]).
        "jsondecode" => {
            arity(a, 1, 1)?;
            // A template with unknown parts: its JSON read with holes, as it will decode.
            if let Value::Unknown(u) = &a[0].value {
                if let Some(n) = u
                    .text
                    .as_deref()
                    .and_then(|t| crate::json_holes::parse(t, loc))
                {
                    return Ok(n);
                }
                let mut u = u.clone();
                u.derived();
                return Err(Fail::Unknown(u));
            }
            let text = to_str(&a[0])?;
            let json = crate::json::parse_json(&text).ok_or(Fail::Error)?;
            Ok(json_value_to_node(json, JsonLocs::Fixed(loc)))
        }
        "base64encode" => {
            arity(a, 1, 1)?;
            match to_str(&a[0]) {
                Ok(t) => s(base64::engine::general_purpose::STANDARD.encode(t.as_bytes())),
                Err(Fail::Unknown(u)) => Err(Fail::Unknown(u)),
                Err(e) => Err(e),
            }
        }
        "base64gzip" => {
            arity(a, 1, 1)?;
            // The compressed bytes are not computed; the text is known to be inside.
            match to_str(&a[0]) {
                Ok(t) => Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    refs: Vec::new(),
                    fragments: vec![t],
                    entries: Vec::new(),
                    text: None,
                }))),
                Err(e) => Err(e),
            }
        }
        "base64decode" => {
            arity(a, 1, 1)?;
            let t = to_str(&a[0])?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(t.as_bytes())
                .map_err(|_| Fail::Error)?;
            s(String::from_utf8(bytes).map_err(|_| Fail::Error)?)
        }
        "urlencode" => {
            arity(a, 1, 1)?;
            let t = to_str(&a[0])?;
            let mut out = String::new();
            for b in t.bytes() {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    out.push(b as char);
                } else if b == b' ' {
                    out.push('+');
                } else {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            s(out)
        }
        // Type conversion.
        "tostring" => {
            arity(a, 1, 1)?;
            match &a[0].value {
                Value::Null => v(Value::Null),
                Value::String(_) => Ok(a[0].clone()),
                _ => s(to_str(&a[0])?),
            }
        }
        "tonumber" => {
            arity(a, 1, 1)?;
            match &a[0].value {
                Value::Null => v(Value::Null),
                Value::Number(_) => Ok(a[0].clone()),
                _ => v(Value::Number(to_num(&a[0])?)),
            }
        }
        "tobool" => {
            arity(a, 1, 1)?;
            match &a[0].value {
                Value::Null => v(Value::Null),
                Value::Bool(_) => Ok(a[0].clone()),
                _ => v(Value::Bool(to_bool(&a[0])?)),
            }
        }
        "tolist" => {
            arity(a, 1, 1)?;
            match &a[0].value {
                Value::Null => v(Value::Null),
                _ => v(Value::List(unify(list(&a[0])?.to_vec()))),
            }
        }
        "toset" => {
            arity(a, 1, 1)?;
            match &a[0].value {
                Value::Null => v(Value::Null),
                _ => v(Value::List(set_of(list(&a[0])?.to_vec()))),
            }
        }
        "tomap" => {
            arity(a, 1, 1)?;
            match &a[0].value {
                Value::Null => v(Value::Null),
                _ => {
                    let o = object(&a[0])?;
                    let vals = unify(o.entries.iter().map(|e| e.value.clone()).collect());
                    let entries = o
                        .entries
                        .iter()
                        .zip(vals)
                        .map(|(e, value)| Entry {
                            key: e.key.clone(),
                            key_loc: e.key_loc,
                            value,
                        })
                        .collect();
                    v(Value::Object(Object {
                        entries,
                        discarded: o.discarded.clone(),
                    }))
                }
            }
        }
        "sensitive" | "nonsensitive" => {
            arity(a, 1, 1)?;
            Ok(a[0].clone())
        }
        "type" => Err(Fail::Unknown(Box::new(Unknown {
            reason: UnknownReason::Unsupported,
            ..Unknown::default()
        }))),
        // Strings.
        "format" => {
            if a.is_empty() {
                return Err(Fail::Error);
            }
            let f = to_str(&a[0])?;
            if a[1..].iter().any(|x| matches!(x.value, Value::Null)) {
                // Terraform's handling of null arguments is not modelled.
                return Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })));
            }
            s(format(&f, &a[1..])?)
        }
        "formatlist" => {
            if a.is_empty() {
                return Err(Fail::Error);
            }
            let f = to_str(&a[0])?;
            let mut n: Option<usize> = None;
            for x in &a[1..] {
                if let Value::List(items) = &x.value {
                    match n {
                        Some(m) if m != items.len() => return Err(Fail::Error),
                        _ => n = Some(items.len()),
                    }
                }
            }
            let n = n.unwrap_or(1);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let row: Vec<Node> = a[1..]
                    .iter()
                    .map(|x| match &x.value {
                        Value::List(items) => items[i].clone(),
                        _ => x.clone(),
                    })
                    .collect();
                out.push(Node::new(Value::String(format(&f, &row)?.into()), None));
            }
            v(Value::List(out))
        }
        "join" => {
            if a.len() < 2 {
                return Err(Fail::Error);
            }
            let sep = to_str(&a[0])?;
            let mut parts: Vec<Result<String, Fail>> = Vec::new();
            for l in &a[1..] {
                for item in list(l)? {
                    if matches!(item.value, Value::Null) {
                        return Err(Fail::Error);
                    }
                    parts.push(to_str(item));
                }
            }
            // A join with unknown elements keeps its known text as fragments.
            let mut text = String::new();
            let mut fragments = Vec::new();
            let mut cur = String::new();
            let mut unknown: Option<Box<Unknown>> = None;
            for (i, p) in parts.into_iter().enumerate() {
                if text.len() > crate::eval::MAX_STRING {
                    return Err(Fail::Unknown(Box::new(Unknown {
                        reason: UnknownReason::Unsupported,
                        ..Unknown::default()
                    })));
                }
                if i > 0 {
                    text.push_str(&sep);
                    cur.push_str(&sep);
                }
                match p {
                    Ok(t) => {
                        text.push_str(&t);
                        cur.push_str(&t);
                    }
                    Err(Fail::Unknown(u)) => {
                        if !cur.is_empty() {
                            let c = std::mem::take(&mut cur);
                            crate::eval::add_fragments(&mut fragments, [&c]);
                        }
                        crate::eval::add_fragments(&mut fragments, &u.fragments);
                        let un = unknown.get_or_insert_with(|| {
                            Box::new(Unknown {
                                reason: u.reason,
                                ..Unknown::default()
                            })
                        });
                        merge_refs(&mut un.refs, u.refs);
                    }
                    Err(Fail::Error) => return Err(Fail::Error),
                }
            }
            match unknown {
                None => s(text),
                Some(mut u) => {
                    crate::eval::add_fragments(&mut fragments, [&cur]);
                    u.fragments = fragments;
                    Err(Fail::Unknown(u))
                }
            }
        }
        "split" => {
            arity(a, 2, 2)?;
            let sep = to_str(&a[0])?;
            let t = to_str(&a[1])?;
            if t.len() > 1 << 20 && (sep.is_empty() || t.matches(sep.as_str()).count() > 1 << 20) {
                return Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })));
            }
            let parts: Vec<String> = if sep.is_empty() {
                t.chars().map(|c| c.to_string()).collect()
            } else {
                t.split(sep.as_str()).map(str::to_string).collect()
            };
            v(Value::List(
                parts
                    .into_iter()
                    .map(|p| Node::new(Value::String(p.into()), None))
                    .collect(),
            ))
        }
        "upper" => {
            arity(a, 1, 1)?;
            s(to_str(&a[0])?.to_uppercase())
        }
        "lower" => {
            arity(a, 1, 1)?;
            s(to_str(&a[0])?.to_lowercase())
        }
        "title" => {
            arity(a, 1, 1)?;
            let t = to_str(&a[0])?;
            let mut out = String::new();
            let mut start = true;
            for c in t.chars() {
                if start && c.is_alphabetic() {
                    out.extend(c.to_uppercase());
                } else {
                    out.push(c);
                }
                start = !(c.is_alphanumeric() || c == '_' || c == '\'');
            }
            s(out)
        }
        "trimspace" => {
            arity(a, 1, 1)?;
            s(to_str(&a[0])?.trim().to_string())
        }
        "trim" => {
            arity(a, 2, 2)?;
            let t = to_str(&a[0])?;
            let cut = to_str(&a[1])?;
            s(t.trim_matches(|c| cut.contains(c)).to_string())
        }
        "trimprefix" => {
            arity(a, 2, 2)?;
            let t = to_str(&a[0])?;
            let p = to_str(&a[1])?;
            s(t.strip_prefix(p.as_str()).unwrap_or(&t).to_string())
        }
        "trimsuffix" => {
            arity(a, 2, 2)?;
            let t = to_str(&a[0])?;
            let p = to_str(&a[1])?;
            s(t.strip_suffix(p.as_str()).unwrap_or(&t).to_string())
        }
        "chomp" => {
            arity(a, 1, 1)?;
            let mut t = to_str(&a[0])?;
            while t.ends_with('\n') || t.ends_with('\r') {
                t.pop();
            }
            s(t)
        }
        "indent" => {
            arity(a, 2, 2)?;
            let n = int(&a[0])?;
            let t = to_str(&a[1])?;
            let pad = " ".repeat(usize::try_from(n).map_err(|_| Fail::Error)?.min(10_000));
            let lines = t.matches('\n').count();
            if lines.saturating_mul(pad.len()).saturating_add(t.len()) > crate::eval::MAX_STRING {
                return Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })));
            }
            s(t.replace('\n', &format!("\n{pad}")))
        }
        "replace" => {
            arity(a, 3, 3)?;
            let t = to_str(&a[0])?;
            let from = to_str(&a[1])?;
            let to = to_str(&a[2])?;
            if from.len() > 1 && from.starts_with('/') && from.ends_with('/') {
                let re = compile(&from[1..from.len() - 1])?;
                return s(re.replace_all(&t, to.as_str()).into_owned());
            }
            let count = if from.is_empty() {
                t.chars().count() + 1
            } else {
                t.matches(from.as_str()).count()
            };
            if count.saturating_mul(to.len()).saturating_add(t.len()) > crate::eval::MAX_STRING {
                return Err(Fail::Unknown(Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                })));
            }
            if from.is_empty() {
                // Go's strings.Replace inserts between every character.
                let mut out = to.clone();
                for c in t.chars() {
                    out.push(c);
                    out.push_str(&to);
                }
                return s(out);
            }
            s(t.replace(&from, &to))
        }
        "substr" => {
            arity(a, 3, 3)?;
            let t = to_str(&a[0])?;
            let chars: Vec<char> = t.chars().collect();
            let len = chars.len() as i64;
            let mut off = int(&a[1])?;
            let mut n = int(&a[2])?;
            let from_end = off < 0;
            if off < 0 {
                off = (off + len).max(0);
            }
            if off > len {
                return s(String::new());
            }
            // Terraform's quirk: a length of 0 from a negative offset takes the rest.
            if n < 0 || off + n > len || (from_end && n == 0) {
                n = len - off;
            }
            s(chars[off as usize..(off + n) as usize].iter().collect())
        }
        "strrev" => {
            arity(a, 1, 1)?;
            s(to_str(&a[0])?.chars().rev().collect())
        }
        "startswith" => {
            arity(a, 2, 2)?;
            v(Value::Bool(
                to_str(&a[0])?.starts_with(to_str(&a[1])?.as_str()),
            ))
        }
        "endswith" => {
            arity(a, 2, 2)?;
            v(Value::Bool(
                to_str(&a[0])?.ends_with(to_str(&a[1])?.as_str()),
            ))
        }
        "strcontains" => {
            arity(a, 2, 2)?;
            v(Value::Bool(
                to_str(&a[0])?.contains(to_str(&a[1])?.as_str()),
            ))
        }
        "regex" | "regexall" => {
            arity(a, 2, 2)?;
            let re = compile(&to_str(&a[0])?)?;
            let t = to_str(&a[1])?;
            let one = |caps: regex::Captures<'_>| -> Node {
                let names: Vec<Option<&str>> = re.capture_names().skip(1).collect();
                let value = if names.is_empty() {
                    Value::String(caps.get(0).map_or("", |m| m.as_str()).to_string().into())
                } else if names.iter().any(Option::is_some) {
                    let mut obj = Object::default();
                    for (i, n) in names.iter().enumerate() {
                        if let Some(n) = n {
                            obj.entries.push(Entry {
                                key: (*n).to_string(),
                                key_loc: None,
                                value: caps.get(i + 1).map_or(Node::new(Value::Null, None), |m| {
                                    Node::new(Value::String(m.as_str().to_string().into()), None)
                                }),
                            });
                        }
                    }
                    obj.entries.sort_by(|x, y| x.key.cmp(&y.key));
                    Value::Object(obj)
                } else {
                    Value::List(
                        (1..=names.len())
                            .map(|i| {
                                caps.get(i).map_or(Node::new(Value::Null, None), |m| {
                                    Node::new(Value::String(m.as_str().to_string().into()), None)
                                })
                            })
                            .collect(),
                    )
                };
                Node::new(value, None)
            };
            if name == "regex" {
                let caps = re.captures(&t).ok_or(Fail::Error)?;
                Ok(one(caps))
            } else {
                if re.find_iter(&t).take(100_000).count() >= 100_000 {
                    return Err(Fail::Unknown(Box::new(Unknown {
                        reason: UnknownReason::Unsupported,
                        ..Unknown::default()
                    })));
                }
                v(Value::List(re.captures_iter(&t).map(one).collect()))
            }
        }
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
        // Files.
        "file" | "filebase64" | "fileexists" => {
            arity(a, 1, 1)?;
            let p = to_str(&a[0])?;
            let real = ev.resolve_file(cx, &p, loc)?;
            if name == "fileexists" {
                return v(Value::Bool(real.is_file()));
            }
            let bytes = ev.read_by_function(&real)?;
            if name == "filebase64" {
                return s(base64::engine::general_purpose::STANDARD.encode(&bytes));
            }
            s(String::from_utf8(bytes).map_err(|_| Fail::Error)?)
        }
        "templatefile" => {
            arity(a, 2, 2)?;
            if let Value::Unknown(u) = &a[0].value {
                return Err(Fail::Unknown(u.clone()));
            }
            let p = to_str(&a[0])?;
            let vars = match &a[1].value {
                Value::Object(o) => o.clone(),
                Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                _ => return Err(Fail::Error),
            };
            ev.templatefile(cx, &p, vars, loc)
        }
        "basename" => {
            arity(a, 1, 1)?;
            let p = to_str(&a[0])?;
            s(Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| {
                    if p.starts_with('/') {
                        "/".into()
                    } else {
                        ".".into()
                    }
                }))
        }
        "dirname" => {
            arity(a, 1, 1)?;
            let p = to_str(&a[0])?;
            let d = Path::new(&p)
                .parent()
                .map(|d| d.to_string_lossy().into_owned());
            s(match d {
                Some(d) if d.is_empty() => ".".into(),
                Some(d) => d,
                None => {
                    if p.starts_with('/') {
                        "/".into()
                    } else {
                        ".".into()
                    }
                }
            })
        }
        _ => Err(Fail::Unknown(Box::new(Unknown {
            reason: UnknownReason::Unsupported,
            ..Unknown::default()
        }))),
    }
}

/// A regular expression in RE2 syntax (Terraform's); one this engine rejects is unsupported.
fn compile(pattern: &str) -> Result<regex::Regex, Fail> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|_| {
            Fail::Unknown(Box::new(Unknown {
                reason: UnknownReason::Unsupported,
                ..Unknown::default()
            }))
        })
}

impl Ev {
    /// The bytes of a file `file()` or `filebase64()` reads, opened once and checked on that
    /// handle (a regular file, at most [`crate::MAX_FILE_BYTES`]) as every file is
    /// ([`crate::walk::read_bytes`]). A file that cannot be read is a problem with its place,
    /// said once, and the call fails.
    fn read_by_function(&mut self, real: &Path) -> Result<Vec<u8>, Fail> {
        let read = crate::walk::read_bytes_inside(real, &|p| self.may_read(p));
        match read {
            Ok(bytes) => {
                self.read_by_functions
                    .insert(real.as_os_str().to_os_string());
                Ok(bytes)
            }
            Err(e) => {
                let display = crate::walk::display_path(real, &self.cwd);
                if !self.problems.iter().any(|p| p.path == display) {
                    self.problems.push(e.problem(display));
                }
                Err(Fail::Error)
            }
        }
    }

    /// A `file()` path: relative to the root module's folder (where Terraform runs), and only
    /// inside the checked tree.
    fn resolve_file(&mut self, cx: &Cx<'_>, p: &str, loc: Option<Loc>) -> Result<PathBuf, Fail> {
        let base = match self.insts.get(cx.inst) {
            Some(i) => i.root_dir.clone(),
            None => self.cwd.clone(),
        };
        let joined = base.join(p);
        let real = std::fs::canonicalize(&joined).map_err(|_| Fail::Error)?;
        if !self.may_read(&real) {
            self.notes.push(crate::model::LoadNote {
                kind: crate::model::LoadNoteKind::FileOutsideTree,
                message: format!("`{p}` is outside the checked folders and is not read"),
                loc,
            });
            // Terraform would read it: unknown, not an error (`try` must not take its fallback).
            return Err(Fail::Unknown(Box::new(Unknown {
                reason: UnknownReason::Unsupported,
                ..Unknown::default()
            })));
        }
        Ok(real)
    }

    fn templatefile(&mut self, cx: &Cx<'_>, p: &str, vars: Object, loc: Option<Loc>) -> R {
        let real = self.resolve_file(cx, p, loc)?;
        if self.template_stack.contains(&real) || self.template_stack.len() > 8 {
            return Err(Fail::Error);
        }
        let entry = match self.templates.get(real.as_os_str()) {
            Some(e) => e.clone(),
            None => {
                let display = crate::walk::display_path(&real, &self.cwd);
                let read = crate::walk::read_text_inside(&real, &|p| self.may_read(p));
                let e = match read {
                    Ok(text) => match crate::parse::template_result(&text) {
                        Ok(t) => {
                            let fid = self.add_file(&real, display, text, Vec::new());
                            Some((fid, std::rc::Rc::new(t)))
                        }
                        Err(err) => {
                            self.parse_problem(display, &text, &err);
                            None
                        }
                    },
                    Err(e) => {
                        self.problems.push(e.problem(display));
                        None
                    }
                };
                self.templates
                    .insert(real.as_os_str().to_os_string(), e.clone());
                e
            }
        };
        self.read_by_functions
            .insert(real.as_os_str().to_os_string());
        let Some((fid, template)) = entry else {
            return Err(Fail::Error);
        };
        let scope = Scope {
            vars: vars.entries.into_iter().map(|e| (e.key, e.value)).collect(),
            parent: None,
        };
        let tcx = Cx {
            inst: cx.inst,
            file: fid,
            scope: &scope,
            closed: true,
        };
        self.template_stack.push(real);
        let span = Span::new(
            0,
            self.files
                .get(fid.0 as usize)
                .map_or(0, |f| f.lines.text_len()),
        );
        let n = self.eval_template(&tcx, &template, span);
        self.template_stack.pop();
        Ok(n)
    }
}

/// Terraform's `format`: `%%`, `%v`, `%#v`, `%s`, `%q`, `%d`, `%f`, `%e`, `%g`, `%t`, `%b`, `%o`,
/// `%x`, `%X`, with flags, width, precision and `%[n]` argument indexes.
fn format(f: &str, args: &[Node]) -> Result<String, Fail> {
    let chars: Vec<char> = f.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut next_arg = 0usize;
    let mut used_any = vec![false; args.len()];
    while i < chars.len() {
        if out.len() > crate::eval::MAX_STRING {
            return Err(Fail::Unknown(Box::new(Unknown {
                reason: UnknownReason::Unsupported,
                ..Unknown::default()
            })));
        }
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&c2) = chars.get(i) else {
            return Err(Fail::Error);
        };
        if c2 == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        let (mut minus, mut plus, mut zero, mut space, mut sharp) =
            (false, false, false, false, false);
        while let Some(&fl) = chars.get(i) {
            match fl {
                '-' => minus = true,
                '+' => plus = true,
                '0' => zero = true,
                ' ' => space = true,
                '#' => sharp = true,
                _ => break,
            }
            i += 1;
        }
        if chars.get(i) == Some(&'[') {
            let close = chars[i..]
                .iter()
                .position(|c| *c == ']')
                .ok_or(Fail::Error)?
                + i;
            let n: usize = chars[i + 1..close]
                .iter()
                .collect::<String>()
                .parse()
                .map_err(|_| Fail::Error)?;
            if n == 0 {
                return Err(Fail::Error);
            }
            next_arg = n - 1;
            i = close + 1;
        }
        let mut width: Option<usize> = None;
        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            width = Some(
                width
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(d as usize)
                    .min(10_000),
            );
            i += 1;
        }
        let mut prec: Option<usize> = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            prec = Some(0);
            while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                prec = Some(
                    prec.unwrap_or(0)
                        .saturating_mul(10)
                        .saturating_add(d as usize)
                        .min(10_000),
                );
                i += 1;
            }
        }
        let Some(&verb) = chars.get(i) else {
            return Err(Fail::Error);
        };
        i += 1;
        let arg = args.get(next_arg).ok_or(Fail::Error)?;
        used_any[next_arg] = true;
        next_arg += 1;
        let mut numeric = false;
        let body = match verb {
            'v' => {
                if sharp {
                    node_to_json_text(arg).ok_or(Fail::Error)?
                } else {
                    match &arg.value {
                        Value::Null => "null".into(),
                        Value::List(_) | Value::Object(_) => {
                            node_to_json_text(arg).ok_or(Fail::Error)?
                        }
                        Value::Number(_) => {
                            numeric = true;
                            to_str(arg)?
                        }
                        _ => to_str(arg)?,
                    }
                }
            }
            's' => {
                let t = match &arg.value {
                    Value::Null | Value::List(_) | Value::Object(_) => return Err(Fail::Error),
                    _ => to_str(arg)?,
                };
                match prec {
                    Some(p) => t.chars().take(p).collect(),
                    None => t,
                }
            }
            'q' => {
                let t = match &arg.value {
                    Value::Null | Value::List(_) | Value::Object(_) => return Err(Fail::Error),
                    _ => to_str(arg)?,
                };
                let mut q = String::new();
                crate::json::write_json_string(&t, &mut q);
                q
            }
            't' => to_bool(arg)?.to_string(),
            'd' | 'b' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                numeric = true;
                let n = to_num(arg)?;
                match verb {
                    'd' | 'b' | 'o' | 'x' | 'X' => {
                        if n.fract() != 0.0 || n.abs() > 9e15 {
                            return Err(Fail::Error);
                        }
                        let m = n.abs() as u64;
                        let digits = match verb {
                            'd' => m.to_string(),
                            'b' => format!("{m:b}"),
                            'o' => format!("{m:o}"),
                            'x' => format!("{m:x}"),
                            _ => format!("{m:X}"),
                        };
                        let digits = match prec {
                            Some(p) if digits.len() < p => {
                                format!("{}{digits}", "0".repeat(p - digits.len()))
                            }
                            _ => digits,
                        };
                        sign(n < 0.0, plus, space) + &digits
                    }
                    'f' | 'F' => {
                        let p = prec.unwrap_or(6);
                        let t = format!("{:.*}", p, n.abs());
                        sign(n < 0.0 || (n == 0.0 && n.is_sign_negative()), plus, space) + &t
                    }
                    'e' | 'E' => {
                        let p = prec.unwrap_or(6);
                        let t = go_exp(n.abs(), p);
                        let t = if verb == 'E' { t.to_uppercase() } else { t };
                        sign(n < 0.0, plus, space) + &t
                    }
                    _ => {
                        // %g: the shortest representation.
                        let t = match prec {
                            None => {
                                let a = n.abs();
                                if a != 0.0 && !(1e-4..1e21).contains(&a) {
                                    let t = format!("{a:e}");
                                    go_exp_fix(&t)
                                } else {
                                    format!("{a}")
                                }
                            }
                            Some(_) => {
                                return Err(Fail::Unknown(Box::new(Unknown {
                                    reason: UnknownReason::Unsupported,
                                    ..Unknown::default()
                                })))
                            }
                        };
                        sign(n < 0.0, plus, space) + &t
                    }
                }
            }
            _ => return Err(Fail::Error),
        };
        let body = if plus && numeric && verb == 'v' && !body.starts_with('-') {
            format!("+{body}")
        } else {
            body
        };
        let len = body.chars().count();
        match width {
            Some(w) if w > len => {
                let padn = w - len;
                if minus {
                    out.push_str(&body);
                    out.push_str(&" ".repeat(padn));
                } else if zero && numeric {
                    let (sg, rest) = if body.starts_with(['-', '+', ' ']) {
                        body.split_at(1)
                    } else {
                        ("", body.as_str())
                    };
                    out.push_str(sg);
                    out.push_str(&"0".repeat(padn));
                    out.push_str(rest);
                } else {
                    out.push_str(&" ".repeat(padn));
                    out.push_str(&body);
                }
            }
            _ => out.push_str(&body),
        }
    }
    if used_any.iter().any(|u| !u) {
        return Err(Fail::Error);
    }
    Ok(out)
}

fn sign(neg: bool, plus: bool, space: bool) -> String {
    if neg {
        "-".into()
    } else if plus {
        "+".into()
    } else if space {
        " ".into()
    } else {
        String::new()
    }
}

/// `%e` as Go writes it: at least two exponent digits, with a sign.
fn go_exp(n: f64, prec: usize) -> String {
    go_exp_fix(&format!("{:.*e}", prec, n))
}

fn go_exp_fix(t: &str) -> String {
    match t.split_once('e') {
        Some((m, e)) => {
            let (sg, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            let digits = if digits.len() < 2 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            format!("{m}e{sg}{digits}")
        }
        None => t.to_string(),
    }
}
