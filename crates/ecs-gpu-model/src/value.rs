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
    /// Sensitive, as Terraform marks values: a variable declared `sensitive = true` (whatever gave
    /// its value: a default, a tfvars file, `--var`), `sensitive(...)`, and what is computed from
    /// them. A message never quotes it: see [`Node::shown`].
    pub sensitive: bool,
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
    pub(crate) text: Option<std::sync::Arc<crate::json_holes::HoledText>>,
}

impl Unknown {
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
            sensitive: false,
        }
    }

    /// Whether the value, or any part of it, is sensitive.
    pub fn is_sensitive(&self) -> bool {
        let mut stack: Vec<&Node> = vec![self];
        while let Some(n) = stack.pop() {
            if n.sensitive {
                return true;
            }
            match &n.value {
                Value::List(items) => stack.extend(items),
                Value::Object(o) => stack.extend(o.entries.iter().map(|e| &e.value)),
                Value::Json(inner) => stack.push(inner),
                _ => {}
            }
        }
        false
    }

    /// Marks the value and every part of it sensitive (`sensitive = true`) or not
    /// (`nonsensitive(...)`).
    pub(crate) fn mark_sensitive(&mut self, sensitive: bool) {
        let mut stack: Vec<&mut Node> = vec![self];
        while let Some(n) = stack.pop() {
            n.sensitive = sensitive;
            match &mut n.value {
                Value::List(items) => stack.extend(items.iter_mut()),
                Value::Object(o) => stack.extend(o.entries.iter_mut().map(|e| &mut e.value)),
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

    /// The value as a message quotes it: `(sensitive)` when any part of it is sensitive, else a
    /// string's text, a number as Terraform writes it, `true`/`false`, `null`, the JSON of a
    /// collection, or `(known after apply)`.
    pub fn shown(&self) -> String {
        if self.is_sensitive() {
            return "(sensitive)".to_string();
        }
        match &self.value {
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => crate::json::format_number(*n),
            Value::String(s) => s.to_string(),
            Value::Unknown(_) => "(known after apply)".to_string(),
            _ => self
                .to_json_text()
                .unwrap_or_else(|| "(known after apply)".to_string()),
        }
    }

    /// Every sensitive text in the value: the strings and numbers of its sensitive parts (for a
    /// last check that no message quotes one).
    pub fn sensitive_texts(&self, out: &mut Vec<String>) {
        let mut stack: Vec<(&Node, bool)> = vec![(self, false)];
        while let Some((n, inherited)) = stack.pop() {
            let sensitive = inherited || n.sensitive;
            match &n.value {
                Value::String(s) if sensitive && !s.is_empty() => out.push(s.to_string()),
                Value::Number(x) if sensitive => out.push(crate::json::format_number(*x)),
                Value::List(items) => stack.extend(items.iter().map(|i| (i, sensitive))),
                Value::Object(o) => stack.extend(o.entries.iter().map(|e| (&e.value, sensitive))),
                // A `jsonencode` text is sensitive as a whole when a part is; its parts carry
                // their own marks.
                Value::Json(inner) => stack.push((inner, inherited)),
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

    /// The structure behind a JSON string: the `jsonencode` argument itself, or a known string
    /// parsed as JSON (locations then point at the string), or a template's JSON text read with
    /// its unknown parts as holes (see `json_holes`). `None` when unknown or not JSON. A sensitive
    /// string gives a wholly sensitive structure, as Terraform's `jsondecode` does.
    pub fn json(&self) -> Option<std::borrow::Cow<'_, Node>> {
        let mut decoded = match &self.value {
            Value::Json(inner) => return Some(std::borrow::Cow::Borrowed(inner)),
            Value::String(s) => crate::json_to_node(s, self.loc)?,
            Value::Unknown(u) => crate::json_holes::parse(u.text.as_deref()?, self.loc)?,
            _ => return None,
        };
        if self.sensitive {
            decoded.mark_sensitive(true);
        }
        Some(std::borrow::Cow::Owned(decoded))
    }

    /// The references an unknown value carries (empty for known values).
    pub fn refs(&self) -> &[Reference] {
        match &self.value {
            Value::Unknown(u) => &u.refs,
            _ => &[],
        }
    }

    /// The JSON text of a fully known value (`None` if any part is unknown).
    pub fn to_json_text(&self) -> Option<String> {
        crate::node_to_json_text(self)
    }
}
