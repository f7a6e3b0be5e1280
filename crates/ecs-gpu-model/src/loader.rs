//! Module expansion: module instances from root folders and local calls, their variables, locals
//! and outputs, and the resources of each instance, evaluated.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use ecs_gpu_hcl::ast::{self, Expr, ExprKind, Item};

use crate::decl::{apply_overrides, attr};
// The driver names the declarations through the loader.
pub(crate) use crate::decl::ModuleDecl;
use crate::eval::{to_str, EvalContext, Evaluate as _, Scope, EMPTY};
use crate::installed::{self, Installed, Lookup};
use crate::json::{json_value_to_node, JsonLocs};
use crate::model::*;
use crate::value::{
    error_value, unknown, Entry, InstanceKey, Loc, Mark, Node, Object, UnknownReason, Value,
};
use crate::version::Constraints;
use crate::walk::{self, Kind, Parsed};
use crate::{FastMap, FastSet};

/// How a `variable` or `output` block declares its value hidden: `sensitive = true`,
/// `ephemeral = true` (Terraform 1.10), or both.
fn declared_mark(body: &ast::Body) -> Mark {
    let set =
        |name: &str| attr(body, name).is_some_and(|a| matches!(a.value.kind, ExprKind::Bool(true)));
    if set("ephemeral") {
        Mark::Ephemeral
    } else if set("sensitive") {
        Mark::Sensitive
    } else {
        Mark::None
    }
}

/// Deepest chain of module calls followed.
const MAX_MODULE_DEPTH: usize = 12;
/// More instances than this are treated as an unknown number (a typo'd count must not eat memory),
/// with a note ([`LoadNoteKind::InstanceLimit`]).
pub const MAX_INSTANCES: usize = 1000;
/// Most module instances in one load.
const MAX_MODULE_INSTANCES: usize = 5000;

/// One instance of a repeated block: its key and its `count`/`each` binding.
type Instance = (Option<InstanceKey>, Option<(String, Node)>);

#[derive(Debug)]
enum Slot {
    Pending(VarSource),
    Evaluating,
    Done(Node),
}

#[derive(Debug)]
enum VarSource {
    /// An argument of the module call that made this instance.
    Call {
        parent: usize,
        call: (usize, usize),
        binds: Vec<(String, Node)>,
    },
    Value(Node),
    Default,
}

/// A remote module call that is not followed.
#[derive(Debug, Clone)]
pub(crate) struct RemoteCall {
    pub address: String,
    pub source: String,
    pub loc: Loc,
    /// Why `terraform init`'s copy could not be used, when it installed one.
    pub why: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum Children {
    /// No such `module` block.
    Missing,
    /// A registry, git or other non-local source: not fetched.
    Remote,
    /// A local source that could not be loaded (missing folder, recursion, limits).
    Failed,
    Instances {
        repeated: bool,
        unknown_instances: bool,
        list: Vec<(Option<InstanceKey>, usize)>,
    },
}

#[derive(Debug)]
enum ChildState {
    Creating,
    Ready(Children),
}

/// A module instance.
#[derive(Debug)]
pub(crate) struct ModuleInstance {
    pub decl: Rc<ModuleDecl>,
    pub id: ModuleId,
    pub address: Option<String>,
    /// `path.module`: the module folder relative to the root module's folder.
    pub rel_dir: String,
    /// The root module's folder (`file()` paths are relative to it, as Terraform runs there).
    pub root_dir: PathBuf,
    depth: usize,
    /// The folders of this instance and its ancestors (a module that calls itself stops).
    chain: Vec<PathBuf>,
    instances_unknown: bool,
    /// `terraform.workspace` (the root module's).
    pub workspace: String,
    /// The call's path from the root: the module block names joined by `.` (empty for the root),
    /// as `terraform init` keys the calls it installs.
    key: String,
    /// The root module's calls installed by `terraform init`, when it ran there.
    installed: Option<Rc<Installed>>,
    vars: FastMap<String, Slot>,
    locals: FastMap<String, Option<Node>>,
    outputs: FastMap<String, Option<Node>>,
    children: FastMap<String, ChildState>,
    emitted: bool,
}

/// What every unit of one load shares.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub cwd: PathBuf,
    /// Folders `file()` may read under: the checked paths and every walked folder (each unit adds
    /// the module folders it loads).
    pub allowed: Vec<PathBuf>,
    /// The folders of Terraform files found by the walk, in unit order. Each walked file is
    /// counted, and its problems reported, by its own folder's unit, whoever else reads it for a
    /// module call.
    pub folders: Vec<WalkedFolder>,
    /// A walked folder's index in `folders`, by real path.
    pub folder_index: FastMap<OsString, usize>,
    /// The JSON files found by the walk, in unit order after the folders.
    pub json: Vec<walk::Found>,
    pub vars: Vec<(String, String)>,
    pub var_files: Vec<PathBuf>,
    pub only_types: Option<Vec<String>>,
    /// [`LoadOptions::texts`].
    pub texts: crate::Texts,
    /// [`LoadOptions::only_arguments`], by resource type.
    pub evaluated: FastMap<String, Arc<Evaluated>>,
    /// The `TF_VAR_*` environment variables, by variable name, read once.
    pub tf_vars: FastMap<String, String>,
    /// `TF_WORKSPACE`, read once.
    pub tf_workspace: Option<String>,
    /// Module files parsed by a unit for a module call, for the other units that call the same
    /// folder (many roots call one module; each example of a module calls it).
    pub parsed: Mutex<ParsedFiles>,
}

/// Most source text of the module files [`Shared::parsed`] keeps: their syntax trees stay until
/// the load ends, so a bound keeps memory near the size of the checked files.
const PARSED_FILES_BYTES: usize = 1 << 20;

/// Parsed module files, by real path ([`Shared::parsed`]).
#[derive(Debug, Default)]
pub(crate) struct ParsedFiles {
    files: FastMap<OsString, Arc<ParsedFile>>,
    text_bytes: usize,
}

/// A module file as a unit parsed it: its text and comments (for the unit's file table) and its
/// syntax tree, with the bodies nothing reads already freed.
#[derive(Debug)]
pub(crate) struct ParsedFile {
    text: String,
    comments: Vec<ecs_gpu_hcl::Comment>,
    file: Arc<ast::File>,
}

impl Shared {
    /// The module file at this real path, if a unit shared its parse.
    fn parsed(&self, real: &Path) -> Option<Arc<ParsedFile>> {
        let parsed = self.parsed.lock().ok()?;
        parsed.files.get(real.as_os_str()).cloned()
    }

    /// Shares a module file's parse with the other units, while the bound allows.
    fn share_parsed(
        &self,
        real: &Path,
        text: &str,
        comments: &[ecs_gpu_hcl::Comment],
        file: &Arc<ast::File>,
    ) {
        let Ok(mut parsed) = self.parsed.lock() else {
            return;
        };
        if parsed.text_bytes + text.len() > PARSED_FILES_BYTES {
            return;
        }
        parsed.text_bytes += text.len();
        let shared = ParsedFile {
            text: text.to_string(),
            comments: comments.to_vec(),
            file: file.clone(),
        };
        parsed
            .files
            .insert(real.as_os_str().to_os_string(), Arc::new(shared));
    }
}

/// A folder of Terraform files found by the walk.
#[derive(Debug)]
pub(crate) struct WalkedFolder {
    pub real: PathBuf,
    pub display: PathBuf,
    /// Its Terraform files, in display order.
    pub files: Vec<walk::Found>,
}

/// What a root module takes from its folder's listing besides its Terraform files, ignored by
/// `.gitignore` or not (Terraform reads them either way).
#[derive(Debug, Default)]
struct RootListing {
    /// `terraform.tfvars` and `terraform.tfvars.json` (regular files, or links to one), by real path.
    pub tfvars: Vec<PathBuf>,
    /// `*.auto.tfvars` and `*.auto.tfvars.json`, the same.
    pub auto_tfvars: Vec<PathBuf>,
    /// Whether the folder holds `.terraform`.
    pub dot_terraform: bool,
}

impl RootListing {
    /// The listing of the folder at `real`.
    fn read(real: &Path) -> RootListing {
        let mut listing = RootListing::default();
        if let Ok(rd) = std::fs::read_dir(real) {
            for e in rd.filter_map(Result::ok) {
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                if name == ".terraform" {
                    listing.dot_terraform = true;
                } else if name == "terraform.tfvars" || name == "terraform.tfvars.json" {
                    if is_file(&e) {
                        listing.tfvars.push(e.path());
                    }
                } else if (name.ends_with(".auto.tfvars") || name.ends_with(".auto.tfvars.json"))
                    && is_file(&e)
                {
                    listing.auto_tfvars.push(e.path());
                }
            }
        }
        listing
    }
}

impl Shared {
    /// The walked folder at this real path.
    pub(crate) fn walked(&self, real: &Path) -> Option<&WalkedFolder> {
        self.folders.get(*self.folder_index.get(real.as_os_str())?)
    }
}

/// Most source text (bytes) of the module folders whose declarations a unit keeps for later
/// calls. Syntax trees take about ten times their text: small shared modules stay (a root may
/// call the same one many times), a big module called once does not hold its trees for the whole
/// unit.
const DECL_CACHE_BYTES: usize = 128 << 10;

/// The evaluator of one unit, and what the unit builds.
#[derive(Debug, Default)]
pub(crate) struct Loader {
    pub shared: Arc<Shared>,
    /// The unit's file table (texts kept for the model); their real paths are the keys of
    /// `file_index`.
    pub files: Vec<SourceFile>,
    pub problems: Vec<LoadProblem>,
    pub notes: Vec<LoadNote>,
    pub modules: Vec<Module>,
    pub resources: Vec<Resource>,
    pub instances: Vec<ModuleInstance>,
    pub depth: usize,
    pub evaluating_data: Vec<(usize, String, String, Option<InstanceKey>)>,
    pub cwd: PathBuf,
    /// Module folders loaded by the unit in progress, where `file()` may read too (besides
    /// [`Shared::allowed`]).
    pub allowed: Vec<PathBuf>,
    /// Files read by `file()`/`templatefile()` (a task-definition JSON read so is not checked alone).
    pub read_by_functions: FastSet<OsString>,
    pub templates: FastMap<OsString, Option<(FileId, Rc<ast::Template>)>>,
    /// Templates being evaluated (a template that includes itself stops).
    pub template_stack: Vec<PathBuf>,
    /// By real path. The loader's maps of real paths are keyed by the paths' bytes (`OsString`):
    /// `Path`'s own hash parses them component by component; a real path (canonical, or a canonical folder joined with a name) has one
    /// spelling, so comparing bytes is comparing paths.
    pub file_index: FastMap<OsString, FileId>,
    /// Module folders' declarations, kept for later calls (at most [`DECL_CACHE_BYTES`] of text,
    /// oldest out), with their text sizes in `decl_order`.
    decls: FastMap<OsString, Option<Rc<ModuleDecl>>>,
    decl_order: std::collections::VecDeque<(PathBuf, usize)>,
    remote_calls: Vec<RemoteCall>,
    failed_calls: Vec<(String, Loc)>,
    /// The real path of each file of `files`, by file id.
    unit_new_files: Vec<PathBuf>,
    /// Walked files the unit checked.
    pub unit_walked_checked: usize,
    /// Files outside the walk the unit read (real paths).
    unit_other_checked: Vec<PathBuf>,
    /// The names given with [`LoadOptions::vars`] that the unit's root module declares.
    unit_declared_vars: Vec<String>,
}

/// What one unit produced, in its own file, module and resource ids.
#[derive(Debug, Default)]
pub(crate) struct Partial {
    /// The files this unit read, by its file id, with their real paths.
    pub files: Vec<(PathBuf, SourceFile)>,
    /// Files of the walk this unit checked (each walked file belongs to one unit).
    pub walked_checked: usize,
    /// Real paths of the files outside the walk this unit read (module folders elsewhere): other
    /// units may read them too, they count once.
    pub other_checked: Vec<PathBuf>,
    pub modules: Vec<Module>,
    pub resources: Vec<Resource>,
    pub problems: Vec<LoadProblem>,
    pub notes: Vec<LoadNote>,
    pub remote_calls: Vec<RemoteCall>,
    pub failed_calls: Vec<(String, Loc)>,
    pub read_by_functions: Vec<PathBuf>,
    /// A JSON unit's task definition, with the file's real path.
    pub task_definition: Option<(TaskDefinition, PathBuf)>,
    /// The names given with [`LoadOptions::vars`] that the unit's root module declares.
    pub declared_vars: Vec<String>,
}

/// Whether a folder entry is a regular file (or a link to one), without a `stat` for the others.
pub(crate) fn is_file(e: &std::fs::DirEntry) -> bool {
    match e.file_type() {
        Ok(t) if t.is_symlink() => e.path().is_file(),
        Ok(t) => t.is_file(),
        Err(_) => false,
    }
}

fn header_span(b: &ast::Block) -> ecs_gpu_hcl::Span {
    let mut s = b.kind.span;
    if let Some(l) = b.labels.last() {
        s = s.to(l.span);
    }
    s
}

impl Loader {
    pub(crate) fn add_file(
        &mut self,
        real: &Path,
        display: PathBuf,
        text: String,
        comments: Vec<ecs_gpu_hcl::Comment>,
    ) -> FileId {
        // One lookup: a file is mostly new here.
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        match self.file_index.entry(real.as_os_str().to_os_string()) {
            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let real = PathBuf::from(e.key());
                e.insert(id);
                self.files
                    .push(SourceFile::new(display, text, comments, self.shared.texts));
                self.unit_new_files.push(real);
                id
            }
        }
    }

    /// A unit's evaluator.
    pub(crate) fn new(shared: Arc<Shared>) -> Loader {
        Loader {
            cwd: shared.cwd.clone(),
            shared,
            ..Loader::default()
        }
    }

    /// Starts a unit of `files` files: its own module instances, resources and copy budget.
    pub(crate) fn start_unit(&mut self, files: usize) {
        crate::budget::reset_copy_budget(files);
        crate::parse::start_unit();
        self.allowed.clear();
    }

    /// The unit's results, with its file table.
    pub(crate) fn finish_unit(&mut self) -> Partial {
        self.instances.clear();
        crate::parse::end_unit();
        if let Some(loc) = crate::budget::take_budget_spent() {
            self.notes.push(LoadNote {
                kind: LoadNoteKind::MemoryBudget,
                message: "the values built here pass the evaluator's memory budget: this value and what depends on it are unknown".into(),
                loc,
            });
        }
        Partial {
            files: std::mem::take(&mut self.unit_new_files)
                .into_iter()
                .zip(std::mem::take(&mut self.files))
                .collect(),
            walked_checked: std::mem::take(&mut self.unit_walked_checked),
            other_checked: std::mem::take(&mut self.unit_other_checked),
            modules: std::mem::take(&mut self.modules),
            resources: std::mem::take(&mut self.resources),
            problems: std::mem::take(&mut self.problems),
            notes: std::mem::take(&mut self.notes),
            remote_calls: std::mem::take(&mut self.remote_calls),
            failed_calls: std::mem::take(&mut self.failed_calls),
            read_by_functions: std::mem::take(&mut self.read_by_functions)
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            task_definition: None,
            declared_vars: std::mem::take(&mut self.unit_declared_vars),
        }
    }

    /// The file id of a file the unit has read.
    pub(crate) fn registered(&self, real: &Path) -> Option<FileId> {
        self.file_index.get(real.as_os_str()).copied()
    }

    /// Parses again a file the unit has read (its declarations were freed), from its kept
    /// text (`None` when the text was not kept).
    pub(crate) fn parse_kept(&self, id: FileId, kind: Kind) -> Option<ast::File> {
        let text = self.files.get(id.0 as usize)?.text.as_deref()?;
        match walk::parse_text(kind, text) {
            Parsed::Hcl(mut file) => {
                // As when first read: the comments are in the source file.
                file.comments = Vec::new();
                Some(file)
            }
            _ => None,
        }
    }

    /// A Terraform file of a module folder, parsed: the copy another unit shared
    /// ([`Shared::parsed`]), from the kept text when the unit has read it already and kept its
    /// text, else read now. `report`: say why it cannot be read or parsed (its own folder's unit
    /// does; a module call into a walked folder does not, to say it once). `called`: read for a
    /// module call, so other units may call the same folder: its parse is shared.
    pub(crate) fn module_file(
        &mut self,
        found: &walk::Found,
        report: bool,
        called: bool,
    ) -> Option<(FileId, Arc<ast::File>)> {
        let shared = self.shared.parsed(&found.real);
        if let Some(id) = self.registered(&found.real) {
            if let Some(parsed) = shared {
                return Some((id, parsed.file.clone()));
            }
            let mut file = match self.parse_kept(id, found.kind) {
                Some(file) => file,
                // Read again (rare: a module folder called again once its declarations were
                // freed); it was reported, when it had to be, on the first reading.
                None => match walk::read_one(found) {
                    (_, Parsed::Hcl(mut file)) => {
                        file.comments = Vec::new();
                        file
                    }
                    _ => return None,
                },
            };
            self.drop_unread_bodies(&mut file);
            return Some((id, Arc::new(file)));
        }
        if let Some(parsed) = shared {
            let id = self.add_file(
                &found.real,
                found.display.clone(),
                parsed.text.clone(),
                parsed.comments.clone(),
            );
            return Some((id, parsed.file.clone()));
        }
        match walk::read_one(found) {
            (text, Parsed::Hcl(mut file)) => {
                // The comments are for suppressions (the source file), not for evaluation.
                let comments = std::mem::take(&mut file.comments);
                self.drop_unread_bodies(&mut file);
                let file = Arc::new(file);
                if called {
                    self.shared
                        .share_parsed(&found.real, &text, &comments, &file);
                }
                let id = self.add_file(&found.real, found.display.clone(), text, comments);
                Some((id, file))
            }
            (
                _,
                Parsed::Problem {
                    line,
                    column,
                    message,
                },
            ) if report => {
                self.problems.push(LoadProblem {
                    path: found.display.clone(),
                    line,
                    column,
                    message,
                });
                None
            }
            _ => None,
        }
    }

    /// Frees, as soon as a file is parsed, the bodies of its `resource` blocks of types that are
    /// not evaluated ([`LoadOptions::only_types`]): nothing reads them (a reference to such a
    /// resource only needs to know it is declared, and the block keeps its type and name), and
    /// the unit's other trees then reuse their memory. Data sources keep theirs: an expression
    /// may read their arguments.
    fn drop_unread_bodies(&self, file: &mut ast::File) {
        if self.shared.only_types.is_none() {
            return;
        }
        for item in &mut file.body.items {
            if let Item::Block(b) = item {
                if b.kind.name == "resource"
                    && b.labels.first().is_some_and(|t| !self.keeps_type(&t.name))
                {
                    b.body.items = Vec::new();
                }
            }
        }
    }

    /// Evaluates a folder as a root module, with its module calls.
    pub(crate) fn evaluate_root(&mut self, decl: Rc<ModuleDecl>) {
        let inst = self.new_root(decl);
        self.emit(inst);
    }

    /// The size of the texts of a module folder's declarations.
    fn text_size(&self, decl: &ModuleDecl) -> usize {
        decl.files
            .iter()
            .filter_map(|(id, _)| self.files.get(id.0 as usize))
            .map(|f| f.lines.text_len())
            .sum()
    }

    pub(crate) fn keeps_type(&self, kind: &str) -> bool {
        crate::model::keeps_type(self.shared.only_types.as_deref(), kind)
    }

    /// Whether `file()` may read this real path.
    pub(crate) fn may_read(&self, real: &Path) -> bool {
        self.shared
            .allowed
            .iter()
            .chain(&self.allowed)
            .any(|d| real.starts_with(d))
    }

    /// `override.tf`, `*_override.tf` (and `.tf.json`, and OpenTofu's `.tofu` and `.tofu.json`):
    /// merged into the other files' blocks.
    pub(crate) fn is_override_file(&self, id: FileId) -> bool {
        self.files
            .get(id.0 as usize)
            .and_then(|f| f.path.file_name())
            .and_then(|n| n.to_str())
            .map(|n| n.strip_suffix(".json").unwrap_or(n))
            .and_then(|n| n.strip_suffix(".tf").or_else(|| n.strip_suffix(".tofu")))
            .is_some_and(|stem| stem == "override" || stem.ends_with("_override"))
    }

    #[allow(clippy::too_many_arguments)]
    fn new_inst(
        &mut self,
        decl: Rc<ModuleDecl>,
        address: Option<String>,
        parent: Option<usize>,
        call: Option<Loc>,
        rel_dir: String,
        root_dir: PathBuf,
        chain: Vec<PathBuf>,
    ) -> usize {
        let idx = self.instances.len();
        let id = ModuleId(u32::try_from(idx).unwrap_or(u32::MAX));
        self.modules.push(Module {
            id,
            address: address.clone(),
            dir: decl.display_dir.clone(),
            parent: parent.map(|p| self.instances[p].id),
            call,
        });
        let depth = parent.map_or(0, |p| self.instances[p].depth + 1);
        let instances_unknown = parent.is_some_and(|p| self.instances[p].instances_unknown);
        let workspace = parent.map_or_else(
            || "default".to_string(),
            |p| self.instances[p].workspace.clone(),
        );
        let installed = parent.and_then(|p| self.instances[p].installed.clone());
        self.instances.push(ModuleInstance {
            decl,
            id,
            address,
            rel_dir,
            root_dir,
            depth,
            chain,
            instances_unknown,
            workspace,
            key: String::new(),
            installed,
            vars: FastMap::default(),
            locals: FastMap::default(),
            outputs: FastMap::default(),
            children: FastMap::default(),
            emitted: false,
        });
        idx
    }

    fn new_root(&mut self, decl: Rc<ModuleDecl>) -> usize {
        let root_dir = decl.real_dir.clone();
        // The folder's listing, ignored by `.gitignore` or not: its variable files and whether it
        // has `.terraform`.
        let RootListing {
            mut tfvars,
            auto_tfvars: mut auto,
            dot_terraform,
        } = RootListing::read(&decl.real_dir);
        // The workspace, as Terraform selects it: TF_WORKSPACE, else the one recorded by
        // `terraform workspace select` in .terraform/environment, else "default".
        let workspace = self
            .shared
            .tf_workspace
            .clone()
            .or_else(|| {
                dot_terraform
                    .then(|| walk::read_text(&root_dir.join(".terraform/environment")).ok())
                    .flatten()
                    .map(|s| s.trim().to_string())
            })
            .filter(|w| !w.is_empty())
            .unwrap_or_else(|| "default".to_string());
        let chain = vec![decl.real_dir.clone()];
        let installed = if dot_terraform {
            self.read_installed(&root_dir, &decl.display_dir)
        } else {
            None
        };
        let inst = self.new_inst(decl.clone(), None, None, None, ".".into(), root_dir, chain);
        self.instances[inst].workspace = workspace;
        self.instances[inst].installed = installed;
        // Terraform's precedence: defaults < TF_VAR_ environment variables < terraform.tfvars <
        // terraform.tfvars.json < *.auto.tfvars(.json) in lexical order < -var-file in order <
        // -var in order.
        let mut values: FastMap<String, Node> = FastMap::default();
        if !self.shared.tf_vars.is_empty() {
            for name in decl.variable_order.clone() {
                if let Some(raw) = self.shared.tf_vars.get(&name).cloned() {
                    let v = self.cli_var(inst, &name, &raw);
                    values.insert(name, v);
                }
            }
        }
        // terraform.tfvars before terraform.tfvars.json.
        tfvars.sort();
        let mut files = tfvars;
        auto.sort();
        files.extend(auto);
        files.extend(self.shared.var_files.clone());
        for f in files {
            self.read_tfvars(inst, &f, &mut values);
        }
        for (name, raw) in self.shared.vars.clone() {
            if decl.variables.contains_key(&name) {
                self.unit_declared_vars.push(name.clone());
            }
            let v = self.cli_var(inst, &name, &raw);
            values.insert(name, v);
        }
        for name in decl.variable_order.clone() {
            let source = match values.remove(&name) {
                Some(v) => VarSource::Value(v),
                None => VarSource::Default,
            };
            self.instances[inst]
                .vars
                .insert(name, Slot::Pending(source));
        }
        inst
    }

    /// `-var name=value`: a literal string for primitive-typed (or untyped) variables, otherwise
    /// an HCL expression, as Terraform parses it.
    fn cli_var(&mut self, inst: usize, name: &str, raw: &str) -> Node {
        let decl = self.instances[inst].decl.clone();
        let complex = decl
            .variables
            .get(name)
            .and_then(|at| decl.block(*at))
            .and_then(|(b, _)| attr(&b.body, "type"))
            .is_some_and(|t| {
                !matches!(&t.value.kind, ExprKind::Variable(i) if matches!(i.name.as_str(), "string" | "number" | "bool"))
            });
        if complex {
            if let Some(e) = crate::parse::expression(raw) {
                let cx = EvalContext {
                    inst,
                    file: FileId(u32::MAX),
                    scope: &EMPTY,
                    closed: true,
                };
                let mut n = self.eval(&cx, &e);
                strip_locs(&mut n);
                return n;
            }
        }
        Node::new(Value::String(raw.to_string().into()), None)
    }

    /// The calls `terraform init` installed for the root module at `root_real` (shown as
    /// `display_root`): `None` when it has no manifest, or one that cannot be read (a problem).
    fn read_installed(&mut self, root_real: &Path, display_root: &Path) -> Option<Rc<Installed>> {
        let path = root_real.join(installed::MANIFEST);
        let display = display_root.join(installed::MANIFEST);
        let text = match walk::read_text(&path) {
            Ok(t) => t,
            Err(_) if !path.exists() => return None,
            Err(e) => {
                self.problems.push(e.problem(display));
                return None;
            }
        };
        match Installed::parse(&text, display_root.to_path_buf()) {
            Ok(m) => Some(Rc::new(m)),
            Err(e) => {
                self.parse_problem(display, &text, &e);
                None
            }
        }
    }

    fn read_tfvars(&mut self, inst: usize, path: &Path, values: &mut FastMap<String, Node>) {
        let display = walk::display_path(path, &self.cwd);
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let text = match walk::read_text(&real) {
            Ok(t) => t,
            Err(e) => {
                self.problems.push(e.problem(display));
                return;
            }
        };
        let text_len = text.len();
        // Values for variables the module does not declare are not read (Terraform only warns
        // of them): they would take memory for nothing. The others are held while the unit is
        // evaluated, as its syntax trees are, and charged to the same budget: four hundred
        // variable files of dense lists must not hold gigabytes.
        let decl = self.instances[inst].decl.clone();
        let mut read: Vec<(String, Node)> = Vec::new();
        let is_json = path.extension().is_some_and(|e| e == "json");
        if is_json {
            match crate::parse::transient_json(&text) {
                Ok(j) => {
                    let fid = self.add_file(&real, display.clone(), text, Vec::new());
                    if let ecs_gpu_hcl::json::JsonValue::Object(members) = j.value {
                        for m in members {
                            if decl.variables.contains_key(&m.key) {
                                let v = json_value_to_node(m.value, JsonLocs::File(fid));
                                read.push((m.key, v));
                            }
                        }
                    }
                }
                Err(e) => {
                    self.parse_problem(display, &text, &e);
                    return;
                }
            }
        } else {
            match crate::parse::transient_file(&text) {
                Ok(file) => {
                    let fid = self.add_file(&real, display.clone(), text, Vec::new());
                    let cx = EvalContext {
                        inst,
                        file: fid,
                        scope: &EMPTY,
                        closed: true,
                    };
                    for item in &file.body.items {
                        if let Item::Attribute(a) = item {
                            if decl.variables.contains_key(&a.name.name) {
                                let v = self.eval(&cx, &a.value);
                                read.push((a.name.name.clone(), v));
                            }
                        }
                    }
                }
                Err(e) => {
                    self.parse_problem(display, &text, &e);
                    return;
                }
            }
        }
        let limit = u64::MAX / crate::budget::NODE_SIZE;
        let nodes: u64 = read
            .iter()
            .map(|(_, v)| crate::budget::node_count(v, limit))
            .sum();
        let bytes =
            usize::try_from(nodes.saturating_mul(crate::budget::NODE_SIZE)).unwrap_or(usize::MAX);
        if !crate::parse::charge_values(text_len, bytes) {
            self.problems.push(LoadProblem {
                path: display,
                line: None,
                column: None,
                message: format!(
                    "values over their memory budget for one root module with the modules it \
                     calls ({} MiB, plus {} bytes per byte of their files): the files before this \
                     one took it, so its values are not used",
                    ecs_gpu_hcl::TREE_BUDGET_BASE >> 20,
                    ecs_gpu_hcl::TREE_BUDGET_PER_BYTE
                ),
            });
            return;
        }
        values.extend(read);
    }

    pub(crate) fn parse_problem(&mut self, path: PathBuf, text: &str, e: &ecs_gpu_hcl::ParseError) {
        let (line, col) = ecs_gpu_hcl::line_col(text, e.span.start);
        self.problems.push(LoadProblem {
            path,
            line: Some(line),
            column: Some(col),
            message: e.message.clone(),
        });
    }

    pub(crate) fn get_var(&mut self, inst: usize, name: &str) -> Node {
        let slot = match self.instances[inst].vars.get_mut(name) {
            None => return Node::new(error_value(), None),
            Some(s) => std::mem::replace(s, Slot::Evaluating),
        };
        let source = match slot {
            Slot::Done(n) => {
                let copy = if crate::budget::charge_copy(&n) {
                    n.clone()
                } else {
                    Node::new(unknown(UnknownReason::Unsupported, Vec::new()), n.loc)
                };
                self.instances[inst]
                    .vars
                    .insert(name.to_string(), Slot::Done(n));
                return copy;
            }
            Slot::Evaluating => return Node::new(error_value(), None),
            Slot::Pending(s) => s,
        };
        let decl = self.instances[inst].decl.clone();
        let var_block = decl.variables.get(name).and_then(|at| decl.block(*at));
        let given = match source {
            VarSource::Value(n) => Some(n),
            VarSource::Default => None,
            VarSource::Call {
                parent,
                call,
                binds,
            } => {
                let pdecl = self.instances[parent].decl.clone();
                pdecl.block(call).and_then(|(b, fid)| {
                    attr(&b.body, name).map(|a| {
                        let scope = Scope {
                            vars: binds,
                            parent: None,
                        };
                        let cx = EvalContext {
                            inst: parent,
                            file: fid,
                            scope: &scope,
                            closed: false,
                        };
                        self.eval(&cx, &a.value)
                    })
                })
            }
        };
        let default = |ev: &mut Loader| -> Option<Node> {
            let (b, fid) = var_block?;
            let d = attr(&b.body, "default")?;
            let cx = EvalContext {
                inst,
                file: fid,
                scope: &EMPTY,
                closed: true,
            };
            Some(ev.eval(&cx, &d.value))
        };
        let nullable = var_block
            .and_then(|(b, _)| attr(&b.body, "nullable"))
            .is_none_or(|a| !matches!(a.value.kind, ExprKind::Bool(false)));
        let mut value = match given {
            Some(v) if matches!(v.value, Value::Null) && !nullable => default(self).unwrap_or(v),
            Some(v) => v,
            None => default(self)
                .unwrap_or_else(|| Node::new(unknown(UnknownReason::NoValue, Vec::new()), None)),
        };
        if let Some((b, fid)) = var_block {
            if let Some(t) = attr(&b.body, "type") {
                value = self.convert_type(inst, fid, value, &t.value, 0);
            }
            value.raise_mark(declared_mark(&b.body));
        }
        self.instances[inst]
            .vars
            .insert(name.to_string(), Slot::Done(value.clone()));
        value
    }

    /// Converts a value to a variable's type constraint where Terraform would (primitive
    /// conversions, collection elements, object attributes with `optional` defaults). The
    /// converted value keeps the value's mark.
    fn convert_type(
        &mut self,
        inst: usize,
        file: FileId,
        v: Node,
        ty: &Expr,
        depth: usize,
    ) -> Node {
        let mark = v.mark;
        let mut converted = self.convert_type_inner(inst, file, v, ty, depth);
        converted.mark = converted.mark.max(mark);
        converted
    }

    fn convert_type_inner(
        &mut self,
        inst: usize,
        file: FileId,
        v: Node,
        ty: &Expr,
        depth: usize,
    ) -> Node {
        if depth > 64 || v.is_unknown() || matches!(v.value, Value::Null) {
            return v;
        }
        let loc = v.loc;
        match &ty.kind {
            ExprKind::Variable(i) => match i.name.as_str() {
                "string" => match &v.value {
                    Value::Number(_) | Value::Bool(_) => match to_str(&v) {
                        Ok(s) => Node::new(Value::String(s.into()), loc),
                        Err(_) => v,
                    },
                    _ => v,
                },
                "number" => match &v.value {
                    Value::String(s) => match crate::eval::parse_number(s) {
                        Some(n) => Node::new(Value::Number(n), loc),
                        None => Node::new(error_value(), loc),
                    },
                    _ => v,
                },
                "bool" => match &v.value {
                    Value::String(s) if s == "true" => Node::new(Value::Bool(true), loc),
                    Value::String(s) if s == "false" => Node::new(Value::Bool(false), loc),
                    _ => v,
                },
                _ => v,
            },
            ExprKind::Call { name, args, .. } => match (name.name.as_str(), args.as_slice()) {
                ("list" | "set", [elem]) => match v.value {
                    Value::List(items) => {
                        let mut out: Vec<Node> = items
                            .into_iter()
                            .map(|i| self.convert_type(inst, file, i, elem, depth + 1))
                            .collect();
                        if name.name == "set" {
                            out = crate::funcs::set_of(out);
                        }
                        Node::new(Value::List(out), loc)
                    }
                    other => Node::new(other, loc),
                },
                ("map", [elem]) => match v.value {
                    Value::Object(o) => {
                        let mut obj = Object {
                            entries: Vec::new(),
                            discarded: o.discarded,
                        };
                        for e in o.entries {
                            obj.entries.push(Entry {
                                value: self.convert_type(inst, file, e.value, elem, depth + 1),
                                ..e
                            });
                        }
                        Node::new(Value::Object(obj), loc)
                    }
                    other => Node::new(other, loc),
                },
                ("tuple", [spec]) => match (&spec.kind, v.value) {
                    (ExprKind::Tuple(types), Value::List(items)) if types.len() == items.len() => {
                        let out = items
                            .into_iter()
                            .zip(types)
                            .map(|(i, t)| self.convert_type(inst, file, i, t, depth + 1))
                            .collect();
                        Node::new(Value::List(out), loc)
                    }
                    (_, other) => Node::new(other, loc),
                },
                ("object", [spec]) => match (&spec.kind, v.value) {
                    (ExprKind::Object(attrs), Value::Object(o)) => {
                        let mut obj = Object {
                            entries: Vec::new(),
                            discarded: o.discarded.clone(),
                        };
                        for item in attrs {
                            let key = match &item.key {
                                ast::ObjectKey::Name(i) => i.name.clone(),
                                ast::ObjectKey::Expr(e) => match &e.kind {
                                    ExprKind::Template(t) => match t.as_literal() {
                                        Some(s) => s.to_string(),
                                        None => continue,
                                    },
                                    ExprKind::Variable(i) => i.name.clone(),
                                    _ => continue,
                                },
                            };
                            let (aty, default) = match &item.value.kind {
                                ExprKind::Call { name, args, .. } if name.name == "optional" => {
                                    (args.first(), args.get(1))
                                }
                                _ => (Some(&item.value), None),
                            };
                            let existing = o.entries.iter().find(|e| e.key == key).cloned();
                            let entry = match existing {
                                Some(e) if !matches!(e.value.value, Value::Null) => Some(e),
                                other => match default {
                                    Some(d) => {
                                        let cx = EvalContext {
                                            inst,
                                            file,
                                            scope: &EMPTY,
                                            closed: true,
                                        };
                                        let value = self.eval(&cx, d);
                                        Some(Entry {
                                            key: key.clone(),
                                            key_loc: other.as_ref().and_then(|e| e.key_loc),
                                            value,
                                        })
                                    }
                                    None => Some(other.unwrap_or(Entry {
                                        key: key.clone(),
                                        key_loc: None,
                                        value: Node::new(Value::Null, None),
                                    })),
                                },
                            };
                            if let Some(mut e) = entry {
                                if let Some(t) = aty {
                                    e.value = self.convert_type(inst, file, e.value, t, depth + 1);
                                }
                                obj.entries.push(e);
                            }
                        }
                        Node::new(Value::Object(obj), loc)
                    }
                    (_, other) => Node::new(other, loc),
                },
                _ => v,
            },
            _ => v,
        }
    }

    /// A local's value, evaluated on first use (`None`: no such local, or it depends on itself).
    pub(crate) fn local_ref(&mut self, inst: usize, name: &str) -> Option<&Node> {
        if !self.instances[inst].locals.contains_key(name) {
            self.get_local(inst, name);
        }
        self.instances[inst]
            .locals
            .get(name)
            .and_then(Option::as_ref)
    }

    pub(crate) fn get_local(&mut self, inst: usize, name: &str) -> Node {
        match self.instances[inst].locals.get(name) {
            Some(Some(n)) => return n.clone(),
            Some(None) => return Node::new(error_value(), None),
            None => {}
        }
        let decl = self.instances[inst].decl.clone();
        let Some((a, fid)) = decl.local(name) else {
            return Node::new(error_value(), None);
        };
        self.instances[inst].locals.insert(name.to_string(), None);
        let cx = EvalContext {
            inst,
            file: fid,
            scope: &EMPTY,
            closed: false,
        };
        let v = self.eval(&cx, &a.value);
        self.instances[inst]
            .locals
            .insert(name.to_string(), Some(v.clone()));
        v
    }

    pub(crate) fn get_output(&mut self, inst: usize, name: &str) -> Node {
        match self.instances[inst].outputs.get(name) {
            Some(Some(n)) => {
                if !crate::budget::charge_copy(n) {
                    return Node::new(unknown(UnknownReason::Unsupported, Vec::new()), n.loc);
                }
                return n.clone();
            }
            Some(None) => return Node::new(error_value(), None),
            None => {}
        }
        let decl = self.instances[inst].decl.clone();
        let Some((b, fid)) = decl.outputs.get(name).and_then(|at| decl.block(*at)) else {
            return Node::new(error_value(), None);
        };
        let Some(a) = attr(&b.body, "value") else {
            return Node::new(error_value(), None);
        };
        self.instances[inst].outputs.insert(name.to_string(), None);
        let cx = EvalContext {
            inst,
            file: fid,
            scope: &EMPTY,
            closed: false,
        };
        let mut v = self.eval(&cx, &a.value);
        v.raise_mark(declared_mark(&b.body));
        self.instances[inst]
            .outputs
            .insert(name.to_string(), Some(v.clone()));
        v
    }

    /// Notes a `count` or `for_each` past [`MAX_INSTANCES`].
    fn instance_limit(&mut self, meta: &str, n: &str, loc: Option<Loc>) {
        // Once per place: a block is expanded again when a reference names one of its instances,
        // and a module called twice declares it twice.
        if self
            .notes
            .iter()
            .any(|n| n.kind == LoadNoteKind::InstanceLimit && n.loc == loc)
        {
            return;
        }
        self.notes.push(LoadNote {
            kind: LoadNoteKind::InstanceLimit,
            message: format!(
                "`{meta}` gives {n} instances, more than the {MAX_INSTANCES} the checker expands: the resource is checked as one instance of unknown number"
            ),
            loc,
        });
    }

    /// The instances (and their keys) of a resource block, evaluating `count` / `for_each`.
    /// `None` for the key list means the instances are unknown.
    fn expand(&mut self, inst: usize, body: &ast::Body, file: FileId) -> Option<Vec<Instance>> {
        let cx = EvalContext {
            inst,
            file,
            scope: &EMPTY,
            closed: false,
        };
        if let Some(c) = attr(body, "count") {
            let n = self.eval(&cx, &c.value);
            return match crate::eval::to_num(&n) {
                Ok(f) if f.fract() == 0.0 && f > MAX_INSTANCES as f64 => {
                    let shown = match n.hidden() {
                        Mark::None => format_count(f),
                        mark => mark.label().to_string(),
                    };
                    self.instance_limit("count", &shown, cx.loc(c.value.span));
                    None
                }
                Ok(f) if f >= 0.0 && f.fract() == 0.0 && (f as usize) <= MAX_INSTANCES => Some(
                    (0..f as u64)
                        .map(|i| {
                            let mut o = Object::default();
                            o.entries.push(Entry {
                                key: "index".into(),
                                key_loc: None,
                                value: Node::new(Value::Number(i as f64), None),
                            });
                            (
                                Some(InstanceKey::Index(i)),
                                Some(("count".to_string(), Node::new(Value::Object(o), None))),
                            )
                        })
                        .collect(),
                ),
                _ => None,
            };
        }
        if let Some(fe) = attr(body, "for_each") {
            let n = self.eval(&cx, &fe.value);
            // Terraform refuses a sensitive `for_each` as a whole (a set holding a sensitive
            // element is one): its keys would be instance addresses, shown everywhere. So the
            // instances are not known, and no key is ever printed.
            let hidden = n.mark.is_hidden()
                || matches!(&n.value, Value::List(items) if items.iter().any(Node::is_sensitive));
            if hidden {
                return None;
            }
            let pairs: Vec<(String, Node)> = match &n.value {
                Value::Object(o) => crate::json::sorted_entries(o)
                    .into_iter()
                    .map(|e| (e.key.clone(), e.value.clone()))
                    .collect(),
                Value::List(items) => {
                    let mut v = Vec::new();
                    for i in items {
                        match to_str(i) {
                            Ok(s) => v.push((s, i.clone())),
                            Err(_) => return None,
                        }
                    }
                    v.sort_by(|a, b| a.0.cmp(&b.0));
                    v.dedup_by(|a, b| a.0 == b.0);
                    v
                }
                _ => return None,
            };
            if pairs.len() > MAX_INSTANCES {
                let n = pairs.len().to_string();
                self.instance_limit("for_each", &n, cx.loc(fe.value.span));
                return None;
            }
            return Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| {
                        let mut o = Object::default();
                        o.entries.push(Entry {
                            key: "key".into(),
                            key_loc: None,
                            value: Node::new(Value::String(k.clone().into()), None),
                        });
                        o.entries.push(Entry {
                            key: "value".into(),
                            key_loc: None,
                            value: v,
                        });
                        (
                            Some(InstanceKey::Key(k)),
                            Some(("each".to_string(), Node::new(Value::Object(o), None))),
                        )
                    })
                    .collect(),
            );
        }
        Some(vec![(None, None)])
    }

    /// The binding (`count` or `each`) of one known instance of a repeated block.
    pub(crate) fn instance_binding(
        &mut self,
        inst: usize,
        block: &ast::Block,
        file: FileId,
        key: &InstanceKey,
    ) -> Option<(String, Node)> {
        let list = self.expand(inst, &block.body, file)?;
        list.into_iter()
            .find(|(k, _)| k.as_ref() == Some(key))
            .and_then(|(_, b)| b)
    }

    /// The binding that stands for every instance when they are unknown.
    fn unknown_binding(body: &ast::Body) -> Option<(String, Node)> {
        let unk = || Node::new(unknown(UnknownReason::AfterApply, Vec::new()), None);
        let mut o = Object::default();
        if attr(body, "count").is_some() {
            o.entries.push(Entry {
                key: "index".into(),
                key_loc: None,
                value: unk(),
            });
            return Some(("count".into(), Node::new(Value::Object(o), None)));
        }
        if attr(body, "for_each").is_some() {
            for k in ["key", "value"] {
                o.entries.push(Entry {
                    key: k.into(),
                    key_loc: None,
                    value: unk(),
                });
            }
            return Some(("each".into(), Node::new(Value::Object(o), None)));
        }
        None
    }

    /// The instances of a module call, created on first use.
    pub(crate) fn ensure_children(&mut self, inst: usize, name: &str) -> Children {
        match self.instances[inst].children.get(name) {
            Some(ChildState::Ready(c)) => return c.clone(),
            Some(ChildState::Creating) => return Children::Failed,
            None => {}
        }
        let decl = self.instances[inst].decl.clone();
        let Some(at) = decl.call_index.get(name).map(|i| decl.calls[*i]) else {
            return Children::Missing;
        };
        let Some((block, fid)) = decl.block(at) else {
            return Children::Missing;
        };
        self.instances[inst]
            .children
            .insert(name.to_string(), ChildState::Creating);
        let children = self.create_children(inst, name, at, block, fid);
        self.instances[inst]
            .children
            .insert(name.to_string(), ChildState::Ready(children.clone()));
        children
    }

    fn create_children(
        &mut self,
        inst: usize,
        name: &str,
        at: (usize, usize),
        block: &ast::Block,
        fid: FileId,
    ) -> Children {
        let call_loc = Loc {
            file: fid,
            span: header_span(block),
        };
        let address = match &self.instances[inst].address {
            Some(a) => format!("{a}.module.{name}"),
            None => format!("module.{name}"),
        };
        let source = attr(&block.body, "source").and_then(|a| match &a.value.kind {
            ExprKind::Template(t) => t.as_literal().map(str::to_string),
            _ => None,
        });
        let Some(source) = source else {
            self.failed_calls.push((address, call_loc));
            return Children::Failed;
        };
        let module_key = match self.instances[inst].key.as_str() {
            "" => name.to_string(),
            parent => format!("{parent}.{name}"),
        };
        // Where the call's code is: a local folder relative to the calling module, or the copy
        // `terraform init` installed (relative to the root module), or a folder called by its
        // absolute path, with its real path, its path as shown and `path.module`.
        let local = source.starts_with("./") || source.starts_with("../");
        let (child_real, display, rel_dir) = if local {
            let parent_real = self.instances[inst].decl.real_dir.clone();
            let Ok(child_real) = std::fs::canonicalize(parent_real.join(&source)) else {
                self.failed_calls.push((address, call_loc));
                return Children::Failed;
            };
            let display = self.instances[inst].decl.display_dir.join(&source);
            let rel_dir = walk::normalize(&Path::new(&self.instances[inst].rel_dir).join(&source));
            (child_real, display, rel_dir)
        } else {
            match self.installed_copy(inst, &module_key, &source, &block.body) {
                Ok(found) => found,
                // A folder called by its absolute path, not installed yet: `terraform init` copies
                // that folder, so it is followed where it is.
                Err(None) if Path::new(&source).is_absolute() => {
                    let Ok(child_real) = std::fs::canonicalize(&source) else {
                        self.failed_calls.push((address, call_loc));
                        return Children::Failed;
                    };
                    (child_real, PathBuf::from(&source), PathBuf::from(&source))
                }
                Err(why) => {
                    self.remote_calls.push(RemoteCall {
                        address,
                        source,
                        loc: call_loc,
                        why,
                    });
                    return Children::Remote;
                }
            }
        };
        if self.instances[inst].depth + 1 > MAX_MODULE_DEPTH
            || self.instances[inst].chain.contains(&child_real)
            || self.instances.len() >= MAX_MODULE_INSTANCES
        {
            self.failed_calls.push((address, call_loc));
            return Children::Failed;
        }
        let Some(child_decl) = self.decl_for(&child_real, &display) else {
            self.failed_calls.push((address, call_loc));
            return Children::Failed;
        };
        let rel_dir = rel_dir.to_string_lossy().into_owned();
        let root_dir = self.instances[inst].root_dir.clone();
        let mut chain = self.instances[inst].chain.clone();
        chain.push(child_real);
        let repeated =
            attr(&block.body, "count").is_some() || attr(&block.body, "for_each").is_some();
        let (list, unknown_instances) = match self.expand(inst, &block.body, fid) {
            Some(l) => (l, false),
            None => (vec![(None, Self::unknown_binding(&block.body))], true),
        };
        let mut out = Vec::new();
        for (key, binding) in list {
            let addr = match &key {
                Some(InstanceKey::Index(i)) => format!("{address}[{i}]"),
                Some(InstanceKey::Key(k)) => format!("{address}[{k:?}]"),
                None => address.clone(),
            };
            let child = self.new_inst(
                child_decl.clone(),
                Some(addr),
                Some(inst),
                Some(call_loc),
                rel_dir.clone(),
                root_dir.clone(),
                chain.clone(),
            );
            if unknown_instances {
                self.instances[child].instances_unknown = true;
            }
            self.instances[child].key.clone_from(&module_key);
            let binds: Vec<(String, Node)> = binding.into_iter().collect();
            for var in child_decl.variable_order.clone() {
                let source = if attr(&block.body, &var).is_some() {
                    VarSource::Call {
                        parent: inst,
                        call: at,
                        binds: binds.clone(),
                    }
                } else {
                    VarSource::Default
                };
                self.instances[child]
                    .vars
                    .insert(var, Slot::Pending(source));
            }
            out.push((key, child));
        }
        Children::Instances {
            repeated,
            unknown_instances,
            list: out,
        }
    }

    /// Where `terraform init` installed the code of the remote call at `key` (written with
    /// `source`) of instance `inst`'s root: its real path, its path as shown and `path.module`. Or
    /// why its copy is not used (`None`: there is none).
    fn installed_copy(
        &self,
        inst: usize,
        key: &str,
        source: &str,
        call: &ast::Body,
    ) -> Result<(PathBuf, PathBuf, PathBuf), Option<String>> {
        let Some(manifest) = self.instances[inst].installed.as_deref() else {
            return Err(None);
        };
        let version = match call_version(call) {
            Ok(v) => v,
            // Not installed: nothing to say about the copy.
            Err(_) if manifest.lookup(key, source, None) == Lookup::NotInstalled => {
                return Err(None)
            }
            Err(why) => return Err(Some(why)),
        };
        let dir = match manifest.lookup(key, source, version.as_ref().map(|(_, c)| c)) {
            Lookup::Dir(dir) => dir,
            Lookup::NotInstalled => return Err(None),
            Lookup::OtherSource(other) => {
                return Err(Some(format!(
                    "`.terraform/modules` holds it from `{other}`: run `terraform init` again"
                )))
            }
            Lookup::OtherVersion(installed) => {
                let wanted = version.map(|(text, _)| text).unwrap_or_default();
                return Err(Some(match installed {
                    Some(v) => format!(
                        "`.terraform/modules` holds version `{v}`, which `{wanted}` does not allow: run `terraform init` again"
                    ),
                    None => format!(
                        "`.terraform/modules` holds it with no version, and the call asks for `{wanted}`: run `terraform init` again"
                    ),
                }));
            }
        };
        // The copy is inside the root module's folder, or it is not used; but a folder called by
        // its absolute path is installed as a link to that folder.
        let root_real = &self.instances[inst].root_dir;
        let called = Path::new(source)
            .is_absolute()
            .then(|| std::fs::canonicalize(source).ok())
            .flatten();
        let real = std::fs::canonicalize(root_real.join(dir))
            .ok()
            .filter(|real| {
                (real.starts_with(root_real) || called.as_ref() == Some(real)) && real.is_dir()
            })
            .ok_or_else(|| {
                Some(format!(
                    "its folder in the `terraform init` manifest, `{dir}`, is missing or outside the root module's folder"
                ))
            })?;
        Ok((
            real,
            manifest.display_root.join(dir),
            walk::normalize(Path::new(dir)),
        ))
    }

    /// The declarations of a module folder: kept from an earlier call, or read (the texts the
    /// unit already has are parsed again, not read again).
    fn decl_for(&mut self, real: &Path, display: &Path) -> Option<Rc<ModuleDecl>> {
        if let Some(d) = self.decls.get(real.as_os_str()) {
            let d = d.clone();
            self.allow(real);
            return d;
        }
        let shared = self.shared.clone();
        let walked_folder = shared.walked(real);
        let display_dir = match walked_folder {
            Some(f) => f.display.clone(),
            None => walk::display_path(display, &self.cwd),
        };
        let mut entries: Vec<(PathBuf, Kind)> = std::fs::read_dir(real)
            .ok()?
            .filter_map(Result::ok)
            .filter(is_file)
            .filter_map(|e| {
                let p = e.path();
                match Kind::of(&p) {
                    Some(k @ (Kind::Tf | Kind::TfJson)) => Some((p, k)),
                    _ => None,
                }
            })
            .collect();
        entries.sort();
        let names: Vec<String> = entries
            .iter()
            .filter_map(|(p, _)| Some(p.file_name()?.to_str()?.to_string()))
            .collect();
        entries.retain(|(p, _)| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| walk::shadowed_by_tofu(n, |twin| names.iter().any(|m| m == twin)))
        });
        let mut files = Vec::new();
        for (p, kind) in entries {
            let Some(name) = p.file_name() else { continue };
            // `real` is a real path already: the file's logical real path is its name under it.
            let real_file = real.join(name);
            // A walked file is counted, and its problems reported, by its own folder's unit.
            let walked = walked_folder
                .and_then(|f| f.files.iter().find(|w| w.real == real_file))
                .map(|w| w.display.clone());
            let report = walked.is_none();
            if report && self.registered(&real_file).is_none() {
                self.unit_other_checked.push(real_file.clone());
            }
            // A file of the current folder is shown by its name, as the walk shows it: one path
            // for one file, whether it is reached from the root or through `source = "../.."`.
            let display = walked.unwrap_or_else(|| {
                if display_dir == Path::new(".") {
                    PathBuf::from(name)
                } else {
                    display_dir.join(name)
                }
            });
            let found = walk::Found {
                display,
                real: real_file,
                kind,
            };
            files.extend(self.module_file(&found, report, true));
        }
        self.allow(real);
        let files = apply_overrides(files, |id| self.is_override_file(id));
        let decl = Rc::new(ModuleDecl::new(real.to_path_buf(), display_dir, files));
        self.decls
            .insert(real.as_os_str().to_os_string(), Some(decl.clone()));
        let size = self.text_size(&decl);
        self.decl_order.push_back((real.to_path_buf(), size));
        let mut total: usize = self.decl_order.iter().map(|d| d.1).sum();
        while total > DECL_CACHE_BYTES && self.decl_order.len() > 1 {
            if let Some((old, size)) = self.decl_order.pop_front() {
                self.decls.remove(old.as_os_str());
                total -= size;
            }
        }
        Some(decl)
    }

    /// Lets `file()` read under a module folder the unit in progress loads.
    fn allow(&mut self, real: &Path) {
        if !self.allowed.iter().any(|d| d == real) {
            self.allowed.push(real.to_path_buf());
        }
    }

    /// Creates the resources of a module instance and of the module instances it calls.
    fn emit(&mut self, inst: usize) {
        if self.instances[inst].emitted {
            return;
        }
        self.instances[inst].emitted = true;
        let decl = self.instances[inst].decl.clone();
        for at in decl.resources.clone() {
            let Some((block, fid)) = decl.block(at) else {
                continue;
            };
            self.emit_resource(inst, block, fid);
        }
        let mut names: Vec<(usize, String)> = decl
            .call_index
            .iter()
            .map(|(n, i)| (*i, n.clone()))
            .collect();
        names.sort();
        for (_, name) in names {
            if let Children::Instances { list, .. } = self.ensure_children(inst, &name) {
                for (_, child) in list {
                    self.emit(child);
                }
            }
        }
    }

    fn emit_resource(&mut self, inst: usize, block: &ast::Block, fid: FileId) {
        let mode = if block.kind.name == "data" {
            Mode::Data
        } else {
            Mode::Managed
        };
        let (Some(kind), Some(name)) = (block.labels.first(), block.labels.get(1)) else {
            return;
        };
        if !self.keeps_type(&kind.name) {
            return;
        }
        let (list, mut instances_unknown) = match self.expand(inst, &block.body, fid) {
            Some(l) => (l, false),
            None => (vec![(None, Self::unknown_binding(&block.body))], true),
        };
        instances_unknown |= self.instances[inst].instances_unknown;
        let ignore_changes = ignore_changes(&block.body);
        for (key, binding) in list {
            let scope = Scope {
                vars: binding.into_iter().collect(),
                parent: None,
            };
            let cx = EvalContext {
                inst,
                file: fid,
                scope: &scope,
                closed: false,
            };
            let evaluated = match mode {
                Mode::Managed => self.shared.evaluated.get(&kind.name).cloned(),
                Mode::Data => None,
            };
            let body = self.eval_body(&cx, &block.body, true, evaluated);
            let id = ResourceId(u32::try_from(self.resources.len()).unwrap_or(u32::MAX));
            self.resources.push(Resource {
                id,
                module: self.instances[inst].id,
                mode,
                kind: kind.name.clone(),
                name: name.name.clone(),
                key,
                instances_unknown,
                loc: Loc {
                    file: fid,
                    span: header_span(block),
                },
                body,
                ignore_changes: ignore_changes.clone(),
            });
        }
    }

    /// Evaluates a block body: attributes, nested blocks, `dynamic` blocks expanded. `evaluated`
    /// (a resource's body only): the arguments and block types to evaluate, the others left out.
    pub(crate) fn eval_body(
        &mut self,
        cx: &EvalContext<'_>,
        body: &ast::Body,
        top: bool,
        evaluated: Option<Arc<Evaluated>>,
    ) -> Body {
        let skipped = |name: &str| evaluated.as_ref().is_some_and(|e| !e.lists(name));
        let mut out = Body {
            loc: cx.loc(body.span),
            ..Body::default()
        };
        if self.depth >= crate::value::MAX_DEPTH {
            return out;
        }
        self.depth += 1;
        let attributes = body
            .items
            .iter()
            .filter(|i| matches!(i, Item::Attribute(_)))
            .count();
        out.attributes.reserve_exact(attributes);
        out.blocks.reserve_exact(body.items.len() - attributes);
        for item in &body.items {
            match item {
                Item::Attribute(a) => {
                    if top
                        && matches!(
                            a.name.name.as_str(),
                            "count" | "for_each" | "depends_on" | "provider"
                        )
                    {
                        continue;
                    }
                    if skipped(&a.name.name) {
                        continue;
                    }
                    let value = self.eval(cx, &a.value);
                    out.attributes.push(Attribute {
                        name: a.name.name.clone(),
                        name_loc: cx.loc(a.name.span),
                        value,
                    });
                }
                Item::Block(b) => match b.kind.name.as_str() {
                    "dynamic" if b.labels.first().is_some_and(|l| skipped(&l.name)) => {}
                    "dynamic" => self.expand_dynamic(cx, b, &mut out),
                    "lifecycle" if top => {
                        let mut lb = Body {
                            loc: cx.loc(b.body.span),
                            ..Body::default()
                        };
                        // `replace_triggered_by` is a list of references: evaluated, its
                        // items are unknowns that carry them.
                        for a in [
                            "create_before_destroy",
                            "prevent_destroy",
                            "replace_triggered_by",
                        ] {
                            if let Some(at) = attr(&b.body, a) {
                                let value = self.eval(cx, &at.value);
                                lb.attributes.push(Attribute {
                                    name: a.into(),
                                    name_loc: cx.loc(at.name.span),
                                    value,
                                });
                            }
                        }
                        out.blocks.push(Block {
                            kind: "lifecycle".into(),
                            labels: Vec::new(),
                            loc: cx.loc(b.span),
                            body: lb,
                        });
                    }
                    "provisioner" | "connection" if top => {}
                    kind if skipped(kind) => {}
                    _ => {
                        let inner = self.eval_body(cx, &b.body, false, None);
                        out.blocks.push(Block {
                            kind: b.kind.name.clone(),
                            labels: b.labels.iter().map(|l| l.name.clone()).collect(),
                            loc: cx.loc(b.span),
                            body: inner,
                        });
                    }
                },
            }
        }
        self.depth -= 1;
        out.attributes.shrink_to_fit();
        out.blocks.shrink_to_fit();
        out.evaluated = evaluated;
        out
    }

    fn expand_dynamic(&mut self, cx: &EvalContext<'_>, b: &ast::Block, out: &mut Body) {
        let Some(kind) = b.labels.first() else { return };
        let iterator = attr(&b.body, "iterator")
            .and_then(|a| match &a.value.kind {
                ExprKind::Variable(i) => Some(i.name.clone()),
                _ => None,
            })
            .unwrap_or_else(|| kind.name.clone());
        let Some(content) = b.body.items.iter().find_map(|i| match i {
            Item::Block(c) if c.kind.name == "content" => Some(c),
            _ => None,
        }) else {
            return;
        };
        let Some(fe) = attr(&b.body, "for_each") else {
            out.unknown_blocks.push(kind.name.clone());
            return;
        };
        let coll = self.eval(cx, &fe.value);
        let pairs = match crate::eval::iterate(&coll) {
            Ok(p) => p,
            Err(_) => {
                if !out.unknown_blocks.contains(&kind.name) {
                    out.unknown_blocks.push(kind.name.clone());
                }
                return;
            }
        };
        for (k, v) in pairs {
            // A set's elements are their own keys, a list's keys are its indexes. Sets are lists
            // here, so the expression says which: `toset(...)` (or `setunion`...) is a set.
            let is_set = crate::eval::is_set_expr(&fe.value);
            let key = if is_set { v.clone() } else { k };
            let mut o = Object::default();
            o.entries.push(Entry {
                key: "key".into(),
                key_loc: None,
                value: key,
            });
            o.entries.push(Entry {
                key: "value".into(),
                key_loc: None,
                value: v,
            });
            let scope = Scope::child(
                cx.scope,
                vec![(iterator.clone(), Node::new(Value::Object(o), None))],
            );
            let cx2 = cx.with_scope(&scope);
            let labels = match attr(&b.body, "labels") {
                Some(l) => match self.eval(&cx2, &l.value).value {
                    Value::List(items) => items.iter().filter_map(|i| to_str(i).ok()).collect(),
                    _ => Vec::new(),
                },
                None => Vec::new(),
            };
            let inner = self.eval_body(&cx2, &content.body, false, None);
            out.blocks.push(Block {
                kind: kind.name.clone(),
                labels,
                loc: cx.loc(b.span),
                body: inner,
            });
        }
    }
}

/// A module call's `version` constraint, as Terraform reads it: a constant string (a whole number
/// stands for its digits), none when absent or `null` (`internal/configs/version_constraint.go`).
/// Other constants are not read: a decimal number's text after Terraform's conversion (`1.20` is
/// `"1.2"`) is not the text written.
/// `Err`: why the installed copy cannot be checked against it.
fn call_version(call: &ast::Body) -> Result<Option<(String, Constraints)>, String> {
    let Some(a) = attr(call, "version") else {
        return Ok(None);
    };
    let text = match &a.value.kind {
        ExprKind::Null => return Ok(None),
        ExprKind::Template(t) => t.as_literal().map(str::to_string),
        ExprKind::Number(n) if n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0') => {
            Some(n.clone())
        }
        _ => None,
    };
    let Some(text) = text else {
        return Err("its `version` is not a literal string".to_string());
    };
    match Constraints::parse(&text) {
        Some(c) => Ok(Some((text, c))),
        None => Err(format!(
            "its `version`, `{text}`, is not a version constraint Terraform accepts"
        )),
    }
}

/// The notes about module calls not followed: one per remote call (at its place; the rules group
/// them by folder), one per local call that could not be followed.
pub(crate) fn finish_notes(
    remote_calls: &[RemoteCall],
    failed_calls: &[(String, Loc)],
) -> Vec<LoadNote> {
    let mut notes = Vec::new();
    let mut seen = FastSet::default();
    for c in remote_calls {
        if !seen.insert((c.address.clone(), c.loc)) {
            continue;
        }
        notes.push(LoadNote {
            kind: LoadNoteKind::RemoteModules,
            message: match &c.why {
                Some(why) => format!("`{}` (`{}`; {why})", c.address, c.source),
                None => format!("`{}` (`{}`)", c.address, c.source),
            },
            loc: Some(c.loc),
        });
    }
    let mut seen = FastSet::default();
    for (a, loc) in failed_calls {
        if seen.insert(a.clone()) {
            notes.push(LoadNote {
                kind: LoadNoteKind::ModuleNotFollowed,
                message: format!("module call `{a}` is not followed: its source is not a local folder that can be loaded (missing, not a literal, a recursive call or nested too deep)"),
                loc: Some(*loc),
            });
        }
    }
    notes
}

/// `lifecycle { ignore_changes = ... }` as written.
fn ignore_changes(body: &ast::Body) -> IgnoreChanges {
    let mut out = IgnoreChanges::None;
    for item in &body.items {
        let Item::Block(b) = item else { continue };
        if b.kind.name != "lifecycle" {
            continue;
        }
        let Some(a) = attr(&b.body, "ignore_changes") else {
            continue;
        };
        match &a.value.kind {
            ExprKind::Variable(i) if i.name == "all" => return IgnoreChanges::All,
            ExprKind::Template(t) if t.as_literal() == Some("all") => return IgnoreChanges::All,
            ExprKind::Tuple(items) => {
                let mut v = match out {
                    IgnoreChanges::Attributes(v) => v,
                    _ => Vec::new(),
                };
                v.extend(items.iter().filter_map(render_traversal));
                out = IgnoreChanges::Attributes(v);
            }
            _ => {}
        }
    }
    out
}

fn render_traversal(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Variable(i) => Some(i.name.clone()),
        ExprKind::GetAttr { target, name } => {
            Some(format!("{}.{}", render_traversal(target)?, name.name))
        }
        ExprKind::Index { target, index } => {
            let t = render_traversal(target)?;
            let k = match &index.kind {
                ExprKind::Number(n) => n.clone(),
                ExprKind::Template(tp) => {
                    let mut s = String::new();
                    crate::json::write_json_string(tp.as_literal()?, &mut s);
                    s
                }
                _ => return None,
            };
            Some(format!("{t}[{k}]"))
        }
        ExprKind::Template(t) => t.as_literal().map(str::to_string),
        ExprKind::Parens(inner) => render_traversal(inner),
        _ => None,
    }
}

/// Removes locations (a value from the command line comes from no file).
fn strip_locs(n: &mut Node) {
    n.loc = None;
    match &mut n.value {
        Value::List(items) => items.iter_mut().for_each(strip_locs),
        Value::Object(o) => o.entries.iter_mut().for_each(|e| {
            e.key_loc = None;
            strip_locs(&mut e.value)
        }),
        Value::Json(inner) => strip_locs(std::sync::Arc::make_mut(inner)),
        Value::Unknown(u) => u.entries.iter_mut().for_each(|e| {
            e.key_loc = None;
            strip_locs(&mut e.value)
        }),
        _ => {}
    }
}

/// A whole `count` as Terraform prints it.
fn format_count(f: f64) -> String {
    crate::value::format_number(f)
}
