#![allow(dead_code)]

use std::path::Path;

use ecs_gpu_model::{LoadOptions, Model, Node, Resource, UnknownReason, Value};

/// Writes files (path relative to a fresh temporary folder) and returns the folder.
pub fn write(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (p, text) in files {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }
    dir
}

pub fn load_dir(dir: &Path) -> Model {
    ecs_gpu_model::load(&LoadOptions {
        paths: vec![dir.to_path_buf()],
        ..Default::default()
    })
}

/// Loads the files and returns the model (the folder lives as long as the returned guard).
pub fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Model) {
    let dir = write(files);
    let model = load_dir(dir.path());
    (dir, model)
}

/// The value of `x` in `resource "t" "t" { x = EXPR }` with `locals` given.
pub fn eval(expr: &str) -> Node {
    eval_with("", expr)
}

pub fn eval_with(extra: &str, expr: &str) -> Node {
    let text = format!("{extra}\nresource \"t\" \"t\" {{\n  x = {expr}\n}}\n");
    let (_d, m) = load(&[("main.tf", &text)]);
    assert!(m.problems.is_empty(), "{expr}: {:?}", m.problems);
    let r = find(&m, "t", "t");
    r.body.attr("x").expect("x").clone()
}

pub fn find<'a>(m: &'a Model, kind: &str, name: &str) -> &'a Resource {
    m.resources
        .iter()
        .find(|r| r.kind == kind && r.name == name)
        .unwrap_or_else(|| panic!("no {kind}.{name}"))
}

pub fn root_resource<'a>(m: &'a Model, kind: &str, name: &str) -> &'a Resource {
    m.resources
        .iter()
        .find(|r| r.kind == kind && r.name == name && m.module(r.module).address.is_none())
        .unwrap_or_else(|| panic!("no root {kind}.{name}"))
}

pub fn json(n: &Node) -> String {
    n.to_json_text()
        .unwrap_or_else(|| panic!("not known: {n:?}"))
}

pub fn str_of(n: &Node) -> String {
    n.as_str()
        .unwrap_or_else(|| panic!("not a string: {n:?}"))
        .into_owned()
}

pub fn reason(n: &Node) -> UnknownReason {
    match &n.value {
        Value::Unknown(u) => u.reason,
        other => panic!("known: {other:?}"),
    }
}

pub fn fragments(n: &Node) -> Vec<String> {
    match &n.value {
        Value::Unknown(u) => u.fragments.clone(),
        other => panic!("known: {other:?}"),
    }
}
