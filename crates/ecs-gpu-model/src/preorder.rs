//! The walk of one checked folder in unit order, for loading while it walks.
//!
//! Each folder is listed once; its Terraform files, in display order, become its unit before any
//! folder below it is listed. That is the order the loader merges units in ([`unit_order`]), so
//! workers can start on the first folders while the walk goes on, and each still takes its units
//! in merge order, as when the whole walk comes first.
//!
//! It skips exactly what [`crate::walk::find_files`] skips with the `ignore` crate's walker and
//! the same settings: `.terraform`, `.git` and `.terragrunt-cache` folders, and what `.gitignore`
//! files exclude (in the folder, every folder above it in the walk and every folder above the
//! checked one), then `.git/info/exclude` of any repository on the way. The patterns are matched
//! by the `ignore` crate's own [`Gitignore`] matchers, built on the same paths as its walker builds
//! them; this module only stacks them as it does (the deepest `.gitignore` with a matching pattern
//! decides, then the deepest exclude file; with `require_git(false)` none stops at a repository
//! boundary). A test compares both walks on generated trees.
//!
//! A symlinked folder stops the walk ([`Linked`]): the loader then walks with `find_files`, which
//! resolves such folders to their real paths and checks a folder reached twice once.
//!
//! [`unit_order`]: crate::walk::unit_order

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::loader::{RootListing, WalkedFolder};
use crate::walk::{display_path, Found, Kind};

/// The walk met a symlinked folder (or the checked folder is a symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Linked;

/// The folders skipped whatever `.gitignore` says (as `find_files` skips them).
const SKIPPED_FOLDERS: [&str; 3] = [".terraform", ".git", ".terragrunt-cache"];

/// The ignore rules of one folder of the walk.
struct Level {
    /// From the folder's `.gitignore`.
    gitignore: Gitignore,
    /// From `.git/info/exclude` when the folder holds a repository.
    exclude: Gitignore,
}

struct Walk {
    /// Whether paths under the root are displayed as walked (a relative root of plain names).
    clean: bool,
    /// The folders being walked, the checked folder first.
    levels: Vec<Level>,
    /// The rules of the folders above the checked one, nearest first.
    above: Vec<Level>,
    /// Whether any folder above has a rule.
    above_rules: bool,
    json: Vec<Found>,
    /// Folders that could not be listed (display path, message).
    problems: Vec<(PathBuf, String)>,
}

/// What a walk found: the task-definition candidates in display order, and the folders it could
/// not read.
pub(crate) type Walked = (Vec<Found>, Vec<(PathBuf, String)>);

/// Walks the folder `root` (a folder, not a symlink to one: that is [`Linked`]). Calls `folder`
/// with every folder that holds Terraform files, in unit order, and returns the task-definition
/// candidates (`.json` files) in display order, and the folders that could not be listed (as
/// `find_files` reports them). Unreadable entries are skipped, as `find_files` skips them.
pub(crate) fn walk(
    root: &Path,
    cwd: &Path,
    folder: &mut dyn FnMut(WalkedFolder),
) -> Result<Walked, Linked> {
    let is_link = std::fs::symlink_metadata(root).map_or(true, |m| m.file_type().is_symlink());
    let real_root = std::fs::canonicalize(root).map_err(|_| Linked)?;
    if is_link {
        return Err(Linked);
    }
    let above = real_root
        .ancestors()
        .skip(1)
        .map(|dir| {
            let (gitignore, exclude) = rules(dir, dir.join(".gitignore").exists(), true);
            Level { gitignore, exclude }
        })
        .collect::<Vec<Level>>();
    let above_rules = above
        .iter()
        .any(|l| !l.gitignore.is_empty() || !l.exclude.is_empty());
    let mut w = Walk {
        clean: root
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_))),
        levels: Vec::new(),
        above,
        above_rules,
        json: Vec::new(),
        problems: Vec::new(),
    };
    let display = (!w.clean).then(|| display_path(root, cwd));
    w.folder(root.to_path_buf(), real_root, display, folder)?;
    let mut json = std::mem::take(&mut w.json);
    json.sort_unstable_by(|a, b| crate::walk::path_order(&a.display, &b.display));
    Ok((json, w.problems))
}

/// The `.gitignore` and `.git/info/exclude` matchers of a folder, built as the `ignore` crate
/// builds them (`has_gitignore`, `has_git`: whether the listing holds them).
fn rules(dir: &Path, has_gitignore: bool, has_git: bool) -> (Gitignore, Gitignore) {
    let gitignore = if has_gitignore {
        matcher(dir, &dir.join(".gitignore"))
    } else {
        Gitignore::empty()
    };
    let exclude = match has_git
        .then(|| dir.join(".git").metadata().ok())
        .flatten()
        .and_then(|m| git_dir(dir, m.file_type()))
    {
        Some(git) => matcher(dir, &git.join("info/exclude")),
        None => Gitignore::empty(),
    };
    (gitignore, exclude)
}

/// A matcher of the patterns in `file` (if it exists), relative to `dir`. Invalid lines are
/// skipped, as the `ignore` crate skips them.
fn matcher(dir: &Path, file: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    if file.exists() {
        // An unreadable file or a bad pattern: the valid patterns still apply.
        let _ = builder.add(file);
    }
    // An empty matcher matches nothing, whatever its folder.
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The repository folder whose `info/exclude` applies to `dir`: `.git` itself, or for a `.git`
/// file (a worktree, a submodule) the common folder it points to; `None` when that cannot be read.
fn git_dir(dir: &Path, kind: std::fs::FileType) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    if !kind.is_file() {
        return Some(dot_git);
    }
    let first_line = |p: &Path| {
        crate::walk::read_text(p)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
    };
    let gitdir = PathBuf::from(first_line(&dot_git)?.strip_prefix("gitdir: ")?);
    let common = first_line(&gitdir.join("commondir"))?;
    Some(if common.starts_with('.') {
        gitdir.join(common)
    } else {
        PathBuf::from(common)
    })
}

impl Walk {
    /// Whether the rules exclude the entry at `path` (as walked; `real`: its real path).
    fn ignored(&self, path: &Path, real: &Path, is_dir: bool) -> bool {
        let mut gitignore = Match::None;
        let mut exclude = Match::None;
        for level in self.levels.iter().rev() {
            if gitignore.is_none() {
                gitignore = level.gitignore.matched(path, is_dir);
            }
            if exclude.is_none() {
                exclude = level.exclude.matched(path, is_dir);
            }
        }
        if self.above_rules {
            // The folders above match the real path (the `ignore` crate joins the checked
            // folder's real path with the rest: the same, since no folder on the way is a link).
            for level in &self.above {
                if gitignore.is_none() {
                    gitignore = level.gitignore.matched(real, is_dir);
                }
                if exclude.is_none() {
                    exclude = level.exclude.matched(real, is_dir);
                }
            }
        }
        gitignore.or(exclude).is_ignore()
    }

    /// Lists the folder at `dir` (as walked; `real`: its real path; `display`: its display path,
    /// `None` when paths are displayed as walked), reports its unit, then walks the folders below
    /// it in name order.
    fn folder(
        &mut self,
        dir: PathBuf,
        real: PathBuf,
        display: Option<PathBuf>,
        report: &mut dyn FnMut(WalkedFolder),
    ) -> Result<(), Linked> {
        // A name under a folder displayed as `p` is displayed as `p/name` (`name` in `.`): the
        // same as `display_path` of the walked path, without normalizing every path again.
        let shown = |name: &std::ffi::OsStr, path: &Path| match &display {
            None => path.to_path_buf(),
            Some(d) if d == Path::new(".") => PathBuf::from(name),
            Some(d) => d.join(name),
        };
        let listing = match std::fs::read_dir(&dir) {
            Ok(listing) => listing,
            Err(e) => {
                // It may hold files to check: a problem, not a silent skip.
                let shown = display.clone().unwrap_or_else(|| dir.clone());
                self.problems.push((shown, format!("cannot read: {e}")));
                return Ok(());
            }
        };
        let mut entries: Vec<(OsString, std::fs::DirEntry)> = listing
            .filter_map(Result::ok)
            .map(|e| (e.file_name(), e))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let has = |name: &str| entries.iter().any(|(n, _)| n == name);
        let (gitignore, exclude) = rules(&dir, has(".gitignore"), has(".git"));
        // The OpenTofu files of the folder, ignored or not: each takes the place of its `.tf` twin.
        let tofu: Vec<&OsString> = entries
            .iter()
            .filter(|(n, e)| {
                n.to_str()
                    .is_some_and(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"))
                    && crate::loader::is_file(e)
            })
            .map(|(n, _)| n)
            .collect();
        let shadowed: Vec<OsString> = entries
            .iter()
            .filter(|(n, _)| {
                !tofu.is_empty()
                    && n.to_str().is_some_and(|n| {
                        crate::walk::shadowed_by_tofu(n, |twin| tofu.iter().any(|t| *t == twin))
                    })
            })
            .map(|(n, _)| n.clone())
            .collect();
        self.levels.push(Level { gitignore, exclude });

        let mut files = Vec::new();
        let mut below = Vec::new();
        let mut listing = RootListing {
            every_module_file: true,
            ..RootListing::default()
        };
        for (name, entry) in entries {
            if let Some(n) = name.to_str() {
                // Whatever `.gitignore` says, and whatever the entry is: as the root module
                // would list its folder.
                listing.note(n, || real.join(&name), || crate::loader::is_file(&entry));
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let (is_dir, is_file, linked) = if kind.is_symlink() {
                // Followed, as the `ignore` walker follows links; a broken link is skipped.
                match std::fs::metadata(&path) {
                    Ok(m) => (m.is_dir(), m.is_file(), true),
                    Err(_) => continue,
                }
            } else {
                (kind.is_dir(), kind.is_file(), false)
            };
            let entry_real = real.join(&name);
            if self.ignored(&path, &entry_real, is_dir) {
                if is_file && matches!(Kind::of(&path), Some(Kind::Tf | Kind::TfJson)) {
                    listing.every_module_file = false;
                }
                continue;
            }
            if is_dir {
                if SKIPPED_FOLDERS.iter().any(|s| name == *s) {
                    continue;
                }
                if linked {
                    self.levels.pop();
                    return Err(Linked);
                }
                below.push((entry_real, shown(&name, &path), path));
            } else if is_file {
                let Some(kind) = Kind::of(&path) else {
                    continue;
                };
                if shadowed.contains(&name) {
                    continue;
                }
                let found = Found {
                    display: shown(&name, &path),
                    real: entry_real,
                    kind,
                };
                if kind.is_json() {
                    self.json.push(found);
                } else {
                    files.push(found);
                }
            }
        }
        if let Some(first) = files.first() {
            let display = crate::walk::folder_display(&first.display);
            report(WalkedFolder {
                real: real.clone(),
                display,
                files,
                listing: Some(listing),
            });
        }
        for (real, shown, path) in below {
            let display = display.is_some().then_some(shown);
            if let Err(linked) = self.folder(path, real, display, report) {
                self.levels.pop();
                return Err(linked);
            }
        }
        self.levels.pop();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::{find_files, folder_display, unit_order};

    /// A small deterministic generator (xorshift), so that every failure can be replayed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    const DIRS: &[&str] = &[
        "a",
        "b",
        "a-b",
        "build",
        "sub",
        "x.tf",
        "-x",
        ".hidden",
        ".terraform",
        ".git",
        "B",
    ];
    const FILES: &[&str] = &[
        "main.tf",
        "vars.tf",
        "keep.tf",
        "b.tf",
        "x.tf.json",
        "td.json",
        "a.tfvars.json",
        ".hidden.tf",
        "#x.tf",
        "x.tf~",
        "README.md",
        "c.json",
        "override.tf",
        "main.tofu",
        "x.tofu.json",
        "keep.tofu",
    ];
    const PATTERNS: &[&str] = &[
        "*.json",
        "!td.json",
        "build/",
        "/a",
        "a/**/b.tf",
        "**/sub",
        "*.tf",
        "!keep.tf",
        "x*",
        "# comment",
        "",
        "\\#x.tf",
        "b",
        "/b.tf",
        "sub/",
        "a-b",
        "[ab].tf",
        "main.tf",
        "!/a",
        "*/",
        "!sub/",
        "**/*.json",
        "a/",
        "-x",
        ".hidden*",
        "B",
        "[",
        "!*.tf",
        "*.tofu",
    ];

    fn patterns(rng: &mut Rng) -> String {
        let n = 1 + rng.below(4);
        (0..n)
            .map(|_| rng.pick(PATTERNS))
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    /// A random folder tree under `dir`, `depth` levels deep at most.
    fn tree(rng: &mut Rng, dir: &Path, depth: usize) {
        std::fs::create_dir_all(dir).unwrap();
        for _ in 0..rng.below(5) {
            let _ = std::fs::write(dir.join(rng.pick(FILES)), "x = 1\n");
        }
        if rng.below(3) == 0 {
            std::fs::write(dir.join(".gitignore"), patterns(rng)).unwrap();
        }
        if rng.below(8) == 0 {
            std::fs::create_dir_all(dir.join(".git/info")).unwrap();
            std::fs::write(dir.join(".git/info/exclude"), patterns(rng)).unwrap();
        }
        #[cfg(unix)]
        if rng.below(6) == 0 {
            // A link to a file (followed), or a broken one (skipped).
            let target = if rng.below(2) == 0 {
                "main.tf"
            } else {
                "missing"
            };
            let _ = std::os::unix::fs::symlink(target, dir.join("link.tf"));
        }
        if depth > 0 {
            for _ in 0..rng.below(4) {
                let name = rng.pick(DIRS);
                if name == ".git" {
                    continue;
                }
                tree(rng, &dir.join(name), depth - 1);
            }
        }
    }

    /// Files as (display, real, kind).
    type Files = Vec<(PathBuf, PathBuf, Kind)>;
    /// Folders as (display, real, files).
    type Listing = Vec<(PathBuf, PathBuf, Files)>;

    fn files(found: &[Found]) -> Files {
        found
            .iter()
            .map(|f| (f.display.clone(), f.real.clone(), f.kind))
            .collect()
    }

    /// The units `find_files` gives (the `ignore` crate's walker), as the loader makes them.
    fn classic(root: &Path, cwd: &Path) -> (Listing, Files) {
        let (found, _) = find_files(&[root.to_path_buf()], cwd);
        let mut folders: Listing = Vec::new();
        let mut json = Vec::new();
        for f in found {
            if f.kind.is_json() {
                json.push((f.display, f.real, f.kind));
                continue;
            }
            let real = f.real.parent().unwrap().to_path_buf();
            match folders.iter_mut().find(|x| x.1 == real) {
                Some(x) => x.2.push((f.display, f.real, f.kind)),
                None => folders.push((
                    folder_display(&f.display),
                    real,
                    vec![(f.display, f.real, f.kind)],
                )),
            }
        }
        folders.sort_by(|a, b| unit_order(&a.0, &b.0));
        (folders, json)
    }

    fn preorder(root: &Path, cwd: &Path) -> Result<(Listing, Files), Linked> {
        let mut folders: Listing = Vec::new();
        let (json, _) = walk(root, cwd, &mut |f| {
            folders.push((f.display.clone(), f.real.clone(), files(&f.files)));
        })?;
        Ok((folders, files(&json)))
    }

    #[test]
    fn the_walk_finds_what_the_ignore_crate_finds_in_the_same_order() {
        let cwd = std::env::current_dir().unwrap();
        let mut compared = 0;
        for seed in 1..=400u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let top = tempfile::tempdir().unwrap();
            if rng.below(3) == 0 {
                // Rules above the checked folder.
                std::fs::write(top.path().join(".gitignore"), patterns(&mut rng)).unwrap();
            }
            if rng.below(5) == 0 {
                std::fs::create_dir_all(top.path().join(".git/info")).unwrap();
                std::fs::write(top.path().join(".git/info/exclude"), patterns(&mut rng)).unwrap();
            }
            let root = top.path().join("root");
            tree(&mut rng, &root, 3);
            #[cfg(unix)]
            if rng.below(10) == 0 {
                // A symlinked folder: the walk stops, unless the rules skip it.
                let _ = std::os::unix::fs::symlink(&root, root.join("sub").join("loop"));
            }
            // Absolute, and relative with `..` (both displayed relative to the current folder).
            let relative = pathdiff(&root, &cwd);
            for r in [root.clone(), relative] {
                match preorder(&r, &cwd) {
                    Ok(got) => {
                        assert_eq!(got, classic(&r, &cwd), "seed {seed}, root {}", r.display());
                        compared += 1;
                    }
                    Err(Linked) => assert!(
                        walkdir_has_link(&root),
                        "seed {seed}: stopped without a symlinked folder"
                    ),
                }
            }
        }
        assert!(compared > 600, "only {compared} walks compared");
    }

    #[test]
    fn the_walk_displays_paths_as_the_ignore_crate_walk_does_from_the_current_folder() {
        // The crate's own folder (its test corpora hold Terraform and JSON files), as `.` (the
        // default of `ecs-gpu check`), through `..`, and by absolute path.
        let cwd = std::env::current_dir().unwrap();
        for root in [
            PathBuf::from("."),
            PathBuf::from("./"),
            PathBuf::from("src/.."),
            PathBuf::from("tests"),
            cwd.join("tests"),
        ] {
            let got = preorder(&root, &cwd).expect("no symlinked folder here");
            assert!(!got.0.is_empty(), "{}: nothing found", root.display());
            assert_eq!(got, classic(&root, &cwd), "root {}", root.display());
        }
    }

    /// `to` relative to `from`, both absolute.
    fn pathdiff(to: &Path, from: &Path) -> PathBuf {
        let to: Vec<_> = to.components().collect();
        let from: Vec<_> = from.components().collect();
        let same = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
        let mut p = PathBuf::new();
        for _ in same..from.len() {
            p.push("..");
        }
        for c in &to[same..] {
            p.push(c);
        }
        p
    }

    fn walkdir_has_link(dir: &Path) -> bool {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let t = e.file_type().unwrap();
                (t.is_symlink() && e.path().is_dir()) || (t.is_dir() && walkdir_has_link(&e.path()))
            })
    }
}
