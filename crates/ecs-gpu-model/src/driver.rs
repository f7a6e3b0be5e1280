//! The driver: one walk, then the units in parallel, then their results merged in unit order.
//!
//! The walk ([`walk::find_files`]) finds the files and groups them into **units**: one per folder
//! of Terraform files (a root module) and one per JSON file, folders first, each list in display
//! order. Units are loaded in parallel (rayon), each by an evaluator of its own that reads, parses
//! and evaluates it, following its module calls, and frees its syntax trees when it is done: only
//! the units in progress hold trees, besides the module files a unit parsed for a module call,
//! which it shares with the units that call the same folder (a module's examples, the roots that
//! call one module), up to a bound ([`crate::loader::Shared::parsed`]). A unit knows every walked
//! folder, so a module call into one leaves its problems and its file count to that folder's own
//! unit.
//!
//! Each unit's results use file ids of its own and ids that start at zero for its module
//! instances and resources. The merge owns the model's file table: it takes the results in unit
//! order, gives every file its place (a file several units read, a module many roots call, comes
//! from the first of them in unit order) and renumbers. The model is therefore the same whatever
//! the number of threads; a test checks it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use rayon::prelude::*;

use crate::decl::apply_overrides;
use crate::instances::finish_notes;
use crate::loader::{Loader, Partial, RemoteCall, Shared, WalkedFolder};
use crate::model::*;
use crate::taskdef::{json_task_definition, resource_task_definition};
use crate::value::{Loc, Node, Value};
use crate::walk::{self, Found, Parsed};
use crate::{FastMap, FastSet};

/// Stack of a loading thread: deep but legal nesting must not overflow it while parsing or
/// evaluating (the parser and the evaluator recurse, up to their own depth limits).
const STACK: usize = 512 << 20;

/// Loads everything (see the module documentation).
pub(crate) fn load(options: &LoadOptions) -> Model {
    let cwd = walk::cwd();
    let paths: Vec<PathBuf> = if options.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let (found, walk_problems) = walk::find_files(&paths, &cwd);

    // Units: folders in unit order, then JSON files in display order.
    let mut folders: Vec<(PathBuf, PathBuf, Vec<Found>)> = Vec::new();
    let mut folder_index: FastMap<OsString, usize> = FastMap::default();
    let mut json = Vec::new();
    for f in found {
        if f.kind.is_json() {
            json.push(f);
            continue;
        }
        let real_dir = f.real.parent().unwrap_or(Path::new(""));
        let i = *folder_index
            .entry(real_dir.as_os_str().to_os_string())
            .or_insert_with(|| {
                let display = walk::folder_display(&f.display);
                folders.push((real_dir.to_path_buf(), display, Vec::new()));
                folders.len() - 1
            });
        folders[i].2.push(f);
    }
    folders.sort_unstable_by(|a, b| walk::unit_order(&a.1, &b.1));

    let mut allowed: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .map(|c| {
            if c.is_file() {
                c.parent().map(Path::to_path_buf).unwrap_or(c)
            } else {
                c
            }
        })
        .collect();
    allowed.extend(folders.iter().map(|f| f.0.clone()));
    let folders: Vec<WalkedFolder> = folders
        .into_iter()
        .map(|(real, display, files)| WalkedFolder {
            real,
            display,
            files,
        })
        .collect();
    let shared = shared(options, cwd, allowed, folders, json);

    let units = shared.folders.len() + shared.json.len();
    let one = |i: usize| Loader::new(shared.clone()).unit(i);
    let partials: Vec<Partial> = match rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .thread_name(|i| format!("ecs-gpu-load-{i}"))
        .stack_size(STACK)
        .build()
    {
        Ok(pool) => pool.install(|| (0..units).into_par_iter().map(one).collect()),
        // No thread could be started (a tight memory limit): the units one after the other here.
        Err(_) => (0..units).map(one).collect(),
    };
    let mut merge = Merge::default();
    for p in partials {
        merge.add(p);
    }
    let mut problems: Vec<LoadProblem> = walk_problems
        .into_iter()
        .map(|(path, message)| LoadProblem {
            path,
            line: None,
            column: None,
            message,
        })
        .collect();
    let mut undeclared_vars: Vec<String> = Vec::new();
    for (name, _) in &options.vars {
        if !merge.declared_vars.contains(name) && !undeclared_vars.contains(name) {
            undeclared_vars.push(name.clone());
        }
    }
    let mut model = merge.finish(options.only_types.clone());
    model.undeclared_vars = undeclared_vars;
    problems.append(&mut model.problems);
    model.problems = problems;
    model
}

/// What every unit shares: the walked folders and JSON files, and the load's settings.
fn shared(
    options: &LoadOptions,
    cwd: PathBuf,
    allowed: Vec<PathBuf>,
    folders: Vec<WalkedFolder>,
    json: Vec<Found>,
) -> Arc<Shared> {
    let folder_index = folders
        .iter()
        .enumerate()
        .map(|(i, f)| (f.real.as_os_str().to_os_string(), i))
        .collect();
    Arc::new(Shared {
        cwd,
        allowed,
        folders,
        folder_index,
        json,
        vars: options.vars.clone(),
        var_files: options.var_files.clone(),
        only_types: options.only_types.clone(),
        texts: options.texts,
        evaluated: options
            .only_arguments
            .iter()
            .flatten()
            .map(|(kind, names)| {
                let evaluated = Evaluated {
                    kind: kind.clone(),
                    names: names.clone(),
                };
                (kind.clone(), Arc::new(evaluated))
            })
            .collect(),
        tf_vars: std::env::vars_os()
            .filter_map(|(k, v)| {
                let name = k.to_str()?.strip_prefix("TF_VAR_")?.to_string();
                Some((name, v.into_string().ok()?))
            })
            .collect(),
        parsed: Default::default(),
        tf_workspace: std::env::var("TF_WORKSPACE").ok(),
    })
}

/// Puts the units' results together, in unit order.
#[derive(Debug, Default)]
struct Merge {
    /// The model's file table.
    files: Vec<SourceFile>,
    /// Model files by real path.
    by_real: FastMap<OsString, FileId>,
    modules: Vec<Module>,
    resources: Vec<Resource>,
    /// The model's lookups of `resources`, built as they come.
    index: crate::model::Index,
    problems: Vec<LoadProblem>,
    notes: Vec<LoadNote>,
    remote_calls: Vec<RemoteCall>,
    failed_calls: Vec<(String, Loc)>,
    walked_checked: usize,
    other_checked: FastSet<OsString>,
    read_by_functions: FastSet<OsString>,
    /// The names given with `--var` that some root module declares.
    declared_vars: FastSet<String>,
    json_task_definitions: Vec<(TaskDefinition, PathBuf)>,
    /// The task definitions of the `aws_ecs_task_definition` resources, in resource order.
    task_definitions: Vec<TaskDefinition>,
}

impl Merge {
    /// Adds the next unit's result (by unit order).
    fn add(&mut self, mut p: Partial) {
        let mut map = Vec::with_capacity(p.files.len());
        for (real, file) in p.files.drain(..) {
            let next = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
            let id = *self.by_real.entry(real.into_os_string()).or_insert(next);
            if id == next {
                self.files.push(file);
            }
            map.push(id.0);
        }
        let remap = Remap {
            files: &map,
            module_offset: u32::try_from(self.modules.len()).unwrap_or(u32::MAX),
            resource_offset: u32::try_from(self.resources.len()).unwrap_or(u32::MAX),
        };
        for mut m in p.modules.drain(..) {
            remap.module(&mut m);
            self.modules.push(m);
        }
        for mut r in p.resources.drain(..) {
            remap.resource(&mut r);
            self.index
                .add(u32::try_from(self.resources.len()).unwrap_or(u32::MAX), &r);
            self.task_definitions.extend(resource_task_definition(&r));
            self.resources.push(r);
        }
        for mut n in p.notes.drain(..) {
            if let Some(l) = &mut n.loc {
                remap.loc(l);
            }
            self.notes.push(n);
        }
        for mut call in p.remote_calls.drain(..) {
            remap.loc(&mut call.loc);
            self.remote_calls.push(call);
        }
        for (a, mut l) in p.failed_calls.drain(..) {
            remap.loc(&mut l);
            self.failed_calls.push((a, l));
        }
        self.problems.append(&mut p.problems);
        if let Some((mut td, real)) = p.task_definition.take() {
            remap.task_definition(&mut td);
            self.json_task_definitions.push((td, real));
        }
        self.declared_vars.extend(p.declared_vars.drain(..));
        self.walked_checked += p.walked_checked;
        self.other_checked
            .extend(p.other_checked.drain(..).map(PathBuf::into_os_string));
        self.read_by_functions
            .extend(p.read_by_functions.drain(..).map(PathBuf::into_os_string));
    }

    /// The model.
    fn finish(mut self, only_types: Option<Vec<String>>) -> Model {
        // Several units may report the same problem of a file of a module they call: once.
        let mut seen: FastSet<(PathBuf, Option<u32>, Option<u32>, String)> = FastSet::default();
        self.problems
            .retain(|pr| seen.insert((pr.path.clone(), pr.line, pr.column, pr.message.clone())));
        self.notes
            .extend(finish_notes(&self.remote_calls, &self.failed_calls));
        let mut task_definitions = self.task_definitions;
        // A JSON file read by `file()`/`templatefile()` is checked through what read it, not alone.
        let read = &self.read_by_functions;
        task_definitions.extend(
            self.json_task_definitions
                .into_iter()
                .filter(|(_, real)| !read.contains(real.as_os_str()))
                .map(|(td, _)| td),
        );
        Model {
            files: self.files,
            modules: self.modules,
            resources: self.resources,
            task_definitions,
            problems: self.problems,
            notes: self.notes,
            files_checked: self.walked_checked + self.other_checked.len(),
            only_types,
            index: std::sync::OnceLock::from(self.index),
            ..Model::default()
        }
    }
}

/// The renumbering of one unit's results.
struct Remap<'a> {
    /// Worker file id to model file id (`u32::MAX`: not a file of the model, kept as is).
    files: &'a [u32],
    module_offset: u32,
    resource_offset: u32,
}

impl Remap<'_> {
    fn loc(&self, l: &mut Loc) {
        if let Some(&g) = self.files.get(l.file.0 as usize) {
            if g != u32::MAX {
                l.file = FileId(g);
            }
        }
    }

    fn opt_loc(&self, l: &mut Option<Loc>) {
        if let Some(l) = l {
            self.loc(l);
        }
    }

    fn module_id(&self, m: &mut ModuleId) {
        m.0 = m.0.saturating_add(self.module_offset);
    }

    fn module(&self, m: &mut Module) {
        self.module_id(&mut m.id);
        if let Some(p) = &mut m.parent {
            self.module_id(p);
        }
        self.opt_loc(&mut m.call);
    }

    fn resource(&self, r: &mut Resource) {
        r.id.0 = r.id.0.saturating_add(self.resource_offset);
        self.module_id(&mut r.module);
        self.loc(&mut r.loc);
        self.body(&mut r.body);
    }

    fn body(&self, b: &mut Body) {
        self.opt_loc(&mut b.loc);
        for a in &mut b.attributes {
            self.opt_loc(&mut a.name_loc);
            self.node(&mut a.value);
        }
        for block in &mut b.blocks {
            self.opt_loc(&mut block.loc);
            self.body(&mut block.body);
        }
    }

    fn node(&self, n: &mut Node) {
        // Most values hold no other value: no stack for those.
        if let Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) = n.value {
            self.opt_loc(&mut n.loc);
            return;
        }
        // Iterative: values may nest deeply. The nodes waiting are few, mostly: no allocation.
        let mut stack: smallvec::SmallVec<[&mut Node; 32]> = smallvec::smallvec![n];
        while let Some(n) = stack.pop() {
            self.opt_loc(&mut n.loc);
            match &mut n.value {
                Value::Json(inner) => stack.push(Arc::make_mut(inner)),
                Value::List(items) => stack.extend(items.iter_mut()),
                Value::Object(o) => {
                    for e in o.entries.iter_mut().chain(o.discarded.iter_mut()) {
                        self.opt_loc(&mut e.key_loc);
                        stack.push(&mut e.value);
                    }
                }
                Value::Unknown(u) => {
                    for r in &mut u.refs {
                        self.module_id(&mut r.module);
                    }
                    for e in &mut u.entries {
                        self.opt_loc(&mut e.key_loc);
                        stack.push(&mut e.value);
                    }
                    // A template's text kept for reading as JSON with holes: its places too.
                    if let Some(text) = &mut u.text {
                        let text = Arc::make_mut(text);
                        for s in &mut text.sources {
                            self.loc(&mut s.loc);
                        }
                        stack.extend(text.holes.iter_mut().map(|h| &mut h.node));
                    }
                }
                Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
            }
        }
    }

    fn task_definition(&self, td: &mut TaskDefinition) {
        if let TaskDefinitionOrigin::JsonFile(f) = &mut td.origin {
            let mut l = Loc {
                file: *f,
                span: td.loc.span,
            };
            self.loc(&mut l);
            *f = l.file;
        }
        self.loc(&mut td.loc);
        for n in [
            &mut td.family,
            &mut td.requires_compatibilities,
            &mut td.cpu,
            &mut td.memory,
            &mut td.network_mode,
            &mut td.operating_system_family,
            &mut td.container_definitions,
            &mut td.task_level,
        ]
        .into_iter()
        .flatten()
        {
            self.node(n);
        }
        for (a, b) in &mut td.placement_constraints {
            for n in [a, b].into_iter().flatten() {
                self.node(n);
            }
        }
    }
}

impl Loader {
    /// Does unit `i` (among the folders, then the JSON files, of [`Shared`]). A panic (a bug)
    /// costs that unit only: its results are dropped, and the problem says so.
    fn unit(mut self, i: usize) -> Partial {
        let shared = self.shared.clone();
        let folder = shared.folders.get(i);
        let json = i
            .checked_sub(shared.folders.len())
            .and_then(|j| shared.json.get(j));
        let done =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match (folder, json) {
                (Some(f), _) => self.folder_unit(f),
                (None, Some(f)) => self.json_unit(f),
                (None, None) => Partial::default(),
            }));
        done.unwrap_or_else(|_| {
            // Also ends the unit's memory budget, which the thread's next unit starts afresh.
            let partial = self.finish_unit();
            let path = folder
                .map(|f| f.display.clone())
                .or_else(|| json.map(|f| f.display.clone()))
                .unwrap_or_default();
            Partial {
                files: partial.files,
                problems: vec![LoadProblem {
                    path,
                    line: None,
                    column: None,
                    message: "internal error while checking this; please report it".into(),
                }],
                ..Partial::default()
            }
        })
    }

    /// Reads, parses and evaluates one folder as a root module.
    fn folder_unit(&mut self, folder: &WalkedFolder) -> Partial {
        let (real, display, found) = (&folder.real, &folder.display, &folder.files);
        self.start_unit(found.len());
        let mut files = Vec::new();
        for f in found {
            self.unit_walked_checked += 1;
            files.extend(self.module_file(f, true, false));
        }
        let files = apply_overrides(files, |id| self.is_override_file(id));
        let decl = Rc::new(crate::decl::ModuleDecl::new(
            real.to_path_buf(),
            display.to_path_buf(),
            files,
        ));
        self.evaluate_root(decl);
        self.finish_unit()
    }

    /// Reads one JSON file: a task definition, or nothing.
    fn json_unit(&mut self, f: &Found) -> Partial {
        self.start_unit(1);
        let (text, parsed) = walk::read_one(f);
        let mut task_definition = None;
        match parsed {
            Parsed::TaskDef(json) => {
                self.unit_walked_checked += 1;
                let id = self.add_file(&f.real, f.display.clone(), text, Vec::new());
                task_definition = json_task_definition(id, json).map(|td| (td, f.real.clone()));
            }
            // Only a JSON file named on the command line has problems ([`walk::Kind::NamedJson`]).
            Parsed::Problem {
                line,
                column,
                message,
            } => {
                self.unit_walked_checked += 1;
                self.problems.push(crate::LoadProblem {
                    path: f.display.clone(),
                    line,
                    column,
                    message,
                });
            }
            Parsed::Hcl(_) | Parsed::Ignored => {}
        }
        let mut p = self.finish_unit();
        p.task_definition = task_definition;
        p
    }
}
