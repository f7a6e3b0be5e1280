//! Differential evaluation: every case in `tests/differential/cases.txt` is evaluated by the project
//! and by Terraform (one `terraform apply` of a provider-free configuration with one output per
//! case, run once for the whole batch); the `jsonencode` texts must agree. Skipped, with a note,
//! when `terraform` is not installed.

#![allow(clippy::print_stderr)]

mod common;

use std::path::Path;
use std::process::Command;

fn cases() -> Vec<String> {
    let text = include_str!("differential/cases.txt");
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    for line in text.lines() {
        if cur.is_empty() && (line.trim().is_empty() || line.starts_with('#')) {
            continue;
        }
        let mut in_string = false;
        let mut escaped = false;
        for c in line.chars() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' | '[' | '(' if !in_string => depth += 1,
                '}' | ']' | ')' if !in_string => depth -= 1,
                _ => {}
            }
        }
        if !cur.is_empty() {
            cur.push('\n');
        }
        cur.push_str(line);
        if depth <= 0 {
            out.push(std::mem::take(&mut cur));
            depth = 0;
        }
    }
    out
}

const PRELUDE: &str = include_str!("differential/prelude.tf");

/// The project's answers: one resource attribute per case, in one load.
fn project(cases: &[String]) -> Vec<Option<String>> {
    let mut main = String::from("resource \"t\" \"t\" {\n");
    for (i, c) in cases.iter().enumerate() {
        main.push_str(&format!("  c{i} = jsonencode({c})\n"));
    }
    main.push_str("}\n");
    let (_dir, model) = common::load(&[("prelude.tf", PRELUDE), ("main.tf", &main)]);
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let r = common::find(&model, "t", "t");
    (0..cases.len())
        .map(|i| {
            r.body
                .attr(&format!("c{i}"))
                .and_then(|n| n.as_str().map(|s| s.into_owned()))
        })
        .collect()
}

fn terraform_available() -> bool {
    Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Terraform's answers for the whole batch, from one apply.
fn terraform(cases: &[String], dir: &Path) -> Vec<Option<String>> {
    let mut main = String::new();
    for (i, c) in cases.iter().enumerate() {
        main.push_str(&format!(
            "output \"c{i}\" {{\n  value = jsonencode({c})\n}}\n"
        ));
    }
    std::fs::write(dir.join("prelude.tf"), PRELUDE).unwrap();
    std::fs::write(dir.join("main.tf"), main).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new("terraform")
            .args(args)
            .current_dir(dir)
            .env("TF_IN_AUTOMATION", "1")
            .env("CHECKPOINT_DISABLE", "1")
            .output()
            .expect("terraform runs");
        assert!(
            out.status.success(),
            "terraform {args:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    run(&["init", "-input=false", "-no-color"]);
    run(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    let json = run(&["output", "-json"]);
    let v: serde_json::Value = serde_json::from_slice(&json).expect("output json");
    (0..cases.len())
        .map(|i| {
            v.get(format!("c{i}"))
                .and_then(|o| o.get("value"))
                .and_then(|s| s.as_str())
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn project_agrees_with_terraform() {
    let cases = cases();
    assert!(cases.len() >= 290, "{} cases", cases.len());
    let ours = project(&cases);
    if !terraform_available() {
        eprintln!("note: terraform is not installed; the differential evaluation test is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let theirs = terraform(&cases, dir.path());
    let mut mismatches = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        if ours[i] != theirs[i] {
            mismatches.push(format!(
                "  {c}\n    terraform: {:?}\n    project:   {:?}",
                theirs[i], ours[i]
            ));
        }
    }
    eprintln!(
        "differential: {} cases, {} agree",
        cases.len(),
        cases.len() - mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} cases differ:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}
