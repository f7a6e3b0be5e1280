//! A unit's loader: the files it reads (parsed module files shared between units), and the state
//! of the module instances its stages fill. Each stage adds to [`Loader`] from its own file:
//! `instances` expands module instances from root folders and calls, `vars` binds their
//! variables, locals and outputs, `types` converts values to type constraints, `emit` evaluates
//! and emits their resources; `references` answers the evaluator from them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use ecs_gpu_hcl::ast::{self, Item};

use crate::decl::ModuleDecl;
use crate::installed::Installed;
use crate::model::*;
use crate::value::{InstanceKey, Loc, Node};
use crate::walk::{self, Kind, Parsed};
use crate::{FastMap, FastSet};

/// A variable of a module instance, bound on first use (`vars`).
#[derive(Debug)]
pub(crate) enum Slot {
    Pending(VarSource),
    Evaluating,
    Done(Node),
}

/// Where a variable's value comes from, besides its default.
#[derive(Debug)]
pub(crate) enum VarSource {
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

/// The instances of a module call (`instances`).
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
pub(crate) enum ChildState {
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
    pub depth: usize,
    /// The folders of this instance and its ancestors (a module that calls itself stops).
    pub chain: Vec<PathBuf>,
    pub instances_unknown: bool,
    /// `terraform.workspace` (the root module's).
    pub workspace: String,
    /// The call's path from the root: the module block names joined by `.` (empty for the root),
    /// as `terraform init` keys the calls it installs.
    pub key: String,
    /// The root module's calls installed by `terraform init`, when it ran there.
    pub installed: Option<Rc<Installed>>,
    pub vars: FastMap<String, Slot>,
    pub locals: FastMap<String, Option<Node>>,
    pub outputs: FastMap<String, Option<Node>>,
    pub children: FastMap<String, ChildState>,
    pub emitted: bool,
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

impl Shared {
    /// The walked folder at this real path.
    pub(crate) fn walked(&self, real: &Path) -> Option<&WalkedFolder> {
        self.folders.get(*self.folder_index.get(real.as_os_str())?)
    }
}

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
    pub decls: FastMap<OsString, Option<Rc<ModuleDecl>>>,
    pub decl_order: std::collections::VecDeque<(PathBuf, usize)>,
    pub remote_calls: Vec<RemoteCall>,
    pub failed_calls: Vec<(String, Loc)>,
    /// The real path of each file of `files`, by file id.
    pub unit_new_files: Vec<PathBuf>,
    /// Walked files the unit checked.
    pub unit_walked_checked: usize,
    /// Files outside the walk the unit read (real paths).
    pub unit_other_checked: Vec<PathBuf>,
    /// The names given with [`LoadOptions::vars`] that the unit's root module declares.
    pub unit_declared_vars: Vec<String>,
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

    /// Whether the file at `path` may be read by the link rule: it is not a link, or it leads
    /// inside the checked folders (and the module folders the unit loads), or inside `folder` (a
    /// module folder's own file). A link that leads nowhere is left to the read, which says so.
    pub(crate) fn link_inside(&self, path: &Path, folder: Option<&Path>) -> bool {
        if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return true;
        }
        match std::fs::canonicalize(path) {
            Ok(real) => folder.is_some_and(|f| real.starts_with(f)) || self.may_read(&real),
            Err(_) => true,
        }
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

    pub(crate) fn parse_problem(&mut self, path: PathBuf, text: &str, e: &ecs_gpu_hcl::ParseError) {
        let (line, col) = ecs_gpu_hcl::line_col(text, e.span.start);
        self.problems.push(LoadProblem {
            path,
            line: Some(line),
            column: Some(col),
            message: e.message.clone(),
        });
    }
}
