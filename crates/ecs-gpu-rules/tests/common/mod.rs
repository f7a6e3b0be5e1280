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

/// The fixture cases of a rule: (fires|clean, path), sorted by name.
pub fn cases(id: &str) -> Vec<(Kind, PathBuf)> {
    let mut out = Vec::new();
    for (kind, sub) in [(Kind::Fires, "fires"), (Kind::Clean, "clean")] {
        let dir = fixtures_dir().join(id).join(sub);
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(_) => Vec::new(),
        };
        entries.sort();
        for e in entries {
            out.push((kind, e));
        }
    }
    out
}

pub fn count(id: &str, sub: &str) -> usize {
    std::fs::read_dir(fixtures_dir().join(id).join(sub))
        .map(|rd| rd.count())
        .unwrap_or(0)
}

pub fn load(path: &Path) -> ecs_gpu_model::Model {
    ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: vec![path.to_path_buf()],
        ..Default::default()
    })
}
