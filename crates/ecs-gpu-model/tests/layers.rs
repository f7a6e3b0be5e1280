//! The model crate's modules import one another in one direction only: the `crate::` paths of
//! `src/` form a graph with no cycle (values, then the evaluator, the functions, the loader's
//! state, its stages, the driver). A cycle fails the test, printed module by module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module a file belongs to: `src/eval.rs` is `eval`, `src/funcs/string.rs` is `funcs`.
fn module_of(src: &Path, file: &Path) -> String {
    let first = file.strip_prefix(src).unwrap().components().next().unwrap();
    let name = first.as_os_str().to_str().unwrap();
    name.strip_suffix(".rs").unwrap_or(name).to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The first name of every `crate::` path in `code`, with `crate::{a, b::c}` giving `a` and `b`.
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            out.push(ident(rest));
            continue;
        };
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.push(ident(&group[start..i]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(ident(&group[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    out
}

/// Which module imports which, from the code of `src/` (comments left out). `lib.rs` is the root
/// that declares the modules, not a layer.
fn import_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph = Graph::new();
    for file in &files {
        let from = module_of(&src, file);
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let to = graph.entry(from.clone()).or_default();
        for name in crate_paths(&code) {
            if name != from && name != "lib" && modules.contains(&name) {
                to.insert(name);
            }
        }
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
fn module_imports_form_a_dag() {
    let graph = import_graph();
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "the model crate's imports have a cycle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_evaluator_imports_only_values() {
    let graph = import_graph();
    let eval: Vec<&str> = graph["eval"].iter().map(String::as_str).collect();
    assert_eq!(eval, ["budget", "json", "value"]);
}

#[test]
fn the_functions_know_nothing_of_the_loader_or_the_driver() {
    let funcs = &import_graph()["funcs"];
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
    let graph = import_graph();
    let types: Vec<&str> = graph["types"].iter().map(String::as_str).collect();
    assert_eq!(types, ["eval", "funcs", "value"]);
}

#[test]
fn the_loaders_state_imports_none_of_its_stages() {
    let loader = &import_graph()["loader"];
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
    assert_eq!(import_graph()["decl"], BTreeSet::new());
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
fn grouped_and_nested_crate_paths_are_read() {
    let code =
        "use crate::{budget, eval::{EvalContext, Scope}, value::Node};\nlet x = crate::json::f();";
    assert_eq!(crate_paths(code), ["budget", "eval", "value", "json"]);
}
