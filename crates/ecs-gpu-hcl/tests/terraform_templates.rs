//! Template semantics against Terraform: generated quoted strings and heredocs (`<<` and `<<-`)
//! full of strip markers, directives, escapes and uneven indentation are rendered by Terraform
//! (`terraform apply` of a configuration with outputs only: no provider, no network) and by a
//! small renderer over ecs-gpu-hcl's tree, and the texts must be equal. This pins down what the
//! tree leaves to the evaluator: literal text after escapes, strip markers and `<<-`
//! indentation, exactly as Terraform computes it.
//!
//! Deterministic; 150 templates by default, `TEMPLATE_CASES`/`TEMPLATE_SEED` for more. Without
//! a terraform CLI the test prints a note and passes.
#![allow(clippy::print_stderr)]

use ecs_gpu_hcl::{Expr, ExprKind, Item, Template, TemplatePart};
use std::process::Command;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn coin(&mut self) -> bool {
        self.below(2) == 0
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Quoted,
    Heredoc,
    Flush,
}

/// Writes a random template body (without its quotes or heredoc header and marker).
fn body(rng: &mut Rng, kind: Kind, depth: usize, in_for: bool, out: &mut String) {
    for _ in 0..1 + rng.below(5) {
        match rng.below(if depth < 2 { 9 } else { 6 }) {
            0..=2 => literal(rng, kind, out),
            3 => newline(rng, kind, out),
            4 => {
                let (l, r) = strips(rng);
                let value = if in_for && rng.coin() {
                    "v".to_string()
                } else {
                    format!("\"s{}\"", rng.below(10))
                };
                out.push_str(&format!("${{{l}{value}{r}}}"));
            }
            // a lone `$`/`%` would turn a following `${`/`%{` into an escape
            5 => out.push_str(["$${x}", "%%{y}", "$5", "%d", "$ {", "% {"][rng.below(6)]),
            6 => {
                let (l, r) = strips(rng);
                let cond = ["true", "false"][rng.below(2)];
                out.push_str(&format!("%{{{l}if {cond}{r}}}"));
                body(rng, kind, depth + 1, in_for, out);
                if rng.coin() {
                    let (l, r) = strips(rng);
                    out.push_str(&format!("%{{{l}else{r}}}"));
                    body(rng, kind, depth + 1, in_for, out);
                }
                let (l, r) = strips(rng);
                out.push_str(&format!("%{{{l}endif{r}}}"));
            }
            _ => {
                let (l, r) = strips(rng);
                out.push_str(&format!("%{{{l}for v in [\"p\", \"q\"]{r}}}"));
                body(rng, kind, depth + 1, true, out);
                let (l, r) = strips(rng);
                out.push_str(&format!("%{{{l}endfor{r}}}"));
            }
        }
    }
}

fn strips(rng: &mut Rng) -> (&'static str, &'static str) {
    let l = if rng.below(3) == 0 { "~ " } else { " " };
    let r = if rng.below(3) == 0 { " ~" } else { " " };
    (l, r)
}

fn literal(rng: &mut Rng, kind: Kind, out: &mut String) {
    let words = ["a", "b c", "  ", "\t", "x  y", "é", "-", "ünï"];
    out.push_str(words[rng.below(words.len())]);
    if kind == Kind::Quoted {
        let escapes = ["", "", "\\t", "\\\"", "\\\\", "\\u00e9", "\\n  "];
        out.push_str(escapes[rng.below(escapes.len())]);
    }
}

fn newline(rng: &mut Rng, kind: Kind, out: &mut String) {
    match kind {
        Kind::Quoted => out.push_str("\\n"),
        _ => {
            out.push('\n');
            let indent = [0, 2, 4, 4, 4, 6, 8][rng.below(7)];
            out.push_str(&" ".repeat(indent));
        }
    }
}

/// The source of one generated template expression.
fn template(rng: &mut Rng) -> String {
    let kind = [Kind::Quoted, Kind::Heredoc, Kind::Flush][rng.below(3)];
    let mut b = String::new();
    if kind != Kind::Quoted {
        b.push_str(&" ".repeat([0, 2, 4][rng.below(3)]));
    }
    body(rng, kind, 0, false, &mut b);
    match kind {
        Kind::Quoted => format!("\"{b}\""),
        Kind::Heredoc => format!("<<EOT\n{b}\nEOT\n"),
        Kind::Flush => format!("<<-EOT\n{b}\n  EOT\n"),
    }
}

/// Renders what the generated templates use: literals, string literals, the loop variable,
/// `if` on a literal bool and `for` over a tuple of strings.
fn render(t: &Template, var: Option<&str>, out: &mut String) -> Result<(), String> {
    for part in &t.parts {
        match part {
            TemplatePart::Literal { text, .. } => out.push_str(text),
            TemplatePart::Interpolation(e) => out.push_str(&scalar(e, var)?),
            TemplatePart::If {
                condition,
                then,
                otherwise,
                ..
            } => match &condition.kind {
                ExprKind::Bool(true) => render(then, var, out)?,
                ExprKind::Bool(false) => {
                    if let Some(o) = otherwise {
                        render(o, var, out)?;
                    }
                }
                other => return Err(format!("unexpected condition {other:?}")),
            },
            TemplatePart::For {
                collection, body, ..
            } => {
                let ExprKind::Tuple(items) = &collection.kind else {
                    return Err("unexpected collection".into());
                };
                for item in items {
                    let v = scalar(item, var)?;
                    render(body, Some(&v), out)?;
                }
            }
        }
    }
    Ok(())
}

fn scalar(e: &Expr, var: Option<&str>) -> Result<String, String> {
    match &e.kind {
        ExprKind::Template(t) => {
            let mut s = String::new();
            render(t, var, &mut s)?;
            Ok(s)
        }
        ExprKind::Variable(v) if v.name == "v" => var.map(str::to_string).ok_or("no v".into()),
        other => Err(format!("unexpected expression {other:?}")),
    }
}

/// Decodes `terraform output -json`'s array of strings (JSON) with the crate's JSON parser.
fn strings(json: &str) -> Vec<String> {
    let parsed = ecs_gpu_hcl::json::parse(json).expect("terraform output is JSON");
    let ecs_gpu_hcl::json::JsonValue::Array(items) = parsed.value else {
        panic!("not an array: {json}")
    };
    items
        .into_iter()
        .map(|j| match j.value {
            ecs_gpu_hcl::json::JsonValue::String(s) => s,
            other => panic!("not a string: {other:?}"),
        })
        .collect()
}

#[test]
fn rendered_templates_match_terraform() {
    let available = Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        eprintln!("note: no terraform CLI on PATH; the template test against Terraform is skipped");
        return;
    }
    let cases: usize = std::env::var("TEMPLATE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let seed: u64 = std::env::var("TEMPLATE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x07E4_D0C5);
    let mut rng = Rng(seed | 1);
    let sources: Vec<String> = (0..cases).map(|_| template(&mut rng)).collect();

    // One configuration: each template is an element of one output's list, so that a single
    // `terraform apply` renders them all.
    let mut config = String::from("output \"t\" {\n  value = [\n");
    for s in &sources {
        config.push_str(s);
        config.push_str(",\n");
    }
    config.push_str("  ]\n}\n");

    // Ours: parse the same configuration, render each element.
    let file = ecs_gpu_hcl::parse(&config).unwrap_or_else(|e| {
        let (l, c) = ecs_gpu_hcl::line_col(&config, e.span.start);
        panic!("{l}:{c}: {e}\n{config}")
    });
    let Item::Block(output) = &file.body.items[0] else {
        panic!("no output block")
    };
    let Item::Attribute(value) = &output.body.items[0] else {
        panic!("no value")
    };
    let ExprKind::Tuple(items) = &value.value.kind else {
        panic!("no tuple")
    };
    assert_eq!(items.len(), cases);
    let ours: Vec<String> = items
        .iter()
        .map(|e| scalar(e, None).unwrap_or_else(|err| panic!("{err}")))
        .collect();

    // Terraform's.
    let dir = std::env::temp_dir().join(format!("ecs-gpu-hcl-templates-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("main.tf"), &config).expect("write config");
    let rc = dir.join(".terraformrc");
    std::fs::write(&rc, "").expect("write rc");
    let tf = |args: &[&str]| {
        let o = Command::new("terraform")
            .args(args)
            .current_dir(&dir)
            .env("TF_CLI_CONFIG_FILE", &rc)
            .env("CHECKPOINT_DISABLE", "1")
            .output()
            .expect("run terraform");
        assert!(
            o.status.success(),
            "terraform {args:?}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    tf(&["init", "-input=false", "-no-color"]);
    tf(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    let theirs = strings(&tf(&["output", "-json", "t"]));
    let _ = std::fs::remove_dir_all(&dir);

    assert_eq!(theirs.len(), cases);
    let mut failures = Vec::new();
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            failures.push(format!(
                "template {i}:\n{}\nterraform: {b:?}\nours:      {a:?}",
                sources[i]
            ));
        }
    }
    eprintln!(
        "{cases} templates rendered, {} differ from Terraform",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
