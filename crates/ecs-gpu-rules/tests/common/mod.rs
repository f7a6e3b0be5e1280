#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[derive(Clone, Copy)]
pub enum Kind {
    Fires,
    Clean,
}

pub fn fixtures_dir() -> PathBuf {
    PathBuf::from("tests/fixtures")
}

/// The same, absolute (for tests that run while another one has changed the current directory).
pub fn fixtures_dir_abs() -> PathBuf {
    crate_path("tests/fixtures")
}

/// The fixture cases of a rule: (fires|clean, path), sorted by name. The paths are relative to
/// the crate (what the output shows), but the folders are listed by their absolute path: the
/// tests of a binary run at once, and [`load`] moves the current directory while it loads.
pub fn cases(id: &str) -> Vec<(Kind, PathBuf)> {
    let mut out = Vec::new();
    for (kind, sub) in [(Kind::Fires, "fires"), (Kind::Clean, "clean")] {
        let dir = fixtures_dir_abs().join(id).join(sub);
        let mut names: Vec<std::ffi::OsString> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.map(|e| e.unwrap().file_name()).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        names.sort();
        let relative = fixtures_dir().join(id).join(sub);
        out.extend(names.into_iter().map(|n| (kind, relative.join(n))));
    }
    out
}

pub fn count(id: &str, sub: &str) -> usize {
    std::fs::read_dir(fixtures_dir_abs().join(id).join(sub))
        .map(|rd| rd.count())
        .unwrap_or(0)
}

/// The current directory is process-wide: tests that change it or read relative paths hold this.
pub static CWD: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Loads a fixture case. A single-file case is loaded alone: Terraform (and the loader) read a
/// `.tf` file together with the other `.tf` files of its folder, and the cases of one rule share a
/// folder. The file is copied into a folder of its own under the test target's temporary
/// directory, with the same relative path, and loaded from there, so the paths in the output
/// are those of the fixture.
/// Loaded as `ecs-gpu check` loads: only the resource types and arguments the rules read.
pub fn load(path: &Path) -> ecs_gpu_model::Model {
    load_types(path, true)
}

/// [`load`], with every resource type and argument evaluated (as a library user who sets no
/// filter).
pub fn load_every_type(path: &Path) -> ecs_gpu_model::Model {
    load_types(path, false)
}

/// [`load`], with only these types and arguments evaluated.
pub fn load_only(
    path: &Path,
    types: Vec<String>,
    arguments: Vec<(String, Vec<String>)>,
) -> ecs_gpu_model::Model {
    load_with(path, Some(types), Some(arguments))
}

fn load_types(path: &Path, only: bool) -> ecs_gpu_model::Model {
    load_with(
        path,
        only.then(ecs_gpu_rules::load_types),
        only.then(ecs_gpu_rules::load_arguments),
    )
}

fn load_with(
    path: &Path,
    only_types: Option<Vec<String>>,
    only_arguments: Option<Vec<(String, Vec<String>)>>,
) -> ecs_gpu_model::Model {
    let _guard = CWD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !path.is_file() {
        return load_path(path, only_types, only_arguments);
    }
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fixture-cases")
        .join(path.to_string_lossy().replace(['/', '\\', '.'], "_"));
    let _ = std::fs::remove_dir_all(&root);
    let copy = root.join(path);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(path, &copy).unwrap();
    let here = std::env::current_dir().unwrap();
    std::env::set_current_dir(&root).unwrap();
    let model = load_path(path, only_types, only_arguments);
    std::env::set_current_dir(here).unwrap();
    model
}

fn load_path(
    path: &Path,
    only_types: Option<Vec<String>>,
    only_arguments: Option<Vec<(String, Vec<String>)>>,
) -> ecs_gpu_model::Model {
    ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: vec![path.to_path_buf()],
        only_types,
        only_arguments,
        ..Default::default()
    })
}

/// A path of this crate, whatever the current directory.
pub fn crate_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}
