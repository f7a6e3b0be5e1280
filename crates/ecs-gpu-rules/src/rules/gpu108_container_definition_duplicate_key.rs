use ecs_gpu_model::{Entry, Model, Node, Value};

use crate::task::{
    containers, containers_in_json, is_gpu_requirement, is_gpu_task, task_definitions,
    TASK_DEFINITIONS,
};
use crate::{declare_rule, Findings, Severity};

declare_rule! {
    /// ## What it checks
    ///
    /// An object in a container definition that repeats a key with another value, such as a
    /// container with `environment = []` and, further down, a second `environment = [...]`. Only the
    /// last value counts: Terraform keeps it of a `jsonencode` object, and ECS of JSON text (a
    /// heredoc, a task-definition file). It is an **error** when a dropped value held a GPU
    /// `resourceRequirements` entry or `NVIDIA_DRIVER_CAPABILITIES`, a **warning** otherwise, and
    /// then only in a task definition that reserves GPUs: elsewhere it is not a GPU matter. A key
    /// repeated with the same value, or whose dropped value is empty (`environment = []` before the
    /// real list), loses nothing and is not reported.
    ///
    /// ## Why it matters
    ///
    /// The configuration says two things and only one reaches ECS, without any message from
    /// `terraform validate`, `plan` or `apply`. When the dropped value was the GPU requirement, the
    /// container runs without a GPU; when it was the driver capabilities, without the libraries it
    /// needs. Even when nothing GPU-related is lost, the next reader edits the value that does not
    /// count.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// container_definitions = jsonencode([{
    ///   name                 = "model"
    ///   image                = "model:1"
    ///   resourceRequirements = [{ type = "GPU", value = "1" }]
    ///   environment          = [{ name = "MODEL", value = "llama" }]
    ///   # ... forty lines later ...
    ///   resourceRequirements = []
    /// }])
    /// ```
    ///
    /// ## How to fix
    ///
    /// Keep one entry per key, and merge what the repeated ones meant to say.
    pub static RULE = {
        id: "GPU108",
        name: "container-definition-duplicate-key",
        severity: Warning,
        summary: "an object in a container definition repeats a key, and only the last value counts",
        reads: { analyses: [TASK_DEFINITIONS] },
        check: check,
    }
}

/// Whether a dropped value held something the GPU chain needs.
fn holds_gpu_link(e: &Entry) -> Option<&'static str> {
    let list = e.value.as_list()?;
    if e.key == "resourceRequirements" && list.iter().any(is_gpu_requirement) {
        return Some("a GPU requirement");
    }
    if e.key == "environment"
        && list.iter().any(|i| {
            i.get("name").is_some_and(
                |n| matches!(&n.value, Value::String(s) if s == super::gpu105_nvidia_driver_capabilities::VARIABLE),
            )
        })
    {
        return Some("`NVIDIA_DRIVER_CAPABILITIES`");
    }
    None
}

fn visit<'a>(node: &'a Node, out: &mut Vec<(&'a Entry, Option<&'a Entry>)>) {
    match &node.value {
        Value::Object(o) => {
            for d in &o.discarded {
                out.push((d, o.entries.iter().find(|e| e.key == d.key)));
            }
            for e in o.entries.iter().chain(&o.discarded) {
                visit(&e.value, out);
            }
        }
        Value::List(items) => items.iter().for_each(|i| visit(i, out)),
        Value::Json(inner) => visit(inner, out),
        _ => {}
    }
}

/// Whether dropping the value loses nothing: it is known and empty (`[]`, `{}`, `""`, `null`), or
/// both values are known and the same.
fn loses_nothing(dropped: &Entry, kept: Option<&Entry>) -> bool {
    let empty = match &dropped.value.value {
        Value::Null => true,
        Value::List(items) => items.is_empty(),
        Value::Object(o) => o.entries.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    };
    empty
        || match (
            dropped.value.to_json_text(),
            kept.and_then(|k| k.value.to_json_text()),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for td in task_definitions(model) {
        let gpu_task = is_gpu_task(td);
        // Of JSON text, the JSON reader keeps the last value; of a `jsonencode` object, Terraform.
        let who = if containers_in_json(td) {
            "only the last value counts"
        } else {
            "Terraform drops the earlier value"
        };
        let containers = containers(td).known;
        let found: Vec<_> = containers
            .iter()
            .map(|c| {
                let mut found = Vec::new();
                visit(c.node, &mut found);
                found
            })
            .collect();
        // A task meant to reserve GPUs: it does, or a dropped value held its GPU requirement.
        let gpu_task = gpu_task
            || found
                .iter()
                .flatten()
                .any(|(dropped, _)| holds_gpu_link(dropped).is_some());
        if !gpu_task {
            continue;
        }
        for (c, found) in containers.iter().zip(found) {
            for (dropped, kept) in found {
                let lost = holds_gpu_link(dropped);
                if loses_nothing(dropped, kept) {
                    continue;
                }
                let mut message = format!(
                    "container {} repeats the key `{}`, and {who}",
                    c.display_name(),
                    dropped.key
                );
                if let Some(what) = lost {
                    message.push_str(&format!(", which held {what}"));
                }
                let mut b = report
                    .add(dropped.key_loc.or(dropped.value.loc), message)
                    .label(
                        kept.and_then(|k| k.key_loc),
                        "this later value is the one that counts",
                    )
                    .help(format!(
                        "keep one `{}` and merge the values into it",
                        dropped.key
                    ))
                    .task(td);
                if lost.is_some() {
                    b = b.severity(Severity::Error);
                }
                let _ = b;
            }
        }
    }
}
