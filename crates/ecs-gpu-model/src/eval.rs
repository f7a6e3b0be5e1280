//! Static evaluation of expressions, the way Terraform would before apply. What cannot be known is
//! [`Value::Unknown`] with the references it depends on; nothing here panics or recurses without
//! bound (cycles and runaway depth end as `Unknown(Error)`).

use ecs_gpu_hcl::ast::{
    BinaryOp, Expr, ExprKind, Ident, ObjectKey, Span, Template, TemplatePart, UnaryOp,
};
use smallvec::SmallVec;

use crate::budget::{charge_built, charge_copy, charge_work};
use crate::json::{object_from, sorted_entries};
// The value helpers the functions name as the evaluator's.
pub(crate) use crate::value::{
    add_fragments, deep_refs, deep_unknown, error_value, merge_refs, MAX_DEPTH,
};
use crate::value::{
    clamp_number, format_number, unknown, Entry, Hole, HoledText, InstanceKey, Loc, Mark, Node,
    Object, Reference, Source, Unknown, UnknownReason, Value, MAX_FRAGMENTS, MAX_FRAGMENT_COUNT,
};
use crate::FileId;

/// Longest string the evaluator builds (no Terraform file or user data comes near it).
pub(crate) const MAX_STRING: usize = 16 << 20;

/// Name under which a splat's current element is bound (not a valid identifier).
const SPLAT: &str = "\0splat";

/// Names bound by `for` expressions, `count`, `each`, dynamic-block iterators and `templatefile`.
#[derive(Debug)]
pub(crate) struct Scope<'a> {
    pub vars: Vec<(String, Node)>,
    pub parent: Option<&'a Scope<'a>>,
}

pub(crate) static EMPTY: Scope<'static> = Scope {
    vars: Vec::new(),
    parent: None,
};

impl<'a> Scope<'a> {
    pub fn child(parent: &'a Scope<'a>, vars: Vec<(String, Node)>) -> Scope<'a> {
        Scope {
            vars,
            parent: Some(parent),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Node> {
        let mut s = Some(self);
        while let Some(scope) = s {
            if let Some((_, v)) = scope.vars.iter().rev().find(|(n, _)| n == name) {
                return Some(v);
            }
            s = scope.parent;
        }
        None
    }
}

/// Where an expression is evaluated.
#[derive(Clone, Copy)]
pub(crate) struct EvalContext<'a> {
    /// Module instance index.
    pub inst: usize,
    pub file: FileId,
    pub scope: &'a Scope<'a>,
    /// In a `templatefile` template or a `.tfvars` file: only the scope's names exist.
    pub closed: bool,
    /// A variable's value from a variable file, a `--var`, its `default` or the conversion to its
    /// `type`: literal values, charged when read (a variable file's to the variable files'
    /// budget, a default with the syntax tree it is written in), not as they are built.
    pub variable_file: bool,
}

impl<'a> EvalContext<'a> {
    pub fn new(inst: usize, file: FileId, scope: &'a Scope<'a>, closed: bool) -> EvalContext<'a> {
        EvalContext {
            inst,
            file,
            scope,
            closed,
            variable_file: false,
        }
    }

    /// The context of a variable's value ([`EvalContext::variable_file`]).
    pub fn for_variable_file(self) -> EvalContext<'a> {
        EvalContext {
            variable_file: true,
            ..self
        }
    }

    pub fn with_scope<'b>(&self, scope: &'b Scope<'b>) -> EvalContext<'b>
    where
        'a: 'b,
    {
        EvalContext { scope, ..*self }
    }

    pub fn loc(&self, span: Span) -> Option<Loc> {
        Some(Loc {
            file: self.file,
            span,
        })
    }
}

/// Why an operation gave no known value.
#[derive(Debug, Clone)]
pub(crate) enum Fail {
    Unknown(Box<Unknown>),
    /// Terraform would report an error here.
    Error,
}

impl Fail {
    pub fn into_value(self) -> Value {
        match self {
            // A failed operation's unknown: not the operand itself, so none of its entries.
            Fail::Unknown(mut u) => {
                u.entries.clear();
                u.text = None;
                Value::Unknown(u)
            }
            Fail::Error => Value::Unknown(Box::new(Unknown {
                reason: UnknownReason::Error,
                ..Unknown::default()
            })),
        }
    }

    pub fn with_refs(self, refs: Vec<Reference>) -> Fail {
        match self {
            Fail::Unknown(mut u) => {
                merge_refs(&mut u.refs, refs);
                u.entries.clear();
                u.text = None;
                Fail::Unknown(u)
            }
            Fail::Error => Fail::Unknown(Box::new(Unknown {
                reason: UnknownReason::Error,
                refs,
                ..Unknown::default()
            })),
        }
    }
}

/// Whether an evaluation error happened anywhere inside a value.
pub(crate) fn has_error(n: &Node) -> bool {
    fn go(n: &Node, d: usize) -> bool {
        if d > MAX_DEPTH {
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

/// A node's value as a string, as Terraform converts for a template or a string argument.
pub(crate) fn to_str(node: &Node) -> Result<String, Fail> {
    match &node.value {
        Value::String(s) => Ok(s.to_string()),
        Value::Number(n) => Ok(format_number(*n)),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Json(inner) => match crate::json::node_to_json_text(inner) {
            Some(t) => Ok(t),
            None => Err(Fail::Unknown(deep_unknown(inner).unwrap_or_default())),
        },
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        Value::Null | Value::List(_) | Value::Object(_) => Err(Fail::Error),
    }
}

/// A string as Terraform parses a number (`"5"`, `"-1.5"`, `"1e3"`).
pub(crate) fn parse_number(s: &str) -> Option<f64> {
    let t = s;
    if t.is_empty()
        || t.chars()
            .any(|c| !(c.is_ascii_digit() || "+-.eE".contains(c)))
    {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

pub(crate) fn to_num(node: &Node) -> Result<f64, Fail> {
    match &node.value {
        Value::Number(n) => Ok(*n),
        Value::String(s) => parse_number(s).ok_or(Fail::Error),
        Value::Json(_) => parse_number(&to_str(node)?).ok_or(Fail::Error),
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

pub(crate) fn to_bool(node: &Node) -> Result<bool, Fail> {
    match &node.value {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "true" || s == "1" => Ok(true),
        Value::String(s) if s == "false" || s == "0" => Ok(false),
        Value::Json(_) => match to_str(node)?.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(Fail::Error),
        },
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

/// Terraform's equality: types must agree (a number never equals a string).
pub(crate) fn values_equal(a: &Node, b: &Node) -> Option<bool> {
    fn eq(a: &Node, b: &Node, depth: usize) -> Option<bool> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match (&a.value, &b.value) {
            (Value::Unknown(_), _) | (_, Value::Unknown(_)) => return None,
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Bool(x), Value::Bool(y)) => x == y,
            (Value::Number(x), Value::Number(y)) => x == y,
            (Value::String(_) | Value::Json(_), Value::String(_) | Value::Json(_)) => {
                let x = to_str(a).ok()?;
                let y = to_str(b).ok()?;
                x == y
            }
            (Value::List(x), Value::List(y)) => {
                if x.len() != y.len() {
                    return Some(false);
                }
                let mut all = true;
                for (i, j) in x.iter().zip(y) {
                    match eq(i, j, depth + 1) {
                        Some(true) => {}
                        Some(false) => all = false,
                        None => return None,
                    }
                }
                all
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.entries.len() != y.entries.len() {
                    return Some(false);
                }
                // Paired by key in key order (each object has each key once): no search of `y`
                // for each key of `x`.
                let (xs, ys) = (sorted_entries(x), sorted_entries(y));
                if xs.iter().zip(&ys).any(|(a, b)| a.key != b.key) {
                    return Some(false);
                }
                let mut all = true;
                for (a, b) in xs.iter().zip(&ys) {
                    match eq(&a.value, &b.value, depth + 1) {
                        Some(true) => {}
                        Some(false) => all = false,
                        None => return None,
                    }
                }
                all
            }
            _ => false,
        })
    }
    eq(a, b, 0)
}

/// A `for`-expression or directive collection as (key, value) pairs in Terraform's order.
pub(crate) fn iterate(node: &Node) -> Result<Vec<(Node, Node)>, Fail> {
    match &node.value {
        Value::List(items) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| (Node::new(Value::Number(i as f64), v.loc), v.clone()))
            .collect()),
        Value::Object(o) => Ok(sorted_entries(o)
            .into_iter()
            .map(|e| {
                (
                    Node::new(Value::String(e.key.clone().into()), e.key_loc),
                    e.value.clone(),
                )
            })
            .collect()),
        Value::Unknown(u) => Err(Fail::Unknown(u.clone())),
        _ => Err(Fail::Error),
    }
}

/// A step of a traversal after its root name.
pub(crate) enum Step<'e> {
    Attr(&'e str),
    Index(Node),
}

/// Collects a partly known string: its text when all known, else its known fragments.
#[derive(Default)]
pub(crate) struct TemplateAcc {
    text: String,
    unknown: Option<Box<Unknown>>,
    error: bool,
    refs: Vec<Reference>,
    fragments: Vec<String>,
    /// Where the known text since the last unknown part starts in `text`: the fragment in
    /// progress.
    current: usize,
    /// The most hidden mark of what went into the text (or decided a directive).
    mark: Mark,
    /// Where the unknown parts are in `text`, kept for reading the text as JSON with holes
    /// ([`Unknown::text`]).
    holes: Vec<Hole>,
    /// References the holes hold, counted against [`MAX_HOLE_REFS`].
    hole_refs: usize,
    /// Too many holes: the text is not kept.
    holes_overflow: bool,
    /// The bytes of `fragments`, kept as they grow: a template with thousands of unknown parts
    /// must not sum them again at each.
    fragment_bytes: usize,
    /// Where runs of `text` are written (literals copied byte for byte), for the places of values
    /// read from it.
    sources: Vec<Source>,
}

/// Most holes one template keeps for reading it as JSON (past them, it is only unknown).
const MAX_HOLES: usize = 1 << 14;
/// Most references its holes hold together.
const MAX_HOLE_REFS: usize = 1 << 16;

impl TemplateAcc {
    fn push(&mut self, s: &str) {
        if self.text.len().saturating_add(s.len()) > MAX_STRING {
            // A string that doubles itself through locals must not take all memory.
            self.push_unknown(
                Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                }),
                None,
            );
            return;
        }
        self.text.push_str(s);
    }

    /// Ends the fragment in progress: it is a known fragment.
    fn end_fragment(&mut self) {
        let end = self.text.len();
        if self.current < end {
            let current = self
                .text
                .get(self.current..)
                .unwrap_or_default()
                .to_string();
            self.add_fragment(current);
        }
        self.current = end;
    }

    /// Adds a known fragment within [`MAX_FRAGMENTS`] and [`MAX_FRAGMENT_COUNT`] (as
    /// [`add_fragments`] does, in constant time).
    fn add_fragment(&mut self, f: String) {
        if f.is_empty()
            || self.fragments.len() >= MAX_FRAGMENT_COUNT
            || self.fragment_bytes.saturating_add(f.len()) > MAX_FRAGMENTS
        {
            return;
        }
        self.fragment_bytes += f.len();
        self.fragments.push(f);
    }

    /// An unknown part at `loc`: a hole in the text.
    fn push_unknown(&mut self, u: Box<Unknown>, loc: Option<Loc>) {
        let hole = Unknown {
            reason: u.reason,
            refs: u.refs.clone(),
            ..Unknown::default()
        };
        self.hole(Node::new(Value::Unknown(Box::new(hole)), loc));
        self.note_unknown(u);
    }

    /// Literal text about to be pushed at the end of the text is written at `loc`.
    fn source(&mut self, at: usize, loc: Loc) {
        if self.sources.len() < MAX_HOLES {
            self.sources.push(Source { at, loc });
        }
    }

    /// A hole at the end of the text so far.
    fn hole(&mut self, node: Node) {
        if self.holes_overflow {
            return;
        }
        self.hole_refs += node.refs().len();
        if self.holes.len() >= MAX_HOLES || self.hole_refs > MAX_HOLE_REFS {
            self.holes_overflow = true;
            self.holes = Vec::new();
            return;
        }
        self.holes.push(Hole {
            at: self.text.len(),
            node,
        });
    }

    /// An interpolation that is not known: a template's text is spliced in with its holes; a
    /// partly unknown `jsonencode` is a hole that holds its value; anything else, a plain hole.
    fn push_interpolation(&mut self, u: Box<Unknown>, v: &Node) {
        if let (Some(inner), Value::Unknown(_)) = (u.text.as_ref().filter(|t| !t.base64), &v.value)
        {
            let inner = inner.clone();
            let base = self.text.len();
            let mut pos = 0;
            for h in &inner.holes {
                self.push(inner.text.get(pos..h.at).unwrap_or_default());
                pos = h.at;
                self.end_fragment();
                self.hole(h.node.clone());
            }
            self.push(inner.text.get(pos..).unwrap_or_default());
            if self.text.len() == base + inner.text.len() {
                for s in &inner.sources {
                    self.source(base + s.at, s.loc);
                }
            }
            // The inner template's known text was pushed as text; keep only the rest.
            let mut u = u;
            u.fragments.clear();
            u.text = None;
            self.note_unknown(u);
            return;
        }
        if matches!(v.value, Value::Json(_)) {
            self.hole(v.clone());
            self.note_unknown(u);
            return;
        }
        self.push_unknown(u, v.loc);
    }

    /// Records an unknown part's reason, references and fragments (ending the known fragment).
    fn note_unknown(&mut self, u: Box<Unknown>) {
        if u.reason == UnknownReason::Error {
            self.error = true;
        }
        self.end_fragment();
        for f in &u.fragments {
            self.add_fragment(f.clone());
        }
        merge_refs(&mut self.refs, u.refs.clone());
        if self.unknown.is_none() {
            self.unknown = Some(u);
        }
    }

    fn finish(mut self) -> Value {
        if self.error {
            return unknown(UnknownReason::Error, self.refs);
        }
        match self.unknown.take() {
            None => Value::String(self.text.into()),
            Some(u) => {
                self.end_fragment();
                // Only text with structure is kept for reading with holes: JSON, and lines or
                // assignments (a script or configuration, read line by line as user data).
                let structured = || {
                    self.text
                        .bytes()
                        .any(|b| matches!(b, b'{' | b'[' | b'\n' | b'='))
                };
                let text =
                    (!self.holes_overflow && !self.holes.is_empty() && structured()).then(|| {
                        std::sync::Arc::new(HoledText {
                            text: self.text,
                            holes: self.holes,
                            sources: self.sources,
                            base64: false,
                        })
                    });
                Value::Unknown(Box::new(Unknown {
                    reason: u.reason,
                    refs: self.refs,
                    fragments: self.fragments,
                    entries: Vec::new(),
                    text,
                }))
            }
        }
    }
}

/// What an expression names outside its own scope, and what its function calls do: the evaluator
/// asks, the module expansion answers, as Terraform's `lang.Scope` asks its `Data`. The evaluator
/// itself knows no modules, files or workers.
pub(crate) trait Data {
    /// `root` followed by `steps` (`var.x`, `local.y`, `module.m.out`, `data.t.n.a`, `aws_x.y.arn`,
    /// `path.module`...), for a root name the scope does not bind.
    fn reference(&mut self, cx: &EvalContext<'_>, root: &Ident, steps: &[Step<'_>]) -> Node;
    /// A function call with its arguments unevaluated (`try` and `can` evaluate their own).
    fn call_function(
        &mut self,
        cx: &EvalContext<'_>,
        span: Span,
        name: &Ident,
        args: &[Expr],
        expand_final: bool,
    ) -> Node;
    /// How deeply evaluations are nested now, across expressions, templates and modules
    /// (bounded by [`MAX_DEPTH`]).
    fn depth(&mut self) -> &mut usize;
}

/// Evaluation of expressions and templates, for anything that answers [`Data`].
pub(crate) trait Evaluate: Data {
    fn eval(&mut self, cx: &EvalContext<'_>, e: &Expr) -> Node {
        if *self.depth() >= MAX_DEPTH {
            // Not an error Terraform would make: `try` must not pick its fallback over it.
            return Node::new(
                unknown(UnknownReason::Unsupported, Vec::new()),
                cx.loc(e.span),
            );
        }
        *self.depth() += 1;
        let n = self.eval_inner(cx, e);
        *self.depth() -= 1;
        if !charge_built(&n, n.loc.or(cx.loc(e.span))) {
            return Node::new(unknown(UnknownReason::Unsupported, Vec::new()), n.loc);
        }
        n
    }

    fn eval_inner(&mut self, cx: &EvalContext<'_>, e: &Expr) -> Node {
        let loc = cx.loc(e.span);
        let value = match &e.kind {
            ExprKind::Null => Value::Null,
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Number(s) => match s.parse::<f64>() {
                Ok(f) => Value::Number(clamp_number(f)),
                Err(_) => error_value(),
            },
            ExprKind::Template(t) => return self.eval_template(cx, t, e.span),
            ExprKind::Variable(_) | ExprKind::GetAttr { .. } | ExprKind::Index { .. } => {
                return self.eval_traversal(cx, e)
            }
            ExprKind::Call {
                name,
                args,
                expand_final,
            } => return self.call_function(cx, e.span, name, args, *expand_final),
            // A list or an object built is charged its items: built once per instance and per
            // `for` iteration, small trees add up to far more than the iterations alone are
            // charged (bench/README.md, the amplification input).
            ExprKind::Tuple(items)
                if !cx.variable_file && !charge_work(items.len() as u64, loc) =>
            {
                unknown(UnknownReason::Unsupported, Vec::new())
            }
            ExprKind::Object(items)
                if !cx.variable_file && !charge_work(items.len() as u64, loc) =>
            {
                unknown(UnknownReason::Unsupported, Vec::new())
            }
            ExprKind::Tuple(items) => Value::List(items.iter().map(|i| self.eval(cx, i)).collect()),
            ExprKind::Object(items) => {
                let mut entries = Vec::with_capacity(items.len());
                let mut key_fail: Option<Fail> = None;
                // A key is no node that could carry the mark: the object carries it, as
                // Terraform marks an object built with a sensitive key.
                let mut secret_key = Mark::None;
                for item in items {
                    let (key, key_loc) = match &item.key {
                        ObjectKey::Name(i) => (Ok(i.name.clone()), cx.loc(i.span)),
                        ObjectKey::Expr(k) => {
                            let kn = self.eval(cx, k);
                            secret_key = secret_key.max(kn.hidden());
                            (to_str(&kn), cx.loc(k.span))
                        }
                    };
                    let value = self.eval(cx, &item.value);
                    match key {
                        Ok(key) => entries.push(Entry {
                            key,
                            key_loc,
                            value,
                        }),
                        Err(f) => {
                            if key_fail.is_none() || matches!(f, Fail::Error) {
                                key_fail = Some(f);
                            }
                        }
                    }
                }
                let obj = object_from(entries);
                match key_fail {
                    None if secret_key.is_hidden() => {
                        let mut n = Node::new(Value::Object(obj), loc);
                        n.raise_mark(secret_key);
                        return n;
                    }
                    None => Value::Object(obj),
                    Some(f) => {
                        let refs = deep_refs(&Node::new(Value::Object(obj), None));
                        f.with_refs(refs).into_value()
                    }
                }
            }
            ExprKind::Splat { target, each, .. } => {
                let t = self.eval(cx, target);
                match &t.value {
                    Value::Unknown(u) => {
                        let mut u = u.clone();
                        u.derived();
                        Value::Unknown(u)
                    }
                    Value::Null => Value::List(Vec::new()),
                    Value::List(items) => {
                        let items = items.clone();
                        Value::List(
                            items
                                .into_iter()
                                .map(|item| {
                                    let scope = Scope::child(cx.scope, vec![(SPLAT.into(), item)]);
                                    self.eval(&cx.with_scope(&scope), each)
                                })
                                .collect(),
                        )
                    }
                    _ => {
                        let scope = Scope::child(cx.scope, vec![(SPLAT.into(), t.clone())]);
                        Value::List(vec![self.eval(&cx.with_scope(&scope), each)])
                    }
                }
            }
            ExprKind::SplatItem => match cx.scope.lookup(SPLAT) {
                Some(v) => return v.clone(),
                None => error_value(),
            },
            ExprKind::ForTuple {
                key_var,
                value_var,
                collection,
                value,
                condition,
            } => {
                return self.eval_for(
                    cx,
                    loc,
                    key_var.as_deref(),
                    value_var,
                    collection,
                    None,
                    value,
                    false,
                    condition.as_deref(),
                )
            }
            ExprKind::ForObject {
                key_var,
                value_var,
                collection,
                key,
                value,
                grouping,
                condition,
            } => {
                return self.eval_for(
                    cx,
                    loc,
                    key_var.as_deref(),
                    value_var,
                    collection,
                    Some(key),
                    value,
                    *grouping,
                    condition.as_deref(),
                )
            }
            ExprKind::Conditional {
                condition,
                then,
                otherwise,
            } => {
                let c = self.eval(cx, condition);
                if has_error(&c) {
                    return Node::new(unknown(UnknownReason::Error, deep_refs(&c)), loc);
                }
                match to_bool(&c) {
                    Ok(b) => {
                        let (chosen, other) = if b {
                            (then, otherwise)
                        } else {
                            (otherwise, then)
                        };
                        let mut n = self.eval(cx, chosen);
                        n.raise_mark(c.hidden());
                        // Terraform unifies the two result types: `true ? 1 : "a"` is "1".
                        if is_string_expr(other)
                            && matches!(n.value, Value::Number(_) | Value::Bool(_))
                        {
                            if let Ok(s) = to_str(&n) {
                                n.value = Value::String(s.into());
                            }
                        }
                        return n;
                    }
                    Err(Fail::Unknown(mut u)) => {
                        let t = self.eval(cx, then);
                        let o = self.eval(cx, otherwise);
                        merge_refs(&mut u.refs, deep_refs(&t));
                        merge_refs(&mut u.refs, deep_refs(&o));
                        u.derived();
                        Value::Unknown(u)
                    }
                    Err(Fail::Error) => error_value(),
                }
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(cx, operand);
                if has_error(&v) {
                    return Node::new(unknown(UnknownReason::Error, deep_refs(&v)), loc);
                }
                let value = match op {
                    UnaryOp::Not => match to_bool(&v) {
                        Ok(b) => Value::Bool(!b),
                        Err(f) => f.into_value(),
                    },
                    UnaryOp::Negate => match to_num(&v) {
                        Ok(n) => Value::Number(-n),
                        Err(f) => f.into_value(),
                    },
                };
                return Node {
                    value,
                    loc,
                    mark: v.hidden(),
                };
            }
            ExprKind::Binary { .. } => return self.eval_chain(cx, e),
            ExprKind::Parens(inner) => return self.eval(cx, inner),
        };
        Node::new(value, loc)
    }

    /// An operator chain (`a + b + ... + z`, a left-deep tree as long as the chain) in a loop
    /// along its left side: the chain is not nesting, and any length is evaluated.
    fn eval_chain(&mut self, cx: &EvalContext<'_>, e: &Expr) -> Node {
        let mut spine: Vec<&Expr> = Vec::new();
        let mut leftmost = e;
        while let ExprKind::Binary { left, .. } = &leftmost.kind {
            spine.push(leftmost);
            leftmost = left;
        }
        let mut acc = self.eval(cx, leftmost);
        for node in spine.into_iter().rev() {
            let ExprKind::Binary { op, right, .. } = &node.kind else {
                continue;
            };
            let r = self.eval(cx, right);
            let mark = acc.hidden().max(r.hidden());
            acc = Node::new(binary(*op, &acc, &r), cx.loc(node.span));
            acc.mark = mark;
        }
        acc
    }

    /// A `for` expression. As Terraform marks it, its result is sensitive as a whole when its
    /// collection is, or when a sensitive value decided a condition or made a key: every part of
    /// it then is, so no element or key taken from it shows the secret.
    #[allow(clippy::too_many_arguments)]
    fn eval_for(
        &mut self,
        cx: &EvalContext<'_>,
        loc: Option<Loc>,
        key_var: Option<&Ident>,
        value_var: &Ident,
        collection: &Expr,
        key: Option<&Expr>,
        value: &Expr,
        grouping: bool,
        condition: Option<&Expr>,
    ) -> Node {
        let mut mark = Mark::None;
        let value = self.eval_for_value(
            cx, key_var, value_var, collection, key, value, grouping, condition, &mut mark,
        );
        let mut n = Node::new(value, loc);
        n.raise_mark(mark);
        n
    }

    /// [`Loader::eval_for`]'s value; `mark` is raised to the mark of what went into it.
    #[allow(clippy::too_many_arguments)]
    fn eval_for_value(
        &mut self,
        cx: &EvalContext<'_>,
        key_var: Option<&Ident>,
        value_var: &Ident,
        collection: &Expr,
        key: Option<&Expr>,
        value: &Expr,
        grouping: bool,
        condition: Option<&Expr>,
        mark: &mut Mark,
    ) -> Value {
        let coll = self.eval(cx, collection);
        *mark = (*mark).max(coll.hidden());
        if has_error(&coll) {
            return unknown(UnknownReason::Error, deep_refs(&coll));
        }
        let pairs = match iterate(&coll) {
            Ok(p) => p,
            Err(Fail::Unknown(mut u)) => {
                // Evaluate the body over unknown elements only to learn its references.
                let unk = Node::new(unknown(u.reason, Vec::new()), None);
                let mut vars = vec![(value_var.name.clone(), unk.clone())];
                if let Some(k) = key_var {
                    vars.push((k.name.clone(), unk));
                }
                let scope = Scope::child(cx.scope, vars);
                let cx2 = cx.with_scope(&scope);
                let v = self.eval(&cx2, value);
                merge_refs(&mut u.refs, deep_refs(&v));
                if let Some(k) = key {
                    let kn = self.eval(&cx2, k);
                    merge_refs(&mut u.refs, deep_refs(&kn));
                }
                u.derived();
                return Value::Unknown(u);
            }
            Err(Fail::Error) => return error_value(),
        };
        // A set's keys are its elements. Sets are lists here, so the expression says which.
        let pairs = if key_var.is_some() && is_set_expr(collection) {
            pairs.into_iter().map(|(_, v)| (v.clone(), v)).collect()
        } else {
            pairs
        };
        let mut list = Vec::new();
        let mut obj = Object::default();
        // The keys of `obj`, or where each key's group is in `groups`.
        let mut keys: crate::FastMap<String, usize> = crate::FastMap::default();
        let mut groups: Vec<(String, Option<Loc>, Vec<Node>)> = Vec::new();
        let mut refs = Vec::new();
        let mut pending: Option<Fail> = None;
        if !charge_work(pairs.len() as u64, cx.loc(collection.span)) {
            return unknown(UnknownReason::Unsupported, Vec::new());
        }
        for (k, v) in pairs {
            let mut vars = Vec::with_capacity(2);
            if let Some(kv) = key_var {
                vars.push((kv.name.clone(), k));
                vars.push((value_var.name.clone(), v));
            } else {
                vars.push((value_var.name.clone(), v));
            }
            let scope = Scope::child(cx.scope, vars);
            let cx2 = cx.with_scope(&scope);
            if let Some(c) = condition {
                let cn = self.eval(&cx2, c);
                *mark = (*mark).max(cn.hidden());
                match to_bool(&cn) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(f) => {
                        pending.get_or_insert(f);
                        merge_refs(&mut refs, deep_refs(&cn));
                        continue;
                    }
                }
            }
            let vn = self.eval(&cx2, value);
            match key {
                None => list.push(vn),
                Some(ke) => {
                    let kn = self.eval(&cx2, ke);
                    *mark = (*mark).max(kn.hidden());
                    match to_str(&kn) {
                        Ok(ks) => {
                            if grouping {
                                match keys.get(&ks) {
                                    Some(&g) => groups[g].2.push(vn),
                                    None => {
                                        keys.insert(ks.clone(), groups.len());
                                        groups.push((ks, kn.loc, vec![vn]));
                                    }
                                }
                            } else if keys.insert(ks.clone(), 0).is_some() {
                                // Terraform: duplicate key in a `for` object without `...`.
                                return error_value();
                            } else {
                                obj.entries.push(Entry {
                                    key: ks,
                                    key_loc: kn.loc,
                                    value: vn,
                                });
                            }
                        }
                        Err(f) => {
                            merge_refs(&mut refs, deep_refs(&kn));
                            merge_refs(&mut refs, deep_refs(&vn));
                            pending.get_or_insert(f);
                        }
                    }
                }
            }
        }
        if let Some(f) = pending {
            return f.with_refs(refs).into_value();
        }
        if key.is_none() {
            return Value::List(list);
        }
        if grouping {
            for (k, loc, items) in groups {
                obj.entries.push(Entry {
                    key: k,
                    key_loc: loc,
                    value: Node::new(Value::List(items), loc),
                });
            }
        }
        Value::Object(obj)
    }

    fn eval_template(&mut self, cx: &EvalContext<'_>, t: &Template, span: Span) -> Node {
        if let [TemplatePart::Interpolation(e)] = t.parts.as_slice() {
            return self.eval(cx, e);
        }
        let mut acc = TemplateAcc::default();
        self.template_parts(cx, t, &mut acc);
        let mark = acc.mark;
        let mut n = Node::new(acc.finish(), cx.loc(span));
        n.mark = mark;
        n
    }

    fn template_parts(&mut self, cx: &EvalContext<'_>, t: &Template, acc: &mut TemplateAcc) {
        if *self.depth() >= MAX_DEPTH {
            acc.push_unknown(
                Box::new(Unknown {
                    reason: UnknownReason::Unsupported,
                    ..Unknown::default()
                }),
                None,
            );
            return;
        }
        *self.depth() += 1;
        for part in &t.parts {
            match part {
                TemplatePart::Literal { text, span } => {
                    // Copied byte for byte (escapes and stripped indentation only shorten the
                    // text): a value read from it can point at its own line.
                    if text.len() == (span.end - span.start) as usize {
                        if let Some(loc) = cx.loc(*span) {
                            acc.source(acc.text.len(), loc);
                        }
                    }
                    acc.push(text)
                }
                TemplatePart::Interpolation(e) => {
                    let v = self.eval(cx, e);
                    acc.mark = acc.mark.max(v.hidden());
                    match to_str(&v) {
                        Ok(s) => acc.push(&s),
                        Err(Fail::Unknown(u)) => acc.push_interpolation(u, &v),
                        Err(Fail::Error) => acc.error = true,
                    }
                }
                TemplatePart::If {
                    condition,
                    then,
                    otherwise,
                    span,
                } => {
                    let c = self.eval(cx, condition);
                    acc.mark = acc.mark.max(c.hidden());
                    match to_bool(&c) {
                        Ok(true) => self.template_parts(cx, then, acc),
                        Ok(false) => {
                            if let Some(o) = otherwise {
                                self.template_parts(cx, o, acc);
                            }
                        }
                        Err(Fail::Unknown(mut u)) => {
                            u.derived();
                            acc.push_unknown(u, cx.loc(*span))
                        }
                        Err(Fail::Error) => acc.error = true,
                    }
                }
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                    span,
                } => {
                    let coll = self.eval(cx, collection);
                    acc.mark = acc.mark.max(coll.hidden());
                    if has_error(&coll) {
                        acc.error = true;
                        continue;
                    }
                    match iterate(&coll) {
                        Ok(pairs) if !charge_work(pairs.len() as u64, cx.loc(collection.span)) => {
                            acc.push_unknown(
                                Box::new(Unknown {
                                    reason: UnknownReason::Unsupported,
                                    ..Unknown::default()
                                }),
                                cx.loc(*span),
                            );
                        }
                        Ok(pairs) => {
                            for (k, v) in pairs {
                                let mut vars = vec![(value_var.name.clone(), v)];
                                if let Some(kv) = key_var {
                                    vars.push((kv.name.clone(), k));
                                }
                                let scope = Scope::child(cx.scope, vars);
                                self.template_parts(&cx.with_scope(&scope), body, acc);
                            }
                        }
                        Err(Fail::Unknown(mut u)) => {
                            u.derived();
                            acc.push_unknown(u, cx.loc(*span))
                        }
                        Err(Fail::Error) => acc.error = true,
                    }
                }
            }
        }
        *self.depth() -= 1;
    }

    /// `var.x`, `local.y[0].z`, `aws_instance.web.id`, `module.m.out`, `data.t.n.attr`, or any
    /// attribute/index chain over another expression.
    fn eval_traversal(&mut self, cx: &EvalContext<'_>, e: &Expr) -> Node {
        // Most chains are short (`aws_x.y.arn`, `var.m["k"].v`): no allocation for those.
        let mut chain: SmallVec<[&Expr; 8]> = SmallVec::new();
        let mut cur = e;
        while let ExprKind::GetAttr { target, .. } | ExprKind::Index { target, .. } = &cur.kind {
            chain.push(cur);
            cur = target;
        }
        let mut steps: SmallVec<[Step<'_>; 4]> = SmallVec::with_capacity(chain.len());
        for s in chain.iter().rev() {
            match &s.kind {
                ExprKind::GetAttr { name, .. } => steps.push(Step::Attr(&name.name)),
                ExprKind::Index { index, .. } => steps.push(Step::Index(self.eval(cx, index))),
                _ => {}
            }
        }
        let loc = cx.loc(e.span);
        // As Terraform marks it, what a sensitive key selects is sensitive
        // (`local.m[var.secret_key]`), whatever the collection is; and it points at the
        // reference, not at the element, whose place would tell the key.
        let keyed_by_secret = steps
            .iter()
            .map(|s| match s {
                Step::Index(k) => k.hidden(),
                Step::Attr(_) => Mark::None,
            })
            .max()
            .unwrap_or_default();
        let mut n = match &cur.kind {
            ExprKind::Variable(id) => self.eval_root(cx, id, &steps),
            _ => {
                let root = self.eval(cx, cur);
                // Terraform fails the whole constructor when any part of it fails.
                if !steps.is_empty() && has_error(&root) {
                    Node::new(unknown(UnknownReason::Error, deep_refs(&root)), None)
                } else {
                    apply_steps(root, &steps)
                }
            }
        };
        if n.loc.is_none() || n.is_unknown() {
            n.loc = loc;
        }
        if keyed_by_secret.is_hidden() {
            n.raise_mark(keyed_by_secret);
            n.relocate(loc);
        }
        n
    }

    fn eval_root(&mut self, cx: &EvalContext<'_>, id: &Ident, steps: &[Step<'_>]) -> Node {
        if let Some(v) = cx.scope.lookup(&id.name) {
            return apply_steps_ref(v, steps);
        }
        if cx.closed {
            return Node::new(error_value(), None);
        }
        self.reference(cx, id, steps)
    }
}

impl<D: Data> Evaluate for D {}

/// Whether an expression is a call that makes a set (`toset`, `setunion`...).
pub(crate) fn is_set_expr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call { name, .. } => matches!(
            name.name.as_str(),
            "toset" | "setunion" | "setintersection" | "setsubtract" | "setproduct"
        ),
        ExprKind::Parens(inner) => is_set_expr(inner),
        _ => false,
    }
}

/// Whether an expression is a string by its form: a template that is not a lone interpolation,
/// or a call of a function that returns a string.
fn is_string_expr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Template(t) => !matches!(t.parts.as_slice(), [TemplatePart::Interpolation(_)]),
        ExprKind::Call { name, .. } => matches!(
            name.name.as_str(),
            "tostring"
                | "format"
                | "join"
                | "upper"
                | "lower"
                | "title"
                | "replace"
                | "substr"
                | "trim"
                | "trimspace"
                | "trimprefix"
                | "trimsuffix"
                | "chomp"
                | "indent"
                | "strrev"
                | "jsonencode"
                | "base64encode"
                | "base64decode"
                | "urlencode"
                | "file"
                | "templatefile"
                | "basename"
                | "dirname"
        ),
        ExprKind::Parens(inner) => is_string_expr(inner),
        ExprKind::Conditional {
            then, otherwise, ..
        } => is_string_expr(then) && is_string_expr(otherwise),
        _ => false,
    }
}

pub(crate) fn instance_key(n: &Node) -> Option<InstanceKey> {
    match &n.value {
        Value::Number(f) if *f >= 0.0 && f.fract() == 0.0 => Some(InstanceKey::Index(*f as u64)),
        Value::String(s) => Some(InstanceKey::Key(s.to_string())),
        _ => None,
    }
}

/// Applies attribute and index steps to a value. A missing key or index is a Terraform error.
pub(crate) fn apply_steps(v: Node, steps: &[Step<'_>]) -> Node {
    if steps.is_empty() {
        return v;
    }
    apply_steps_ref(&v, steps)
}

/// [`apply_steps`] over a borrowed value: only the result is cloned (a local holding a large
/// object is not copied to read one entry of it).
pub(crate) fn apply_steps_ref(v: &Node, steps: &[Step<'_>]) -> Node {
    let mut cur = v;
    for (i, step) in steps.iter().enumerate() {
        let loc = cur.loc;
        let unknown_keys = |refs: &mut Vec<Reference>| {
            for s in &steps[i..] {
                if let Step::Index(k) = s {
                    merge_refs(refs, deep_refs(k));
                }
            }
        };
        match (&cur.value, step) {
            (Value::Unknown(u), _) => {
                let mut u = u.clone();
                u.derived();
                unknown_keys(&mut u.refs);
                return Node::new(Value::Unknown(u), loc);
            }
            (_, Step::Index(k)) if k.is_unknown() => {
                let mut refs = deep_refs(cur);
                unknown_keys(&mut refs);
                let reason = match &k.value {
                    Value::Unknown(u) => u.reason,
                    _ => UnknownReason::AfterApply,
                };
                return Node::new(unknown(reason, refs), loc);
            }
            (Value::Object(o), Step::Attr(a)) => match o.get(a) {
                Some(n) => cur = n,
                None => return Node::new(error_value(), loc),
            },
            (Value::Object(o), Step::Index(k)) => match to_str(k).ok().and_then(|k| o.get(&k)) {
                Some(n) => cur = n,
                None => return Node::new(error_value(), loc),
            },
            (Value::List(items), Step::Index(k)) => {
                match to_num(k).ok().filter(|f| *f >= 0.0 && f.fract() == 0.0) {
                    Some(i) if (i as usize) < items.len() => cur = &items[i as usize],
                    _ => return Node::new(error_value(), loc),
                }
            }
            _ => return Node::new(error_value(), loc),
        }
    }
    if !charge_copy(cur) {
        return Node::new(unknown(UnknownReason::Unsupported, Vec::new()), cur.loc);
    }
    cur.clone()
}

pub(crate) fn binary(op: BinaryOp, l: &Node, r: &Node) -> Value {
    let both_refs = || {
        let mut refs = deep_refs(l);
        merge_refs(&mut refs, deep_refs(r));
        refs
    };
    // An error in either operand is an error, whatever the other side decides.
    if has_error(l) || has_error(r) {
        return unknown(UnknownReason::Error, both_refs());
    }
    match op {
        BinaryOp::Eq | BinaryOp::NotEq => match values_equal(l, r) {
            // Equal contents may still differ in type in Terraform (a list is never equal to a
            // tuple, a map never to an object: `var.list == []` is false); those types are not
            // told apart here.
            Some(true)
                if matches!(l.value, Value::List(_) | Value::Object(_))
                    && matches!(r.value, Value::List(_) | Value::Object(_)) =>
            {
                unknown(UnknownReason::Unsupported, both_refs())
            }
            Some(eq) => Value::Bool(if op == BinaryOp::Eq { eq } else { !eq }),
            None => {
                let reason = deep_unknown(l)
                    .or_else(|| deep_unknown(r))
                    .map_or(UnknownReason::AfterApply, |u| u.reason);
                unknown(reason, both_refs())
            }
        },
        BinaryOp::And | BinaryOp::Or => match (to_bool(l), to_bool(r)) {
            (Ok(a), Ok(b)) => Value::Bool(if op == BinaryOp::And { a && b } else { a || b }),
            // A known `false &&` or `true ||` decides, whatever the other side is.
            (Ok(a), Err(Fail::Unknown(_))) | (Err(Fail::Unknown(_)), Ok(a))
                if (op == BinaryOp::And && !a) || (op == BinaryOp::Or && a) =>
            {
                Value::Bool(a)
            }
            (Err(Fail::Error), _) | (_, Err(Fail::Error)) => {
                unknown(UnknownReason::Error, both_refs())
            }
            (Err(Fail::Unknown(u)), _) | (_, Err(Fail::Unknown(u))) => {
                unknown(u.reason, both_refs())
            }
        },
        _ => match (to_num(l), to_num(r)) {
            (Ok(a), Ok(b)) => {
                let v = match op {
                    BinaryOp::Add => Value::Number(a + b),
                    BinaryOp::Sub => Value::Number(a - b),
                    BinaryOp::Mul => Value::Number(a * b),
                    // Terraform gives an infinity, which no rule reads and JSON cannot hold.
                    BinaryOp::Div if b == 0.0 => unknown(UnknownReason::Unsupported, Vec::new()),
                    BinaryOp::Div => Value::Number(a / b),
                    BinaryOp::Mod if b == 0.0 => Value::Number(a),
                    // Terraform's remainder is a negative zero only for a negative zero.
                    BinaryOp::Mod if a == 0.0 => Value::Number(a),
                    BinaryOp::Mod => Value::Number(a % b + 0.0),
                    BinaryOp::Lt => Value::Bool(a < b),
                    BinaryOp::Le => Value::Bool(a <= b),
                    BinaryOp::Gt => Value::Bool(a > b),
                    BinaryOp::Ge => Value::Bool(a >= b),
                    _ => error_value(),
                };
                match v {
                    Value::Number(n) if !n.is_finite() => error_value(),
                    v => v,
                }
            }
            (Err(Fail::Error), _) | (_, Err(Fail::Error)) => {
                unknown(UnknownReason::Error, both_refs())
            }
            (Err(Fail::Unknown(u)), _) | (_, Err(Fail::Unknown(u))) => {
                unknown(u.reason, both_refs())
            }
        },
    }
}
