//! Differential syntax test: files made by mutating the valid conformance cases (deleting,
//! duplicating or joining lines, inserting newlines, comments and brackets) are given to
//! `terraform fmt` and to ecs-gpu-hcl, and both must agree on whether the file parses.
//!
//! Deterministic (a fixed seed); 120 files by default, `DIFF_CASES=2000` for a longer hunt,
//! `DIFF_SEED` to change the seed. Disagreements found this way became unit tests
//! (`whitespace_inside_traversals_and_provider_function_names`,
//! `body_rules_terraform_enforces_while_parsing`, the legacy index cases in `traversals`).
//! Without a terraform CLI the test prints a note and passes.
#![allow(clippy::print_stderr)]

use std::path::Path;
use std::process::Command;

/// xorshift64*: a small deterministic generator, enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INSERTS: [&str; 20] = [
    "(", ")", "[", "]", "{", "}", ",", " ", "\"", "\\", "$", "%", "~", "#", "?", ":", ".", "*",
    "=", "\n",
];

/// A char boundary at or after `i` in `s`.
fn boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    for _ in 0..1 + rng.below(2) {
        let i = rng.below(lines.len());
        let len = lines[i].len();
        let at = boundary(&lines[i], rng.below(len + 1));
        match rng.below(8) {
            0 if lines.len() > 1 => {
                lines.remove(i);
            }
            1 => {
                let copy = lines[rng.below(lines.len())].clone();
                lines.insert(i, copy);
            }
            2 => lines[i].insert(at, '\n'),
            3 if at < len => {
                lines[i].remove(at);
            }
            4 => {
                let ins = INSERTS[rng.below(INSERTS.len())];
                lines[i].insert_str(at, ins);
            }
            5 if i + 1 < lines.len() => {
                let next = lines.remove(i + 1);
                lines[i] = format!("{} {}", lines[i], next.trim());
            }
            6 => lines[i].insert_str(at, " # c\n"),
            _ => lines[i].insert_str(at, " /* c */ "),
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_files_parse_exactly_when_terraform_parses_them() {
    let available = Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        eprintln!("note: no terraform CLI on PATH; the differential syntax test is skipped");
        return;
    }
    let cases: usize = std::env::var("DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120);
    let seed: u64 = std::env::var("DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EED_2026);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/valid");
    let mut seeds: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tf"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty());

    let work = std::env::temp_dir().join(format!("ecs-gpu-hcl-diff-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("temp dir");
    let rc = work.join(".terraformrc");
    std::fs::write(&rc, "").expect("write rc");
    let file = work.join("case.tf");

    let mut rng = Rng(seed | 1);
    let mut disagreements = Vec::new();
    let mut accepted = 0;
    for n in 0..cases {
        let pick = rng.below(seeds.len());
        let text = mutate(&mut rng, &seeds[pick]);
        std::fs::write(&file, &text).expect("write case");
        let tf = Command::new("terraform")
            .args(["fmt", "-check", "-no-color", "case.tf"])
            .current_dir(&work)
            .env("TF_CLI_CONFIG_FILE", &rc)
            .env("CHECKPOINT_DISABLE", "1")
            .output()
            .expect("run terraform");
        // 0: formatted, 3: would reformat; both mean it parsed. 2: syntax error.
        let tf_ok = matches!(tf.status.code(), Some(0 | 3));
        let ours = ecs_gpu_hcl::parse(&text);
        accepted += usize::from(tf_ok);
        if tf_ok != ours.is_ok() {
            let ours = match ours {
                Ok(_) => "accepts".to_string(),
                Err(e) => {
                    let (l, c) = ecs_gpu_hcl::line_col(&text, e.span.start);
                    format!("rejects ({l}:{c}: {e})")
                }
            };
            let tf_says = if tf_ok { "accepts" } else { "rejects" };
            disagreements.push(format!(
                "case {n}: terraform {tf_says}, ecs-gpu-hcl {ours}\n{}\n{text}",
                String::from_utf8_lossy(&tf.stderr)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "{cases} mutated files, {accepted} accepted by terraform, {} disagreements",
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements.join("\n\n----\n\n")
    );
}
