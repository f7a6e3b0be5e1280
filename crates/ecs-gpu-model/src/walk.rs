//! Finding the files to check and reading and parsing them in parallel.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use ecs_gpu_hcl::json::{Json, JsonValue};

/// Files larger than this are not read (no Terraform file or task definition is this big).
pub(crate) const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Tf,
    TfJson,
    Json,
}

impl Kind {
    pub(crate) fn of(path: &Path) -> Option<Kind> {
        let name = path.file_name()?.to_str()?;
        if name.starts_with('.') || name.ends_with('~') || name.starts_with('#') {
            return None;
        }
        if name.ends_with(".tf") {
            Some(Kind::Tf)
        } else if name.ends_with(".tf.json") {
            Some(Kind::TfJson)
        } else if name.ends_with(".json") && !name.ends_with(".tfvars.json") {
            Some(Kind::Json)
        } else {
            None
        }
    }
}

/// A file found by the walk.
#[derive(Debug)]
pub(crate) struct Found {
    pub display: PathBuf,
    pub real: PathBuf,
    pub kind: Kind,
}

/// The result of reading and parsing one file.
#[derive(Debug)]
pub(crate) enum Parsed {
    Hcl(ecs_gpu_hcl::File),
    /// A task-definition JSON file (either shape).
    TaskDef(Json),
    /// JSON that is not a task definition: ignored.
    Ignored,
    Problem {
        line: Option<u32>,
        column: Option<u32>,
        message: String,
    },
}

#[derive(Debug)]
pub(crate) struct Loaded {
    pub found: Found,
    pub text: String,
    pub parsed: Parsed,
}

/// The current directory, for display paths.
pub(crate) fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// Removes `.` and resolves `..` lexically where possible.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// A path as the user would write it: relative to the current directory when under it.
pub(crate) fn display_path(p: &Path, cwd: &Path) -> PathBuf {
    let n = normalize(p);
    if n.is_absolute() {
        if let Ok(rest) = n.strip_prefix(cwd) {
            if rest.as_os_str().is_empty() {
                return PathBuf::from(".");
            }
            return rest.to_path_buf();
        }
    }
    n
}

/// Walks the given paths. Errors (unreadable folders, symlink loops) are skipped: a folder that
/// cannot be read holds nothing to check.
pub(crate) fn discover(paths: &[PathBuf], cwd: &Path) -> (Vec<Found>, Vec<(PathBuf, String)>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for root in paths {
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                problems.push((display_path(root, cwd), format!("cannot read: {e}")));
                continue;
            }
        };
        if meta.is_file() {
            // A file named explicitly is checked whatever its name says, if it is one we read.
            let kind = Kind::of(root).or_else(|| {
                let name = root.file_name()?.to_str()?;
                if name.ends_with(".tf") {
                    Some(Kind::Tf)
                } else if name.ends_with(".json") {
                    Some(Kind::Json)
                } else {
                    None
                }
            });
            if let Some(kind) = kind {
                found.push(Found {
                    display: display_path(root, cwd),
                    real: std::fs::canonicalize(root).unwrap_or_else(|_| root.clone()),
                    kind,
                });
            }
            continue;
        }
        let collected = Mutex::new(Vec::new());
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .ignore(false)
            .parents(true)
            .follow_links(true)
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && e.depth() > 0
                    && (name == ".terraform" || name == ".git" || name == ".terragrunt-cache"))
            })
            .build_parallel();
        walker.run(|| {
            let collected = &collected;
            Box::new(move |entry| {
                if let Ok(entry) = entry {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        if let Some(kind) = Kind::of(entry.path()) {
                            let p = entry.path().to_path_buf();
                            if let Ok(mut v) = collected.lock() {
                                v.push((p, kind));
                            }
                        }
                    }
                }
                ignore::WalkState::Continue
            })
        });
        let mut v = collected.into_inner().unwrap_or_default();
        v.sort();
        for (p, kind) in v {
            found.push(Found {
                display: display_path(&p, cwd),
                real: std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone()),
                kind,
            });
        }
    }
    // The same file reached twice (overlapping paths, symlinks) is read once.
    let mut seen = std::collections::HashSet::new();
    found.retain(|f| seen.insert(f.real.clone()));
    (found, problems)
}

/// Reads and parses files on every core.
pub(crate) fn read_all(found: Vec<Found>) -> Vec<Loaded> {
    let n = found.len();
    if n == 0 {
        return Vec::new();
    }
    let threads = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1)
        .min(n)
        .max(1);
    let slots: Vec<Mutex<Option<Loaded>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let inputs: Vec<Mutex<Option<Found>>> =
        found.into_iter().map(|f| Mutex::new(Some(f))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let work = || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let Some(f) = inputs[i].lock().ok().and_then(|mut g| g.take()) else {
                    continue;
                };
                let loaded = read_one(f);
                if let Ok(mut g) = slots[i].lock() {
                    *g = Some(loaded);
                }
            };
            // Deeply nested input must not overflow a parser's stack.
            let _ = std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, work);
        }
    });
    slots
        .into_iter()
        .filter_map(|m| m.into_inner().ok().flatten())
        .collect()
}

/// Reads a file as UTF-8 text, refusing huge and binary files.
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!("file too large ({} bytes)", meta.len()));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (byte offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

pub(crate) fn problem_at(text: &str, err: &ecs_gpu_hcl::ParseError) -> Parsed {
    let (line, col) = ecs_gpu_hcl::line_col(text, err.span.start);
    Parsed::Problem {
        line: Some(line),
        column: Some(col),
        message: err.message.clone(),
    }
}

pub(crate) fn read_one(found: Found) -> Loaded {
    let text = match read_text(&found.real) {
        Ok(t) => t,
        Err(message) => {
            // Unreadable JSON that may not even be a task definition is not a problem.
            let parsed = if found.kind == Kind::Json {
                Parsed::Ignored
            } else {
                Parsed::Problem {
                    line: None,
                    column: None,
                    message,
                }
            };
            return Loaded {
                found,
                text: String::new(),
                parsed,
            };
        }
    };
    let parsed = parse_text(found.kind, &text);
    Loaded {
        found,
        text,
        parsed,
    }
}

pub(crate) fn parse_text(kind: Kind, text: &str) -> Parsed {
    match kind {
        Kind::Tf => match crate::parse::file(text) {
            Ok(f) => Parsed::Hcl(f),
            Err(e) => problem_at(text, &e),
        },
        Kind::TfJson => match crate::parse::json(text) {
            Ok(j) => match crate::tfjson::to_file(&j, text) {
                Ok(f) => Parsed::Hcl(f),
                Err(message) => Parsed::Problem {
                    line: Some(1),
                    column: Some(1),
                    message,
                },
            },
            Err(e) => problem_at(text, &e),
        },
        Kind::Json => {
            // Cheap test first: most JSON in a repository is not a task definition.
            if !text.contains("containerDefinitions") {
                return Parsed::Ignored;
            }
            match crate::parse::json(text) {
                Ok(j) if task_definition_object(&j).is_some() => Parsed::TaskDef(j),
                _ => Parsed::Ignored,
            }
        }
    }
}

/// The task-definition object of a JSON document: the document itself (register-task-definition
/// input) or its `taskDefinition` member (describe-task-definition output).
pub(crate) fn task_definition_object(json: &Json) -> Option<&Json> {
    let JsonValue::Object(members) = &json.value else {
        return None;
    };
    let is_td = |members: &[ecs_gpu_hcl::json::JsonMember]| {
        members.iter().any(|m| {
            m.key == "containerDefinitions" && matches!(m.value.value, JsonValue::Array(_))
        })
    };
    if is_td(members) {
        return Some(json);
    }
    let inner = members.iter().rev().find(|m| m.key == "taskDefinition")?;
    match &inner.value.value {
        JsonValue::Object(m) if is_td(m) => Some(&inner.value),
        _ => None,
    }
}
