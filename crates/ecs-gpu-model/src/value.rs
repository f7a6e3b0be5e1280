//! Evaluated values. Every value remembers where it came from (a [`Loc`]), so a rule can point at
//! the exact expression, even deep inside `jsonencode(...)`, a `templatefile` or a JSON file.
//!
//! **Unknown is a value.** What cannot be known before apply (an attribute computed by AWS, a data
//! source's result other than its own arguments, a variable with no value, a function the evaluator
//! does not support) is [`Value::Unknown`]. No rule may fire on an unknown.

use crate::FileId;
use ecs_gpu_hcl::Span;

/// A place in a loaded file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: FileId,
    pub span: Span,
}

impl Loc {
    /// Whether `other` is within this place (in the same file, its span inside this one).
    pub fn contains(&self, other: &Loc) -> bool {
        self.file == other.file
            && self.span.start <= other.span.start
            && other.span.end <= self.span.end
    }
}

/// A value with the location of the expression that produced it (`None` for values that come from
/// nowhere in the checked files, such as a `--var` on the command line).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub loc: Option<Loc>,
    /// Hidden, as Terraform marks values: sensitive (a variable or module output declared
    /// `sensitive = true`, whatever gave its value: a default, a tfvars file, `--var`;
    /// `sensitive(...)`) or ephemeral (a variable or output declared `ephemeral = true`), and what
    /// is computed from them. A message never quotes it: see [`Node::shown`].
    pub mark: Mark,
}

/// How Terraform hides a value: never shown, and a message says which, in its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Mark {
    /// Shown as it is.
    #[default]
    None,
    /// `(sensitive)`.
    Sensitive,
    /// `(ephemeral)`: a value Terraform never writes to a plan or state. It wins over
    /// [`Mark::Sensitive`] when both went into a value.
    Ephemeral,
}

impl Mark {
    /// What a message says in place of a value so marked.
    pub fn label(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Sensitive => "(sensitive)",
            Mark::Ephemeral => "(ephemeral)",
        }
    }

    pub fn is_hidden(self) -> bool {
        self != Mark::None
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A number, as Terraform holds it (arbitrary precision; `f64` is enough for every rule).
    Number(f64),
    /// A string, shared: copying the value copies a pointer, never the text.
    String(Str),
    /// `jsonencode(x)`: a string whose text is the JSON of `x`, with `x`'s structure and locations
    /// kept. Behaves as a string everywhere; rules that read JSON use [`Node::json`]. Shared, not
    /// copied, when the value is (a task definition's containers are the biggest values).
    Json(std::sync::Arc<Node>),
    /// A tuple or list.
    List(Vec<Node>),
    /// An object or map.
    Object(Object),
    Unknown(Box<Unknown>),
}

/// An immutable, reference-counted string (as Terraform's cty shares its values): a list of a
/// thousand references to one 10 MB local holds the text once. Reads as a `str`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Str(std::sync::Arc<str>);

impl Str {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether no other value shares this text (it was just built, not copied): what the
    /// evaluator charges to its memory budget.
    pub(crate) fn is_fresh(&self) -> bool {
        std::sync::Arc::strong_count(&self.0) == 1
    }
}

impl std::ops::Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Str {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Str {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&*self.0, f)
    }
}

impl From<String> for Str {
    fn from(s: String) -> Str {
        Str(s.into())
    }
}

impl From<&str> for Str {
    fn from(s: &str) -> Str {
        Str(s.into())
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Str {
        Str(s.as_str().into())
    }
}

impl From<std::borrow::Cow<'_, str>> for Str {
    fn from(s: std::borrow::Cow<'_, str>) -> Str {
        Str(s.into())
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.0.to_string()
    }
}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

/// An object: entries in source order, one per key (the last written wins, as in Terraform), and the
/// entries that a repeated key discarded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    pub entries: Vec<Entry>,
    /// Earlier entries of a repeated key, which Terraform silently drops (rule GPU108).
    pub discarded: Discarded,
}

/// The discarded entries of an object: almost always none, so nothing is allocated for them and an
/// object (so every value) stays small. Reads as a slice.
#[derive(Debug, Clone, PartialEq, Default)]
// One pointer in every object instead of a `Vec`'s three words: the box is the point.
#[allow(clippy::box_collection)]
pub struct Discarded(Option<Box<Vec<Entry>>>);

impl Discarded {
    pub fn push(&mut self, entry: Entry) {
        self.0.get_or_insert_with(Box::default).push(entry);
    }
}

impl std::ops::Deref for Discarded {
    type Target = [Entry];
    fn deref(&self) -> &[Entry] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl<'a> IntoIterator for &'a Discarded {
    type Item = &'a Entry;
    type IntoIter = std::slice::Iter<'a, Entry>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::ops::DerefMut for Discarded {
    fn deref_mut(&mut self) -> &mut [Entry] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    /// Where the key is written.
    pub key_loc: Option<Loc>,
    pub value: Node,
}

impl Entry {
    /// An entry whose key is written nowhere (a binding the loader makes).
    pub fn new(key: String, value: Node) -> Entry {
        Entry {
            key,
            key_loc: None,
            value,
        }
    }
}

impl Object {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries.iter().find(|e| e.key == key).map(|e| &e.value)
    }
}

/// What is known about an unknown value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Unknown {
    pub reason: UnknownReason,
    /// The resources (and attributes) it depends on, for example
    /// `aws_ecs_task_definition.app` `arn` for `task_definition = aws_ecs_task_definition.app.arn`.
    /// This is how rules follow references between resources.
    pub refs: Vec<Reference>,
    /// For a string that is only partly known (a template with an unknown interpolation, possibly
    /// wrapped in `base64encode`): literal text fragments known to be part of the decoded string.
    /// A rule may use them to find text that *is* there; never to conclude that text is absent.
    pub fragments: Vec<String>,
    /// For an object that is only partly known (`merge` with an unknown argument, whose keys are
    /// not known): entries known to be in it with these values, because an argument after every
    /// unknown one sets them. A rule may read them; never conclude that another key is absent.
    /// Only `merge` sets them, and every operation whose result is not this same object (an
    /// attribute of it, a function of it) drops them.
    pub entries: Vec<Entry>,
    /// For a template whose known text holds JSON structure: that text with the places of its
    /// unknown parts, read by [`Node::json`] as JSON with holes. Only templates set it, and every
    /// operation whose result is not this same string drops it.
    pub(crate) text: Option<std::sync::Arc<HoledText>>,
}

impl Unknown {
    /// For a template with unknown interpolations or directives (a heredoc, `templatefile`, and
    /// `base64encode` of either): its known text and where the unknown parts stand. Only templates
    /// set it, and every operation whose result is not this same string drops it.
    pub fn partial_text(&self) -> Option<PartialText<'_>> {
        let t = self.text.as_deref()?;
        let mut holes: Vec<usize> = t.holes.iter().map(|h| h.at).collect();
        holes.dedup();
        Some(PartialText {
            text: &t.text,
            holes,
            base64: t.base64,
        })
    }

    /// The unknown result of an operation on this unknown value (not the value itself): its
    /// reason and references, without what is known of the value's own text or entries.
    pub fn derived(&mut self) {
        self.fragments.clear();
        self.entries.clear();
        self.text = None;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownReason {
    /// Known only after apply (a resource's computed attribute).
    #[default]
    AfterApply,
    /// The result of a data source (other than the arguments written in its block).
    DataSource,
    /// A variable without a default and without a value given.
    NoValue,
    /// A function or construct the evaluator does not evaluate.
    Unsupported,
    /// Evaluating it failed in a way Terraform would report (a type error, a missing file...).
    Error,
    /// From a remote module whose source was not fetched.
    RemoteModule,
    /// An argument the caller did not ask to evaluate ([`crate::LoadOptions::only_arguments`]).
    NotLoaded,
}

/// A reference from an expression to a resource, data source or module output.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reference {
    /// The referenced object's address relative to the module it is in, without instance key:
    /// `aws_ecs_task_definition.app`, `data.aws_ssm_parameter.ami`, `module.gpu`.
    pub address: String,
    /// The instance key, when the reference names one (`aws_instance.x[0]`).
    pub key: Option<InstanceKey>,
    /// The attribute path after the address (`["arn"]`, `["latest_version"]`).
    pub attribute: Vec<String>,
    /// The module instance the referencing expression is in.
    pub module: crate::ModuleId,
}

/// A `count` index or `for_each` key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    Index(u64),
    Key(String),
}

impl Node {
    pub fn new(value: Value, loc: Option<Loc>) -> Node {
        Node {
            value,
            loc,
            mark: Mark::None,
        }
    }

    /// Whether the value, or any part of it, is hidden: sensitive or ephemeral.
    pub fn is_sensitive(&self) -> bool {
        self.hidden().is_hidden()
    }

    /// How the value, or its most hidden part, is hidden ([`Mark::None`] when no part is).
    pub fn hidden(&self) -> Mark {
        let mut mark = Mark::None;
        let mut stack: Vec<&Node> = vec![self];
        while let Some(n) = stack.pop() {
            mark = mark.max(n.mark);
            if mark == Mark::Ephemeral {
                break;
            }
            match &n.value {
                Value::List(items) => stack.extend(items),
                Value::Object(o) => {
                    stack.extend(o.entries.iter().chain(&o.discarded).map(|e| &e.value))
                }
                Value::Json(inner) => stack.push(inner),
                _ => {}
            }
        }
        mark
    }

    /// Marks the value and every part of it at least `mark` (`sensitive = true`, a value computed
    /// from a sensitive one).
    pub(crate) fn raise_mark(&mut self, mark: Mark) {
        if mark.is_hidden() {
            self.each_node(&mut |n| n.mark = n.mark.max(mark));
        }
    }

    /// `nonsensitive(...)`: no part of the value is sensitive any more (an ephemeral part stays
    /// ephemeral).
    pub(crate) fn clear_sensitive(&mut self) {
        self.each_node(&mut |n| {
            if n.mark == Mark::Sensitive {
                n.mark = Mark::None;
            }
        });
    }

    fn each_node(&mut self, f: &mut dyn FnMut(&mut Node)) {
        let mut stack: Vec<&mut Node> = vec![self];
        while let Some(n) = stack.pop() {
            f(n);
            match &mut n.value {
                Value::List(items) => stack.extend(items.iter_mut()),
                Value::Object(o) => stack.extend(
                    o.entries
                        .iter_mut()
                        .chain(o.discarded.iter_mut())
                        .map(|e| &mut e.value),
                ),
                Value::Json(inner) => stack.push(std::sync::Arc::make_mut(inner)),
                _ => {}
            }
        }
    }

    /// Moves the value and every part of it to `loc`: a sensitive variable's value points at the
    /// reference, never at the default or tfvars line that holds the secret.
    pub(crate) fn relocate(&mut self, loc: Option<Loc>) {
        let mut stack: Vec<&mut Node> = vec![self];
        while let Some(n) = stack.pop() {
            n.loc = loc;
            match &mut n.value {
                Value::List(items) => stack.extend(items.iter_mut()),
                Value::Object(o) => {
                    for e in o.entries.iter_mut() {
                        e.key_loc = loc;
                        stack.push(&mut e.value);
                    }
                }
                Value::Json(inner) => stack.push(std::sync::Arc::make_mut(inner)),
                _ => {}
            }
        }
    }

    /// The value as a message quotes it: `(sensitive)` or `(ephemeral)` when any part of it is
    /// hidden, else a string's text, a number as Terraform writes it, `true`/`false`, `null`, the
    /// JSON of a collection, or `(known after apply)`.
    pub fn shown(&self) -> String {
        let mark = self.hidden();
        if mark.is_hidden() {
            return mark.label().to_string();
        }
        match &self.value {
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => format_number(*n),
            Value::String(s) => s.to_string(),
            Value::Unknown(_) => "(known after apply)".to_string(),
            _ => self
                .to_json_text()
                .unwrap_or_else(|| "(known after apply)".to_string()),
        }
    }

    /// Every hidden text in the value, with its mark: the strings and numbers of its hidden
    /// parts, the known fragments of its hidden unknowns, and the keys of the objects where the
    /// hiding starts (a sensitive map's keys, an object built with a sensitive key, a repeated
    /// one's too; not the keys inside a hidden structure, such as the `name` and `value` of a
    /// container decoded from a sensitive template, which are its schema) (for a last check that
    /// no message quotes one).
    pub fn sensitive_texts(&self, out: &mut Vec<(String, Mark)>) {
        let mut stack: Vec<(&Node, Mark)> = vec![(self, Mark::None)];
        while let Some((n, inherited)) = stack.pop() {
            let mark = inherited.max(n.mark);
            let hidden = mark.is_hidden();
            match &n.value {
                Value::String(s) if hidden && !s.is_empty() => out.push((s.to_string(), mark)),
                Value::Number(x) if hidden => out.push((format_number(*x), mark)),
                Value::List(items) => stack.extend(items.iter().map(|i| (i, mark))),
                Value::Object(o) => {
                    for e in o.entries.iter().chain(&o.discarded) {
                        if hidden && !inherited.is_hidden() && !e.key.is_empty() {
                            out.push((e.key.clone(), mark));
                        }
                        stack.push((&e.value, mark));
                    }
                }
                // A `jsonencode` text is hidden as a whole when a part is; its parts carry
                // their own marks.
                Value::Json(inner) => stack.push((inner, inherited)),
                Value::Unknown(u) => {
                    if hidden {
                        out.extend(u.fragments.iter().map(|f| (f.clone(), mark)));
                    }
                    stack.extend(u.entries.iter().map(|e| (&e.value, mark)));
                }
                _ => {}
            }
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self.value, Value::Unknown(_))
    }

    /// Whether the value is certainly given: known and not null. An unknown value may turn out
    /// null (a variable without a value can be given null), and a null argument is not set.
    pub fn is_given(&self) -> bool {
        !matches!(self.value, Value::Null | Value::Unknown(_))
    }

    /// The string, when known (a `jsonencode` result gives its JSON text).
    pub fn as_str(&self) -> Option<std::borrow::Cow<'_, str>> {
        match &self.value {
            Value::String(s) => Some(std::borrow::Cow::Borrowed(s)),
            Value::Json(inner) => inner.to_json_text().map(std::borrow::Cow::Owned),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Node]> {
        match &self.value {
            Value::List(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match &self.value {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// An object's entry.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_object().and_then(|o| o.get(key))
    }

    /// The references an unknown value carries (empty for known values).
    pub fn refs(&self) -> &[Reference] {
        match &self.value {
            Value::Unknown(u) => &u.refs,
            _ => &[],
        }
    }
}

/// Deepest nesting of evaluation (expressions, locals that use locals, module outputs...). The load
/// runs on a thread with a large stack, so this is far from overflowing it.
pub(crate) const MAX_DEPTH: usize = 1500;

/// A number as Terraform prints it: no exponent, no trailing zeros, integers without a point.
pub(crate) fn format_number(n: f64) -> String {
    if n == 0.0 {
        // Terraform keeps the sign of a negative zero (`0 * -1` is `-0`).
        return if n.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    if n.fract() == 0.0 && n.abs() < 1e21 {
        // Exact for every integer an f64 holds.
        return format!("{n:.0}");
    }
    // Terraform computes in decimal with far more precision than an f64; printing at most 15
    // significant digits gives its answer for ordinary decimal arithmetic (`0.1 + 0.2` is `0.3`).
    let short = format!("{n:.14e}");
    let rounded: f64 = short
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite())
        .unwrap_or(n);
    format!("{rounded}")
}

/// A number as written, which Terraform holds exactly however large: one past an `f64`'s range
/// (`1e999`) is the largest `f64` of its sign, still a number that rules see (a GPU value of
/// `1e999` is a JSON number all the same) and that compares as very large.
pub(crate) fn clamp_number(f: f64) -> f64 {
    if f.is_infinite() {
        f64::MAX.copysign(f)
    } else {
        f
    }
}

/// Most bytes of known fragments one value keeps (EC2 user data is at most 16 KiB).
pub(crate) const MAX_FRAGMENTS: usize = 256 << 10;
/// Most known fragments one value keeps.
pub(crate) const MAX_FRAGMENT_COUNT: usize = 10_000;

/// Adds known fragments, keeping their total under [`MAX_FRAGMENTS`] (fragments of a string that
/// doubles itself through locals would double too). Dropping some is safe: a rule may only use
/// fragments to find text that is there.
pub(crate) fn add_fragments<'a, S: AsRef<str> + 'a>(
    into: &mut Vec<String>,
    more: impl IntoIterator<Item = &'a S>,
) {
    let mut total: usize = into.iter().map(String::len).sum();
    for f in more {
        let f = f.as_ref();
        if f.is_empty() {
            continue;
        }
        if total.saturating_add(f.len()) > MAX_FRAGMENTS || into.len() >= MAX_FRAGMENT_COUNT {
            return;
        }
        total += f.len();
        into.push(f.to_string());
    }
}

pub(crate) fn unknown(reason: UnknownReason, refs: Vec<Reference>) -> Value {
    Value::Unknown(Box::new(Unknown {
        reason,
        refs,
        ..Unknown::default()
    }))
}

pub(crate) fn error_value() -> Value {
    unknown(UnknownReason::Error, Vec::new())
}

/// Adds the references of `more` that `into` does not hold yet, in order.
pub(crate) fn merge_refs(into: &mut Vec<Reference>, more: Vec<Reference>) {
    // Few references (the usual case): compared one by one. Many: by hash, so that a value
    // holding thousands of references is not quadratic in them.
    if into
        .len()
        .saturating_add(more.len())
        .saturating_mul(more.len())
        <= 1024
    {
        for r in more {
            if !into.contains(&r) {
                into.push(r);
            }
        }
        return;
    }
    let mut seen: crate::FastSet<Reference> = into.iter().cloned().collect();
    for r in more {
        if seen.insert(r.clone()) {
            into.push(r);
        }
    }
}

/// Every reference carried by unknown values anywhere inside a node, each once, in order.
pub(crate) fn deep_refs(node: &Node) -> Vec<Reference> {
    let mut all = Vec::new();
    collect_refs(node, &mut all, 0);
    let mut out = Vec::with_capacity(all.len());
    merge_refs(&mut out, all);
    out
}

/// Every reference inside a node, repeats included.
fn collect_refs(node: &Node, out: &mut Vec<Reference>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match &node.value {
        Value::Unknown(u) => out.extend(u.refs.iter().cloned()),
        Value::List(items) => items.iter().for_each(|i| collect_refs(i, out, depth + 1)),
        Value::Object(o) => o
            .entries
            .iter()
            .for_each(|e| collect_refs(&e.value, out, depth + 1)),
        Value::Json(inner) => collect_refs(inner, out, depth + 1),
        _ => {}
    }
}

/// The first unknown anywhere inside a node, with every reference of the node.
pub(crate) fn deep_unknown(node: &Node) -> Option<Box<Unknown>> {
    fn find(node: &Node, depth: usize) -> Option<UnknownReason> {
        if depth > MAX_DEPTH {
            return Some(UnknownReason::Unsupported);
        }
        match &node.value {
            Value::Unknown(u) => Some(u.reason),
            Value::List(items) => items.iter().find_map(|i| find(i, depth + 1)),
            Value::Object(o) => o.entries.iter().find_map(|e| find(&e.value, depth + 1)),
            Value::Json(inner) => find(inner, depth + 1),
            _ => None,
        }
    }
    let reason = find(node, 0)?;
    let mut u = Box::new(Unknown {
        reason,
        refs: deep_refs(node),
        ..Unknown::default()
    });
    if let Value::Unknown(top) = &node.value {
        u.fragments = top.fragments.clone();
    }
    Some(u)
}

/// A partly known string: its known text, and where the unknown parts are.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct HoledText {
    /// The known text, with nothing where the holes are.
    pub text: String,
    /// The holes in order, each at a byte offset of `text` (several may share one).
    pub holes: Vec<Hole>,
    /// Where runs of `text` are written, in order: literal text copied byte for byte from a file
    /// (a heredoc or template file without escapes), so a value read there points at its own line.
    pub sources: Vec<Source>,
    /// The string is the base64 encoding of this text (`base64encode` of a template): the text
    /// is what the string decodes to, as user data is read, and never JSON to decode.
    pub base64: bool,
}

/// The text a partly known string is known to have, with the places of its unknown parts
/// ([`Unknown::partial_text`]). Lines without a hole are known whole.
#[derive(Debug, Clone, PartialEq)]
pub struct PartialText<'a> {
    /// The known text, with nothing where the unknown parts are.
    pub text: &'a str,
    /// The byte offsets in `text` where unknown parts stand, in order, each once.
    pub holes: Vec<usize>,
    /// The string is the base64 encoding of the text (`base64encode`): the text is what it
    /// decodes to.
    pub base64: bool,
}

/// A run of [`HoledText::text`] written byte for byte at `loc`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Source {
    /// Where the run starts in the text; it is as long as `loc`'s span.
    pub at: usize,
    pub loc: Loc,
}

/// An unknown part of a [`HoledText`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hole {
    pub at: usize,
    /// What stands there: an unknown (its reason and references, no fragments), or a partly
    /// unknown `jsonencode` value ([`Value::Json`]), which is that value in JSON value position.
    pub node: Node,
}
