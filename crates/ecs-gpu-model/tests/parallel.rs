//! Loading runs on several workers; the model must not depend on how many, nor on which worker
//! took which folder.

use std::path::PathBuf;

use ecs_gpu_model::{load, LoadOptions};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

#[test]
fn the_model_is_the_same_with_one_worker_or_many() {
    // The project's module and examples (module calls across folders, a module folder that is
    // also a root), every rule fixture (hundreds of folders and JSON files), and the evaluator's
    // own test inputs.
    let paths = vec![
        repo("terraform"),
        repo("examples"),
        repo("crates/ecs-gpu-rules/tests/fixtures"),
        repo("crates/ecs-gpu-model/tests"),
    ];
    let with = |threads| {
        let m = load(&LoadOptions {
            paths: paths.clone(),
            threads: Some(threads),
            ..Default::default()
        });
        (format!("{m:#?}"), m.resources.len(), m.files.len())
    };
    let (one, resources, files) = with(1);
    assert!(
        resources > 500,
        "{resources} resources: the corpus was not loaded"
    );
    assert!(files > 150, "{files} files");
    for threads in [2, 3, 8] {
        let (many, _, _) = with(threads);
        if many != one {
            let line = one
                .lines()
                .zip(many.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{threads} workers give another model than one, from line {line}:\n{}\n---\n{}",
                one.lines()
                    .skip(line)
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n"),
                many.lines()
                    .skip(line)
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}
