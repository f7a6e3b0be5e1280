//! What the walk skips: paths that `.gitignore` files and `.git/info/exclude` ignore, read as
//! every file `check` reads (opened without blocking, a regular file, bounded in size), and
//! folders that a link leads into on a special file system (`/proc`, `/sys`).
//!
//! The `ignore` crate reads these files itself with a plain open and an unbounded read: a FIFO
//! named `.gitignore` would block the walk, a link to `/dev/zero` would fill memory. So the walker
//! reads none, and the rules come from here, with the `ignore` crate's own matcher
//! ([`Gitignore`]) and its order: the `.gitignore` of the nearest folder that says anything about
//! a path decides, then `.git/info/exclude`; the folders above the walked one count too.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::FastMap;

/// Largest ignore file read (a real `.gitignore` is a few kilobytes; every line of one is a glob
/// the matcher compiles).
pub const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;

/// How a file is read: its bytes up to a size (`None` when there is no file there), or why not.
/// The walk's bounded reader; this module is below the walk, so it is given it.
pub(crate) type Reader = fn(&Path, u64) -> Result<Option<Vec<u8>>, String>;

/// The ignore rules of the folders a walk meets, each folder's read once, shared by the walker's
/// threads.
#[derive(Debug)]
pub(crate) struct IgnoreRules {
    read: Reader,
    folders: Mutex<FastMap<PathBuf, Arc<FolderRules>>>,
    /// Ignore files that could not be read (a FIFO, a device, one too large): by real path, with
    /// why. They are not used; the walk goes on.
    problems: Mutex<Vec<(PathBuf, String)>>,
}

/// What one folder says.
#[derive(Debug, Default)]
struct FolderRules {
    /// Its `.gitignore`.
    gitignore: Option<Gitignore>,
    /// The `info/exclude` of its `.git` (a folder, or a worktree's `.git` file naming one).
    exclude: Option<Gitignore>,
}

impl IgnoreRules {
    pub(crate) fn new(read: Reader) -> IgnoreRules {
        IgnoreRules {
            read,
            folders: Mutex::default(),
            problems: Mutex::default(),
        }
    }

    /// Whether `path` (absolute, a folder when `is_dir`) is ignored.
    pub(crate) fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let mut gitignore = ignore::Match::None;
        let mut exclude = ignore::Match::None;
        for dir in path.ancestors().skip(1) {
            let rules = self.folder(dir);
            if gitignore.is_none() {
                if let Some(g) = &rules.gitignore {
                    gitignore = g.matched(path, is_dir).map(|_| ());
                }
            }
            if exclude.is_none() {
                if let Some(g) = &rules.exclude {
                    exclude = g.matched(path, is_dir).map(|_| ());
                }
            }
            if !gitignore.is_none() {
                break;
            }
        }
        gitignore.or(exclude).is_ignore()
    }

    /// The ignore files that could not be read, and why.
    pub(crate) fn take_problems(&self) -> Vec<(PathBuf, String)> {
        let mut problems = self
            .problems
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        // Two threads may read one folder's files at once: each problem once.
        problems.sort();
        problems.dedup();
        problems
    }

    fn folder(&self, dir: &Path) -> Arc<FolderRules> {
        if let Some(found) = self.folders.lock().ok().and_then(|f| f.get(dir).cloned()) {
            return found;
        }
        let rules = Arc::new(FolderRules {
            gitignore: self.read(dir, &dir.join(".gitignore")),
            exclude: self
                .git_dir(dir)
                .and_then(|git| self.read(dir, &git.join("info").join("exclude"))),
        });
        if let Ok(mut folders) = self.folders.lock() {
            folders.insert(dir.to_path_buf(), rules.clone());
        }
        rules
    }

    /// The git folder of a repository whose top is `dir`: `dir/.git`, or for a worktree the
    /// common folder its `.git` file leads to (as `git` and the `ignore` crate find it).
    fn git_dir(&self, dir: &Path) -> Option<PathBuf> {
        let dot_git = dir.join(".git");
        let meta = std::fs::metadata(&dot_git).ok()?;
        if meta.is_dir() {
            return Some(dot_git);
        }
        let first_line = |path: &Path| -> Option<String> {
            let text = self.text(path, path)?;
            text.lines().next().map(str::to_string)
        };
        let git_dir = PathBuf::from(first_line(&dot_git)?.strip_prefix("gitdir: ")?);
        let common = first_line(&git_dir.join("commondir"))?;
        Some(if common.starts_with('.') {
            git_dir.join(common)
        } else {
            PathBuf::from(common)
        })
    }

    /// The rules of the ignore file at `path` (if there is one), for the folder `dir`.
    fn read(&self, dir: &Path, path: &Path) -> Option<Gitignore> {
        let text = self.text(path, path)?;
        let mut builder = GitignoreBuilder::new(dir);
        for line in text.lines() {
            // A line that is not a glob is skipped, as git skips it.
            let _ = builder.add_line(Some(path.to_path_buf()), line);
        }
        builder.build().ok()
    }

    /// The text of a file that may not exist, read as every file is read but up to
    /// [`MAX_IGNORE_FILE_BYTES`]; a file there that cannot be read is a problem of `shown`.
    fn text(&self, path: &Path, shown: &Path) -> Option<String> {
        match (self.read)(path, MAX_IGNORE_FILE_BYTES) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes?).into_owned()),
            Err(e) => {
                let message = if e.starts_with("file too large") {
                    format!(
                        "{e}: an ignore file is read up to {} MiB, so this one is not used",
                        MAX_IGNORE_FILE_BYTES >> 20
                    )
                } else {
                    e
                };
                if let Ok(mut p) = self.problems.lock() {
                    p.push((shown.to_path_buf(), message));
                }
                None
            }
        }
    }
}
