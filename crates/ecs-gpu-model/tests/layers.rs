//! Every crate's modules import one another in one direction only: in each crate of `crates/`,
//! the paths its files name (`crate::`, `super::`, `self::`, a child module's) form a graph of
//! modules, one a file, with no cycle (a file may use its folder's `mod.rs`, the ground its parts
//! share, which dispatches to them). In the model crate: values, then the evaluator, the
//! functions, the loader's state, its stages, the driver. A cycle fails the test, printed module
//! by module. The crates themselves depend on one another from the top down ([`LAYERS`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module a file is: `src/eval.rs` is `eval`, `src/funcs/string.rs` is `funcs::string`,
/// `src/funcs/mod.rs` is `funcs`; `lib.rs` and `main.rs` are the crate's root, `""`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut names: Vec<&str> = rel.iter().map(|c| c.to_str().unwrap()).collect();
    if names.last() == Some(&"mod") || names == ["lib"] || names == ["main"] {
        names.pop();
    }
    names.join("::")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every path of two or more names in `code`, a group giving one path each:
/// `crate::{a, b::{c, D}}` gives `crate::a`, `crate::b::c` and `crate::b::D`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts =
            is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':');
        if !starts {
            i += 1;
            continue;
        }
        let end = path_tail(code, i, &mut Vec::new(), &mut out);
        i = end.max(i + 1);
    }
    out
}

/// Reads the path that starts at `at` after the names `prefix`, pushing each whole path of two
/// or more names to `out`; returns where it ends.
fn path_tail(
    code: &str,
    mut at: usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let bytes = code.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let depth = prefix.len();
    loop {
        at = skip_space(at);
        if bytes.get(at) == Some(&b'{') {
            at += 1;
            loop {
                at = skip_space(path_tail(code, at, prefix, out));
                match bytes.get(at) {
                    Some(b',') => at += 1,
                    Some(b'}') => {
                        at += 1;
                        break;
                    }
                    _ => break,
                }
            }
            prefix.truncate(depth);
            return at;
        }
        if bytes.get(at) == Some(&b'*') {
            prefix.push("*".into());
            at += 1;
            break;
        }
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        if at == start {
            break;
        }
        prefix.push(code[start..at].to_string());
        if code[at..].starts_with("::") {
            at += 2;
        } else {
            break;
        }
    }
    if prefix.len() > depth.max(1) {
        out.push(prefix.clone());
    }
    prefix.truncate(depth);
    at
}

/// Which module imports which in the crate whose sources are `src` (comments left out). The root
/// declares the modules and is not a layer.
fn import_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let mut graph = Graph::new();
    for file in &files {
        let from = module_of(src, file);
        if from.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let here: Vec<&str> = from.split("::").collect();
        let to = graph.entry(from.clone()).or_default();
        for path in paths(&code) {
            let mut names: Vec<&str> = Vec::new();
            let mut rest = path.iter().map(String::as_str).peekable();
            match rest.peek() {
                Some(&"crate") => {
                    rest.next();
                }
                Some(&"self") => {
                    rest.next();
                    names.extend(&here);
                }
                Some(&"super") => {
                    names.extend(&here);
                    while rest.peek() == Some(&"super") {
                        rest.next();
                        names.pop();
                    }
                }
                // A child module, named from its parent.
                Some(first) if modules.contains(&format!("{from}::{first}")) => names.extend(&here),
                _ => continue,
            }
            names.extend(rest);
            // The longest leading names that are a module: `crate::eval::Scope` is `eval`.
            let target = (1..=names.len())
                .rev()
                .map(|n| names[..n].join("::"))
                .find(|m| modules.contains(m));
            // A file may use its folder's `mod.rs`, the ground its parts share.
            let ancestor = |t: &String| from.starts_with(&format!("{t}::"));
            if let Some(target) = target.filter(|t| *t != from && !ancestor(t)) {
                to.insert(target);
            }
        }
    }
    graph
}

/// The model crate's graph with each module's files as one (`funcs` for `funcs::string`).
fn model_graph() -> Graph {
    let top = |m: &str| m.split("::").next().unwrap().to_string();
    let mut graph = Graph::new();
    for (from, to) in import_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")) {
        let set = graph.entry(top(&from)).or_default();
        set.extend(to.iter().map(|t| top(t)).filter(|t| *t != top(&from)));
    }
    graph
}

/// A cycle of the graph (its first module repeated at the end), if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        graph: &Graph,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(graph, next, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(graph, node, &mut Vec::new(), &mut done))
}

#[test]
fn every_crates_module_imports_form_a_dag() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut checked = Vec::new();
    let mut cycles = Vec::new();
    for entry in std::fs::read_dir(crates).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !dir.join("src").is_dir() {
            continue;
        }
        if let Some(cycle) = find_cycle(&import_graph(&dir.join("src"))) {
            cycles.push(format!("{name}: {}", cycle.join(" -> ")));
        }
        checked.push(name);
    }
    assert!(
        cycles.is_empty(),
        "module imports with a cycle:\n{}",
        cycles.join("\n")
    );
    // The walk found the crates, this one and its neighbours.
    for name in ["ecs-gpu", "ecs-gpu-model", "ecs-gpu-plan", "ecs-gpu-rules"] {
        assert!(checked.iter().any(|c| c == name), "`{name}` not checked");
    }
}

#[test]
fn a_file_in_a_folder_is_a_module_of_its_own() {
    let graph = import_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph["funcs"].contains("funcs::string"), "{graph:?}");
    assert!(
        graph["funcs::string"].contains("funcs::format"),
        "{graph:?}"
    );
    assert!(!graph["funcs::string"].contains("funcs"), "{graph:?}");
}

#[test]
fn the_evaluator_imports_only_values() {
    let graph = model_graph();
    let eval: Vec<&str> = graph["eval"].iter().map(String::as_str).collect();
    assert_eq!(eval, ["budget", "json", "value"]);
}

#[test]
fn the_functions_know_nothing_of_the_loader_or_the_driver() {
    let funcs = &model_graph()["funcs"];
    for above in [
        "loader",
        "instances",
        "vars",
        "emit",
        "driver",
        "walk",
        "references",
        "files",
    ] {
        assert!(!funcs.contains(above), "funcs imports `{above}`");
    }
}

#[test]
fn the_type_conversion_knows_only_the_evaluator_the_functions_and_values() {
    let graph = model_graph();
    let types: Vec<&str> = graph["types"].iter().map(String::as_str).collect();
    assert_eq!(types, ["eval", "funcs", "value"]);
}

#[test]
fn the_loaders_state_imports_none_of_its_stages() {
    let loader = &model_graph()["loader"];
    for stage in [
        "instances",
        "vars",
        "types",
        "emit",
        "references",
        "files",
        "driver",
    ] {
        assert!(!loader.contains(stage), "loader imports `{stage}`");
    }
}

#[test]
fn the_declarations_import_no_other_module() {
    assert_eq!(model_graph()["decl"], BTreeSet::new());
}

#[test]
fn a_cycle_is_found_and_printed_in_order() {
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .into_iter()
        .fold(Graph::new(), |mut g, (from, to)| {
            g.entry(from.into()).or_default().insert(to.into());
            g
        });
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let mut acyclic = graph.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&acyclic), None);
}

#[test]
fn grouped_and_nested_paths_are_read() {
    let code = "use crate::{budget, eval::{EvalContext, Scope}, value::Node};\nlet x = super::json::f(a::b);\nuse super::*;";
    let read: Vec<String> = paths(code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        read,
        [
            "crate::budget",
            "crate::eval::EvalContext",
            "crate::eval::Scope",
            "crate::value::Node",
            "super::json::f",
            "a::b",
            "super::*"
        ]
    );
}

/// The crates of `crates/`, from the bottom up: a crate depends only on crates of the layers below
/// its own. The GPU stack as Terraform describes it (`ecs-gpu-stack`) reads the model and feeds
/// the simulator; the rules and the binary read it; it knows neither. The generators
/// (`ecs-gpu-generate`, run by `scripts/generate.sh`) are a binary beside `ecs-gpu`: they read the
/// catalog, the HCL parser and the rules' docs, and nothing depends on them. How every command
/// opens a file (`ecs-gpu-fs`) is at the bottom, below every reader.
const LAYERS: &[&[&str]] = &[
    &[
        "ecs-gpu-catalog",
        "ecs-gpu-fs",
        "ecs-gpu-hcl",
        "ecs-gpu-report",
    ],
    &["ecs-gpu-model", "ecs-gpu-query", "ecs-gpu-route"],
    &["ecs-gpu-sim"],
    &["ecs-gpu-diagnose", "ecs-gpu-plan", "ecs-gpu-stack"],
    &["ecs-gpu-aws", "ecs-gpu-rules"],
    &["ecs-gpu", "ecs-gpu-generate"],
];

/// The crates of this workspace a manifest depends on, in any of its dependency tables.
fn workspace_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line.trim_end_matches(']').ends_with("dependencies");
        } else if in_dependencies && line.starts_with("ecs-gpu") {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            out.insert(name.to_string());
        }
    }
    out
}

#[test]
fn every_crate_depends_only_on_the_layers_below_it() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let layer = |name: &str| LAYERS.iter().position(|l| l.contains(&name));
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(crates).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Some(own) = layer(&name) else {
            wrong.push(format!("`{name}` is in no layer: add it to LAYERS"));
            continue;
        };
        for dependency in workspace_dependencies(&manifest) {
            if layer(&dependency).is_none_or(|l| l >= own) {
                wrong.push(format!("`{name}` depends on `{dependency}`, not below it"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_dependency_upward_or_aside_is_found() {
    let manifest = "[dependencies]\necs-gpu-catalog.workspace = true\n\
        ecs-gpu-rules = { path = \"../ecs-gpu-rules\" }\n[dev-dependencies]\n\
        ecs-gpu-plan = { path = \"../ecs-gpu-plan\" }\n[lints]\nworkspace = true\n";
    let found: Vec<String> = workspace_dependencies(manifest).into_iter().collect();
    assert_eq!(found, ["ecs-gpu-catalog", "ecs-gpu-plan", "ecs-gpu-rules"]);
}
