//! A stable fuzzing harness for machines without nightly Rust or libFuzzer: random mutations of
//! a seed corpus, each input run through the same target function `cargo fuzz` runs, a panic
//! caught and its input saved. No coverage feedback: it finds what mutations of real fixtures
//! reach, which is less than libFuzzer finds.
//!
//! `cargo run --release --bin mutate -- TARGET CORPUS_DIR SECONDS [SEED]`
//! Crashing inputs go to `artifacts/TARGET/crash-N`; replay one with
//! `cargo run --release --bin mutate -- TARGET artifacts/TARGET/crash-N 0`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// xorshift: every run can be replayed from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Bytes that matter to the formats fuzzed: they make mutations reach more than random bytes.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"(",
    b")",
    b"\"",
    b"${",
    b"%{",
    b"}",
    b"<<EOT\n",
    b"\nEOT\n",
    b"=",
    b":",
    b",",
    b".",
    b"*",
    b"...",
    b"=>",
    b"?",
    b" for x in ",
    b" if ",
    b"null",
    b"true",
    b"1e999",
    b"-1",
    b"18446744073709551616",
    b"\\u0000",
    b"\\ud800",
    b"\xff",
    b"\r",
    b"\x1b",
    b"#",
    b"//",
    b"/*",
    b"*/",
    b"count",
    b"for_each",
    b"dynamic",
    b"local.",
    b"var.",
    b"\"actions\":",
    b"\"resource_changes\":",
    b"\"format_version\":\"1.2\"",
];

fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, t.iter().copied());
            }
            3 if !corpus.is_empty() => {
                // Splice a piece of another input.
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len());
                let to = (from + rng.below(256)).min(other.len());
                out.splice(at..at, other[from..to].iter().copied());
            }
            4 if !out.is_empty() => {
                // Repeat a piece: nesting and long lines.
                let from = rng.below(out.len());
                let to = (from + 1 + rng.below(32)).min(out.len());
                let piece = out[from..to].to_vec();
                for _ in 0..1 + rng.below(64) {
                    out.splice(at..at, piece.iter().copied());
                }
            }
            5 => out.insert(at, rng.next() as u8),
            _ => {
                let end = rng.below(out.len() + 1);
                out.truncate(end.max(1).min(out.len()));
            }
        }
    }
    out.truncate(1 << 20);
    out
}

fn read_corpus(path: &Path) -> Vec<Vec<u8>> {
    if path.is_file() {
        return std::fs::read(path).map(|b| vec![b]).unwrap_or_default();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

#[allow(clippy::print_stdout, clippy::print_stderr)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: mutate TARGET CORPUS SECONDS [SEED] (TARGET: hcl, eval, plan, diagnose, simulate)";
    let (Some(name), Some(corpus_path), Some(seconds)) = (args.get(1), args.get(2), args.get(3))
    else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Some(target) = ecs_gpu_fuzz::target(name) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let seconds: u64 = seconds.parse().unwrap_or(60);
    let seed: u64 = args
        .get(4)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut corpus = read_corpus(Path::new(corpus_path));
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let artifacts = Path::new("artifacts").join(name);
    // Panics are caught and counted; the default hook's message says where each came from.
    let mut crashes = 0;
    let mut slowest = (Duration::ZERO, Vec::new());
    let run = |input: &[u8], crashes: &mut usize, slowest: &mut (Duration, Vec<u8>)| {
        let start = Instant::now();
        let ok = std::panic::catch_unwind(|| target(input)).is_ok();
        let took = start.elapsed();
        if took > slowest.0 {
            *slowest = (took, input.to_vec());
        }
        if !ok {
            *crashes += 1;
            let _ = std::fs::create_dir_all(&artifacts);
            let path = artifacts.join(format!("crash-{crashes}"));
            let _ = std::fs::write(&path, input);
            eprintln!("crash: input saved to {}", path.display());
        }
    };
    // The seeds themselves first.
    for input in corpus.clone() {
        run(&input, &mut crashes, &mut slowest);
    }
    let mut rng = Rng(seed | 1);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut runs = corpus.len();
    while Instant::now() < deadline {
        let base = corpus[rng.below(corpus.len())].clone();
        let input = mutate(&mut rng, &base, &corpus);
        run(&input, &mut crashes, &mut slowest);
        runs += 1;
        // Keep some mutants as bases: deeper mutations without coverage feedback.
        if rng.below(64) == 0 && corpus.len() < 4096 {
            corpus.push(input);
        }
    }
    let _ = std::fs::create_dir_all(&artifacts);
    let _ = std::fs::write(artifacts.join("slowest"), &slowest.1);
    println!(
        "{name}: {runs} inputs in {seconds} s, {crashes} crashes, slowest {:?} (saved to {})",
        slowest.0,
        artifacts.join("slowest").display()
    );
    if crashes > 0 {
        std::process::exit(1);
    }
}
