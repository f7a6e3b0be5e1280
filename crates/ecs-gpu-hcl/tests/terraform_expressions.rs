//! Operator precedence and associativity against Terraform: generated arithmetic, comparison,
//! logical and conditional expressions, printed with only the parentheses precedence requires
//! (and the occasional redundant pair), are evaluated by Terraform (`terraform apply` of a
//! configuration with outputs only: no provider, no network) and by a small evaluator over
//! ecs-gpu-hcl's tree. A tree built with the wrong precedence or associativity gives another
//! value. Conditionals are split over lines inside parentheses, as people write them.
//!
//! Deterministic; 1,000 expressions by default, `EXPR_CASES`/`EXPR_SEED` for more. Without a
//! terraform CLI the test prints a note and passes.
#![allow(clippy::print_stderr)]

use ecs_gpu_hcl::{BinaryOp, Expr, ExprKind, Item, UnaryOp};
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
}

/// A generated expression: (source, precedence level it prints at). Levels: 0 conditional,
/// 1 `||`, 2 `&&`, 3 `==` `!=`, 4 comparisons, 5 `+` `-`, 6 `*` `%`, 7 unary, 8 term.
type Gen = (String, u8);

fn wrap(g: Gen, min: u8, rng: &mut Rng) -> String {
    if g.1 < min || rng.below(12) == 0 {
        format!("({})", g.0)
    } else {
        g.0
    }
}

fn binary(rng: &mut Rng, l: Gen, op: &str, level: u8, r: Gen) -> Gen {
    // left-associative: the left side may sit at the same level, the right side must bind tighter
    let l = wrap(l, level, rng);
    let r = wrap(r, level + 1, rng);
    (format!("{l} {op} {r}"), level)
}

fn conditional(rng: &mut Rng, c: Gen, t: Gen, e: Gen) -> Gen {
    let c = wrap(c, 1, rng);
    let (t, e) = (wrap(t, 0, rng), wrap(e, 0, rng));
    if rng.below(3) == 0 {
        // over several lines: only inside parentheses
        (format!("(\n    {c}\n    ? {t}\n    : {e}\n  )"), 8)
    } else {
        (format!("{c} ? {t} : {e}"), 0)
    }
}

fn num(rng: &mut Rng, depth: u32) -> Gen {
    if depth == 0 {
        return (rng.below(20).to_string(), 8);
    }
    match rng.below(8) {
        0 => (rng.below(20).to_string(), 8),
        1 => {
            let o = num(rng, depth - 1);
            (format!("-{}", wrap(o, 7, rng)), 7)
        }
        2 => {
            let (l, r) = (num(rng, depth - 1), num(rng, depth - 1));
            binary(rng, l, "+", 5, r)
        }
        3 => {
            let (l, r) = (num(rng, depth - 1), num(rng, depth - 1));
            binary(rng, l, "-", 5, r)
        }
        4 => {
            let (l, r) = (num(rng, depth - 1), num(rng, depth - 1));
            binary(rng, l, "*", 6, r)
        }
        5 => {
            let l = num(rng, depth - 1);
            let r = ((1 + rng.below(9)).to_string(), 8);
            binary(rng, l, "%", 6, r)
        }
        _ => {
            let (c, t, e) = (
                bool_(rng, depth - 1),
                num(rng, depth - 1),
                num(rng, depth - 1),
            );
            conditional(rng, c, t, e)
        }
    }
}

fn bool_(rng: &mut Rng, depth: u32) -> Gen {
    if depth == 0 {
        return (["true", "false"][rng.below(2)].to_string(), 8);
    }
    match rng.below(9) {
        0 => (["true", "false"][rng.below(2)].to_string(), 8),
        1 => {
            let o = bool_(rng, depth - 1);
            (format!("!{}", wrap(o, 7, rng)), 7)
        }
        2 => {
            let (l, r) = (bool_(rng, depth - 1), bool_(rng, depth - 1));
            binary(rng, l, "&&", 2, r)
        }
        3 => {
            let (l, r) = (bool_(rng, depth - 1), bool_(rng, depth - 1));
            binary(rng, l, "||", 1, r)
        }
        4 => {
            let (l, r) = (num(rng, depth - 1), num(rng, depth - 1));
            let op = ["<", "<=", ">", ">="][rng.below(4)];
            binary(rng, l, op, 4, r)
        }
        5 => {
            let (l, r) = (num(rng, depth - 1), num(rng, depth - 1));
            let op = ["==", "!="][rng.below(2)];
            binary(rng, l, op, 3, r)
        }
        6 => {
            let (l, r) = (bool_(rng, depth - 1), bool_(rng, depth - 1));
            let op = ["==", "!="][rng.below(2)];
            binary(rng, l, op, 3, r)
        }
        _ => {
            let (c, t, e) = (
                bool_(rng, depth - 1),
                bool_(rng, depth - 1),
                bool_(rng, depth - 1),
            );
            conditional(rng, c, t, e)
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum V {
    N(i128),
    B(bool),
}

fn eval(e: &Expr) -> V {
    match &e.kind {
        ExprKind::Number(n) => V::N(n.parse().expect("integer")),
        ExprKind::Bool(b) => V::B(*b),
        ExprKind::Parens(i) => eval(i),
        ExprKind::Unary { op, operand } => match (op, eval(operand)) {
            (UnaryOp::Negate, V::N(n)) => V::N(-n),
            (UnaryOp::Not, V::B(b)) => V::B(!b),
            (op, v) => panic!("{op:?} on {v:?}"),
        },
        ExprKind::Conditional {
            condition,
            then,
            otherwise,
        } => match eval(condition) {
            V::B(true) => eval(then),
            V::B(false) => eval(otherwise),
            v => panic!("condition {v:?}"),
        },
        ExprKind::Binary { op, left, right } => {
            let (l, r) = (eval(left), eval(right));
            match (op, l, r) {
                (BinaryOp::Add, V::N(a), V::N(b)) => V::N(a + b),
                (BinaryOp::Sub, V::N(a), V::N(b)) => V::N(a - b),
                (BinaryOp::Mul, V::N(a), V::N(b)) => V::N(a * b),
                (BinaryOp::Mod, V::N(a), V::N(b)) => V::N(a % b),
                (BinaryOp::Lt, V::N(a), V::N(b)) => V::B(a < b),
                (BinaryOp::Le, V::N(a), V::N(b)) => V::B(a <= b),
                (BinaryOp::Gt, V::N(a), V::N(b)) => V::B(a > b),
                (BinaryOp::Ge, V::N(a), V::N(b)) => V::B(a >= b),
                (BinaryOp::Eq, a, b) => V::B(a == b),
                (BinaryOp::NotEq, a, b) => V::B(a != b),
                (BinaryOp::And, V::B(a), V::B(b)) => V::B(a && b),
                (BinaryOp::Or, V::B(a), V::B(b)) => V::B(a || b),
                (op, a, b) => panic!("{op:?} on {a:?}, {b:?}"),
            }
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn evaluated_expressions_match_terraform() {
    let available = Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        eprintln!(
            "note: no terraform CLI on PATH; the precedence test against Terraform is skipped"
        );
        return;
    }
    let cases: usize = std::env::var("EXPR_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let seed: u64 = std::env::var("EXPR_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x0E59_2026);
    let mut rng = Rng(seed | 1);
    let sources: Vec<String> = (0..cases)
        .map(|_| {
            if rng.below(2) == 0 {
                num(&mut rng, 4).0
            } else {
                bool_(&mut rng, 4).0
            }
        })
        .collect();
    // Each expression is its own output value.
    let mut config = String::new();
    for (i, s) in sources.iter().enumerate() {
        config.push_str(&format!("output \"e{i}\" {{\n  value = {s}\n}}\n\n"));
    }

    let file = ecs_gpu_hcl::parse(&config).unwrap_or_else(|e| {
        let (l, c) = ecs_gpu_hcl::line_col(&config, e.span.start);
        panic!("{l}:{c}: {e}")
    });
    let ours: Vec<String> = file
        .body
        .items
        .iter()
        .map(|item| {
            let Item::Block(b) = item else { panic!() };
            let Item::Attribute(a) = &b.body.items[0] else {
                panic!()
            };
            match eval(&a.value) {
                V::N(n) => n.to_string(),
                V::B(b) => b.to_string(),
            }
        })
        .collect();

    let dir = std::env::temp_dir().join(format!("ecs-gpu-hcl-exprs-{}", std::process::id()));
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
    let out = tf(&["output", "-json"]);
    let _ = std::fs::remove_dir_all(&dir);

    // {"e0": {"sensitive": false, "type": "number", "value": 3}, ...}
    let json = ecs_gpu_hcl::json::parse(&out).expect("terraform output is JSON");
    let ecs_gpu_hcl::json::JsonValue::Object(members) = json.value else {
        panic!("{out}")
    };
    let mut theirs = vec![String::new(); cases];
    for m in members {
        let i: usize = m.key[1..].parse().expect("eN");
        let ecs_gpu_hcl::json::JsonValue::Object(fields) = m.value.value else {
            panic!()
        };
        let value = fields
            .into_iter()
            .find(|f| f.key == "value")
            .expect("value");
        theirs[i] = match value.value.value {
            ecs_gpu_hcl::json::JsonValue::Number(n) => n,
            ecs_gpu_hcl::json::JsonValue::Bool(b) => b.to_string(),
            other => panic!("{other:?}"),
        };
    }
    let mut failures = Vec::new();
    for i in 0..cases {
        if ours[i] != theirs[i] {
            failures.push(format!(
                "e{i} = {}\n  terraform: {}\n  ours:      {}",
                sources[i], theirs[i], ours[i]
            ));
        }
    }
    eprintln!(
        "{cases} expressions evaluated, {} differ from Terraform",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
