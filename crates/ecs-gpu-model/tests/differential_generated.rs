//! Generated differential cases: well-typed random expressions over the evaluator's functions and
//! operators (a fixed seed, so the list is the same on every run), each wrapped as
//! `try(jsonencode(EXPR), "ERROR")` so that errors are compared too. Terraform evaluates the whole
//! batch in one `apply` of a provider-free configuration. Skipped, with a note, when `terraform`
//! is not installed.
//!
//! Values here do not tell a list from a tuple or a set, nor a map from an object; the generator
//! keeps set results inside `tolist(...)` (or a `for` straight over the set call) where Terraform
//! would treat the two differently (`concat` refuses sets), as real configurations do.

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

    /// An expression of the type: a leaf, or one of the templates with its holes filled. In a
    /// template, `{N}`, `{S}`, `{B}`, `{LS}`, `{LN}`, `{M}` and `{ANY}` are holes of that type.
    fn gen(&mut self, ty: Ty, depth: usize) -> String {
        let (leaves, templates): (&[&str], &[&str]) = match ty {
            Ty::Num => (
                &["0", "1", "2", "3", "7", "10", "-4", "0.5", "2.5", "100"],
                &[
                    "length({S})",
                    "length({LS})",
                    "max({N}, {N})",
                    "min({N}, {N})",
                    "abs({N})",
                    "ceil({N} / 2)",
                    "floor({N} / 4)",
                    "({N} + {N})",
                    "({N} - {N})",
                    "({N} * {N})",
                    "({N} % 3)",
                    "tonumber({S})",
                    "element({LN}, {N})",
                    "lookup({M}, {S}, {N})",
                    "length({M})",
                    "({B} ? {N} : {N})",
                    "length(split(\",\", {S}))",
                    "index({LS}, {S})",
                    "parseint({S}, 10)",
                    "sum({LN})",
                    "pow({N}, 2)",
                    "signum({N})",
                    "length(setunion({LS}, {LS}))",
                    "(-{N} / 4)",
                    "one({LN})",
                    "{LN}[0]",
                    "{M}[\"a\"]",
                    "{M}.b",
                    "length({ANY})",
                ],
            ),
            Ty::Str => (
                &[
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
                ],
                &[
                    "upper({S})",
                    "lower({S})",
                    "format(\"%s-%d\", {S}, {N})",
                    "join({S}, {LS})",
                    "replace({S}, {S}, {S})",
                    "substr({S}, {N}, {N})",
                    "trimspace({S})",
                    "tostring({N})",
                    "\"${{S}}-${{N}}\"",
                    "chomp({S})",
                    "strrev({S})",
                    "coalesce({S}, {S})",
                    "element({LS}, {N})",
                    "base64encode({S})",
                    "trimprefix({S}, {S})",
                    "format(\"%q|%5.1f|%v\", {S}, {N}, {B})",
                    "({B} ? {S} : {S})",
                    "jsonencode({ANY})",
                    "trim({S}, \"ab\")",
                    "\"%{ for x in {LS} }[${x}]%{ endfor }\"",
                    "\"%{ if {B} }y%{ else }n%{ endif }\"",
                    "replace({S}, \"/[a-c]+/\", \"_\")",
                    "title({S})",
                    "indent(2, {S})",
                    "format(\"%05.1f|%-4s|%x|%t\", {N}, {S}, abs(floor({N})), {B})",
                    "lookup({ a = \"x\", b = \"y\" }, {S}, \"z\")",
                    "split(\",\", {S})[0]",
                    "regex(\"[a-z]+\", {S})",
                    "join(\"-\", sort({LS}))",
                    "\"${jsonencode({M})}\"",
                    "upper(substr({S}, 0, 1))",
                    "try({S}, \"t\")",
                    "one([{S}])",
                    "tostring({B})",
                    "trimsuffix({S}, \"b\")",
                    "element(split(\",\", {S}), {N})",
                    "format(\"%v\", {ANY})",
                    "\"${{N} + 1}\"",
                ],
            ),
            Ty::Bool => (
                &["true", "false"],
                &[
                    "({N} < {N})",
                    "({S} == {S})",
                    "contains({LS}, {S})",
                    "startswith({S}, {S})",
                    "strcontains({S}, {S})",
                    "!{B}",
                    "({B} && {B})",
                    "({B} || {B})",
                    "can({ANY})",
                    "({LN} != {LN})",
                    "({N} >= {N})",
                    "endswith({S}, {S})",
                    "anytrue([{B}, {B}])",
                    "alltrue([{B}, {B}])",
                    "can(regex(\"^a\", {S}))",
                    "contains(keys({M}), {S})",
                    "tobool({S})",
                    "({N} == {N})",
                    "({S} != {S})",
                    "({ANY} == null)",
                ],
            ),
            Ty::ListStr => (
                &["[]", "[\"a\"]", "[\"b\", \"a\"]", "[\"x\", \"\", \"x\"]"],
                &[
                    "[{S}, {S}]",
                    "split({S}, {S})",
                    "concat({LS}, {LS})",
                    "distinct({LS})",
                    "sort({LS})",
                    "reverse({LS})",
                    "compact({LS})",
                    "keys({M})",
                    "formatlist(\"%s!\", {LS})",
                    "[for x in {LS} : upper(x)]",
                    "tolist(toset({LS}))",
                    "flatten([{LS}, [{S}]])",
                    "slice({LS}, 0, 1)",
                    "[for x in {LS} : x if x != \"\"]",
                    "regexall(\"[a-z]\", {S})",
                    "tolist(setunion({LS}, {LS}))",
                    "[for i, x in toset({LS}) : i]",
                    "tolist(setsubtract({LS}, {LS}))",
                    "tolist(setintersection({LS}, {LS}))",
                    "[for k, v in {M} : \"${k}=${v}\"]",
                    "formatlist(\"%s-%s\", {LS}, \"x\")",
                    "sort([for x in {LN} : tostring(x)])",
                    "values({ a = {S} })",
                    "[for o in [{ n = {S} }] : o.n]",
                    "[{ n = {S} }][*].n",
                ],
            ),
            Ty::ListNum => (
                &["[]", "[1]", "[3, 1, 2]", "[0.5, -1]"],
                &[
                    "[{N}, {N}]",
                    "range(abs({N}) % 4)",
                    "values({M})",
                    "[for x in {LN} : x * 2]",
                    "concat({LN}, {LN})",
                    "distinct({LN})",
                    "[for i, x in {LS} : i]",
                    "[for x in {LN} : x if x > 1]",
                    "reverse({LN})",
                    "flatten([{LN}, [{N}]])",
                    "tolist(toset({LN}))",
                ],
            ),
            Ty::MapNum => (
                &["{}", "{ a = 1 }", "{ b = 2, a = 3 }"],
                &[
                    "{ a = {N}, b = {N} }",
                    "merge({M}, {M})",
                    "zipmap({LS}, {LN})",
                    "{ for k, v in {M} : upper(k) => v }",
                    "{ for x in {LS} : x => length(x) }",
                    "tomap({M})",
                    "{ for k, v in {M} : k => v if v > 1 }",
                    "merge({M}, { c = {N} })",
                    "{ ({S}) = {N} }",
                    "zipmap(keys({M}), values({M}))",
                    "{ a = {N}, a = {N} }",
                ],
            ),
        };
        if depth == 0 || self.pick(4) == 0 {
            return leaves[self.pick(leaves.len())].to_string();
        }
        let template = templates[self.pick(templates.len())];
        let mut out = String::new();
        let mut rest = template;
        while let Some(i) = rest.find('{') {
            let hole = rest[i + 1..].find('}').map(|j| &rest[i + 1..i + 1 + j]);
            let ty = match hole {
                Some("N") => Some(Ty::Num),
                Some("S") => Some(Ty::Str),
                Some("B") => Some(Ty::Bool),
                Some("LS") => Some(Ty::ListStr),
                Some("LN") => Some(Ty::ListNum),
                Some("M") => Some(Ty::MapNum),
                Some("ANY") => Some(self.any_ty()),
                _ => None,
            };
            match (ty, hole) {
                (Some(t), Some(h)) => {
                    out.push_str(&rest[..i]);
                    out.push_str(&self.gen(t, depth - 1));
                    rest = &rest[i + 2 + h.len()..];
                }
                _ => {
                    out.push_str(&rest[..=i]);
                    rest = &rest[i + 1..];
                }
            }
        }
        out.push_str(rest);
        out
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
