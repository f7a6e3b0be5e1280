//! Generated differential cases: well-typed random expressions over the evaluator's functions and
//! operators (a fixed seed, so the list is the same on every run), each wrapped as
//! `try(jsonencode(EXPR), "ERROR")` so that errors are compared too. Terraform evaluates the whole
//! batch in one `apply` of a provider-free configuration. Skipped, with a note, when `terraform`
//! is not installed.

#![allow(clippy::print_stderr)]

mod common;

use std::process::Command;

const CASES: usize = 2000;
const SEED: u64 = 0x005e_edec_56f1;

struct Gen {
    state: u64,
}

#[derive(Clone, Copy)]
enum Ty {
    Num,
    Str,
    Bool,
    ListStr,
    ListNum,
    MapNum,
}

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn any_ty(&mut self) -> Ty {
        [
            Ty::Num,
            Ty::Str,
            Ty::Bool,
            Ty::ListStr,
            Ty::ListNum,
            Ty::MapNum,
        ][self.pick(6)]
    }

    fn gen(&mut self, ty: Ty, depth: usize) -> String {
        let leaf = depth == 0 || self.pick(4) == 0;
        match ty {
            Ty::Num => {
                if leaf {
                    return ["0", "1", "2", "3", "7", "10", "-4", "0.5", "2.5", "100"]
                        [self.pick(10)]
                    .into();
                }
                let d = depth - 1;
                match self.pick(16) {
                    0 => format!("length({})", self.gen(Ty::Str, d)),
                    1 => format!("length({})", self.gen(Ty::ListStr, d)),
                    2 => format!("max({}, {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    3 => format!("min({}, {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    4 => format!("abs({})", self.gen(Ty::Num, d)),
                    5 => format!("ceil({} / 2)", self.gen(Ty::Num, d)),
                    6 => format!("floor({} / 4)", self.gen(Ty::Num, d)),
                    7 => format!("({} + {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    8 => format!("({} - {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    9 => format!("({} * {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    10 => format!("({} % 3)", self.gen(Ty::Num, d)),
                    11 => format!("tonumber({})", self.gen(Ty::Str, d)),
                    12 => format!(
                        "element({}, {})",
                        self.gen(Ty::ListNum, d),
                        self.gen(Ty::Num, d)
                    ),
                    13 => format!(
                        "lookup({}, {}, {})",
                        self.gen(Ty::MapNum, d),
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Num, d)
                    ),
                    14 => format!("length({})", self.gen(Ty::MapNum, d)),
                    _ => format!(
                        "({} ? {} : {})",
                        self.gen(Ty::Bool, d),
                        self.gen(Ty::Num, d),
                        self.gen(Ty::Num, d)
                    ),
                }
            }
            Ty::Str => {
                if leaf {
                    return [
                        "\"\"",
                        "\"a\"",
                        "\"b\"",
                        "\"ab\"",
                        "\"a,b\"",
                        "\" x \"",
                        "\"<&>\"",
                        "\"é\"",
                        "\"10\"",
                        "\"g6.xlarge\"",
                        "\"A-b_c\"",
                    ][self.pick(11)]
                    .into();
                }
                let d = depth - 1;
                match self.pick(24) {
                    0 => format!("upper({})", self.gen(Ty::Str, d)),
                    1 => format!("lower({})", self.gen(Ty::Str, d)),
                    2 => format!(
                        "format(\"%s-%d\", {}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Num, d)
                    ),
                    3 => format!(
                        "join({}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::ListStr, d)
                    ),
                    4 => format!(
                        "replace({}, {}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                    5 => format!(
                        "substr({}, {}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Num, d),
                        self.gen(Ty::Num, d)
                    ),
                    6 => format!("trimspace({})", self.gen(Ty::Str, d)),
                    7 => format!("tostring({})", self.gen(Ty::Num, d)),
                    8 => format!(
                        "\"${{{}}}-${{{}}}\"",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Num, d)
                    ),
                    9 => format!("chomp({})", self.gen(Ty::Str, d)),
                    10 => format!("strrev({})", self.gen(Ty::Str, d)),
                    11 => format!(
                        "coalesce({}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                    12 => format!(
                        "element({}, {})",
                        self.gen(Ty::ListStr, d),
                        self.gen(Ty::Num, d)
                    ),
                    13 => format!("base64encode({})", self.gen(Ty::Str, d)),
                    14 => format!(
                        "trimprefix({}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                    15 => format!(
                        "format(\"%q|%5.1f|%v\", {}, {}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Num, d),
                        self.gen(Ty::Bool, d)
                    ),
                    16 => format!(
                        "({} ? {} : {})",
                        self.gen(Ty::Bool, d),
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                    17 => {
                        let t = self.any_ty();
                        format!("jsonencode({})", self.gen(t, d))
                    }
                    18 => format!("trim({}, \"ab\")", self.gen(Ty::Str, d)),
                    19 => format!(
                        "\"%{{ for x in {} }}[${{x}}]%{{ endfor }}\"",
                        self.gen(Ty::ListStr, d)
                    ),
                    20 => format!(
                        "\"%{{ if {} }}y%{{ else }}n%{{ endif }}\"",
                        self.gen(Ty::Bool, d)
                    ),
                    21 => format!("replace({}, \"/[a-c]+/\", \"_\")", self.gen(Ty::Str, d)),
                    22 => format!("title({})", self.gen(Ty::Str, d)),
                    _ => format!("indent(2, {})", self.gen(Ty::Str, d)),
                }
            }
            Ty::Bool => {
                if leaf {
                    return ["true", "false"][self.pick(2)].into();
                }
                let d = depth - 1;
                match self.pick(12) {
                    0 => format!("({} < {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    1 => format!("({} == {})", self.gen(Ty::Str, d), self.gen(Ty::Str, d)),
                    2 => format!(
                        "contains({}, {})",
                        self.gen(Ty::ListStr, d),
                        self.gen(Ty::Str, d)
                    ),
                    3 => format!(
                        "startswith({}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                    4 => format!(
                        "strcontains({}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                    5 => format!("!{}", self.gen(Ty::Bool, d)),
                    6 => format!("({} && {})", self.gen(Ty::Bool, d), self.gen(Ty::Bool, d)),
                    7 => format!("({} || {})", self.gen(Ty::Bool, d), self.gen(Ty::Bool, d)),
                    8 => {
                        let t = self.any_ty();
                        format!("can({})", self.gen(t, d))
                    }
                    9 => format!(
                        "({} != {})",
                        self.gen(Ty::ListNum, d),
                        self.gen(Ty::ListNum, d)
                    ),
                    10 => format!("({} >= {})", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    _ => format!(
                        "endswith({}, {})",
                        self.gen(Ty::Str, d),
                        self.gen(Ty::Str, d)
                    ),
                }
            }
            Ty::ListStr => {
                if leaf {
                    return ["[]", "[\"a\"]", "[\"b\", \"a\"]", "[\"x\", \"\", \"x\"]"]
                        [self.pick(4)]
                    .into();
                }
                let d = depth - 1;
                match self.pick(14) {
                    0 => format!("[{}, {}]", self.gen(Ty::Str, d), self.gen(Ty::Str, d)),
                    1 => format!("split({}, {})", self.gen(Ty::Str, d), self.gen(Ty::Str, d)),
                    2 => format!(
                        "concat({}, {})",
                        self.gen(Ty::ListStr, d),
                        self.gen(Ty::ListStr, d)
                    ),
                    3 => format!("distinct({})", self.gen(Ty::ListStr, d)),
                    4 => format!("sort({})", self.gen(Ty::ListStr, d)),
                    5 => format!("reverse({})", self.gen(Ty::ListStr, d)),
                    6 => format!("compact({})", self.gen(Ty::ListStr, d)),
                    7 => format!("keys({})", self.gen(Ty::MapNum, d)),
                    8 => format!("formatlist(\"%s!\", {})", self.gen(Ty::ListStr, d)),
                    9 => format!("[for x in {} : upper(x)]", self.gen(Ty::ListStr, d)),
                    10 => format!("tolist(toset({}))", self.gen(Ty::ListStr, d)),
                    11 => format!(
                        "flatten([{}, [{}]])",
                        self.gen(Ty::ListStr, d),
                        self.gen(Ty::Str, d)
                    ),
                    12 => format!("slice({}, 0, 1)", self.gen(Ty::ListStr, d)),
                    _ => format!("[for x in {} : x if x != \"\"]", self.gen(Ty::ListStr, d)),
                }
            }
            Ty::ListNum => {
                if leaf {
                    return ["[]", "[1]", "[3, 1, 2]", "[0.5, -1]"][self.pick(4)].into();
                }
                let d = depth - 1;
                match self.pick(7) {
                    0 => format!("[{}, {}]", self.gen(Ty::Num, d), self.gen(Ty::Num, d)),
                    1 => format!("range(abs({}) % 4)", self.gen(Ty::Num, d)),
                    2 => format!("values({})", self.gen(Ty::MapNum, d)),
                    3 => format!("[for x in {} : x * 2]", self.gen(Ty::ListNum, d)),
                    4 => format!(
                        "concat({}, {})",
                        self.gen(Ty::ListNum, d),
                        self.gen(Ty::ListNum, d)
                    ),
                    5 => format!("distinct({})", self.gen(Ty::ListNum, d)),
                    _ => format!("[for i, x in {} : i]", self.gen(Ty::ListStr, d)),
                }
            }
            Ty::MapNum => {
                if leaf {
                    return ["{}", "{ a = 1 }", "{ b = 2, a = 3 }"][self.pick(3)].into();
                }
                let d = depth - 1;
                match self.pick(6) {
                    0 => format!(
                        "{{ a = {}, b = {} }}",
                        self.gen(Ty::Num, d),
                        self.gen(Ty::Num, d)
                    ),
                    1 => format!(
                        "merge({}, {})",
                        self.gen(Ty::MapNum, d),
                        self.gen(Ty::MapNum, d)
                    ),
                    2 => format!(
                        "zipmap({}, {})",
                        self.gen(Ty::ListStr, d),
                        self.gen(Ty::ListNum, d)
                    ),
                    3 => format!(
                        "{{ for k, v in {} : upper(k) => v }}",
                        self.gen(Ty::MapNum, d)
                    ),
                    4 => format!(
                        "{{ for x in {} : x => length(x) }}",
                        self.gen(Ty::ListStr, d)
                    ),
                    _ => format!("tomap({})", self.gen(Ty::MapNum, d)),
                }
            }
        }
    }
}

fn cases() -> Vec<String> {
    // Another seed explores further: `ECS_GPU_DIFF_SEED=123 cargo test -p ecs-gpu-model`.
    let seed = std::env::var("ECS_GPU_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEED);
    let mut g = Gen { state: seed.max(1) };
    (0..CASES)
        .map(|_| {
            let ty = g.any_ty();
            g.gen(ty, 4)
        })
        .collect()
}

#[test]
fn generated_expressions_agree_with_terraform() {
    let cases = cases();
    let wrap = |c: &str| format!("try(jsonencode({c}), \"ERROR\")");
    let mut main = String::from("resource \"t\" \"t\" {\n");
    for (i, c) in cases.iter().enumerate() {
        main.push_str(&format!("  c{i} = {}\n", wrap(c)));
    }
    main.push_str("}\n");
    let (_dir, model) = common::load(&[("main.tf", &main)]);
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let r = common::find(&model, "t", "t");
    let ours: Vec<Option<String>> = (0..cases.len())
        .map(|i| {
            r.body
                .attr(&format!("c{i}"))
                .and_then(|n| n.as_str().map(|s| s.into_owned()))
        })
        .collect();
    let unknown = ours.iter().filter(|o| o.is_none()).count();
    if !Command::new("terraform")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("note: terraform is not installed; the generated differential test is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut tf = String::new();
    for (i, c) in cases.iter().enumerate() {
        tf.push_str(&format!("output \"c{i}\" {{\n  value = {}\n}}\n", wrap(c)));
    }
    std::fs::write(dir.path().join("main.tf"), tf).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new("terraform")
            .args(args)
            .current_dir(dir.path())
            .env("CHECKPOINT_DISABLE", "1")
            .output()
            .expect("terraform runs");
        assert!(
            out.status.success(),
            "terraform {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    run(&["init", "-input=false", "-no-color"]);
    run(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    let v: serde_json::Value = serde_json::from_slice(&run(&["output", "-json"])).unwrap();
    let mut mismatches = Vec::new();
    let mut errors = 0;
    for (i, c) in cases.iter().enumerate() {
        let theirs = v
            .get(format!("c{i}"))
            .and_then(|o| o.get("value"))
            .and_then(|s| s.as_str())
            .map(str::to_string);
        if theirs.as_deref() == Some("ERROR") {
            errors += 1;
        }
        // Unknown here is allowed (no rule reads it); a different known value is not.
        if ours[i].is_some() && ours[i] != theirs {
            mismatches.push(format!(
                "  {c}\n    terraform: {theirs:?}\n    project:   {:?}",
                ours[i]
            ));
        }
    }
    eprintln!(
        "generated differential: {} cases ({} errors in Terraform, {} unknown here), {} agree or are unknown",
        cases.len(),
        errors,
        unknown,
        cases.len() - mismatches.len()
    );
    assert!(unknown * 100 <= cases.len(), "{unknown} cases unknown here");
    assert!(
        mismatches.is_empty(),
        "{} of {} generated cases differ:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}
