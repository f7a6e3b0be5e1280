//! Terraform's built-in functions, with Terraform's semantics, grouped by family as Terraform's
//! `internal/lang/funcs` is, behind one table ([`FUNCTIONS`]). A function over an unknown argument
//! gives an unknown carrying the arguments' references; a function the evaluator does not know
//! gives `Unknown(Unsupported)`. Each family's file takes the helpers below with `use super::*`.

mod collection;
mod conversion;
mod crypto;
mod encoding;
mod filesystem;
mod format;
mod numeric;
mod string;

use std::cmp::Ordering;

use ecs_gpu_hcl::ast::{Expr, Ident, Span};

use crate::eval::{
    deep_refs, deep_unknown, has_error, merge_refs, to_num, to_str, values_equal, EvalContext,
    Evaluate, Fail,
};
use crate::value::{Loc, Node, Object, Unknown, UnknownReason, Value};
use Arguments::{Known, Partial};
use Body::{Files, Lazy, Placed, Values, Whole};

/// What a function gives: a value, or why there is none.
pub(crate) type Outcome = Result<Node, Fail>;

/// What the filesystem functions need of the evaluator besides evaluation: the files they read,
/// inside the checked tree, and the templates they render. The loader answers it
/// ([`crate::files`]).
pub(crate) trait Filesystem: Evaluate {
    /// The bytes of a file `file()` or `filebase64()` reads (at its real path).
    fn read_by_function(&mut self, real: &std::path::Path) -> Result<Vec<u8>, Fail>;
    /// The real path a `file()` argument names, relative to the root module's folder. `mark`:
    /// how the path is hidden, if it is (a message then does not quote it).
    fn resolve_file(
        &mut self,
        cx: &EvalContext<'_>,
        path: &str,
        mark: crate::value::Mark,
        loc: Option<Loc>,
    ) -> Result<std::path::PathBuf, Fail>;
    /// The `templatefile` template at `path`, evaluated with `vars`.
    fn render_template(
        &mut self,
        cx: &EvalContext<'_>,
        path: &str,
        mark: crate::value::Mark,
        vars: Object,
        loc: Option<Loc>,
    ) -> Outcome;
}

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
    Lazy(fn(&mut dyn Filesystem, &EvalContext<'_>, Option<Loc>, &[Expr]) -> Node),
    /// The argument values, to move the one argument into the result, with any error inside it
    /// (`jsonencode`).
    Whole(fn(&mut Vec<Node>) -> Outcome),
    /// The argument values.
    Values(fn(&[Node]) -> Outcome),
    /// The argument values and the call's place, for the values it builds (`jsondecode`).
    Placed(fn(&[Node], Option<Loc>) -> Outcome),
    /// The argument values and the evaluator, to read files.
    Files(fn(&mut dyn Filesystem, &EvalContext<'_>, Option<Loc>, &[Node]) -> Outcome),
}

/// Every function the evaluator knows, sorted by name.
#[rustfmt::skip]
static FUNCTIONS: &[(&str, Arguments, Body)] = &[
    ("abs", Known, Values(numeric::abs)),
    ("alltrue", Known, Values(collection::alltrue)),
    ("anytrue", Known, Values(collection::anytrue)),
    ("base64decode", Known, Values(encoding::base64decode)),
    ("base64encode", Partial, Values(encoding::base64encode)),
    ("base64gzip", Partial, Values(encoding::base64gzip)),
    ("basename", Known, Values(filesystem::basename)),
    ("can", Partial, Lazy(conversion::can)),
    ("ceil", Known, Values(numeric::ceil)),
    ("chomp", Known, Values(string::chomp)),
    ("coalesce", Partial, Values(collection::coalesce)),
    ("coalescelist", Partial, Values(collection::coalescelist)),
    ("compact", Partial, Values(collection::compact)),
    ("concat", Partial, Values(collection::concat)),
    ("contains", Partial, Values(collection::contains)),
    ("dirname", Known, Values(filesystem::dirname)),
    ("distinct", Known, Values(collection::distinct)),
    ("element", Partial, Values(collection::element)),
    ("endswith", Known, Values(string::endswith)),
    ("file", Known, Files(filesystem::file)),
    ("filebase64", Known, Files(filesystem::filebase64)),
    ("fileexists", Known, Files(filesystem::fileexists)),
    ("flatten", Partial, Values(collection::flatten)),
    ("floor", Known, Values(numeric::floor)),
    ("format", Known, Values(string::format)),
    ("formatlist", Known, Values(string::formatlist)),
    ("indent", Known, Values(string::indent)),
    ("index", Known, Values(collection::index)),
    ("join", Partial, Values(string::join)),
    ("jsondecode", Partial, Placed(encoding::jsondecode)),
    ("jsonencode", Partial, Whole(encoding::jsonencode)),
    ("keys", Partial, Values(collection::keys)),
    ("length", Partial, Values(collection::length)),
    ("lookup", Partial, Values(collection::lookup)),
    ("lower", Known, Values(string::lower)),
    ("max", Known, Values(numeric::max)),
    ("merge", Partial, Values(collection::merge)),
    ("min", Known, Values(numeric::min)),
    ("nonsensitive", Partial, Values(conversion::sensitivity)),
    ("one", Partial, Values(collection::one)),
    ("parseint", Known, Values(numeric::parseint)),
    ("pow", Known, Values(numeric::pow)),
    ("range", Known, Values(collection::range)),
    ("regex", Known, Values(string::regex)),
    ("regexall", Known, Values(string::regexall)),
    ("replace", Known, Values(string::replace)),
    ("reverse", Partial, Values(collection::reverse)),
    ("sensitive", Partial, Values(conversion::sensitivity)),
    ("setintersection", Known, Values(collection::setintersection)),
    ("setsubtract", Known, Values(collection::setsubtract)),
    ("setunion", Known, Values(collection::setunion)),
    ("sha1", Known, Values(crypto::sha1)),
    ("sha256", Known, Values(crypto::sha256)),
    ("signum", Known, Values(numeric::signum)),
    ("slice", Partial, Values(collection::slice)),
    ("sort", Known, Values(collection::sort)),
    ("split", Known, Values(string::split)),
    ("startswith", Known, Values(string::startswith)),
    ("strcontains", Known, Values(string::strcontains)),
    ("strrev", Known, Values(string::strrev)),
    ("substr", Known, Values(string::substr)),
    ("sum", Known, Values(collection::sum)),
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
    ("values", Partial, Values(collection::values)),
    ("zipmap", Partial, Values(collection::zipmap)),
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
pub(crate) fn unsupported() -> Fail {
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
    let mut out = distinct_values(items);
    // Sorted only when all elements are of one kind; other kinds compare equal and keep their order.
    let kind = |node: &Node| std::mem::discriminant(&node.value);
    if out.windows(2).all(|pair| kind(&pair[0]) == kind(&pair[1])) {
        out.sort_by(|a, b| match (&a.value, &b.value) {
            (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
            (Value::Number(x), Value::Number(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
            (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
            _ => Ordering::Equal,
        });
    }
    out
}

/// The values without repeats: the first of each set of equal values ([`values_equal`]), in
/// order. A value with an unknown part is kept: it is equal to nothing for certain. Each value is
/// compared only with those of the same hash, so a list of any length takes linear time.
pub(crate) fn distinct_values(items: Vec<Node>) -> Vec<Node> {
    let mut seen: crate::FastMap<u64, smallvec::SmallVec<[usize; 1]>> = crate::FastMap::default();
    let mut out: Vec<Node> = Vec::with_capacity(items.len());
    for item in items {
        if let Some(hash) = known_hash(&item) {
            let same = seen.entry(hash).or_default();
            if same
                .iter()
                .any(|&j| values_equal(&out[j], &item) == Some(true))
            {
                continue;
            }
            same.push(out.len());
        }
        out.push(item);
    }
    out
}

/// The values of a set, for asking whether a value is among them ([`values_equal`]) in constant
/// time on average.
pub(crate) struct ValueSet<'a> {
    items: &'a [Node],
    by_hash: crate::FastMap<u64, smallvec::SmallVec<[usize; 1]>>,
}

impl<'a> ValueSet<'a> {
    pub(crate) fn new(items: &'a [Node]) -> ValueSet<'a> {
        let mut by_hash: crate::FastMap<u64, smallvec::SmallVec<[usize; 1]>> =
            crate::FastMap::default();
        for (i, item) in items.iter().enumerate() {
            if let Some(hash) = known_hash(item) {
                by_hash.entry(hash).or_default().push(i);
            }
        }
        ValueSet { items, by_hash }
    }

    /// Whether a value equal to `x` is certainly in the set.
    pub(crate) fn contains(&self, x: &Node) -> bool {
        known_hash(x)
            .and_then(|hash| self.by_hash.get(&hash))
            .is_some_and(|same| {
                same.iter()
                    .any(|&j| values_equal(&self.items[j], x) == Some(true))
            })
    }
}

/// A hash of a value that is wholly known, the same for any two values [`values_equal`] says are
/// equal (a string and a `jsonencode` of the same text, `0` and `-0`, objects whose keys are in
/// another order); `None` when a part is unknown, as such a value is never equal for certain.
pub(crate) fn known_hash(node: &Node) -> Option<u64> {
    use std::hash::{BuildHasher, Hasher};
    fn go(n: &Node, h: &mut impl Hasher, depth: usize) -> bool {
        if depth > crate::value::MAX_DEPTH {
            return false;
        }
        match &n.value {
            Value::Unknown(_) => false,
            Value::Null => {
                h.write_u8(0);
                true
            }
            Value::Bool(b) => {
                h.write_u8(1);
                h.write_u8(u8::from(*b));
                true
            }
            Value::Number(x) => {
                h.write_u8(2);
                // `0 == -0`.
                h.write_u64(if *x == 0.0 { 0 } else { x.to_bits() });
                true
            }
            Value::String(t) => {
                h.write_u8(3);
                h.write(t.as_bytes());
                h.write_u8(0xff);
                true
            }
            Value::Json(inner) => match crate::json::node_to_json_text(inner) {
                Some(t) => {
                    h.write_u8(3);
                    h.write(t.as_bytes());
                    h.write_u8(0xff);
                    true
                }
                None => false,
            },
            Value::List(items) => {
                h.write_u8(4);
                h.write_usize(items.len());
                items.iter().all(|i| go(i, h, depth + 1))
            }
            Value::Object(o) => {
                h.write_u8(5);
                h.write_usize(o.entries.len());
                crate::json::sorted_entries(o).into_iter().all(|e| {
                    h.write(e.key.as_bytes());
                    h.write_u8(0xff);
                    go(&e.value, h, depth + 1)
                })
            }
        }
    }
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    go(node, &mut h, 0).then(|| h.finish())
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
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
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
                Value::Unknown(unknown) => {
                    let mut unknown = unknown.clone();
                    unknown.derived();
                    merge_refs(&mut unknown.refs, refs_of(&values));
                    return Node::new(Value::Unknown(unknown), loc);
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
    if !matches!(function, Some((Partial, _))) {
        if let Some(unknown) = unknown_of(&values) {
            return Node::new(Value::Unknown(unknown), loc);
        }
    }
    // A result computed from a sensitive argument is sensitive, as in Terraform (over-marking a
    // part that came from elsewhere only hides it in messages). `jsonencode` marks its text and
    // keeps the marks of the parts inside, so a rule may still quote the other fields.
    let mark = values.iter().map(Node::hidden).max().unwrap_or_default();
    let marked = match name.name.as_str() {
        "sensitive" => Some(mark.max(crate::value::Mark::Sensitive)),
        "nonsensitive" => Some(crate::value::Mark::None),
        _ if mark.is_hidden() => Some(mark),
        _ => None,
    };
    let result = match function {
        Some((_, Whole(body))) => body(&mut values),
        Some((_, Values(body))) => body(&values),
        Some((_, Placed(body))) => body(&values, loc),
        Some((_, Files(body))) => body(ev, cx, loc, &values),
        // A function the evaluator does not know (`try` and `can` returned above).
        Some((_, Lazy(_))) | None => Err(unsupported()),
    };
    let result = match (result, marked) {
        (Ok(mut node), Some(mark)) => {
            if matches!(node.value, Value::Json(_)) {
                node.mark = mark;
            } else if mark.is_hidden() {
                node.raise_mark(mark);
            } else {
                node.clear_sensitive();
            }
            Ok(node)
        }
        (result, _) => result,
    };
    match result {
        Ok(node) if matches!(&node.value, Value::String(t) if t.len() > crate::eval::MAX_STRING) => {
            Node::new(unsupported().into_value(), loc)
        }
        Ok(mut node) => {
            if node.loc.is_none() {
                node.loc = loc;
            }
            node
        }
        Err(fail) => Node::new(fail.with_refs(refs_of(&values)).into_value(), loc),
    }
}

#[cfg(test)]
mod tests {
    use super::{lookup, FUNCTIONS};

    /// [`lookup`] searches the table by halves: a name out of order would not be found.
    #[test]
    fn the_table_is_sorted_by_name_and_every_name_is_found() {
        for pair in FUNCTIONS.windows(2) {
            assert!(
                pair[0].0 < pair[1].0,
                "`{}` before `{}`",
                pair[0].0,
                pair[1].0
            );
        }
        for (name, ..) in FUNCTIONS {
            assert!(lookup(name).is_some(), "`{name}` not found");
        }
        assert!(lookup("nosuchfunction").is_none());
    }
}
