//! Never panic, never hang: hostile and broken input, and property tests over random input.

mod common;

use common::*;
use ecs_gpu_model::UnknownReason;
use proptest::prelude::*;

#[test]
fn deep_nesting_is_a_problem_or_a_value_never_a_crash() {
    let deep = format!(
        "locals {{\n  x = {}1{}\n}}\n",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    let deep_obj = format!(
        "locals {{\n  y = {}1{}\n}}\n",
        "{ a = ".repeat(5_000),
        " }".repeat(5_000)
    );
    let deep_json = format!(
        "{{\"containerDefinitions\": [{}1{}]}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let deep_call = format!(
        "resource \"t\" \"t\" {{\n  x = {}1{}\n}}\n",
        "abs(".repeat(3_000),
        ")".repeat(3_000)
    );
    let (_d, m) = load(&[
        ("deep.tf", &deep),
        ("obj.tf", &deep_obj),
        ("td.json", &deep_json),
        ("call.tf", &deep_call),
        ("ok.tf", "resource \"t\" \"ok\" {}\n"),
    ]);
    assert!(m.resources.iter().any(|r| r.name == "ok"));
}

#[test]
fn huge_files_are_refused_with_their_path() {
    let dir = write(&[("ok.tf", "resource \"t\" \"ok\" {}\n")]);
    let f = std::fs::File::create(dir.path().join("huge.tf")).unwrap();
    f.set_len(40 * 1024 * 1024).unwrap();
    let m = load_dir(dir.path());
    assert!(m.problems.iter().any(|p| p.path.ends_with("huge.tf")));
    assert!(m.resources.iter().any(|r| r.name == "ok"));
}

#[test]
fn templates_and_modules_that_reference_themselves() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "resource \"t\" \"t\" {\n  x = templatefile(\"self.tpl\", {})\n  y = module.loop.out\n}\nmodule \"loop\" {\n  source = \"./loop\"\n}\n",
        ),
        ("self.tpl", "a ${templatefile(\"self.tpl\", {})} b"),
        (
            "loop/main.tf",
            "module \"again\" {\n  source = \"../loop\"\n}\noutput \"out\" { value = module.again.out }\n",
        ),
    ]);
    let t = root_resource(&m, "t", "t");
    assert!(t.body.attr("x").unwrap().is_unknown());
    assert!(t.body.attr("y").unwrap().is_unknown());
}

#[test]
fn outputs_and_inputs_in_a_cycle() {
    let (_d, m) = load(&[
        (
            "main.tf",
            "module \"a\" {\n  source = \"./a\"\n  v = module.a.out\n}\nresource \"t\" \"t\" { x = module.a.out }\n",
        ),
        ("a/main.tf", "variable \"v\" {}\noutput \"out\" { value = var.v }\n"),
    ]);
    let x = root_resource(&m, "t", "t").body.attr("x").unwrap().clone();
    assert_eq!(reason(&x), UnknownReason::Error);
}

#[test]
fn a_data_source_argument_that_references_itself() {
    let n = eval_with(
        "data \"aws_x\" \"d\" { name = data.aws_x.d.name }",
        "data.aws_x.d.name",
    );
    assert!(n.is_unknown());
}

#[test]
fn unreadable_folders_are_skipped() {
    let dir = write(&[
        ("ok.tf", "resource \"t\" \"ok\" {}\n"),
        ("locked/x.tf", "resource \"t\" \"x\" {}\n"),
    ]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("locked"),
            std::fs::Permissions::from_mode(0o000),
        )
        .unwrap();
    }
    let m = load_dir(dir.path());
    assert!(m.resources.iter().any(|r| r.name == "ok"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("locked"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
}

#[test]
fn paths_that_do_not_exist_are_problems() {
    let m = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: vec!["/definitely/not/here".into()],
        ..Default::default()
    });
    assert_eq!(m.problems.len(), 1);
}

/// Pieces of Terraform syntax, to build inputs that reach deep into the parser and evaluator.
const TOKENS: &[&str] = &[
    "resource \"aws_ecs_task_definition\" \"t\" {",
    "data \"aws_ssm_parameter\" \"p\" {",
    "module \"m\" {",
    "source = \"./\"",
    "locals {",
    "variable \"v\" {",
    "dynamic \"tag\" {",
    "content {",
    "lifecycle {",
    "ignore_changes = [",
    "}",
    "]",
    "{",
    "[",
    "(",
    ")",
    "=",
    ",",
    "\n",
    "x",
    "count",
    "for_each",
    "count.index",
    "each.key",
    "local.x",
    "local.y",
    "var.v",
    "module.m.o",
    "data.aws_ssm_parameter.p.name",
    "aws_x.y.z",
    "jsonencode(",
    "templatefile(\"t.tpl\", ",
    "file(\"../x\")",
    "try(",
    "can(",
    "format(\"%s%d\", ",
    "for k, v in ",
    " : ",
    " => ",
    "...",
    " if ",
    "? ",
    "\"${",
    "%{ for x in ",
    "%{ endfor }",
    "%{ if ",
    "%{ endif }",
    "\"",
    "1",
    "-1.5e3",
    "null",
    "true",
    "[*]",
    ".*",
    "<<EOT\n",
    "\nEOT\n",
    "#",
    "/*",
    "*/",
    "&&",
    "||",
    "!",
    "%",
    "/",
    "==",
    "é",
    "\u{0}",
];

fn syntax_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|v| v.join(" "))
}

/// Random but well-formed expressions over the evaluator's functions and operators.
fn expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        any::<i16>().prop_map(|n| n.to_string()),
        "[a-z<>&]{0,6}".prop_map(|s| format!("\"{s}\"")),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("local.a".to_string()),
        Just("local.b".to_string()),
        Just("var.v".to_string()),
        Just("aws_x.y.id".to_string()),
        Just("data.aws_ssm_parameter.p.name".to_string()),
        Just("data.aws_ssm_parameter.p.value".to_string()),
        Just("each.key".to_string()),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        let funcs = prop::sample::select(vec![
            "jsonencode",
            "jsondecode",
            "tostring",
            "tonumber",
            "length",
            "upper",
            "concat",
            "merge",
            "flatten",
            "keys",
            "values",
            "join",
            "split",
            "format",
            "coalesce",
            "lookup",
            "element",
            "try",
            "can",
            "base64encode",
            "base64decode",
            "min",
            "max",
            "abs",
            "toset",
            "tolist",
            "tomap",
            "distinct",
            "sort",
            "reverse",
            "one",
            "range",
            "zipmap",
            "replace",
            "substr",
            "regex",
            "templatefile",
            "file",
            "nosuchfunction",
        ]);
        prop_oneof![
            (funcs, prop::collection::vec(inner.clone(), 0..4))
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-c]", inner.clone()), 0..4).prop_map(|v| {
                format!(
                    "{{ {} }}",
                    v.into_iter()
                        .map(|(k, e)| format!("{k} = {e}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/", "%", "==", "!=", "<", "&&", "||"]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
            (inner.clone(), inner.clone()).prop_map(|(c, b)| format!("[for x in {c} : {b}]")),
            (inner.clone(), inner.clone())
                .prop_map(|(c, b)| format!("{{ for k, x in {c} : k => {b}... }}")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("\"a${{{a}}}%{{ if {b} }}x%{{ endif }}\"")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}[{b}]")),
            inner.clone().prop_map(|a| format!("{a}[*].k")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))), ..ProptestConfig::default() })]

    #[test]
    fn load_never_panics_on_syntax_soup(a in syntax_soup(), b in syntax_soup(), j in syntax_soup()) {
        let dir = write(&[("a.tf", &a), ("b.tf.json", &b), ("c.json", &format!("{{\"containerDefinitions\": [{j}]}}")), ("terraform.tfvars", &j), ("t.tpl", &a)]);
        let m = load_dir(dir.path());
        prop_assert!(!m.problems.iter().any(|p| p.message.contains("internal")), "{:?}", m.problems);
        // Everything loaded must be addressable.
        for r in &m.resources {
            let _ = m.file(r.loc.file);
            let _ = m.module(r.module);
        }
    }

    #[test]
    fn load_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let dir = write(&[]);
        std::fs::write(dir.path().join("x.tf"), &bytes).unwrap();
        std::fs::write(dir.path().join("x.tf.json"), &bytes).unwrap();
        std::fs::write(dir.path().join("x.json"), [b"{\"containerDefinitions\":".as_slice(), &bytes].concat()).unwrap();
        let m = load_dir(dir.path());
        prop_assert!(!m.problems.iter().any(|p| p.message.contains("internal")), "{:?}", m.problems);
    }

    #[test]
    fn load_never_panics_on_module_manifests(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        entries in prop::collection::vec(
            (
                prop::sample::select(vec!["", "m", "m.n", "m.m", "x"]),
                prop::sample::select(vec!["acme/m/aws", "registry.terraform.io/acme/m/aws", "./m", "", "git::x?ref=1"]),
                prop::sample::select(vec![".", "", "..", "../..", "/", ".terraform/modules/m", ".terraform/modules/m/../../..", "main.tf", "\\u0000", "é/"]),
                prop::sample::select(vec!["", "1.0.0", "1.2.0-rc.1", "v2", "latest", "1..0", "1.0.0+"]),
            ),
            0..6,
        ),
        call_version in prop::sample::select(vec!["", "  version = \"~> 1.0\"\n", "  version = \">= 2, < 3\"\n", "  version = \"^1\"\n", "  version = var.v\n", "  version = null\n", "  version = 1\n", "  version = \"\"\n"]),
        as_bytes in any::<bool>(),
    ) {
        let manifest = if as_bytes {
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let list: Vec<String> = entries
                .iter()
                .map(|(k, s, d, v)| format!(r#"{{"Key":"{k}","Source":"{s}","Version":"{v}","Dir":"{d}"}}"#))
                .collect();
            format!(r#"{{"Modules":[{}]}}"#, list.join(","))
        };
        let dir = write(&[
            ("main.tf", &format!("module \"m\" {{\n  source = \"acme/m/aws\"\n{call_version}}}\nresource \"t\" \"r\" {{ x = module.m.o }}\n")),
            (".terraform/modules/m/main.tf", "module \"n\" {\n  source = \"acme/m/aws\"\n}\nmodule \"m\" {\n  source = \"acme/m/aws\"\n}\noutput \"o\" { value = 1 }\n"),
            (".terraform/modules/modules.json", &manifest),
        ]);
        let m = load_dir(dir.path());
        prop_assert!(!m.problems.iter().any(|p| p.message.contains("internal")), "{:?}", m.problems);
        // The root is always loaded, whatever the manifest says.
        prop_assert!(m.resources.iter().any(|r| r.name == "r"));
    }

    #[test]
    fn random_expressions_evaluate_without_panic(e in expr(), a in expr(), b in expr()) {
        let text = format!(
            "variable \"v\" {{}}\ndata \"aws_ssm_parameter\" \"p\" {{ name = \"n\" }}\nlocals {{\n  a = {a}\n  b = {b}\n}}\nresource \"t\" \"t\" {{\n  for_each = {{ k = 1 }}\n  x = {e}\n  j = jsonencode({e})\n}}\n"
        );
        let dir = write(&[("main.tf", &text), ("t.tpl", "${x}")]);
        let m = load_dir(dir.path());
        prop_assert!(m.problems.is_empty(), "{:?}\n{}", m.problems, text);
        for r in &m.resources {
            if let Some(j) = r.body.attr("j") {
                // A known jsonencode text is valid JSON.
                if let Some(t) = j.as_str() {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(&t).is_ok(), "{}", t);
                }
            }
        }
    }
}

/// The kept corpus of hostile inputs: each file alone, and all together, load without a panic.
#[test]
fn the_hostile_corpus_loads() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert!(names.len() >= 10);
    for p in &names {
        // Alone in a folder (a file named alone brings its folder's other files along).
        let alone = tempfile::tempdir().unwrap();
        let copy = alone.path().join(p.file_name().unwrap());
        std::fs::copy(p, &copy).unwrap();
        let m = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
            paths: vec![copy],
            ..Default::default()
        });
        assert!(
            !m.problems.iter().any(|p| p.message.contains("internal")),
            "{}: {:?}",
            p.display(),
            m.problems
        );
    }
    let m = load_dir(&dir);
    assert!(!m.problems.iter().any(|p| p.message.contains("internal")));
}

#[cfg(unix)]
#[test]
fn fifos_are_never_read() {
    let dir = write(&[(
        "main.tf",
        "resource \"t\" \"t\" { x = file(\"${path.module}/pipe.txt\") }\n",
    )]);
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe.txt"))
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe.tf"))
        .status();
    if !made {
        return;
    }
    let m = load_dir(dir.path());
    let x = find(&m, "t", "t").body.attr("x").unwrap().clone();
    assert_eq!(reason(&x), UnknownReason::Error);
}

#[test]
fn locals_that_double_do_not_exhaust_memory() {
    let mut text = String::from("locals {\n  l0 = [\"x\"]\n");
    for i in 1..60 {
        text.push_str(&format!("  l{i} = [local.l{p}, local.l{p}]\n", p = i - 1));
    }
    text.push_str("}\nresource \"t\" \"t\" { x = local.l59 }\n");
    let (_d, m) = load(&[("main.tf", &text)]);
    assert!(find(&m, "t", "t")
        .body
        .attr("x")
        .unwrap()
        .to_json_text()
        .is_none());
}

#[test]
fn nested_for_expressions_end() {
    let n = eval(
        "length(flatten([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]))",
    );
    assert!(n.is_unknown());
}

#[test]
fn strings_that_double_do_not_exhaust_memory() {
    let mut text = String::from("locals {\n  s0 = \"xxxxxxxxxxxxxxxx\"\n");
    for i in 1..64 {
        text.push_str(&format!(
            "  s{i} = \"${{local.s{p}}}${{local.s{p}}}\"\n",
            p = i - 1
        ));
    }
    for i in 64..80 {
        text.push_str(&format!(
            "  s{i} = join(\"\", [local.s{p}, local.s{p}])\n",
            p = i - 1
        ));
    }
    text.push_str("}\nresource \"t\" \"t\" { x = local.s79 }\n");
    let (_d, m) = load(&[("main.tf", &text)]);
    assert!(find(&m, "t", "t").body.attr("x").unwrap().is_unknown());
}

/// A flat chain of operators is not nesting (Terraform accepts any length): 300 `+` terms, which
/// were refused as "nesting too deep", evaluate to their sum, and so does a chain of 100,000 terms,
/// with neither recursion as deep as the chain nor the evaluator's nesting limit in the way.
#[test]
fn long_operator_chains_evaluate() {
    for n in [300usize, 100_000] {
        let expr = vec!["1"; n].join(" + ");
        let v = eval(&expr);
        assert_eq!(v.as_f64(), Some(n as f64), "{n} terms");
    }
    // Left-associative all the way: 100 - 1 - 1 - ... is not 100 - (1 - (1 - ...)).
    let v = eval(&format!("100{}", " - 1".repeat(300)));
    assert_eq!(v.as_f64(), Some(-200.0));
    // An unknown term keeps the references of the whole chain.
    let v = eval(&format!(
        "1{} + aws_instance.x.id{}",
        " + 1".repeat(500),
        " + 1".repeat(500)
    ));
    assert!(v.is_unknown());
    assert_eq!(v.refs()[0].address, "aws_instance.x");
}
