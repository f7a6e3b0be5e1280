//! The resource model: what `load` builds and every rule reads.

use std::hash::{BuildHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use crate::value::{InstanceKey, Loc, Node, Reference};
use crate::FastMap;

/// Index of a loaded file in [`Model::files`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// Index of a module instance in [`Model::modules`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleId(pub u32);

/// Index of a resource instance in [`Model::resources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub u32);

/// A loaded file.
#[derive(Debug, Clone, Default)]
pub struct SourceFile {
    /// The path as the user would write it: relative to the current directory when under it.
    pub path: PathBuf,
    /// Where its lines start: the lines and columns of its offsets, without the text.
    pub lines: ecs_gpu_hcl::LineIndex,
    /// The text as read, when the load keeps it ([`LoadOptions::texts`]).
    pub text: Option<String>,
    /// Comments, for suppressions (empty for JSON files).
    pub comments: Vec<FileComment>,
}

/// A comment of a file, with the line it applies to.
#[derive(Debug, Clone)]
pub struct FileComment {
    pub comment: ecs_gpu_hcl::Comment,
    /// The first line after the comment's last that is neither blank nor starts with a comment
    /// (1-based; past the file's last line when there is none): the line of the block or the
    /// code the comment is above.
    pub next_code_line: u32,
}

impl SourceFile {
    /// A file read as `text`, kept or not.
    pub fn new(
        path: PathBuf,
        text: String,
        comments: Vec<ecs_gpu_hcl::Comment>,
        texts: Texts,
    ) -> SourceFile {
        let lines = ecs_gpu_hcl::LineIndex::new(&text);
        let last_lines: Vec<u32> = comments
            .iter()
            .map(|comment| {
                let last = comment.span.end.saturating_sub(1).max(comment.span.start);
                lines.line_col(last).0
            })
            .collect();
        let next_code_lines = lines.next_code_lines(&text, &last_lines);
        let comments = comments
            .into_iter()
            .zip(next_code_lines)
            .map(|(comment, next_code_line)| FileComment {
                comment,
                next_code_line,
            })
            .collect();
        SourceFile {
            path,
            lines,
            text: (texts == Texts::Keep).then_some(text),
            comments,
        }
    }

    /// The text: the kept one, else read again from [`path`](Self::path) when it still has the
    /// lines it had when loaded (`None` when it cannot be read, or has changed since).
    pub fn read_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(text) = &self.text {
            return Some(std::borrow::Cow::Borrowed(text));
        }
        let text = crate::walk::read_text(&self.path).ok()?;
        (ecs_gpu_hcl::LineIndex::new(&text) == self.lines).then_some(std::borrow::Cow::Owned(text))
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        self.lines.line_col(offset)
    }

    /// Line and column of both ends of a span (`end` at least `start`).
    pub fn line_col_range(&self, start: u32, end: u32) -> ((u32, u32), (u32, u32)) {
        self.lines.line_col_range(start, end)
    }
}

/// Whether the model keeps the text of each file it reads ([`SourceFile::text`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Texts {
    /// Kept: for source excerpts, or for a caller that reads them.
    #[default]
    Keep,
    /// Only where lines start ([`SourceFile::lines`]), about a sixth of the text: lines, columns
    /// and the comments' lines of code ([`FileComment::next_code_line`]) need no more. Once a file
    /// is parsed, its text's memory serves the next file's.
    Drop,
}

/// What to load: paths (files or folders, recursed; `.terraform/`, `.git/` and `.gitignore`d paths
/// skipped), and variable values with Terraform's precedence (defaults < `terraform.tfvars` <
/// `*.auto.tfvars` in lexical order < `var_files` in order < `vars` in order).
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub paths: Vec<PathBuf>,
    pub var_files: Vec<PathBuf>,
    /// `--var name=value`: the value is parsed as an HCL expression when it is one, else a string
    /// (as Terraform does for `-var`).
    pub vars: Vec<(String, String)>,
    /// Evaluate and keep only resources and data sources of these types (`None`: every type). A
    /// checker passes the types its rules read: the others cost time and memory for nothing.
    /// Data sources of other types are still evaluated where an expression refers to them.
    pub only_types: Option<Vec<String>>,
    /// Of the managed resources of these types, evaluate only these top-level arguments and
    /// nested block types (`lifecycle` is always evaluated); `None`, or a type not listed: every
    /// one. A checker passes what its rules read. Any other reads as unknown: [`Body::attr`] gives
    /// an unknown value ([`UnknownReason::NotLoaded`](crate::UnknownReason::NotLoaded)) and
    /// [`Body::may_have_unknown`] is true, so no rule can conclude from it; a debug build panics
    /// when one is asked for, so a rule's tests catch a name missing from the list.
    pub only_arguments: Option<Vec<(String, Vec<String>)>>,
    /// Workers that read, parse and evaluate (`None`: one per core). The model is the same
    /// whatever the number.
    pub threads: Option<usize>,
    /// Whether [`SourceFile::text`] is kept (only an output with source excerpts needs it).
    pub texts: Texts,
}

/// Whether [`LoadOptions::only_types`] lets resources of this type in.
pub(crate) fn keeps_type(only_types: Option<&[String]>, kind: &str) -> bool {
    only_types.is_none_or(|t| t.iter().any(|k| k == kind))
}

/// Everything loaded.
#[derive(Debug, Default)]
pub struct Model {
    pub files: Vec<SourceFile>,
    pub modules: Vec<Module>,
    /// Every resource and data source instance of every module instance (`count = 0` yields none;
    /// `for_each` over a known map yields one per key; an unknown `count`/`for_each` yields one
    /// instance with `key = None` and `instances_unknown = true`).
    pub resources: Vec<Resource>,
    /// Task definitions from `aws_ecs_task_definition` resources, in resource order, then from
    /// task-definition JSON files.
    pub task_definitions: Vec<TaskDefinition>,
    /// Files that could not be read or parsed (exit status 2; every other file is still checked).
    pub problems: Vec<LoadProblem>,
    /// Things worth knowing about the load itself (remote module calls not followed, said once).
    pub notes: Vec<LoadNote>,
    /// Number of files read (Terraform and JSON task definitions).
    pub files_checked: usize,
    /// The names given with [`LoadOptions::vars`] (`--var`) that no root module checked declares,
    /// in the order given: Terraform refuses such a `-var` ("Value for undeclared variable").
    pub undeclared_vars: Vec<String>,
    /// [`LoadOptions::only_types`]: asking for another type is a bug of the caller.
    pub(crate) only_types: Option<Vec<String>>,
    /// Lookups of [`Model::resources`] by address and by type, built on first use (the model is not
    /// changed after loading).
    pub(crate) index: OnceLock<Index>,
    /// Lookups by an attribute's value, built on first use for each [`AttrKey`]: see
    /// [`Model::with_attr_str`] and [`Model::referring`].
    pub(crate) by_attr: RwLock<FastMap<AttrKey, Arc<AttrIndex>>>,
    /// The root module of each module instance, and the resources of each root module by type,
    /// built on first use: see [`Model::root_of`] and [`Model::resources_in`].
    pub(crate) roots: OnceLock<Roots>,
    /// Positions in [`Model::resources`] by the file their block is written in, built on first
    /// use: see [`Model::resources_in_file`].
    pub(crate) by_file: OnceLock<FastMap<FileId, Vec<u32>>>,
    /// How many resources the lookups have handed out ([`Model::handed_out`]).
    pub(crate) handed_out: HandedOut,
    /// Positions in [`Model::task_definitions`] by the resource they come from, built on first use.
    pub(crate) task_definition_index: OnceLock<FastMap<u32, u32>>,
}

/// A lookup's key: the type of the resources indexed, the attribute, and for [`Model::referring`]
/// the type of the resources referred to (`None` for [`Model::with_attr_str`]).
type AttrKey = (String, String, Option<String>);

/// Positions in [`Model::resources`], ascending: by root module and the attribute's known string
/// ([`Model::with_attr_str`]), or by the position of a resource its unknown value refers to
/// ([`Model::referring`]).
#[derive(Debug, Default)]
pub(crate) struct AttrIndex {
    by_str: FastMap<u32, FastMap<String, Vec<u32>>>,
    by_ref: FastMap<u32, Vec<u32>>,
}

/// [`Model::handed_out`]: not part of what the model is (its `Debug` says nothing of it).
#[derive(Default)]
pub(crate) struct HandedOut(AtomicU64);

impl std::fmt::Debug for HandedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HandedOut")
    }
}

/// The root module of each module instance (by position in [`Model::modules`]), and positions in
/// [`Model::resources`], ascending, by root module and a hash of (mode, type).
#[derive(Debug, Default)]
pub(crate) struct Roots {
    of_module: Vec<ModuleId>,
    by_kind: FastMap<(u32, u64), Vec<u32>>,
}

/// Positions in [`Model::resources`], ascending, by a hash of the address (module, mode, type,
/// name) and by a hash of (mode, type). Hash collisions are harmless: callers check each candidate.
#[derive(Default)]
pub(crate) struct Index {
    state: foldhash::fast::FixedState,
    by_address: crate::FastMap<u64, Vec<u32>>,
    by_kind: crate::FastMap<u64, Vec<u32>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Index")
    }
}

impl Index {
    fn new(resources: &[Resource]) -> Index {
        let mut index = Index::default();
        for (i, r) in resources.iter().enumerate() {
            index.add(i as u32, r);
        }
        index
    }

    /// Adds the resource at position `i` of [`Model::resources`] (positions ascending).
    pub(crate) fn add(&mut self, i: u32, r: &Resource) {
        let a = self.address_hash(r.module, r.mode, &r.kind, &r.name);
        self.by_address.entry(a).or_default().push(i);
        let k = self.kind_hash(r.mode, &r.kind);
        self.by_kind.entry(k).or_default().push(i);
    }

    fn address_hash(&self, module: ModuleId, mode: Mode, kind: &str, name: &str) -> u64 {
        let mut h = self.state.build_hasher();
        module.hash(&mut h);
        (mode == Mode::Data).hash(&mut h);
        kind.hash(&mut h);
        name.hash(&mut h);
        h.finish()
    }

    fn kind_hash(&self, mode: Mode, kind: &str) -> u64 {
        let mut h = self.state.build_hasher();
        (mode == Mode::Data).hash(&mut h);
        kind.hash(&mut h);
        h.finish()
    }
}

/// A module instance: a root folder, or the instance of a module call followed (a local one, or
/// a remote one `terraform init` installed).
#[derive(Debug, Clone)]
pub struct Module {
    pub id: ModuleId,
    /// `None` for a root module; `module.gpu`, `module.a.module.b`, `module.x["k"]` for calls.
    pub address: Option<String>,
    pub dir: PathBuf,
    pub parent: Option<ModuleId>,
    /// The `module` block that instantiated it.
    pub call: Option<Loc>,
}

/// Managed resource or data source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Managed,
    Data,
}

/// One resource (or data source) instance, with its arguments evaluated.
#[derive(Debug, Clone)]
pub struct Resource {
    pub id: ResourceId,
    pub module: ModuleId,
    pub mode: Mode,
    /// `aws_ecs_service`.
    pub kind: String,
    /// `app`.
    pub name: String,
    pub key: Option<InstanceKey>,
    /// The instance count or keys are unknown (`count = var.n` with no value): this stands for all.
    pub instances_unknown: bool,
    /// The block header (`resource "aws_ecs_service" "app"`).
    pub loc: Loc,
    pub body: Body,
    pub ignore_changes: IgnoreChanges,
}

/// `lifecycle { ignore_changes = ... }`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum IgnoreChanges {
    #[default]
    None,
    /// `ignore_changes = all`.
    All,
    /// Attribute paths, as written (`desired_count`, `tags["AmazonECSManaged"]`, `tag`).
    Attributes(Vec<String>),
}

impl IgnoreChanges {
    /// Whether changes to this top-level attribute are ignored.
    pub fn ignores(&self, attribute: &str) -> bool {
        match self {
            IgnoreChanges::None => false,
            IgnoreChanges::All => true,
            IgnoreChanges::Attributes(v) => v.iter().any(|a| {
                a == attribute
                    || a.strip_prefix(attribute)
                        .is_some_and(|rest| rest.starts_with('[') || rest.starts_with('.'))
            }),
        }
    }
}

/// An evaluated block body.
#[derive(Debug, Clone, Default)]
pub struct Body {
    pub attributes: Vec<Attribute>,
    /// Nested blocks, with `dynamic` blocks expanded when their `for_each` is known.
    pub blocks: Vec<Block>,
    /// Block types produced by a `dynamic` block whose `for_each` is unknown: such a block may or
    /// may not exist, so no rule may conclude it is absent.
    pub unknown_blocks: Vec<String>,
    pub loc: Option<Loc>,
    /// The arguments and block types evaluated, when not all were
    /// ([`LoadOptions::only_arguments`]): any other is unknown.
    pub evaluated: Option<Arc<Evaluated>>,
}

/// The arguments and nested block types evaluated of a resource type
/// ([`LoadOptions::only_arguments`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Evaluated {
    /// The resource type, for the message of a rule that asks for another.
    pub kind: String,
    pub names: Vec<String>,
}

impl Evaluated {
    /// Whether `name` is among those to evaluate (`lifecycle` always is).
    pub(crate) fn lists(&self, name: &str) -> bool {
        name == "lifecycle" || self.names.iter().any(|n| n == name)
    }

    /// Whether `name` was evaluated. Asking for another is a bug of the caller: a debug build
    /// panics.
    fn has(&self, name: &str) -> bool {
        let has = self.lists(name);
        debug_assert!(
            has,
            "`{name}` of `{}` is not evaluated (LoadOptions::only_arguments): add it to the arguments the rules read",
            self.kind
        );
        has
    }
}

/// The value of an argument that was not evaluated.
fn not_loaded() -> &'static Attribute {
    static NOT_LOADED: OnceLock<Attribute> = OnceLock::new();
    NOT_LOADED.get_or_init(|| Attribute {
        name: String::new(),
        name_loc: None,
        value: Node::new(
            crate::value::unknown(crate::UnknownReason::NotLoaded, Vec::new()),
            None,
        ),
    })
}

#[derive(Debug, Clone)]
pub struct Attribute {
    pub name: String,
    pub name_loc: Option<Loc>,
    pub value: Node,
}

#[derive(Debug, Clone)]
pub struct Block {
    pub kind: String,
    pub labels: Vec<String>,
    pub loc: Option<Loc>,
    pub body: Body,
}

impl Body {
    /// The argument's value; an unknown one when it was not evaluated.
    pub fn attr(&self, name: &str) -> Option<&Node> {
        self.attribute(name).map(|a| &a.value)
    }

    /// The argument; one whose value is unknown when it was not evaluated. (An argument found
    /// was evaluated: the list of those evaluated is read only for one not found.)
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        match self.attributes.iter().find(|a| a.name == name) {
            Some(a) => Some(a),
            None if !self.evaluated(name) => Some(not_loaded()),
            None => None,
        }
    }

    /// The blocks of this type; none when they were not evaluated (and [`Body::may_have_unknown`]
    /// is then true).
    pub fn blocks<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
        // Blocks of a type not evaluated are not there; a debug build checks that none is asked for.
        debug_assert!(self.evaluated(kind));
        self.blocks.iter().filter(move |b| b.kind == kind)
    }

    pub fn block(&self, kind: &str) -> Option<&Block> {
        debug_assert!(self.evaluated(kind));
        self.blocks.iter().find(|b| b.kind == kind)
    }

    /// Whether a block of this type might exist that is not in [`Body::blocks`]: one of a
    /// `dynamic` block with an unknown `for_each`, or of a type not evaluated.
    pub fn may_have_unknown(&self, kind: &str) -> bool {
        !self.evaluated(kind) || self.unknown_blocks.iter().any(|k| k == kind)
    }

    /// Whether the argument or block type `name` was evaluated.
    fn evaluated(&self, name: &str) -> bool {
        self.evaluated.as_ref().is_none_or(|e| e.has(name))
    }
}

/// Where a task definition comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskDefinitionOrigin {
    Resource(ResourceId),
    /// A JSON file in the register-task-definition input shape or the describe-task-definition
    /// output shape (`{"taskDefinition": {...}}`).
    JsonFile(FileId),
}

/// A task definition, the same view whatever its origin. Each field is `None` when not written.
#[derive(Debug, Clone)]
pub struct TaskDefinition {
    pub origin: TaskDefinitionOrigin,
    /// The resource block header, or the task definition object in the JSON file.
    pub loc: Loc,
    pub family: Option<Node>,
    /// `requires_compatibilities` / `requiresCompatibilities`.
    pub requires_compatibilities: Option<Node>,
    pub cpu: Option<Node>,
    pub memory: Option<Node>,
    pub network_mode: Option<Node>,
    /// `runtime_platform.operating_system_family` / `runtimePlatform.operatingSystemFamily`.
    pub operating_system_family: Option<Node>,
    /// The container definitions as ECS JSON (a list of objects with camelCase keys): the
    /// `jsonencode` value itself (a [`Value::Json`](crate::Value::Json), shared with the resource's body), decoded
    /// from a JSON string, or read from the JSON file. Unknown when the string is unknown. Read the
    /// list through [`TaskDefinition::containers`].
    pub container_definitions: Option<Node>,
    /// The task-level object as written in a JSON file (to find a task-level
    /// `resourceRequirements`), without its `containerDefinitions` (in `container_definitions`);
    /// `None` for Terraform resources.
    pub task_level: Option<Node>,
    /// `placement_constraints` blocks / `placementConstraints`: (type, expression).
    pub placement_constraints: Vec<(Option<Node>, Option<Node>)>,
}

impl TaskDefinition {
    /// The container definitions: a list when known (behind a `jsonencode` or not).
    pub fn containers(&self) -> Option<&Node> {
        let n = self.container_definitions.as_ref()?;
        Some(match &n.value {
            crate::Value::Json(inner) => inner,
            _ => n,
        })
    }
}

/// The texts of the values Terraform hides ([`Model::hidden_texts`]), each with its mark.
#[derive(Debug, Clone, Default)]
pub struct HiddenTexts {
    /// Hidden anywhere a message quotes them: the hidden parts of the resources' values.
    pub everywhere: Vec<(String, crate::Mark)>,
    /// Hidden in what is said of one task definition: the containers decoded from a hidden
    /// string (a sensitive variable holding JSON, a template with a sensitive interpolation, all
    /// of whose text is then hidden; most of it is the source's own text, shown in excerpts, so
    /// it is hidden where the containers are spoken of, not in every finding of the run).
    pub by_resource: Vec<(ResourceId, Vec<(String, crate::Mark)>)>,
}

/// Each text once, with the most hidden of its marks.
fn once_each(mut texts: Vec<(String, crate::Mark)>) -> Vec<(String, crate::Mark)> {
    texts.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    texts.dedup_by(|later, first| later.0 == first.0);
    texts
}

/// A file that could not be read or parsed.
#[derive(Debug, Clone)]
pub struct LoadProblem {
    pub path: PathBuf,
    /// 1-based, when the problem has a place.
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub message: String,
}

impl crate::walk::ReadError {
    /// The load problem of the file shown as `path`.
    pub(crate) fn problem(self, path: PathBuf) -> LoadProblem {
        LoadProblem {
            path,
            line: self.line,
            column: self.column,
            message: self.message,
        }
    }
}

/// Something worth telling about the load (an info).
#[derive(Debug, Clone)]
pub struct LoadNote {
    pub kind: LoadNoteKind,
    /// Lowercase, no trailing period, identifiers in backticks.
    pub message: String,
    pub loc: Option<Loc>,
}

/// What a [`LoadNote`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadNoteKind {
    /// A module call with a remote source, not fetched (one note per call, at its place; the
    /// message is the call's address and source, and why `terraform init`'s copy is not used).
    RemoteModules,
    /// A local module call that could not be followed (missing folder, a source that is not a
    /// literal, a module that calls itself, the nesting limit).
    ModuleNotFollowed,
    /// `file()`/`templatefile()` of a path outside the checked folders, not read.
    FileOutsideTree,
    /// The values of a root module (with the modules it calls) passed the evaluator's memory
    /// budget ([`crate::MEMORY_BUDGET_BASE`]): `loc` is where it ran out, and what depends on it
    /// is unknown. Said once per root module.
    MemoryBudget,
    /// A `count` or `for_each` of more instances than the checker expands
    /// ([`crate::MAX_INSTANCES`]): the resource is one instance of unknown number.
    InstanceLimit,
}

impl Model {
    /// The texts of every hidden value (sensitive or ephemeral), for a last check that no message
    /// quotes one ([`Node::shown`] is the first).
    pub fn hidden_texts(&self) -> HiddenTexts {
        let mut everywhere = Vec::new();
        let mut bodies: Vec<&Body> = self.resources.iter().map(|r| &r.body).collect();
        while let Some(body) = bodies.pop() {
            for a in &body.attributes {
                a.value.sensitive_texts(&mut everywhere);
            }
            bodies.extend(body.blocks.iter().map(|b| &b.body));
        }
        let mut by_resource = Vec::new();
        for td in &self.task_definitions {
            let (TaskDefinitionOrigin::Resource(id), Some(c)) =
                (td.origin, &td.container_definitions)
            else {
                continue;
            };
            // Decoded from a string: what `jsonencode` did not give is not in the body's values.
            if matches!(c.value, crate::Value::Json(_)) {
                continue;
            }
            let mut texts = Vec::new();
            c.sensitive_texts(&mut texts);
            if !texts.is_empty() {
                by_resource.push((id, once_each(texts)));
            }
        }
        HiddenTexts {
            everywhere: once_each(everywhere),
            by_resource,
        }
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn module(&self, id: ModuleId) -> &Module {
        &self.modules[id.0 as usize]
    }

    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.0 as usize]
    }

    /// The task definition an `aws_ecs_task_definition` resource holds (the first, as a search of
    /// [`Model::task_definitions`] would find).
    pub fn task_definition_of(&self, id: ResourceId) -> Option<&TaskDefinition> {
        let index = self.task_definition_index.get_or_init(|| {
            let mut index = FastMap::default();
            for (i, td) in self.task_definitions.iter().enumerate() {
                if let TaskDefinitionOrigin::Resource(r) = td.origin {
                    index.entry(r.0).or_insert(i as u32);
                }
            }
            index
        });
        index
            .get(&id.0)
            .map(|&i| &self.task_definitions[i as usize])
    }

    /// The task definitions read from task-definition JSON files: in no root module, they follow
    /// those of the resources in [`Model::task_definitions`].
    pub fn json_task_definitions(&self) -> &[TaskDefinition] {
        let first = self
            .task_definitions
            .partition_point(|td| matches!(td.origin, TaskDefinitionOrigin::Resource(_)));
        &self.task_definitions[first..]
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::new(&self.resources))
    }

    /// Whether resources of this type were loaded (see [`LoadOptions::only_types`]).
    pub fn keeps_type(&self, kind: &str) -> bool {
        keeps_type(self.only_types.as_deref(), kind)
    }

    /// Resources of a mode and type, in every module, in [`Model::resources`] order.
    fn of_mode<'a>(&'a self, mode: Mode, kind: &'a str) -> impl Iterator<Item = &'a Resource> + 'a {
        debug_assert!(
            self.keeps_type(kind),
            "`{kind}` is not among the types loaded (LoadOptions::only_types)"
        );
        let index = self.index();
        let found = index
            .by_kind
            .get(&index.kind_hash(mode, kind))
            .map(Vec::as_slice)
            .unwrap_or_default();
        self.hand_out(found.len());
        found
            .iter()
            .map(|&i| &self.resources[i as usize])
            .filter(move |r| r.mode == mode && r.kind == kind)
    }

    /// Counts `n` resources handed out by a lookup.
    fn hand_out(&self, n: usize) {
        self.handed_out.0.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// How many resources the lookups of this model ([`Model::resources_of`],
    /// [`Model::resources_in`], [`Model::resources_in_file`], [`Model::with_attr_str`],
    /// [`Model::referring`], [`Model::referenced`], [`Model::resolve`]) have handed out so far: the work of the analyses
    /// that read the model, without a clock. A test that checks it grows linearly with the input
    /// catches an analysis that compares every resource with every other.
    pub fn handed_out(&self) -> u64 {
        self.handed_out.0.load(Ordering::Relaxed)
    }

    fn roots(&self) -> &Roots {
        self.roots.get_or_init(|| {
            let of_module: Vec<ModuleId> = self
                .modules
                .iter()
                .map(|m| {
                    let mut m = m;
                    while let Some(parent) = m.parent {
                        m = self.module(parent);
                    }
                    m.id
                })
                .collect();
            let index = self.index();
            let mut by_kind: FastMap<(u32, u64), Vec<u32>> = FastMap::default();
            for (i, r) in self.resources.iter().enumerate() {
                let root = of_module[r.module.0 as usize].0;
                let kind = index.kind_hash(r.mode, &r.kind);
                by_kind.entry((root, kind)).or_default().push(i as u32);
            }
            Roots { of_module, by_kind }
        })
    }

    /// The root module a module instance belongs to: itself for a root module, else the root
    /// module whose calls instantiate it. Each root module is a Terraform configuration of its
    /// own: a name, a task definition family or a cluster in one root says nothing of another's.
    pub fn root_of(&self, module: ModuleId) -> ModuleId {
        self.roots().of_module[module.0 as usize]
    }

    /// The resources and data sources whose block is written in `file`, in [`Model::resources`]
    /// order.
    pub fn resources_in_file(&self, file: FileId) -> impl Iterator<Item = &Resource> + '_ {
        let by_file = self.by_file.get_or_init(|| {
            let mut by_file: FastMap<FileId, Vec<u32>> = FastMap::default();
            for (i, r) in self.resources.iter().enumerate() {
                by_file.entry(r.loc.file).or_default().push(i as u32);
            }
            by_file
        });
        let found = by_file.get(&file).map(Vec::as_slice).unwrap_or_default();
        self.hand_out(found.len());
        found.iter().map(|&i| &self.resources[i as usize])
    }

    /// Managed resources of a type in one root module and the modules it calls, in
    /// [`Model::resources`] order.
    pub fn resources_in<'a>(
        &'a self,
        root: ModuleId,
        kind: &'a str,
    ) -> impl Iterator<Item = &'a Resource> + 'a {
        debug_assert!(
            self.keeps_type(kind),
            "`{kind}` is not among the types loaded (LoadOptions::only_types)"
        );
        let key = (root.0, self.index().kind_hash(Mode::Managed, kind));
        let found = self
            .roots()
            .by_kind
            .get(&key)
            .map(Vec::as_slice)
            .unwrap_or_default();
        self.hand_out(found.len());
        found
            .iter()
            .map(|&i| &self.resources[i as usize])
            .filter(move |r| r.mode == Mode::Managed && r.kind == kind)
    }

    /// Managed resources of a type, in every module.
    pub fn resources_of<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Resource> + 'a {
        self.of_mode(Mode::Managed, kind)
    }

    /// Data sources of a type, in every module.
    pub fn data_of<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Resource> + 'a {
        self.of_mode(Mode::Data, kind)
    }

    /// The managed resources of a type in the root module `root` (and the modules it calls) whose
    /// attribute `attr` is the known string `value`, in [`Model::resources`] order: the other end
    /// of a link written as a name (a capacity provider named in a strategy). The same as
    /// filtering [`Model::resources_in`], without a scan per lookup.
    pub fn with_attr_str<'a>(
        &'a self,
        root: ModuleId,
        kind: &str,
        attr: &str,
        value: &str,
    ) -> Vec<&'a Resource> {
        let index = self.attr_index(kind, attr, None);
        let found: Vec<&Resource> = index
            .by_str
            .get(&root.0)
            .and_then(|by_value| by_value.get(value))
            .map(|ids| ids.iter().map(|&i| &self.resources[i as usize]).collect())
            .unwrap_or_default();
        self.hand_out(found.len());
        found
    }

    /// The managed resources of a type whose attribute `attr` is unknown and refers to `target`
    /// (through [`Model::referenced`] with `target`'s type), in [`Model::resources`] order.
    pub fn referring<'a>(&'a self, kind: &str, attr: &str, target: &Resource) -> Vec<&'a Resource> {
        let index = self.attr_index(kind, attr, Some(&target.kind));
        let found: Vec<&Resource> = index
            .by_ref
            .get(&target.id.0)
            .map(|ids| ids.iter().map(|&i| &self.resources[i as usize]).collect())
            .unwrap_or_default();
        self.hand_out(found.len());
        found
    }

    fn attr_index(&self, kind: &str, attr: &str, ref_kind: Option<&str>) -> Arc<AttrIndex> {
        let key: AttrKey = (
            kind.to_string(),
            attr.to_string(),
            ref_kind.map(str::to_string),
        );
        // A poisoned lock only means another thread panicked while building: the map is intact.
        if let Some(found) = self
            .by_attr
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
        {
            return found.clone();
        }
        let mut index = AttrIndex::default();
        for r in self.resources_of(kind) {
            let Some(node) = r.body.attr(attr) else {
                continue;
            };
            match (&node.value, ref_kind) {
                (crate::Value::String(s), None) => {
                    let root = self.root_of(r.module).0;
                    let by_value = index.by_str.entry(root).or_default();
                    by_value.entry(s.to_string()).or_default().push(r.id.0);
                }
                (crate::Value::Unknown(_), Some(ref_kind)) => {
                    for target in self.referenced(node, ref_kind) {
                        index.by_ref.entry(target.id.0).or_default().push(r.id.0);
                    }
                }
                _ => {}
            }
        }
        let index = Arc::new(index);
        self.by_attr
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(key)
            .or_insert(index)
            .clone()
    }

    /// The resources a reference points to, in the module it was written in (every instance when
    /// the reference has no key).
    pub fn resolve(&self, r: &Reference) -> Vec<&Resource> {
        let mut out = Vec::new();
        if let Some((mode, kind, name)) = split_address(&r.address) {
            self.resolve_into(r, mode, kind, name, &mut out);
        }
        self.hand_out(out.len());
        out
    }

    /// [`Model::resolve`] of a reference whose address is `mode`, `kind`, `name`, into `out`.
    fn resolve_into<'a>(
        &'a self,
        r: &Reference,
        mode: Mode,
        kind: &str,
        name: &str,
        out: &mut Vec<&'a Resource>,
    ) {
        let index = self.index();
        let candidates = index
            .by_address
            .get(&index.address_hash(r.module, mode, kind, name))
            .map(Vec::as_slice)
            .unwrap_or_default();
        out.extend(
            candidates
                .iter()
                .map(|&i| &self.resources[i as usize])
                .filter(|res| {
                    res.module == r.module
                        && res.mode == mode
                        && res.kind == kind
                        && res.name == name
                        && (r.key.is_none() || res.key == r.key || res.instances_unknown)
                }),
        );
    }

    /// The resources of a type that a value refers to (through [`Node::refs`]).
    pub fn referenced<'a>(&'a self, node: &Node, kind: &str) -> Vec<&'a Resource> {
        debug_assert!(
            self.keeps_type(kind),
            "`{kind}` is not among the types loaded (LoadOptions::only_types)"
        );
        // A reference names its resource's type: the others are not looked up.
        let mut out: Vec<&Resource> = Vec::new();
        for r in node.refs() {
            if let Some((mode, k, name)) = split_address(&r.address).filter(|a| a.1 == kind) {
                self.resolve_into(r, mode, k, name, &mut out);
            }
        }
        if out.len() > 1 {
            out.sort_by_key(|r| r.id);
            out.dedup_by_key(|r| r.id);
        }
        self.hand_out(out.len());
        out
    }

    /// `aws_ecs_service.app`, `aws_ecs_service.app[0]`, `data.aws_ssm_parameter.ami`, relative to its
    /// module.
    pub fn local_address(&self, r: &Resource) -> String {
        let mut s = String::new();
        if r.mode == Mode::Data {
            s.push_str("data.");
        }
        s.push_str(&r.kind);
        s.push('.');
        s.push_str(&r.name);
        match &r.key {
            Some(InstanceKey::Index(i)) => s.push_str(&format!("[{i}]")),
            Some(InstanceKey::Key(k)) => s.push_str(&format!("[{k:?}]")),
            None => {}
        }
        s
    }

    /// The module address of a resource (`None` in a root module).
    pub fn module_address(&self, r: &Resource) -> Option<&str> {
        self.module(r.module).address.as_deref()
    }
}

/// A reference's address (`aws_ecs_service.app`, `data.aws_ami.gpu`) as mode, type and name.
fn split_address(address: &str) -> Option<(Mode, &str, &str)> {
    let (mode, rest) = match address.strip_prefix("data.") {
        Some(rest) => (Mode::Data, rest),
        None => (Mode::Managed, address),
    };
    let (kind, name) = rest.split_once('.')?;
    Some((mode, kind, name))
}
