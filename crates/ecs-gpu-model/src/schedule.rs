//! Loading on every core, in bounded memory, while the walk goes on.
//!
//! The walk finds the files and groups them into **units**: one per folder of Terraform files
//! (a root module) and one per JSON file, folders first, each list in display order. Workers, one
//! per core, take units in that order from a queue, a few at a time ([`CHUNK`]); each reads, parses
//! and evaluates its unit and frees the syntax trees before taking the next, so only the units in
//! flight hold trees. A worker keeps the texts it read (the model needs them) and the declarations
//! of the module folders its units call (the same module is often called by many roots), a
//! bounded number of them; a walked folder whose declarations it keeps is not parsed again as a
//! root. The other way round, a root's declarations stay while the worker's units are in folders
//! below it, which may call it (a module's `examples/`), when they are what a call reads: every
//! Terraform file of the folder.
//!
//! When one folder is checked, the walk ([`crate::preorder`]) hands each folder to the queue as
//! soon as it is listed, in unit order, so the workers start while it walks. A unit then does not
//! know yet which folders the walk will find: a module call reads every called folder as one
//! outside the walk, and the merge, which starts once the walk has ended, drops what the walked
//! folder's own unit says (its problems, its file count). Several checked paths, a single file, or
//! a symlinked folder met on the way: the whole walk comes first ([`walk::find_files`]) and units
//! know the walked folders from the start.
//!
//! Each unit's results use the worker's file ids and ids that start at zero for its module
//! instances and resources. The merge takes the units in order, as they are done, gives every file
//! its place (the first unit that read a file, in unit order, provides it: the same whatever the
//! number of workers or how units fell to them, since every worker takes its units in unit order)
//! and renumbers. The model is therefore the same with one worker or many, and with or without the
//! walk going on; tests check both.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::decl::apply_overrides;
use crate::loader::{finish_notes, Ev, RemoteCall, Shared, WalkedFolder};
use crate::model::*;
use crate::taskdef::{json_task_definition, resource_task_definition};
use crate::value::{Loc, Node, Value};
use crate::walk::{self, Found, Parsed};
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
    /// Files this unit registered first in its worker, in the order it registered them, with
    /// their real paths.
    pub new_files: Vec<(FileId, PathBuf)>,
    /// Files of the walk this unit checked (each walked file belongs to one unit).
    pub walked_checked: usize,
    /// Real paths of the files outside the walk this unit read (module folders elsewhere): other
    /// units may read them too, they count once.
    pub other_checked: Vec<PathBuf>,
    pub modules: Vec<Module>,
    pub resources: Vec<Resource>,
    pub problems: Vec<LoadProblem>,
    /// The problems (index in `problems`) a module call reported for a file of the called folder,
    /// with the file's real path: its own folder's unit reports them when the walk found it.
    pub call_problems: Vec<(usize, PathBuf)>,
    pub notes: Vec<LoadNote>,
    pub remote_calls: Vec<RemoteCall>,
    pub failed_calls: Vec<(String, Loc)>,
    pub read_by_functions: Vec<PathBuf>,
    /// A JSON unit's task definition, with the file's real path.
    pub task_definition: Option<(TaskDefinition, PathBuf)>,
}

/// A worker's file table: the texts it read, by worker file id.
type Table = Vec<SourceFile>;

/// One unit of work.
#[derive(Debug)]
pub(crate) enum Unit {
    /// A folder the walk found as it goes.
    Folder(WalkedFolder),
    /// A JSON file the walk found as it went.
    Json(Found),
    /// The unit at this index among the folders, then the JSON files, of [`Shared`].
    Walked(usize),
}

/// Work on a loaded model that the loading threads share ([`crate::load_then`]).
pub trait AfterLoad: Sync {
    /// What the threads share while they work.
    type State<'m>: Send + Sync
    where
        Self: 'm;
    /// What the work gives.
    type Output;
    /// Starts the work on the complete model (on the calling thread).
    fn start<'m>(&'m self, model: &'m Model) -> Self::State<'m>;
    /// Takes part in the work until none is left: called on the calling thread and on every
    /// loading thread.
    fn help<'m>(&'m self, state: &'m Self::State<'m>);
    /// The work's result, once every thread has returned from [`AfterLoad::help`] (on the
    /// calling thread).
    fn finish<'m>(&'m self, model: &'m Model, state: &'m Self::State<'m>) -> Self::Output;
}

/// No work after the load ([`crate::load`]).
#[derive(Debug)]
pub(crate) struct Nothing;

impl AfterLoad for Nothing {
    type State<'m> = ();
    type Output = ();
    fn start<'m>(&'m self, _: &'m Model) {}
    fn help<'m>(&'m self, (): &'m ()) {}
    fn finish<'m>(&'m self, _: &'m Model, (): &'m ()) {}
}

/// Loads everything (see the module documentation), then does `after`'s work. The model comes
/// back when there is no work after the load; with work, the model is kept to the end of the
/// process instead (see [`crate::load_then`]).
pub(crate) fn load<A: AfterLoad>(options: &LoadOptions, after: Option<&A>) -> Loaded<A::Output> {
    let cwd = walk::cwd();
    let paths: Vec<PathBuf> = if options.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    if let [root] = paths.as_slice() {
        if std::fs::metadata(root).is_ok_and(|m| m.is_dir()) {
            if let Ok(real) = std::fs::canonicalize(root) {
                let shared = shared(options, cwd.clone(), vec![real], Vec::new(), Vec::new());
                if let Some(done) = run(&shared, options, Source::Walk(root), after) {
                    return done;
                }
            }
        }
    }
    let (found, walk_problems) = walk::find_files(&paths, &cwd);

    // Units: folders in unit order, then JSON files in display order.
    let mut folders: Vec<(PathBuf, PathBuf, Vec<Found>)> = Vec::new();
    let mut folder_index: FastMap<OsString, usize> = FastMap::default();
    let mut json = Vec::new();
    let mut last = usize::MAX;
    for f in found {
        if f.kind.is_json() {
            json.push(f);
            continue;
        }
        let real_dir = f.real.parent().unwrap_or(Path::new(""));
        // The files of a folder mostly come one after the other: no lookup for those.
        let i = match folders.get(last) {
            Some(prev) if prev.0.as_os_str() == real_dir.as_os_str() => last,
            _ => *folder_index
                .entry(real_dir.as_os_str().to_os_string())
                .or_insert_with(|| {
                    let display = walk::folder_display(&f.display);
                    folders.push((real_dir.to_path_buf(), display, Vec::new()));
                    folders.len() - 1
                }),
        };
        last = i;
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
            listing: None,
        })
        .collect();
    let shared = shared(options, cwd, allowed, folders, json);
    let walk_problems: Vec<LoadProblem> = walk_problems
        .into_iter()
        .map(|(path, message)| LoadProblem {
            path,
            line: None,
            column: None,
            message,
        })
        .collect();
    let source = Source::Walked(walk_problems);
    run(&shared, options, source, after).unwrap_or_else(|| match after {
        None => Loaded::Model(Model::default()),
        Some(after) => Loaded::Output(after_alone(after, Model::default())),
    })
}

/// `after`'s work on a model, on the calling thread alone; the model stays to the end of the
/// process, as after a load.
pub(crate) fn after_alone<A: AfterLoad>(after: &A, model: Model) -> A::Output {
    let model = std::mem::ManuallyDrop::new(model);
    let state = std::mem::ManuallyDrop::new(after.start(&model));
    after.help(&state);
    after.finish(&model, &state)
}

/// What a load gives: the model, or the result of the work after it. Moved once per load: its
/// size does not matter.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Loaded<O> {
    Model(Model),
    Output(O),
}

/// What every worker shares: the walked folders and JSON files when the walk is done before
/// loading (empty when units come from the walk as it goes), and the load's settings.
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
        tf_workspace: std::env::var("TF_WORKSPACE").ok(),
    })
}

/// Where the units come from.
#[derive(Debug)]
enum Source<'a> {
    /// The walk of this folder, as it goes ([`crate::preorder`]).
    Walk(&'a Path),
    /// The folders and JSON files of [`Shared`], walked before, and what the walk could not
    /// read.
    Walked(Vec<LoadProblem>),
}

/// The units waiting for a worker, in unit order.
#[derive(Debug, Default)]
struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct QueueState {
    units: VecDeque<(usize, Unit)>,
    /// Units handed to the queue so far (the next unit's index).
    pushed: usize,
    /// No more units will come.
    closed: bool,
    /// The load is abandoned: workers stop now.
    abandoned: bool,
}

impl Queue {
    fn push(&self, unit: Unit) {
        if let Ok(mut q) = self.state.lock() {
            let i = q.pushed;
            q.units.push_back((i, unit));
            q.pushed += 1;
        }
        self.ready.notify_one();
    }

    /// No more units (`abandon`: and the ones waiting are dropped). Returns how many were pushed.
    fn close(&self, abandon: bool) -> usize {
        let pushed = match self.state.lock() {
            Ok(mut q) => {
                q.closed = true;
                q.abandoned |= abandon;
                if abandon {
                    q.units.clear();
                }
                q.pushed
            }
            Err(_) => 0,
        };
        self.ready.notify_all();
        pushed
    }

    /// The next units in order, at most `n`, as soon as there are some; `None` when the queue is
    /// closed and empty. Once no unit will come, the last ones go one at a time, shared by the
    /// `workers`: the workers then end together, instead of one waiting for the other's batch.
    fn take(&self, n: usize, workers: usize) -> Option<Vec<(usize, Unit)>> {
        let mut q = self.state.lock().ok()?;
        let mut waiting_since = None;
        loop {
            if q.abandoned {
                return None;
            }
            if !q.units.is_empty() {
                let mut n = n.min(q.units.len());
                if q.closed && q.units.len() < n * workers * 2 {
                    n = 1;
                }
                return Some(q.units.drain(..n).collect());
            }
            if q.closed {
                return None;
            }
            let since = *waiting_since.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() < QUEUE_SPIN {
                // Stay on the core a while, yielding it to the walk: a worker put to sleep is
                // woken on a core that may itself be asleep, which took up to 5 ms on the
                // benchmark machine while units waited in the queue.
                drop(q);
                std::thread::yield_now();
                q = self.state.lock().ok()?;
            } else {
                q = self.ready.wait(q).ok()?;
            }
        }
    }
}

/// How long a worker waiting for units yields its core before it sleeps: the walk hands a folder
/// over every few hundred microseconds at the start of a load, and up to 2 ms apart when it waits
/// for a core itself.
const QUEUE_SPIN: std::time::Duration = std::time::Duration::from_millis(3);

/// The units' results, by unit index, as workers finish them.
#[derive(Debug, Default)]
struct Results {
    state: Mutex<ResultsState>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct ResultsState {
    /// By unit index: the worker that did it and its result, until the merge takes it.
    slots: Vec<Option<(usize, Partial)>>,
    /// Units 0 to `done - 1` are all done (the merge may have taken them).
    done: usize,
    /// The merge sleeps until `done` passes this (`usize::MAX`: it is not waiting).
    wanted: usize,
    /// Workers still running.
    running: usize,
}

/// Results of consecutive units: the worker that did each, and what it produced.
type Done = Vec<(usize, Partial)>;

/// Units the merge waits for at a time: waking it for each unit would cost a context switch per
/// unit (hundreds per run), and it merges a batch in far less time than the workers take.
const MERGE_BATCH: usize = 32;

impl Results {
    fn put(&self, unit: usize, worker: usize, partial: Partial) {
        let mut wake = false;
        if let Ok(mut r) = self.state.lock() {
            if r.slots.len() <= unit {
                r.slots.resize_with(unit + 1, || None);
            }
            r.slots[unit] = Some((worker, partial));
            while r.slots.get(r.done).is_some_and(Option::is_some) {
                r.done += 1;
            }
            wake = r.done > r.wanted;
        }
        if wake {
            self.ready.notify_one();
        }
    }

    /// Waits until every worker has stopped (each hands its file table over first).
    fn wait_idle(&self) {
        let Ok(mut r) = self.state.lock() else {
            return;
        };
        while r.running > 0 {
            r = match self.ready.wait(r) {
                Ok(r) => r,
                Err(_) => return,
            };
        }
    }

    /// The results of units `from` on, in order, once `upto` (or the last unit, `units - 1`) is
    /// done. When every worker has stopped first: what came of the rest, and `Err` with how many
    /// units never will.
    fn take(&self, from: usize, upto: usize, units: usize) -> Result<Done, (Done, usize)> {
        let Ok(mut r) = self.state.lock() else {
            return Err((Vec::new(), units - from));
        };
        let upto = upto.min(units.saturating_sub(1));
        while r.done <= upto && r.running > 0 {
            r.wanted = upto;
            r = match self.ready.wait(r) {
                Ok(r) => r,
                Err(_) => return Err((Vec::new(), units - from)),
            };
        }
        r.wanted = usize::MAX;
        if r.done > from {
            let end = r.done;
            return Ok(r.slots[from..end]
                .iter_mut()
                .filter_map(Option::take)
                .collect());
        }
        // Every worker stopped, and unit `from` never came: what did come, in order.
        let rest: Done = r
            .slots
            .iter_mut()
            .skip(from)
            .take(units - from)
            .filter_map(Option::take)
            .collect();
        let lost = units - from - rest.len();
        Err((rest, lost))
    }
}

/// Counts a worker out when it stops, whether it returns or panics.
struct Running<'a>(&'a Results);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if let Ok(mut r) = self.0.state.lock() {
            r.running -= 1;
        }
        self.0.ready.notify_one();
    }
}

/// The files the walk found, when units did not know them: the folders whose every Terraform
/// file it found (most), and the files of the others.
#[derive(Debug, Default)]
struct Walked {
    /// Real paths of folders whose every Terraform file the walk found.
    folders: FastSet<OsString>,
    /// Real paths of the walked files of the other folders (and of JSON files).
    files: FastSet<OsString>,
}

impl Walked {
    fn add(&mut self, folder: &WalkedFolder) {
        if folder.listing.as_ref().is_some_and(|l| l.every_module_file) {
            self.folders.insert(folder.real.as_os_str().to_os_string());
        } else {
            self.files.extend(
                folder
                    .files
                    .iter()
                    .map(|f| f.real.as_os_str().to_os_string()),
            );
        }
    }

    /// Whether the walk found the file at this real path (a Terraform or JSON file).
    fn contains(&self, real: &std::ffi::OsStr) -> bool {
        let path = Path::new(real);
        self.files.contains(real)
            || matches!(
                crate::walk::Kind::of(path),
                Some(crate::walk::Kind::Tf | crate::walk::Kind::TfJson)
            ) && path
                .parent()
                .is_some_and(|dir| self.folders.contains(dir.as_os_str()))
    }
}

/// Runs the units on one worker per core while the merge takes their results in unit order, then
/// `after`'s work on the model on the same threads. `None` when the walk met a symlinked folder
/// (`Source::Walk` only): the caller walks first.
fn run<A: AfterLoad>(
    shared: &Arc<Shared>,
    options: &LoadOptions,
    source: Source<'_>,
    after: Option<&A>,
) -> Option<Loaded<A::Output>> {
    let threads = options
        .threads
        .unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
        .max(1);
    let threads = match source {
        Source::Walk(_) => threads,
        Source::Walked(_) => threads.min(shared.folders.len() + shared.json.len()).max(1),
    };
    // The work after the load runs on the calling thread and as many workers as leave one core
    // each: a third thread on two cores is preempted in the middle of a job, and the rest wait
    // for it.
    let helpers = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) - 1;
    let queue = Queue::default();
    let results = Results::default();
    let tables: Vec<Mutex<Option<Table>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    // With work after the load, the model and the work's state stay to the end of the process:
    // freeing a model that workers built, value by value on one thread, takes milliseconds (3.5 ms
    // on the benchmark corpus), and the process that asks for work after the load ends after it.
    let model = std::mem::ManuallyDrop::new(OnceLock::new());
    let state = std::mem::ManuallyDrop::new(OnceLock::new());
    let phase = Phase::default();
    // Helping workers still at the work after the load.
    let pending = std::sync::atomic::AtomicUsize::new(0);
    // A worker's part of the load: its units, then its file table. A worker that panics (a bug)
    // leaves no table: the merge says which texts are missing. The rest of the evaluator (the
    // module declarations it kept...) is freed after the table is handed over, while the merge
    // goes on.
    let load = |worker: usize| -> Ev {
        let running = Running(&results);
        let mut ev = Ev::worker(shared.clone());
        while let Some(batch) = queue.take(CHUNK, threads) {
            for (i, unit) in batch {
                let partial = ev.unit(&unit);
                results.put(i, worker, partial);
            }
        }
        if let Ok(mut slot) = tables[worker].lock() {
            *slot = Some(ev.take_table());
        }
        drop(running);
        ev
    };
    std::thread::scope(|s| {
        // However this ends (a panic included), the workers stop waiting for work after the load.
        let _end = EndOnDrop(&phase);
        if let Ok(mut r) = results.state.lock() {
            r.running = threads;
        }
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let (load, phase, state, pending) = (&load, &phase, &state, &pending);
                std::thread::Builder::new()
                    .name(format!("ecs-gpu-load-{w}"))
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, move || {
                        // Freed when the thread ends: after its work after the load, if it helps.
                        let _ev = load(w);
                        if let Some(after) = after.filter(|_| w < helpers) {
                            if phase.wait() {
                                // Counted out even if the work panics (a bug).
                                let _done = CountDown(pending);
                                if let Some(state) = state.get() {
                                    after.help(state);
                                }
                            }
                        }
                    })
                    .ok()
            })
            .collect();
        let spawned = handles.iter().flatten().count();
        if let Ok(mut r) = results.state.lock() {
            r.running -= threads - spawned;
        }
        let (walked, problems) = match &source {
            Source::Walk(root) => {
                let mut walked = Walked::default();
                // A panic (a bug) in the walk must not leave the workers waiting for units that
                // will never come: it is abandoned, and the caller walks first instead.
                let walk = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::preorder::walk(root, &shared.cwd, &mut |folder| {
                        walked.add(&folder);
                        queue.push(Unit::Folder(folder));
                    })
                }))
                .unwrap_or(Err(crate::preorder::Linked));
                let problems = match walk {
                    Ok((json, problems)) => {
                        walked
                            .files
                            .extend(json.iter().map(|f| f.real.as_os_str().to_os_string()));
                        for f in json {
                            queue.push(Unit::Json(f));
                        }
                        problems
                    }
                    Err(crate::preorder::Linked) => {
                        queue.close(true);
                        phase.end();
                        for h in handles.into_iter().flatten() {
                            let _ = h.join();
                        }
                        return None;
                    }
                };
                let problems = problems
                    .into_iter()
                    .map(|(path, message)| LoadProblem {
                        path,
                        line: None,
                        column: None,
                        message,
                    })
                    .collect();
                (Some(walked), problems)
            }
            Source::Walked(problems) => {
                for i in 0..shared.folders.len() + shared.json.len() {
                    queue.push(Unit::Walked(i));
                }
                (None, problems.clone())
            }
        };
        let units = queue.close(false);
        if spawned == 0 {
            // No thread could be started (a tight memory limit): do the work here.
            if let Ok(mut r) = results.state.lock() {
                r.running = 1;
            }
            drop(load(0));
        }
        let mut merge = Merge::new(threads);
        let mut lost = 0;
        let mut next = 0;
        while next < units {
            match results.take(next, next + MERGE_BATCH - 1, units) {
                Ok(batch) => {
                    next += batch.len();
                    for (w, p) in batch {
                        merge.add(w, p);
                    }
                }
                Err((rest, never)) => {
                    for (w, p) in rest {
                        merge.add(w, p);
                    }
                    lost = never;
                    break;
                }
            }
        }
        // Every worker has handed its file table over (or stopped without one).
        results.wait_idle();
        let tables = tables
            .iter()
            .map(|t| t.lock().ok().and_then(|mut t| t.take()).unwrap_or_default())
            .collect();
        let mut built = merge.finish(tables, walked.as_ref(), lost, options.only_types.clone());
        if !problems.is_empty() {
            let mut all = problems;
            all.append(&mut built.problems);
            built.problems = all;
        }
        let Some(after) = after else {
            return Some(Loaded::Model(built));
        };
        let model = model.get_or_init(|| built);
        let state = state.get_or_init(|| after.start(model));
        let helping = handles
            .iter()
            .enumerate()
            .filter(|(w, h)| *w < helpers && h.is_some())
            .count();
        pending.store(helping, std::sync::atomic::Ordering::Release);
        phase.start();
        after.help(state);
        // The helpers' last jobs; their threads end meanwhile (the scope joins them, and reports
        // one that panicked). A helper that panicked before its work (a bug in its load) never
        // counts itself out: its thread has ended, and nothing is waited for from it.
        let helpers_ended = || {
            handles
                .iter()
                .take(helpers)
                .flatten()
                .all(std::thread::ScopedJoinHandle::is_finished)
        };
        while pending.load(std::sync::atomic::Ordering::Acquire) > 0 && !helpers_ended() {
            std::thread::yield_now();
        }
        Some(Loaded::Output(after.finish(model, state)))
    })
}

/// Counts a helper out of the work after the load when dropped.
struct CountDown<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for CountDown<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Release);
    }
}

/// Ends the [`Phase`] when dropped.
struct EndOnDrop<'a>(&'a Phase);

impl Drop for EndOnDrop<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// Where the loading threads are once their units are done: waiting for the work after the load
/// (0, the default), doing it, or told that there is none.
#[derive(Debug, Default)]
struct Phase(std::sync::atomic::AtomicU8);

impl Phase {
    const HELP: u8 = 1;
    const END: u8 = 2;

    fn start(&self) {
        self.0
            .store(Self::HELP, std::sync::atomic::Ordering::Release);
    }

    fn end(&self) {
        self.0
            .store(Self::END, std::sync::atomic::Ordering::Release);
    }

    /// Waits until the work after the load starts (`true`) or there is none (`false`). The
    /// thread stays on its core meanwhile, yielding it to any other: the merge ends a millisecond
    /// or so after the last unit, and a thread put to sleep there waits for a scheduler tick to get
    /// a core back when the work starts.
    fn wait(&self) -> bool {
        loop {
            match self.0.load(std::sync::atomic::Ordering::Acquire) {
                Self::HELP => return true,
                Self::END => return false,
                _ => std::thread::yield_now(),
            }
        }
    }
}

/// Puts the units' results together, in unit order, as they come.
#[derive(Debug)]
struct Merge {
    /// Model file id to the worker and worker file id that provide its text.
    providers: Vec<(usize, FileId)>,
    /// Model files by real path.
    by_real: FastMap<OsString, FileId>,
    /// By worker: worker file id to model file id (`u32::MAX`: not known yet).
    maps: Vec<Vec<u32>>,
    modules: Vec<Module>,
    resources: Vec<Resource>,
    /// The model's lookups of `resources`, built as they come (while the workers go on, instead
    /// of on the rules' first lookup).
    index: crate::model::Index,
    /// Problems in unit order, with the real path of the file a module call reported them for.
    problems: Vec<(LoadProblem, Option<PathBuf>)>,
    notes: Vec<LoadNote>,
    remote_calls: Vec<RemoteCall>,
    failed_calls: Vec<(String, Loc)>,
    walked_checked: usize,
    other_checked: FastSet<OsString>,
    read_by_functions: FastSet<OsString>,
    json_task_definitions: Vec<(TaskDefinition, PathBuf)>,
    /// The task definitions of the `aws_ecs_task_definition` resources, in resource order.
    task_definitions: Vec<TaskDefinition>,
}

impl Merge {
    fn new(workers: usize) -> Merge {
        Merge {
            providers: Vec::new(),
            by_real: FastMap::default(),
            maps: vec![Vec::new(); workers],
            modules: Vec::new(),
            resources: Vec::new(),
            index: crate::model::Index::default(),
            problems: Vec::new(),
            notes: Vec::new(),
            remote_calls: Vec::new(),
            failed_calls: Vec::new(),
            walked_checked: 0,
            other_checked: FastSet::default(),
            read_by_functions: FastSet::default(),
            json_task_definitions: Vec::new(),
            task_definitions: Vec::new(),
        }
    }

    /// Adds the next unit's result (by unit order), done by worker `w`.
    fn add(&mut self, w: usize, mut p: Partial) {
        let Some(map) = self.maps.get_mut(w) else {
            return;
        };
        for (id, real) in p.new_files.drain(..) {
            let i = id.0 as usize;
            let g = *self
                .by_real
                .entry(real.into_os_string())
                .or_insert_with(|| {
                    self.providers.push((w, id));
                    FileId(u32::try_from(self.providers.len() - 1).unwrap_or(u32::MAX))
                });
            if map.len() <= i {
                map.resize(i + 1, u32::MAX);
            }
            map[i] = g.0;
        }
        let remap = Remap {
            files: map,
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
            // While the workers go on, instead of after the last unit.
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
        let mut call_problems = p.call_problems.into_iter().peekable();
        for (i, pr) in p.problems.into_iter().enumerate() {
            let real = call_problems.next_if(|(at, _)| *at == i).map(|(_, r)| r);
            self.problems.push((pr, real));
        }
        if let Some((mut td, real)) = p.task_definition.take() {
            remap.task_definition(&mut td);
            self.json_task_definitions.push((td, real));
        }
        self.walked_checked += p.walked_checked;
        self.other_checked
            .extend(p.other_checked.drain(..).map(PathBuf::into_os_string));
        self.read_by_functions
            .extend(p.read_by_functions.drain(..).map(PathBuf::into_os_string));
    }

    /// The model, with the workers' file tables (by worker). `walked`: the files the walk found,
    /// when units did not know them (their own units count them and report their problems);
    /// `lost`: units whose results never came.
    fn finish(
        mut self,
        mut tables: Vec<Table>,
        walked: Option<&Walked>,
        lost: usize,
        only_types: Option<Vec<String>>,
    ) -> Model {
        let mut missing = 0;
        let files: Vec<SourceFile> = self
            .providers
            .iter()
            .map(|&(w, id)| {
                tables
                    .get_mut(w)
                    .and_then(|t| t.get_mut(id.0 as usize))
                    .map(std::mem::take)
                    .unwrap_or_else(|| {
                        missing += 1;
                        SourceFile::default()
                    })
            })
            .collect();
        let is_walked = |real: &std::ffi::OsStr| walked.is_some_and(|w| w.contains(real));
        let mut seen: FastSet<(PathBuf, Option<u32>, Option<u32>, String)> = FastSet::default();
        let mut problems = Vec::new();
        for (pr, real) in self.problems {
            if real.as_deref().is_some_and(|r| is_walked(r.as_os_str())) {
                continue;
            }
            if seen.insert((pr.path.clone(), pr.line, pr.column, pr.message.clone())) {
                problems.push(pr);
            }
        }
        if lost > 0 || missing > 0 {
            problems.push(LoadProblem {
                path: PathBuf::from("."),
                line: None,
                column: None,
                message: format!("internal error while loading ({lost} folders or files not checked, {missing} texts lost); please report it"),
            });
        }
        self.other_checked.retain(|real| !is_walked(real));
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
            files,
            modules: self.modules,
            resources: self.resources,
            task_definitions,
            problems,
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

impl Ev {
    /// Does one unit. A panic (a bug) costs that unit only: its results are dropped, but for the
    /// files it registered (later units of this worker may use them), and the problem says so.
    fn unit(&mut self, unit: &Unit) -> Partial {
        let shared = self.shared.clone();
        let (folder, json) = match unit {
            Unit::Folder(f) => (Some(f), None),
            Unit::Json(f) => (None, Some(f)),
            Unit::Walked(i) => (
                shared.folders.get(*i),
                i.checked_sub(shared.folders.len())
                    .and_then(|j| shared.json.get(j)),
            ),
        };
        let done =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match (folder, json) {
                (Some(f), _) => self.folder_unit(f),
                (None, Some(f)) => self.json_unit(f),
                (None, None) => Partial::default(),
            }));
        done.unwrap_or_else(|_| {
            let partial = self.finish_unit();
            let path = folder
                .map(|f| f.display.clone())
                .or_else(|| json.map(|f| f.display.clone()))
                .unwrap_or_default();
            Partial {
                new_files: partial.new_files,
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
        self.release_kept_roots(real);
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
                // Read as a module call reads it: every Terraform file of the folder.
                self.evaluate_root(decl, folder.listing.as_ref(), true);
                return self.finish_unit();
            }
        }
        let mut files = Vec::new();
        let dir = walk::Folder::open(real);
        for f in found {
            self.unit_walked_checked += 1;
            files.extend(self.module_file(f, &dir, true));
        }
        let files_parsed = files.len();
        let files = apply_overrides(files, |id| self.is_override_file(id));
        let decl = Rc::new(crate::loader::ModuleDecl::new(
            real.to_path_buf(),
            display.to_path_buf(),
            files,
        ));
        // Every file parsed, and no file of the folder hidden from the walk: a module call of the
        // folder would read the same declarations.
        let callable = files_parsed == found.len()
            && folder.listing.as_ref().is_some_and(|l| l.every_module_file);
        self.evaluate_root(decl, folder.listing.as_ref(), callable);
        self.finish_unit()
    }

    /// Reads one JSON file: a task definition, or nothing.
    fn json_unit(&mut self, f: &Found) -> Partial {
        self.start_unit(1);
        let (text, parsed) = walk::read_one(f, None);
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
