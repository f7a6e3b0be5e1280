//! The command excerpts of the README and of `docs/*.md` are the commands' real output. Each
//! `$ ecs-gpu ...` line of a `console` or `text` block is run on the input it stands for, and the
//! lines shown under it must be lines of the output, in order: a line `...` stands for lines left
//! out; without one at the start (or end), the excerpt starts (or ends) where the output does. A
//! changed output, or a new excerpt that no test runs, fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// How a documented command is run: the folder it runs in (from the repository root), and the
/// documented words that stand for an input replaced by the input in the repository.
struct Run {
    documented: &'static str,
    dir: &'static str,
    inputs: &'static [(&'static str, &'static str)],
}

const RUNS: &[Run] = &[
    Run {
        documented: "ecs-gpu check examples/broken-gpu-chain",
        dir: ".",
        inputs: &[],
    },
    Run {
        documented: "ecs-gpu plan plan.json",
        dir: ".",
        inputs: &[(
            "plan.json",
            "crates/ecs-gpu-plan/tests/fixtures/example.json",
        )],
    },
    // The live command, on the cluster whose API answers are saved in the scenario: `--from`
    // reads the same answers the live calls return.
    Run {
        documented: "ecs-gpu diagnose --cluster gpu --service train",
        dir: ".",
        inputs: &[(
            "--cluster gpu",
            "--from crates/ecs-gpu-diagnose/tests/scenarios/gpus-available-pinned",
        )],
    },
    Run {
        documented: "ecs-gpu diagnose --from gpus-available-pinned",
        dir: "crates/ecs-gpu-diagnose/tests/scenarios",
        inputs: &[],
    },
    Run {
        documented:
            "ecs-gpu simulate infra/ --deploy aws_ecs_service.train --fail-on stuck,over-max",
        dir: ".",
        inputs: &[(
            "infra/",
            "crates/ecs-gpu-rules/tests/fixtures/GPU406/fires/rolling-needs-a-fifth-gpu",
        )],
    },
    Run {
        documented: "ecs-gpu types g5.12xlarge",
        dir: ".",
        inputs: &[],
    },
    Run {
        documented: "ecs-gpu types --family g6 --min-gpus 4 --format json",
        dir: ".",
        inputs: &[],
    },
    Run {
        documented: "ecs-gpu route --gpu --fargate",
        dir: ".",
        inputs: &[],
    },
    Run {
        documented: "ecs-gpu route --gpu --ec2-lifecycle aws",
        dir: ".",
        inputs: &[],
    },
];

/// A command of a document and the lines shown under it.
struct Excerpt {
    place: String,
    command: String,
    shown: Vec<String>,
}

/// The `$ ecs-gpu` commands of a document's `console` and `text` blocks.
fn excerpts(relative: &str) -> Vec<Excerpt> {
    let text = std::fs::read_to_string(root().join(relative)).unwrap();
    let mut out: Vec<Excerpt> = Vec::new();
    let mut in_block = false;
    let mut in_excerpt = false;
    for (i, line) in text.lines().enumerate() {
        if !in_block {
            in_block = line == "```console" || line == "```text";
            continue;
        }
        if line.starts_with("```") {
            (in_block, in_excerpt) = (false, false);
        } else if let Some(command) = line.strip_prefix("$ ") {
            in_excerpt = command.starts_with("ecs-gpu ");
            if in_excerpt {
                out.push(Excerpt {
                    place: format!("{relative}:{}", i + 1),
                    command: command.to_string(),
                    shown: Vec::new(),
                });
            }
        } else if in_excerpt {
            if let Some(e) = out.last_mut() {
                e.shown.push(line.to_string());
            }
        }
    }
    out
}

/// Every document with command excerpts: the README and the pages of `docs/`.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_string()];
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

/// Runs a documented command as its [`Run`] says: stdout and the exit status.
fn run(run: &Run) -> (String, i32) {
    let mut line = run.documented.to_string();
    for (documented, input) in run.inputs {
        assert!(line.contains(documented), "{documented} in {line}");
        line = line.replacen(documented, input, 1);
    }
    let mut words = line.split_whitespace();
    assert_eq!(words.next(), Some("ecs-gpu"));
    let o = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(words)
        .current_dir(root().join(run.dir))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        o.status.code().expect("exited"),
    )
}

/// Whether the shown lines are the output's, in order, `...` standing for lines left out.
fn shows(output: &[&str], shown: &[String]) -> Result<(), String> {
    let chunks: Vec<&[String]> = shown.split(|l| l == "...").collect();
    let mut at = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        let first = i == 0;
        let last = i + 1 == chunks.len();
        if chunk.is_empty() {
            continue;
        }
        let fits = |start: usize| {
            output.len() >= start + chunk.len()
                && output[start..start + chunk.len()]
                    .iter()
                    .zip(chunk.iter())
                    .all(|(o, s)| o == s)
        };
        let found = if first {
            fits(0).then_some(0)
        } else if last {
            let start = output.len().checked_sub(chunk.len());
            start.filter(|&s| s >= at && fits(s))
        } else {
            (at..output.len()).find(|&s| fits(s))
        };
        let found = found.filter(|&s| !last || s + chunk.len() == output.len());
        match found {
            Some(start) => at = start + chunk.len(),
            None => {
                return Err(format!(
                    "these lines are not in the output{}:\n{}",
                    match (first, last) {
                        (true, true) => " as the whole of it",
                        (true, false) => " at its start",
                        (false, true) => " at its end",
                        _ => " in this order",
                    },
                    chunk.join("\n")
                ))
            }
        }
    }
    Ok(())
}

#[test]
fn every_command_excerpt_of_the_docs_is_the_real_output() {
    let mut failures = Vec::new();
    let mut used = vec![false; RUNS.len()];
    let mut seen = 0;
    for doc in documents() {
        for e in excerpts(&doc) {
            seen += 1;
            let Some(i) = RUNS.iter().position(|r| r.documented == e.command) else {
                failures.push(format!(
                    "{}: `{}` is run by no test: add it to RUNS with its input",
                    e.place, e.command
                ));
                continue;
            };
            used[i] = true;
            let (out, code) = run(&RUNS[i]);
            if code == 2 {
                failures.push(format!("{}: `{}` exits 2", e.place, e.command));
                continue;
            }
            let lines: Vec<&str> = out.lines().collect();
            if let Err(why) = shows(&lines, &e.shown) {
                failures.push(format!(
                    "{}: `{}`: {why}\n--- the output:\n{out}",
                    e.place, e.command
                ));
            }
        }
    }
    for (r, used) in RUNS.iter().zip(used) {
        if !used {
            failures.push(format!("`{}` is in no document", r.documented));
        }
    }
    assert!(seen >= RUNS.len(), "{seen} excerpts");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn an_excerpt_is_lines_of_the_output_in_order() {
    let output = ["a", "b", "c", "d"];
    let shown = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(shows(&output, &shown(&["a", "b", "...", "d"])).is_ok());
    assert!(shows(&output, &shown(&["...", "c", "..."])).is_ok());
    assert!(shows(&output, &shown(&["a", "b", "c", "d"])).is_ok());
    // Not at the start, not at the end, not in order, not contiguous.
    assert!(shows(&output, &shown(&["b", "..."])).is_err());
    assert!(shows(&output, &shown(&["...", "c"])).is_err());
    assert!(shows(&output, &shown(&["...", "c", "...", "b", "..."])).is_err());
    assert!(shows(&output, &shown(&["...", "a", "c", "..."])).is_err());
    assert!(shows(&output, &shown(&["a", "b", "c"])).is_err());
}
