//! Loading on every core, in bounded memory.
//!
//! The walk finds the files; they are grouped into **units**: one per folder of Terraform files
//! (a root module) and one per JSON file. Workers, one per core, take units in order, a few at a
//! time ([`CHUNK`]); each reads, parses and evaluates its unit and frees the syntax trees before
//! taking the next, so only the units in flight hold trees. A worker keeps the texts it read (the
//! model needs them) and the declarations of the module folders its units call (the same module is
//! often called by many roots), a bounded number of them; a walked folder whose declarations it
//! keeps is not parsed again as a root.
//!
//! Each unit's results use the worker's file ids and ids that start at zero for its module
//! instances and resources. The merge takes the units in order, gives every file its place (the
//! first unit that read a file, in unit order, provides it: the same whatever the number of
//! workers or how units fell to them) and renumbers. The model is therefore the same with one
//! worker or many; a test checks it.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::loader::{
    apply_overrides, finish_notes, json_task_definition, resource_task_definitions, Ev, Shared,
    WalkedFolder,
};
use crate::model::*;
use crate::value::{Loc, Node, Value};
use crate::walk::{self, Found, Kind, Parsed};
use crate::{FastMap, FastSet};

/// Units a worker takes at a time: neighbouring folders (a root and the module folders it calls,
/// a module and its examples) then fall to the same worker, whose kept declarations serve them
/// all, instead of each worker parsing the same module again. On the benchmark corpus, 4 parses
/// 7% fewer bytes than taking units one by one; 8 and 16 parse the same as 4.
const CHUNK: usize = 4;

/// Stack of a worker: deep but legal nesting must not overflow it while parsing or evaluating.
const WORKER_STACK: usize = 512 << 20;

/// What one unit produced, in its worker's file ids and its own module and resource ids.
#[derive(Debug, Default)]
pub(crate) struct Partial {
    /// Files this unit registered first in its worker, in the order it registered them.
    pub new_files: Vec<FileId>,
    /// Files of the walk this unit checked (each walked file belongs to one unit).
    pub walked_checked: usize,
    /// Real paths of the files outside the walk this unit read (module folders elsewhere): other
    /// units may read them too, they count once.
    pub other_checked: Vec<PathBuf>,
    pub modules: Vec<Module>,
    pub resources: Vec<Resource>,
    pub problems: Vec<LoadProblem>,
    pub notes: Vec<LoadNote>,
    pub remote_calls: Vec<(String, String, Loc)>,
    pub failed_calls: Vec<(String, Loc)>,
    pub read_by_functions: Vec<PathBuf>,
    /// A JSON unit's task definition, with the file's real path.
    pub task_definition: Option<(TaskDefinition, PathBuf)>,
}

/// A worker's file table: the texts it read, by worker file id, with their real paths.
type Table = Vec<(PathBuf, SourceFile)>;

/// What a worker hands back: its file table, and each unit it did (unit index, worker, result).
type WorkerResult = (Table, Vec<(usize, usize, Partial)>);

/// Loads everything; see the module documentation.
pub(crate) fn load(options: &LoadOptions) -> Model {
    let cwd = walk::cwd();
    let paths: Vec<PathBuf> = if options.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let (found, walk_problems) = walk::find_files(&paths, &cwd);

    // Units: folders in display order, then JSON files in display order.
    let mut folders: Vec<(PathBuf, PathBuf, Vec<Found>)> = Vec::new();
    let mut folder_index: FastMap<PathBuf, usize> = FastMap::default();
    let mut json = Vec::new();
    let mut last = usize::MAX;
    for f in found {
        if f.kind == Kind::Json {
            json.push(f);
            continue;
        }
        let real_dir = f.real.parent().unwrap_or(Path::new(""));
        // The files of a folder mostly come one after the other: no lookup for those.
        let i = match folders.get(last) {
            Some(prev) if prev.0.as_os_str() == real_dir.as_os_str() => last,
            _ => *folder_index
                .entry(real_dir.to_path_buf())
                .or_insert_with(|| {
                    let display = dir_display(f.display.parent().unwrap_or(Path::new("")));
                    folders.push((real_dir.to_path_buf(), display, Vec::new()));
                    folders.len() - 1
                }),
        };
        last = i;
        folders[i].2.push(f);
    }
    folders.sort_unstable_by(|a, b| walk::path_order(&a.1, &b.1));

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
    let folder_index = folders
        .iter()
        .enumerate()
        .map(|(i, f)| (f.real.clone(), i))
        .collect();
    let shared = Arc::new(Shared {
        cwd,
        allowed,
        folders,
        folder_index,
        json,
        vars: options.vars.clone(),
        var_files: options.var_files.clone(),
        only_types: options.only_types.clone(),
        tf_vars: std::env::vars_os()
            .filter_map(|(k, v)| {
                let name = k.to_str()?.strip_prefix("TF_VAR_")?.to_string();
                Some((name, v.into_string().ok()?))
            })
            .collect(),
        tf_workspace: std::env::var("TF_WORKSPACE").ok(),
    });

    let (tables, partials) = run(&shared, options.threads);
    drop(shared);
    let mut model = merge(tables, partials, options.only_types.clone());
    let mut problems: Vec<LoadProblem> = walk_problems
        .into_iter()
        .map(|(path, message)| LoadProblem {
            path,
            line: None,
            column: None,
            message,
        })
        .collect();
    problems.append(&mut model.problems);
    model.problems = problems;
    model
}

fn dir_display(d: &Path) -> PathBuf {
    if d.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        d.to_path_buf()
    }
}

/// Runs the units on one worker per core. Returns each worker's file table and every unit's
/// result with the index of the worker that produced it, in unit order.
fn run(shared: &Arc<Shared>, threads: Option<usize>) -> (Vec<Table>, Vec<(usize, Partial)>) {
    // The units: the walked folders, then the JSON files.
    let units = shared.folders.len() + shared.json.len();
    let threads = threads
        .unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
        .min(units)
        .max(1);
    let next = AtomicUsize::new(0);
    let work = |worker: usize| -> WorkerResult {
        let mut ev = Ev::worker(shared.clone());
        let mut done = Vec::new();
        'units: loop {
            let first = next.fetch_add(CHUNK, Ordering::Relaxed);
            for i in first..first.saturating_add(CHUNK) {
                let partial = if let Some(f) = shared.folders.get(i) {
                    ev.folder_unit(&f.real, &f.display, &f.files)
                } else if let Some(f) = shared.json.get(i - shared.folders.len()) {
                    ev.json_unit(f)
                } else {
                    break 'units;
                };
                done.push((i, worker, partial));
            }
        }
        (ev.into_table(), done)
    };
    // By worker index: each partial names the worker whose file table it uses.
    let mut results: Vec<WorkerResult> = (0..threads).map(|_| (Vec::new(), Vec::new())).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .filter_map(|w| {
                let work = &work;
                std::thread::Builder::new()
                    .name(format!("ecs-gpu-load-{w}"))
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, move || work(w))
                    .ok()
                    .map(|h| (w, h))
            })
            .collect();
        let spawned = handles.len();
        for (w, h) in handles {
            // A worker that panicked lost its units: the check goes on without them, and the
            // merge says so.
            if let Ok(r) = h.join() {
                results[w] = r;
            }
        }
        if spawned == 0 {
            // No thread could be started (a tight memory limit): do the work here.
            results[0] = work(0);
        }
    });
    let mut tables = Vec::new();
    let mut partials = Vec::new();
    for (table, done) in results {
        tables.push(table);
        partials.extend(done);
    }
    partials.sort_by_key(|p| p.0);
    let lost = units - partials.len();
    let mut out: Vec<(usize, Partial)> = partials.into_iter().map(|(_, w, p)| (w, p)).collect();
    if lost > 0 {
        let mut p = Partial::default();
        p.problems.push(LoadProblem {
            path: PathBuf::from("."),
            line: None,
            column: None,
            message: format!("internal error while loading ({lost} folders or files not checked); please report it"),
        });
        // Its worker index is never read: the partial has no files.
        out.push((0, p));
    }
    (tables, out)
}

/// Puts the units' results together, in unit order.
fn merge(
    tables: Vec<Table>,
    partials: Vec<(usize, Partial)>,
    only_types: Option<Vec<String>>,
) -> Model {
    let (reals, mut texts): (Vec<Vec<PathBuf>>, Vec<Vec<SourceFile>>) =
        tables.into_iter().map(|t| t.into_iter().unzip()).unzip();
    let mut files: Vec<SourceFile> =
        Vec::with_capacity(partials.iter().map(|p| p.1.new_files.len()).sum());
    let mut by_real: FastMap<&Path, FileId> =
        FastMap::with_capacity_and_hasher(files.capacity(), Default::default());
    let mut maps: Vec<Vec<u32>> = reals.iter().map(|t| vec![u32::MAX; t.len()]).collect();
    let mut modules: Vec<Module> =
        Vec::with_capacity(partials.iter().map(|p| p.1.modules.len()).sum());
    let mut resources: Vec<Resource> =
        Vec::with_capacity(partials.iter().map(|p| p.1.resources.len()).sum());
    let mut problems: Vec<LoadProblem> = Vec::new();
    let mut seen_problems: FastSet<(PathBuf, Option<u32>, Option<u32>, String)> =
        FastSet::default();
    let mut notes: Vec<LoadNote> = Vec::new();
    let mut remote_calls = Vec::new();
    let mut failed_calls = Vec::new();
    let mut walked_checked = 0;
    let mut other_checked: FastSet<PathBuf> = FastSet::default();
    let mut read_by_functions: FastSet<PathBuf> = FastSet::default();
    let mut json_task_definitions = Vec::new();
    for (w, mut p) in partials {
        for id in &p.new_files {
            let i = id.0 as usize;
            let (Some(real), Some(file)) = (
                reals.get(w).and_then(|t| t.get(i)),
                texts.get_mut(w).and_then(|t| t.get_mut(i)),
            ) else {
                continue;
            };
            let g = *by_real.entry(real.as_path()).or_insert_with(|| {
                files.push(std::mem::replace(
                    file,
                    SourceFile {
                        path: PathBuf::new(),
                        text: String::new(),
                        comments: Vec::new(),
                    },
                ));
                FileId(u32::try_from(files.len() - 1).unwrap_or(u32::MAX))
            });
            maps[w][i] = g.0;
        }
        let remap = Remap {
            files: maps.get(w).map(Vec::as_slice).unwrap_or_default(),
            module_offset: u32::try_from(modules.len()).unwrap_or(u32::MAX),
            resource_offset: u32::try_from(resources.len()).unwrap_or(u32::MAX),
        };
        for mut m in p.modules.drain(..) {
            remap.module(&mut m);
            modules.push(m);
        }
        for mut r in p.resources.drain(..) {
            remap.resource(&mut r);
            resources.push(r);
        }
        for mut n in p.notes.drain(..) {
            if let Some(l) = &mut n.loc {
                remap.loc(l);
            }
            notes.push(n);
        }
        for (a, s, mut l) in p.remote_calls.drain(..) {
            remap.loc(&mut l);
            remote_calls.push((a, s, l));
        }
        for (a, mut l) in p.failed_calls.drain(..) {
            remap.loc(&mut l);
            failed_calls.push((a, l));
        }
        for pr in p.problems.drain(..) {
            if seen_problems.insert((pr.path.clone(), pr.line, pr.column, pr.message.clone())) {
                problems.push(pr);
            }
        }
        if let Some((mut td, real)) = p.task_definition.take() {
            remap.task_definition(&mut td);
            json_task_definitions.push((td, real));
        }
        walked_checked += p.walked_checked;
        other_checked.extend(p.other_checked.drain(..));
        read_by_functions.extend(p.read_by_functions.drain(..));
    }
    notes.extend(finish_notes(&remote_calls, &failed_calls));
    let mut task_definitions = resource_task_definitions(&resources);
    // A JSON file read by `file()`/`templatefile()` is checked through what read it, not alone.
    task_definitions.extend(
        json_task_definitions
            .into_iter()
            .filter(|(_, real)| !read_by_functions.contains(real))
            .map(|(td, _)| td),
    );
    Model {
        files,
        modules,
        resources,
        task_definitions,
        problems,
        notes,
        files_checked: walked_checked + other_checked.len(),
        only_types,
        ..Model::default()
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
        // Iterative: values may nest deeply.
        let mut stack: Vec<&mut Node> = vec![n];
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

impl Ev {
    /// Reads, parses and evaluates one folder as a root module.
    fn folder_unit(&mut self, real: &Path, display: &Path, found: &[Found]) -> Partial {
        self.start_unit(found.len());
        // A module call of an earlier unit of this worker may have parsed the folder already: its
        // declarations serve when they hold exactly the walked files, in the same order (all of
        // them parsed, so there is nothing to report).
        if let Some(decl) = self.cached_decl(real) {
            let same = decl.files.len() == found.len()
                && decl
                    .files
                    .iter()
                    .zip(found)
                    .all(|((id, _), f)| self.registered(&f.real) == Some(*id));
            if same {
                self.unit_walked_checked += found.len();
                self.evaluate_root(decl);
                return self.finish_unit();
            }
        }
        let mut files = Vec::new();
        for f in found {
            self.unit_walked_checked += 1;
            files.extend(self.module_file(f, true));
        }
        let files = apply_overrides(files, |id| self.is_override_file(id));
        let decl = Rc::new(crate::loader::ModuleDecl::new(
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
        if let Parsed::TaskDef(json) = &parsed {
            self.unit_walked_checked += 1;
            let id = self.add_file(&f.real, f.display.clone(), text, Vec::new());
            task_definition = json_task_definition(id, json).map(|td| (td, f.real.clone()));
        }
        let mut p = self.finish_unit();
        p.task_definition = task_definition;
        p
    }
}
