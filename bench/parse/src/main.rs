//! Parses every file of a corpus with ecs-gpu-hcl and with hcl-edit, in parallel on all cores,
//! and reports the wall times and their ratio.
//!
//! usage: parse-bench CORPUS_DIR [ROUNDS]
//!
//! Files are read into memory first (the read is timed on its own), then each parser takes the
//! same chunks on the same number of threads; each measurement is the best of ROUNDS runs.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn files(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "tf" || x == "tfvars") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// CPU time this thread has run, in nanoseconds (Linux: /proc/thread-self/schedstat); 0 elsewhere.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[derive(Debug, Clone, Copy, Default)]
struct Run {
    wall: Duration,
    /// CPU time summed over the worker threads: unlike wall time, barely moved by other
    /// processes competing for the cores.
    cpu: Duration,
    failed: usize,
}

/// Runs `f` over the texts on `threads` threads.
fn run(texts: &[String], threads: usize, f: fn(&str) -> bool) -> Run {
    let chunk = texts.len().div_ceil(threads).max(1);
    let start = Instant::now();
    let (failed, cpu) = std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    let t0 = thread_cpu_ns();
                    let failed = c.iter().filter(|t| !f(t)).count();
                    (failed, thread_cpu_ns().saturating_sub(t0))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, 0)))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    Run {
        wall: start.elapsed(),
        cpu: Duration::from_nanos(cpu),
        failed,
    }
}

/// Best wall and best CPU time of `rounds` runs of each parser, the two parsers interleaved so
/// that a change in the machine's load hits both alike.
fn compare(rounds: usize, texts: &[String], threads: usize) -> (Run, Run) {
    let mut best = [Run::default(); 2];
    for round in 0..rounds {
        for (i, f) in [ours as fn(&str) -> bool, hcl_edit].into_iter().enumerate() {
            let r = run(texts, threads, f);
            if round == 0 || r.wall < best[i].wall {
                best[i].wall = r.wall;
            }
            if round == 0 || r.cpu < best[i].cpu {
                best[i].cpu = r.cpu;
            }
            best[i].failed = r.failed;
        }
    }
    (best[0], best[1])
}

fn ours(t: &str) -> bool {
    ecs_gpu_hcl::parse(t).is_ok()
}

fn hcl_edit(t: &str) -> bool {
    hcl_edit::parser::parse_body(t).is_ok()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "corpus".to_string());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());

    let paths = files(&dir);
    let start = Instant::now();
    let texts: Vec<String> = paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let read = start.elapsed();
    let bytes: usize = texts.iter().map(String::len).sum();

    if std::env::var_os("SHOW_REJECTS").is_some() {
        for (p, t) in paths.iter().zip(&texts) {
            if let Err(e) = ecs_gpu_hcl::parse(t) {
                println!("ecs-gpu-hcl rejects {}: {e}", p.display());
            }
            if let Err(e) = hcl_edit::parser::parse_body(t) {
                println!("hcl-edit rejects {}: {e}", p.display());
            }
        }
        return;
    }

    if std::env::var_os("ONLY_OURS").is_some() {
        // for profiling: ecs-gpu-hcl alone, one thread
        for _ in 0..rounds {
            run(&texts, 1, ours);
        }
        return;
    }

    // warm up both once (page cache, allocator)
    run(&texts, threads, ours);
    run(&texts, threads, hcl_edit);
    let (ours_n, edit_n) = compare(rounds, &texts, threads);
    let (ours_1, edit_1) = compare(rounds, &texts, 1);

    let mib = bytes as f64 / (1024.0 * 1024.0);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "corpus: {} files, {:.1} MiB, read in {:.1} ms; best of {rounds} interleaved rounds",
        texts.len(),
        mib,
        ms(read)
    );
    println!(
        "{:<12} {:>16} {:>10} {:>16} {:>14} {:>10}",
        "parser",
        format!("wall {threads} threads"),
        "MiB/s",
        "wall 1 thread",
        "CPU total",
        "rejected"
    );
    for (name, n, one) in [
        ("ecs-gpu-hcl", ours_n, ours_1),
        ("hcl-edit", edit_n, edit_1),
    ] {
        println!(
            "{name:<12} {:>13.1} ms {:>10.0} {:>13.1} ms {:>11.1} ms {:>10}",
            ms(n.wall),
            mib / n.wall.as_secs_f64(),
            ms(one.wall),
            ms(one.cpu),
            n.failed
        );
    }
    println!(
        "ratio ecs-gpu-hcl / hcl-edit: wall {threads} threads {:.2}, wall 1 thread {:.2}, CPU {:.2}",
        ours_n.wall.as_secs_f64() / edit_n.wall.as_secs_f64(),
        ours_1.wall.as_secs_f64() / edit_1.wall.as_secs_f64(),
        ours_1.cpu.as_secs_f64() / edit_1.cpu.as_secs_f64(),
    );
}
