//! `cargo run -p ecs-gpu-generate [-- --check]`: regenerates every file the Rust generators own
//! (see [`ecs_gpu_generate::GENERATORS`]), or with `--check` changes nothing, names each file that
//! differs and exits 1. `scripts/generate.sh` runs it with the script generators.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use ecs_gpu_generate::{generate, Change, Tree};

fn main() -> ExitCode {
    let check = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => {
            let _ = writeln!(std::io::stderr(), "usage: ecs-gpu-generate [--check]");
            return ExitCode::from(2);
        }
    };
    // The repository's root: this crate is crates/ecs-gpu-generate.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    match run(&root, check) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "ecs-gpu-generate: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(root: &std::path::Path, check: bool) -> Result<ExitCode, String> {
    let mut tree = Tree::open(root);
    generate(&mut tree).map_err(|(generator, e)| format!("{generator}: {e}"))?;
    let changes = tree.changes().map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    if check {
        for change in &changes {
            let path = change.path().display();
            let _ = match change {
                Change::Write(..) => {
                    writeln!(err, "{path} differs from what its generator writes")
                }
                Change::Remove(_) => writeln!(err, "{path} is no longer generated"),
            };
        }
        if changes.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        let _ = writeln!(err, "run scripts/generate.sh");
        return Ok(ExitCode::FAILURE);
    }
    for change in &changes {
        let path = root.join(change.path());
        let shown = change.path().display();
        match change {
            Change::Write(_, text) => {
                std::fs::write(&path, text).map_err(|e| format!("{shown}: {e}"))?;
                let _ = writeln!(out, "wrote {shown}");
            }
            Change::Remove(_) => {
                std::fs::remove_file(&path).map_err(|e| format!("{shown}: {e}"))?;
                let _ = writeln!(out, "removed {shown}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
