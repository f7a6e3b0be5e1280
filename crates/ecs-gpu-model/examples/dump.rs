//! Prints the model of the given paths (a debugging aid): `cargo run -p ecs-gpu-model --example dump -- PATH`.
#![allow(clippy::print_stdout)]

fn main() {
    let paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths,
        ..Default::default()
    });
    for p in &model.problems {
        println!("problem: {p:?}");
    }
    for n in &model.notes {
        println!("note: {}", n.message);
    }
    for m in &model.modules {
        println!("module {:?} {:?} {}", m.id, m.address, m.dir.display());
    }
    for r in &model.resources {
        println!(
            "\n{} {}{}",
            model.module_address(r).unwrap_or("<root>"),
            model.local_address(r),
            if r.instances_unknown {
                " (instances unknown)"
            } else {
                ""
            }
        );
        print_body(&r.body, 1);
        if r.ignore_changes != ecs_gpu_model::IgnoreChanges::None {
            println!("  ignore_changes: {:?}", r.ignore_changes);
        }
    }
    for td in &model.task_definitions {
        println!("\ntask definition {:?}", td.origin);
        if let Some(c) = td.containers() {
            println!("  containers: {}", show(c));
        }
    }
}

fn print_body(b: &ecs_gpu_model::Body, depth: usize) {
    let pad = "  ".repeat(depth);
    for a in &b.attributes {
        println!("{pad}{} = {}", a.name, show(&a.value));
    }
    for bl in &b.blocks {
        println!("{pad}{} {:?} {{", bl.kind, bl.labels);
        print_body(&bl.body, depth + 1);
        println!("{pad}}}");
    }
    if !b.unknown_blocks.is_empty() {
        println!("{pad}unknown blocks: {:?}", b.unknown_blocks);
    }
}

fn show(n: &ecs_gpu_model::Node) -> String {
    use ecs_gpu_model::Value;
    match &n.value {
        Value::Unknown(u) => format!(
            "<unknown {:?} refs={:?} fragments={:?}>",
            u.reason,
            u.refs
                .iter()
                .map(|r| format!("{}{:?}.{}", r.address, r.key, r.attribute.join(".")))
                .collect::<Vec<_>>(),
            u.fragments
        ),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(o) => format!(
            "{{{}}}",
            o.entries
                .iter()
                .map(|e| format!("{} = {}", e.key, show(&e.value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Json(inner) => format!("jsonencode({})", show(inner)),
        Value::String(s) => format!("{s:?}"),
        Value::Number(x) => format!("{x}"),
        Value::Bool(b) => format!("{b}"),
        Value::Null => "null".into(),
    }
}
