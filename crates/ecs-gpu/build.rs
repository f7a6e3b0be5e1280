//! The commit `ecs-gpu --version` names: `ECS_GPU_COMMIT` ("<hash> <date>", or "unknown").
//!
//! Read from git only when the workspace root is itself a git checkout: a build from a tarball, a
//! PyPI sdist or the crates.io registry has no `.git` beside it (and may sit inside some other git
//! repository, whose commit is not ours), so it says the commit is unknown and builds all the same.
//! A build where git cannot answer (the release workflow's Linux containers have no git, or another
//! owner's checkout) is given the commit in the environment variable `ECS_GPU_COMMIT`.

// A build script speaks to cargo on stdout.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ECS_GPU_COMMIT");
    if let Some(given) = std::env::var("ECS_GPU_COMMIT")
        .ok()
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty() && !c.contains('\n'))
    {
        println!("cargo:rustc-env=ECS_GPU_COMMIT={given}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let commit = if root.join(".git").exists() {
        commit(&root)
    } else {
        None
    };
    match &commit {
        Some(c) => println!("cargo:rustc-env=ECS_GPU_COMMIT={} {}", c.hash, c.date),
        None => println!("cargo:rustc-env=ECS_GPU_COMMIT=unknown"),
    }
    // Rebuild when HEAD moves: HEAD itself (a checkout), and the branch it points to (a commit).
    if let Some(c) = &commit {
        for path in &c.watch {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

struct Commit {
    hash: String,
    date: String,
    watch: Vec<PathBuf>,
}

/// The checkout's HEAD, or `None` when git is absent or says nothing (no commit yet).
fn commit(root: &Path) -> Option<Commit> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
        (out.status.success() && !text.is_empty()).then_some(text)
    };
    let line = git(&[
        "log",
        "-1",
        "--no-show-signature",
        "--date=short",
        "--format=%h %cd",
        "--abbrev=9",
    ])?;
    let (hash, date) = line.split_once(' ')?;
    // In a worktree, HEAD is in the worktree's own git dir and branches in the common one:
    // `--git-path` resolves both.
    let mut watch = Vec::new();
    for path in ["HEAD", "packed-refs"] {
        watch.extend(git(&["rev-parse", "--git-path", path]));
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.extend(git(&["rev-parse", "--git-path", &branch]));
    }
    let watch = watch
        .into_iter()
        .map(|p| {
            let p = PathBuf::from(p);
            if p.is_absolute() {
                p
            } else {
                root.join(p)
            }
        })
        .collect();
    Some(Commit {
        hash: hash.to_owned(),
        date: date.to_owned(),
        watch,
    })
}
