//! Finding the files to check and reading and parsing them in parallel.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use ecs_gpu_hcl::json::{Json, JsonValue};

/// Files larger than this are not read (no Terraform file or task definition is this big). Every
/// file `check` reads is held to it: Terraform and JSON files, variable files, `file()`, the
/// configuration file.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Tf,
    TfJson,
    /// JSON found by the walk: a task definition, or ignored (any other JSON, or JSON that does
    /// not parse: a repository holds JSON of every kind, templates with placeholders included).
    Json,
    /// A JSON file named on the command line: a task definition, or ignored when it parses and is
    /// another document, or a problem when it cannot be read or parsed (it was asked for).
    NamedJson,
}

impl Kind {
    /// Whether the file is read as a task-definition JSON file (a unit of its own).
    pub(crate) fn is_json(self) -> bool {
        matches!(self, Kind::Json | Kind::NamedJson)
    }

    pub(crate) fn of(path: &Path) -> Option<Kind> {
        let name = path.file_name()?.to_str()?;
        if name.starts_with('.') || name.ends_with('~') || name.starts_with('#') {
            return None;
        }
        if name.ends_with(".tf") || name.ends_with(".tofu") {
            Some(Kind::Tf)
        } else if name.ends_with(".tf.json") || name.ends_with(".tofu.json") {
            Some(Kind::TfJson)
        } else if name.ends_with(".json") && !name.ends_with(".tfvars.json") {
            Some(Kind::Json)
        } else {
            None
        }
    }
}

/// OpenTofu's extension precedence (opentofu.org/docs/language/files, "Extension Precedence", and
/// .../files/override): in one folder, OpenTofu reads `foo.tofu` in place of `foo.tf` and
/// `foo.tofu.json` in place of `foo.tf.json`, override files included; Terraform ignores `.tofu`
/// files. This is the name of the OpenTofu file that takes the place of `name`, when `name` is a
/// `.tf` or `.tf.json` file.
pub(crate) fn tofu_twin(name: &str) -> Option<String> {
    match name.strip_suffix(".tf.json") {
        Some(stem) => Some(format!("{stem}.tofu.json")),
        None => name.strip_suffix(".tf").map(|stem| format!("{stem}.tofu")),
    }
}

/// Whether OpenTofu reads another file of the folder in place of the file named `name`:
/// `is_file(twin)` says whether the folder holds a file of that name (whatever `.gitignore` says:
/// OpenTofu reads it).
pub(crate) fn shadowed_by_tofu(name: &str, is_file: impl FnOnce(&str) -> bool) -> bool {
    tofu_twin(name).is_some_and(|twin| is_file(&twin))
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

/// The current directory, for display paths.
pub(crate) fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// An order of normalized paths, the same on every run: their bytes, with the separator below
/// every other byte (so `a/b` comes before `a-b/c`, as folders before their siblings' names that
/// extend them). Cheaper than comparing `Path`s component by component.
pub(crate) fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (a, b) = (
        a.as_os_str().as_encoded_bytes(),
        b.as_os_str().as_encoded_bytes(),
    );
    // Only the first differing byte decides: skip the common prefix (most of a path, in a sorted
    // tree) eight bytes at a time.
    let mut same = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        if x != y {
            break;
        }
        same += 8;
    }
    same += a[same..]
        .iter()
        .zip(&b[same..])
        .take_while(|(x, y)| x == y)
        .count();
    let key = |c: u8| {
        if std::path::is_separator(char::from(c)) {
            0
        } else {
            c
        }
    };
    match (a.get(same), b.get(same)) {
        (Some(&x), Some(&y)) => key(x).cmp(&key(y)),
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
}

/// The order of units: folders by display path ([`path_order`]), the current directory (`.`)
/// first, as it is above every other folder: a folder comes before the folders below it.
pub(crate) fn unit_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let here = Path::new(".");
    match (a == here, b == here) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => path_order(a, b),
    }
}

/// The display path of the folder of a file (`.` for a file in the current directory).
pub(crate) fn folder_display(file: &Path) -> PathBuf {
    match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
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

/// Walks the given paths (in parallel) and returns every file to check, sorted by display path,
/// each once however many ways it was reached; reading and parsing them is the loader's job.
/// A folder that cannot be read is a problem (it may hold files to check); a symlink loop is not.
/// So is a path named on the command line that is not checked: a FIFO or a device, a file whose
/// name is not one `check` reads.
pub(crate) fn find_files(paths: &[PathBuf], cwd: &Path) -> (Vec<Found>, Vec<(PathBuf, String)>) {
    let mut problems = Vec::new();
    // (path, kind, the real path of the walked root when no symlinked folder was met under it).
    let found: Mutex<Vec<(PathBuf, Kind, Option<usize>)>> = Mutex::new(Vec::new());
    let push = |path: PathBuf, kind: Kind| {
        if let Ok(mut f) = found.lock() {
            f.push((path, kind, None));
        }
    };
    // Real paths of walked roots without symlinked folders: a file's folder is then the root's
    // real path joined with the rest, with no `canonicalize` per folder.
    let mut plain_roots: Vec<(PathBuf, PathBuf)> = Vec::new();
    let rules = std::sync::Arc::new(crate::ignore_files::IgnoreRules::new(|path, max| {
        read_if_there(path, max).map_err(|e| e.message)
    }));
    // The checked folders, real: a link under them that leads elsewhere is not read
    // ([`LINK_OUTSIDE`]). A file named alone is checked with its folder.
    let real_roots: std::sync::Arc<Vec<PathBuf>> = std::sync::Arc::new(
        paths
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .map(|c| match c.is_file() {
                true => c.parent().map_or(c.clone(), Path::to_path_buf),
                false => c,
            })
            .collect(),
    );
    let links: std::sync::Arc<Mutex<Vec<(PathBuf, String)>>> = Default::default();
    for root in paths {
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                problems.push((display_path(root, cwd), format!("cannot read: {e}")));
                continue;
            }
        };
        if !meta.is_file() && !meta.is_dir() {
            // A FIFO or a device named on the command line: asked for, so not skipped silently.
            problems.push((
                display_path(root, cwd),
                format!(
                    "not checked: not a regular file or folder: {}",
                    file_kind(&meta.file_type())
                ),
            ));
            continue;
        }
        if meta.is_file() {
            // A file named explicitly is checked if it is one we read, whatever its name.
            let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let kind = match Kind::of(root) {
                Some(Kind::Json) => Some(Kind::NamedJson),
                Some(k) => Some(k),
                None if name.ends_with(".tf") => Some(Kind::Tf),
                None if name.ends_with(".json") => Some(Kind::NamedJson),
                None => {
                    problems.push((display_path(root, cwd), not_checkable(name)));
                    None
                }
            };
            if let Some(kind) = kind {
                push(root.clone(), kind);
                // A module is a folder: a Terraform file named alone is evaluated with the
                // other files of its folder (its variables, locals, data sources).
                if matches!(kind, Kind::Tf | Kind::TfJson) {
                    let dir = folder_display(root);
                    if let Ok(rd) = std::fs::read_dir(&dir) {
                        for e in rd.flatten() {
                            let p = e.path();
                            if let Some(k @ (Kind::Tf | Kind::TfJson)) = Kind::of(&p) {
                                if p.is_file() {
                                    push(p, k);
                                }
                            }
                        }
                    }
                }
            }
            continue;
        }
        // The ignore files are read here, bounded ([`crate::ignore_files`]), not by the walker.
        let rules = rules.clone();
        let base = std::fs::canonicalize(root).unwrap_or_else(|_| cwd.join(root));
        let walked_root = root.clone();
        let (roots, refused, here) = (real_roots.clone(), links.clone(), cwd.to_path_buf());
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .git_ignore(false)
            .git_global(false)
            .git_exclude(false)
            .require_git(false)
            .ignore(false)
            .parents(false)
            .follow_links(true)
            .filter_entry(move |e| {
                if e.depth() == 0 {
                    return true;
                }
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                let name = e.file_name().to_string_lossy();
                if is_dir && (name == ".terraform" || name == ".git" || name == ".terragrunt-cache")
                {
                    return false;
                }
                if is_dir && e.path_is_symlink() && ecs_gpu_fs::on_kernel_file_system(e.path()) {
                    return false;
                }
                if e.path_is_symlink() {
                    let inside = std::fs::canonicalize(e.path())
                        .is_ok_and(|real| roots.iter().any(|r| real.starts_with(r)));
                    if !inside {
                        // Said for what would have been read: a folder, a file `check` reads.
                        if is_dir || Kind::of(e.path()).is_some() {
                            if let Ok(mut r) = refused.lock() {
                                r.push((display_path(e.path(), &here), LINK_OUTSIDE.to_string()));
                            }
                        }
                        return false;
                    }
                }
                let rest = e.path().strip_prefix(&walked_root).unwrap_or(e.path());
                !rules.ignored(&base.join(rest), is_dir)
            })
            .build_parallel();
        let linked = std::sync::atomic::AtomicBool::new(false);
        let unreadable: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());
        let start = found.lock().map_or(0, |f| f.len());
        walker.run(|| {
            let found = &found;
            let linked = &linked;
            let unreadable = &unreadable;
            Box::new(move |entry| {
                let entry = match entry {
                    Ok(entry) => Ok(entry),
                    Err(e) => {
                        if let (Some(problem), Ok(mut u)) = (walk_error(&e, cwd), unreadable.lock())
                        {
                            u.push(problem);
                        }
                        Err(e)
                    }
                };
                if let Ok(entry) = entry {
                    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                    if is_dir && entry.path_is_symlink() {
                        linked.store(true, std::sync::atomic::Ordering::Relaxed);
                    } else if !is_dir && entry.file_type().is_some_and(|t| t.is_file()) {
                        if let Some(kind) = Kind::of(entry.path()) {
                            if let Ok(mut f) = found.lock() {
                                f.push((entry.into_path(), kind, None));
                            }
                        }
                    }
                }
                ignore::WalkState::Continue
            })
        });
        let mut unreadable = unreadable
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        unreadable.sort();
        problems.extend(unreadable);
        if !linked.into_inner() {
            if let Ok(real) = std::fs::canonicalize(root) {
                plain_roots.push((root.clone(), real));
                let index = plain_roots.len() - 1;
                if let Ok(mut f) = found.lock() {
                    for entry in f.iter_mut().skip(start) {
                        entry.2 = Some(index);
                    }
                }
            }
        }
    }
    let mut links = std::mem::take(
        &mut *links
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    links.sort();
    links.dedup();
    problems.extend(links);
    problems.extend(
        rules
            .take_problems()
            .into_iter()
            .map(|(path, message)| (display_path(&path, cwd), message)),
    );
    let found = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Each folder's real path once (a symlinked folder is resolved; files keep their names).
    let mut real_dirs: crate::FastMap<PathBuf, PathBuf> = Default::default();
    // Roots written as relative clean paths (the usual case) give relative clean paths under them.
    let clean: Vec<bool> = plain_roots
        .iter()
        .map(|(root, _)| root.components().all(|c| matches!(c, Component::Normal(_))))
        .collect();
    let mut out: Vec<Found> = found
        .into_iter()
        .map(|(path, kind, root)| {
            let under_root = root
                .and_then(|i| plain_roots.get(i))
                .and_then(|(root, real)| {
                    let rest = path.strip_prefix(root).ok()?.as_os_str();
                    let mut p = PathBuf::with_capacity(real.as_os_str().len() + rest.len() + 1);
                    p.push(real);
                    p.push(rest);
                    Some(p)
                });
            let real = match (under_root, path.parent(), path.file_name()) {
                (Some(real), _, _) => real,
                (None, Some(dir), Some(name)) => {
                    let dir = if dir.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        dir
                    };
                    let real_dir = real_dirs.entry(dir.to_path_buf()).or_insert_with(|| {
                        std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
                    });
                    real_dir.join(name)
                }
                (None, _, _) => path.clone(),
            };
            let clean = root.is_some_and(|i| clean.get(i) == Some(&true))
                || path.components().all(|c| matches!(c, Component::Normal(_)));
            let display = if clean {
                // Relative and clean already (the usual case): as the user wrote it.
                path
            } else {
                display_path(&path, cwd)
            };
            Found {
                display,
                real,
                kind,
            }
        })
        .collect();
    // OpenTofu reads `foo.tofu` in place of `foo.tf`. A `.gitignore` that hides the `.tofu` file
    // from the walk does not hide it from OpenTofu, hence the look at the folder.
    out.retain(|f| {
        !matches!(f.kind, Kind::Tf | Kind::TfJson)
            || !f
                .real
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| shadowed_by_tofu(n, |twin| f.real.with_file_name(twin).is_file()))
    });
    out.sort_unstable_by(|a, b| path_order(&a.display, &b.display));
    // One folder walked without meeting a symlinked folder: every file was found once.
    if paths.len() == 1 && plain_roots.len() == 1 {
        return (out, problems);
    }
    // A file reached twice (through a symlink) is checked once, under its first display path.
    let keep: Vec<bool> = {
        let mut seen = crate::FastSet::with_capacity_and_hasher(out.len(), Default::default());
        out.iter().map(|f| seen.insert(f.real.as_path())).collect()
    };
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(false));
    (out, problems)
}

/// What `check --parse-only` (the benchmark's floor) did: files found, bytes read, and files or
/// folders that could not be read or parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOnly {
    pub files: usize,
    pub bytes: usize,
    pub errors: usize,
}

/// The floor of [`crate::load`]: the same walk (so the same folders skipped and ignore files
/// read), the same bounded reads and the same parser, on all cores, and nothing else.
pub fn parse_only(paths: &[PathBuf]) -> ParseOnly {
    use rayon::prelude::*;
    let (found, problems) = find_files(paths, &cwd());
    let (bytes, errors) = found
        .par_iter()
        .map(|f| {
            let (text, parsed) = read_one(f);
            (
                text.len(),
                usize::from(matches!(parsed, Parsed::Problem { .. })),
            )
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    ParseOnly {
        files: found.len(),
        bytes,
        errors: errors + problems.len(),
    }
}

/// Why a link inside the checked folders is not read: it leads outside them. Terraform follows it,
/// but what it leads to may be anything on the machine (a token, a key), and a checker that quotes
/// what it reads in its findings must not print it: one policy for every file `check` reads
/// (`docs/limits.md`, "Links").
pub(crate) const LINK_OUTSIDE: &str = "not read: it links outside the checked folders (`check` reads only what is under the folders it is given: give the place it links to as well to check it)";

/// The problem of a folder or file the walk could not read (a folder without read permission):
/// it may hold files to check, so it is not skipped silently. A symlink loop is not one: what it
/// leads to was walked already. Nor is a link that leads nowhere, unless it has the name of a file
/// Terraform reads from a folder's listing (a `.tf` file, a `*.auto.tfvars` file): Terraform
/// stops on those, and ignores any other (a `terraform.tfvars` link to a shared folder that is not
/// there).
fn walk_error(e: &ignore::Error, cwd: &Path) -> Option<(PathBuf, String)> {
    match e {
        ignore::Error::WithPath { path, err } => {
            let io = err.io_error()?;
            let broken_link = io.kind() == std::io::ErrorKind::NotFound
                && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            if broken_link {
                let name = path.file_name()?.to_str()?;
                let read = matches!(Kind::of(path), Some(Kind::Tf | Kind::TfJson))
                    || name.ends_with(".auto.tfvars")
                    || name.ends_with(".auto.tfvars.json");
                return read.then(|| {
                    (
                        display_path(path, cwd),
                        "cannot read: a link to nothing (what it leads to is not there)"
                            .to_string(),
                    )
                });
            }
            Some((display_path(path, cwd), format!("cannot read: {io}")))
        }
        ignore::Error::WithDepth { err, .. } => walk_error(err, cwd),
        _ => None,
    }
}

/// Why a file named on the command line is not checked: its name is not one `check` reads.
pub(crate) fn not_checkable(name: &str) -> String {
    if name.ends_with(".tfvars") || name.ends_with(".tfvars.json") {
        return "not checked: a variable file is given with `--var-file`".to_string();
    }
    "not checked: not a Terraform or OpenTofu file (`.tf`, `.tf.json`, `.tofu`, `.tofu.json`) or task-definition JSON (`.json`)".to_string()
}

/// Why a file could not be read as text, with the place of the first invalid byte.
#[derive(Debug)]
pub struct ReadError {
    pub message: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl From<String> for ReadError {
    fn from(message: String) -> ReadError {
        ReadError {
            message,
            line: None,
            column: None,
        }
    }
}

/// What a file that is not a regular file is, for a message.
pub fn file_kind(kind: &std::fs::FileType) -> &'static str {
    ecs_gpu_fs::kind_text(kind)
}

impl From<ecs_gpu_fs::FileError> for ReadError {
    fn from(e: ecs_gpu_fs::FileError) -> ReadError {
        ReadError::from(e.to_string())
    }
}

/// Reads a file as UTF-8 text, refusing huge and binary files.
pub(crate) fn read_text(path: &Path) -> Result<String, ReadError> {
    utf8(read_bytes(path)?)
}

/// Reads a file's bytes as [`read_text`] does, without the UTF-8 check (`filebase64`): through
/// the one bounded opener of every command ([`ecs_gpu_fs`]), up to [`MAX_FILE_BYTES`].
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    Ok(ecs_gpu_fs::read(path, MAX_FILE_BYTES)?)
}

/// Reads a file's bytes as [`read_bytes`] does, up to `max` bytes: `None` when there is no file
/// at `path` (nothing on the way to it is a problem then).
pub(crate) fn read_if_there(path: &Path, max: u64) -> Result<Option<Vec<u8>>, ReadError> {
    Ok(ecs_gpu_fs::read_if_there(path, max)?)
}

/// Reads a file's bytes as [`read_bytes`] does, if the file opened is where `inside` allows: the
/// path was checked before, but a folder on it swapped for a link in between would lead the open
/// elsewhere (`/dev/zero`, a secret), so what is checked here is where the open file really is.
pub(crate) fn read_bytes_inside(
    path: &Path,
    inside: &dyn Fn(&Path) -> bool,
) -> Result<Vec<u8>, ReadError> {
    Ok(ecs_gpu_fs::read_inside(path, MAX_FILE_BYTES, inside)?)
}

/// [`read_bytes_inside`], as UTF-8 text.
pub(crate) fn read_text_inside(
    path: &Path,
    inside: &dyn Fn(&Path) -> bool,
) -> Result<String, ReadError> {
    utf8(read_bytes_inside(path, inside)?)
}

fn utf8(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        let (line, column) =
            ecs_gpu_hcl::line_col(&prefix, u32::try_from(valid).unwrap_or(u32::MAX));
        ReadError {
            message: "not valid UTF-8 text".into(),
            line: Some(line),
            column: Some(column),
        }
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

/// Reads and parses one file found by the walk: its text (empty when unreadable) and what it is.
pub(crate) fn read_one(found: &Found) -> (String, Parsed) {
    match read_text(&found.real) {
        Ok(text) => {
            let parsed = parse_text(found.kind, &text);
            (text, parsed)
        }
        // Unreadable JSON that may not even be a task definition is not a problem.
        Err(_) if found.kind == Kind::Json => (String::new(), Parsed::Ignored),
        Err(e) if found.kind == Kind::NamedJson => (
            String::new(),
            Parsed::Problem {
                line: e.line,
                column: e.column,
                message: e.message,
            },
        ),
        Err(e) => (
            String::new(),
            Parsed::Problem {
                line: e.line,
                column: e.column,
                message: e.message,
            },
        ),
    }
}

/// Parses a file's text as its kind.
pub(crate) fn parse_text(kind: Kind, text: &str) -> Parsed {
    match kind {
        Kind::Tf => match crate::parse::file(text) {
            Ok(f) => Parsed::Hcl(f),
            Err(e) => problem_at(text, &e),
        },
        Kind::TfJson => match crate::parse::json(text) {
            Ok(j) => match crate::tfjson::to_file(&j, text) {
                Ok(f) => Parsed::Hcl(f),
                Err(e) => problem_at(text, &e),
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
                // Past a limit (a task definition of tens of thousands of containers), not
                // skipped without a word: it may well be a task definition.
                Err(e) if e.is_limit() => problem_at(text, &e),
                _ => Parsed::Ignored,
            }
        }
        Kind::NamedJson => match crate::parse::json(text) {
            Ok(j) if task_definition_object(&j).is_some() => Parsed::TaskDef(j),
            Ok(_) => Parsed::Ignored,
            Err(e) => problem_at(text, &e),
        },
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
    let inner = json.member("taskDefinition")?;
    match &inner.value {
        JsonValue::Object(m) if is_td(m) => Some(inner),
        _ => None,
    }
}

/// [`task_definition_object`], taken out of the document by value (the rest of it is dropped).
pub(crate) fn into_task_definition_object(json: Json) -> Option<Json> {
    if std::ptr::eq(task_definition_object(&json)?, &json) {
        return Some(json);
    }
    let JsonValue::Object(members) = json.value else {
        return None;
    };
    // The last `taskDefinition` member, as [`Json::member`] reads it.
    members
        .into_iter()
        .rev()
        .find(|m| m.key == "taskDefinition")
        .map(|m| m.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order `path_order` must give: the bytes compared one by one, the separator lowest.
    fn reference(a: &Path, b: &Path) -> std::cmp::Ordering {
        let key = |c: &u8| if *c == b'/' { 0 } else { *c };
        let a = a.as_os_str().as_encoded_bytes().iter().map(key);
        a.cmp(b.as_os_str().as_encoded_bytes().iter().map(key))
    }

    #[test]
    fn path_order_is_bytes_with_the_separator_first() {
        // Every pair of paths built from these parts, long shared prefixes included (the
        // eight-byte steps), compared both ways.
        let parts = [
            "a",
            "a-b",
            "ab",
            "a/b",
            "b",
            "stack-0001",
            "stack-0001/modules",
            "z.tf",
            "",
        ];
        let prefixes = ["", "bench/out/check-corpus/", "x/"];
        let mut paths = Vec::new();
        for p in prefixes {
            for x in parts {
                for y in parts {
                    paths.push(PathBuf::from(format!("{p}{x}/{y}")));
                    paths.push(PathBuf::from(format!("{p}{x}{y}")));
                }
            }
        }
        for a in &paths {
            for b in &paths {
                assert_eq!(path_order(a, b), reference(a, b), "{a:?} {b:?}");
            }
        }
        assert_eq!(
            path_order(Path::new("a/b"), Path::new("a-b/c")),
            std::cmp::Ordering::Less
        );
    }
}
