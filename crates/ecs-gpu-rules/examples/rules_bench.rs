//! Times the rules alone on a loaded model, the first run (cold, as in `ecs-gpu check`) and the
//! best of the others (warm): `cargo run --release -p ecs-gpu-rules --example rules_bench -- PATH [RUNS]`.
//! Under `valgrind --tool=callgrind --toggle-collect='ecs_gpu_rules::run_rules*'` with `RUNS` 1,
//! it counts the instructions of the rules' threads alone.
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let path: std::path::PathBuf = args.next().unwrap_or_else(|| ".".into()).into();
    let runs: usize = args
        .next()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20)
        .max(1);
    // As `ecs-gpu check` does, the catalog is read before the rules run.
    let _ = ecs_gpu_catalog::catalog();
    let t = Instant::now();
    let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: vec![path],
        only_types: Some(ecs_gpu_rules::load_types()),
        only_arguments: Some(ecs_gpu_rules::load_arguments()),
        ..Default::default()
    });
    let load = t.elapsed();
    let settings = ecs_gpu_rules::Settings::default();
    let mut first = None;
    let mut best = Duration::MAX;
    let mut diagnostics = 0;
    for _ in 0..runs {
        let t = Instant::now();
        diagnostics = ecs_gpu_rules::check(&model, &settings).len();
        let took = t.elapsed();
        first.get_or_insert(took);
        best = best.min(took);
    }
    println!(
        "{} files, {} resources, {diagnostics} diagnostics: load {load:?}; rules: first run {:?}, best of {runs} {best:?}",
        model.files_checked,
        model.resources.len(),
        first.unwrap_or_default(),
    );
}
