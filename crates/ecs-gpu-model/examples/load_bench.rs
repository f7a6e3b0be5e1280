//! Times `load` against the parse-only floor (read and parse every `.tf` file on all cores):
//! `cargo run --release -p ecs-gpu-model --example load_bench -- PATH`.
#![allow(clippy::print_stdout)]

use std::time::Instant;

fn main() {
    let paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let t = Instant::now();
    let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: paths.clone(),
        ..Default::default()
    });
    let load = t.elapsed();
    let t = Instant::now();
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    let n = files.len();
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let chunks: Vec<Vec<std::path::PathBuf>> = (0..threads)
        .map(|i| files.iter().skip(i).step_by(threads).cloned().collect())
        .collect();
    std::thread::scope(|s| {
        for c in &chunks {
            s.spawn(move || {
                for f in c {
                    let text = std::fs::read_to_string(f).unwrap_or_default();
                    let _ = ecs_gpu_hcl::parse(&text);
                }
            });
        }
    });
    let floor = t.elapsed();
    println!(
        "{} files, {} resources: load {:?}, parse-only floor {:?} ({n} .tf files), ratio {:.2}",
        model.files_checked,
        model.resources.len(),
        load,
        floor,
        load.as_secs_f64() / floor.as_secs_f64()
    );
}

fn collect(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        if let Ok(rd) = std::fs::read_dir(p) {
            for e in rd.flatten() {
                collect(&e.path(), out);
            }
        }
    } else if p.extension().is_some_and(|e| e == "tf") {
        out.push(p.to_path_buf());
    }
}
