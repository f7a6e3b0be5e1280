//! `parse_skipping` against `parse` on every Terraform file of the repository (the parser's
//! conformance files, the model's and the rules' test files, the module and the examples), and
//! on mutations of each: cut short, a byte taken out, a byte put in. Both must give the same
//! tree, with the bodies of the skipped `resource` blocks emptied, the same comments, or the
//! same error. (`tests/properties.rs` does the same on generated and random text.)

use ecs_gpu_hcl::{parse, Item};

mod common;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if !matches!(
                name.as_ref(),
                "target" | ".git" | ".terraform" | "out" | ".venv"
            ) {
                collect(&p, out);
            }
        } else if name.ends_with(".tf") || name.ends_with(".tfvars") {
            out.push(p);
        }
    }
}

fn files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    for dir in ["crates", "terraform", "examples"] {
        collect(&root.join(dir), &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((p, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

/// Whether the text parses; asserts that both parsers agree on it.
fn agrees(path: &Path, text: &str) -> bool {
    common::skipping_agrees(&path.display().to_string(), text)
}

#[test]
fn skipping_agrees_with_parse_on_every_repository_file() {
    let files = files();
    assert!(
        files.len() > 200,
        "only {} Terraform files found: the test would prove little",
        files.len()
    );
    let mut skipped_bodies = 0;
    for (path, text) in &files {
        agrees(path, text);
        if let Ok(f) = parse(text) {
            skipped_bodies += f
                .body
                .items
                .iter()
                .filter(|i| matches!(i, Item::Block(b) if b.kind.name == "resource" && !b.body.items.is_empty()))
                .count();
        }
    }
    // The files hold many resource bodies for the skipping to leave out.
    assert!(skipped_bodies > 500, "{skipped_bodies} resource bodies");
}

#[test]
fn skipping_agrees_with_parse_on_mutated_files() {
    // Mutations at about 40 places per file, the same on every run.
    const INSERTED: [char; 12] = ['{', '}', '"', '\n', '=', '$', '%', '[', '#', '.', '~', 'é'];
    let (mut parsed, mut failed) = (0, 0);
    for (n, (path, text)) in files().iter().enumerate() {
        let step = (text.len() / 40).max(1);
        let mut at = n % step;
        while at < text.len() {
            if text.is_char_boundary(at) {
                let mut cut = text.clone();
                cut.truncate(at);
                let mut out = text.clone();
                out.remove(at);
                let mut put = text.clone();
                put.insert(at, INSERTED[(at / step + n) % INSERTED.len()]);
                for t in [&cut, &out, &put] {
                    if agrees(path, t) {
                        parsed += 1;
                    } else {
                        failed += 1;
                    }
                }
            }
            at += step;
        }
    }
    // Both kinds of outcome are compared, many times each.
    assert!(
        parsed > 1000 && failed > 1000,
        "{parsed} parsed, {failed} failed"
    );
}
