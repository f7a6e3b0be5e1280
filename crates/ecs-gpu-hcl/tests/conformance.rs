//! The conformance suite: syntax cases under `tests/conformance/`.
//!
//! - `valid/`: each case parses without error, and its tree matches `snapshots/NAME.sexp`
//!   (`BLESS=1 cargo test -p ecs-gpu-hcl --test conformance` rewrites the snapshots). Each case is
//!   also confirmed to be valid Terraform: `terraform fmt -check` (cases are written fmt-clean, so
//!   "would reformat" fails the case) and `terraform validate` through the project's
//!   `terraform-offline` wrapper (which serves the aws provider's schema with no network), in a
//!   temporary folder holding the case alone. A case whose first line is
//!   `# conformance: fmt-only — reason` skips `validate`. Other `.json` cases are ECS task
//!   definitions (both the register and the describe shape), read by the JSON parser only.
//! - `invalid/`: each case fails with the position and message listed in `invalid/expected.txt`,
//!   and Terraform rejects it too (`terraform fmt` exits 2 on a syntax error).
//!
//! Without a terraform CLI the Terraform half prints a note and passes; the parse half always runs.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(sub)
}

fn cases(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir(sub))
        .unwrap_or_else(|e| panic!("reading {sub}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".tf") || n.ends_with(".json") || n.ends_with(".tfvars")
        })
        .collect();
    v.sort();
    v
}

fn name(p: &Path) -> String {
    p.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Parses a case the way the checker does: JSON for `.tf.json`, native syntax otherwise.
fn parse_case(p: &Path) -> Result<String, String> {
    let text = read(p);
    let n = name(p);
    let rendered = if n.ends_with(".json") {
        ecs_gpu_hcl::json::parse(&text).map(|j| format!("{:#?}", j.value))
    } else {
        ecs_gpu_hcl::parse(&text).map(|f| ecs_gpu_hcl::sexp::file(&f).replace(") (", ")\n("))
    };
    rendered.map_err(|e| {
        let (line, col) = ecs_gpu_hcl::line_col(&text, e.span.start);
        format!("{n}:{line}:{col}: {e}")
    })
}

#[test]
fn valid_cases_parse_to_their_snapshot() {
    let bless = std::env::var_os("BLESS").is_some();
    let cases = cases("valid");
    assert!(cases.len() >= 15, "the conformance folder lost cases");
    let mut failures = Vec::new();
    for case in &cases {
        let tree = match parse_case(case) {
            Ok(t) => t,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let snap = dir("snapshots").join(format!("{}.sexp", name(case)));
        if bless {
            std::fs::create_dir_all(dir("snapshots")).ok();
            std::fs::write(&snap, format!("{tree}\n")).ok();
            continue;
        }
        match std::fs::read_to_string(&snap) {
            Ok(expected) if expected.trim_end() == tree => {}
            Ok(expected) => failures.push(format!(
                "{}: tree differs from {}\n--- expected\n{expected}\n--- got\n{tree}",
                name(case),
                snap.display()
            )),
            Err(_) => failures.push(format!(
                "{}: no snapshot; run with BLESS=1 and review {}",
                name(case),
                snap.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn invalid_cases_fail_at_the_listed_position_with_the_listed_message() {
    let expected = read(&dir("invalid").join("expected.txt"));
    let cases = cases("invalid");
    assert!(cases.len() >= 15, "the invalid folder lost cases");
    let mut failures = Vec::new();
    for case in &cases {
        let n = name(case);
        let want = expected
            .lines()
            .find(|l| l.starts_with(&format!("{n}:")))
            .unwrap_or_else(|| panic!("{n} has no line in invalid/expected.txt"));
        match parse_case(case) {
            Ok(_) => failures.push(format!("{n}: parsed, expected `{want}`")),
            Err(got) if got == want => {}
            Err(got) => failures.push(format!("{n}:\n  expected {want}\n  got      {got}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ------------------------------------------------------------------ the Terraform half

fn terraform_available() -> bool {
    Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn terraform_offline() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tools/terraform-offline/terraform-offline");
    p.exists().then_some(p)
}

/// A fresh folder holding only `case` (under its own name).
fn temp_copy(case: &Path, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "ecs-gpu-hcl-conformance-{}-{tag}-{}",
        std::process::id(),
        name(case)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    std::fs::copy(case, d.join(name(case))).unwrap_or_else(|e| panic!("{e}"));
    d
}

/// Runs a terraform command in `dir`: (exit code, combined output).
fn run(program: &Path, args: &[&str], dir: &Path) -> (i32, String) {
    let rc = dir.join(".terraformrc");
    let _ = std::fs::write(&rc, "");
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("CHECKPOINT_DISABLE", "1")
        .env("NO_COLOR", "1");
    if program == Path::new("terraform") {
        cmd.env("TF_CLI_CONFIG_FILE", &rc);
    }
    match cmd.output() {
        Ok(o) => (
            o.status.code().unwrap_or(-1),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        ),
        Err(e) => (-1, e.to_string()),
    }
}

#[test]
fn valid_cases_are_valid_terraform() {
    if !terraform_available() {
        eprintln!("note: no terraform CLI on PATH; the Terraform half of the conformance suite is skipped");
        return;
    }
    let offline = terraform_offline();
    if offline.is_none() {
        eprintln!(
            "note: shared/tools/terraform-offline not found; `terraform validate` is skipped"
        );
    }
    let mut failures = Vec::new();
    let mut validated = 0;
    for case in cases("valid") {
        let n = name(&case);
        let d = temp_copy(&case, "valid");
        if n.ends_with(".json") && !n.ends_with(".tf.json") {
            // an ECS task definition: JSON for the checker, nothing Terraform reads
            let _ = std::fs::remove_dir_all(&d);
            continue;
        }
        if !n.ends_with(".json") {
            let (code, out) = run(
                Path::new("terraform"),
                &["fmt", "-check", "-no-color", &n],
                &d,
            );
            match code {
                0 => {}
                3 => failures.push(format!(
                    "{n}: `terraform fmt` would reformat it (write cases fmt-clean)"
                )),
                _ => failures.push(format!(
                    "{n}: `terraform fmt -check` failed ({code}):\n{out}"
                )),
            }
        }
        let fmt_only = read(&case)
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("# conformance: fmt-only"));
        let terraform_file = n.ends_with(".tf") || n.ends_with(".tf.json");
        if let (Some(tool), false, true) = (&offline, fmt_only, terraform_file) {
            let (code, out) = run(tool, &["validate", "-no-color"], &d);
            if code == 0 {
                validated += 1;
            } else {
                failures.push(format!("{n}: `terraform validate` failed ({code}):\n{out}"));
            }
        }
        let _ = std::fs::remove_dir_all(&d);
    }
    eprintln!("terraform: {validated} cases validated");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn invalid_cases_are_rejected_by_terraform() {
    if !terraform_available() {
        eprintln!("note: no terraform CLI on PATH; the Terraform half of the conformance suite is skipped");
        return;
    }
    let mut failures = Vec::new();
    for case in cases("invalid") {
        let n = name(&case);
        let d = temp_copy(&case, "invalid");
        let (code, out) = run(
            Path::new("terraform"),
            &["fmt", "-check", "-no-color", &n],
            &d,
        );
        // 2: a syntax error (3 would mean it parsed and only needs reformatting).
        if code != 2 {
            failures.push(format!(
                "{n}: terraform fmt exited {code}, expected a syntax error:\n{out}"
            ));
        }
        let _ = std::fs::remove_dir_all(&d);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The project's own Terraform module and its examples: real input that grows with the project.
#[test]
fn the_project_terraform_module_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../terraform");
    let mut stack = vec![root];
    let mut files = 0;
    let mut failures = Vec::new();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let n = name(&p);
            if p.is_dir() {
                if n != ".terraform" {
                    stack.push(p);
                }
            } else if n.ends_with(".tf") || n.ends_with(".tfvars") || n.ends_with(".tftest.hcl") {
                files += 1;
                if let Err(e) = parse_case(&p) {
                    failures.push(format!("{}: {e}", p.display()));
                }
            }
        }
    }
    eprintln!("{files} files of the project's Terraform parsed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
