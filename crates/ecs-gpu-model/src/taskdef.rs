//! The task definitions the rules read, built from an `aws_ecs_task_definition` resource's
//! evaluated body or from a task-definition JSON file. The driver calls these once a unit is
//! evaluated; the evaluator knows nothing of them.

use crate::json::{json_value_to_node, JsonLocs};
use crate::model::{Mode, Resource, TaskDefinition, TaskDefinitionOrigin};
use crate::value::{Node, Unknown, UnknownReason, Value};
use crate::FileId;

/// The task definition of an `aws_ecs_task_definition` resource (`None` for another resource).
pub(crate) fn resource_task_definition(r: &Resource) -> Option<TaskDefinition> {
    (r.mode == Mode::Managed && r.kind == "aws_ecs_task_definition").then(|| {
        let b = &r.body;
        // A JSON string is decoded, a template with unknown parts read as JSON with holes; a
        // `jsonencode` value is shared with the body (an `Arc`), not copied.
        let container_definitions = b.attr("container_definitions").map(|n| match &n.value {
            Value::String(_) | Value::Unknown(_) => n
                .json()
                .map(|c| c.into_owned())
                .unwrap_or_else(|| n.clone()),
            _ => n.clone(),
        });
        TaskDefinition {
            origin: TaskDefinitionOrigin::Resource(r.id),
            loc: r.loc,
            family: b.attr("family").cloned(),
            requires_compatibilities: b.attr("requires_compatibilities").cloned(),
            cpu: b.attr("cpu").cloned(),
            memory: b.attr("memory").cloned(),
            network_mode: b.attr("network_mode").cloned(),
            operating_system_family: b
                .block("runtime_platform")
                .and_then(|p| p.body.attr("operating_system_family").cloned()),
            container_definitions,
            task_level: None,
            placement_constraints: b
                .blocks("placement_constraints")
                .map(|p| {
                    (
                        p.body.attr("type").cloned(),
                        p.body.attr("expression").cloned(),
                    )
                })
                .collect(),
        }
    })
}

/// A task definition from a JSON file. Strings holding `${...}` placeholders (a template that
/// is not filled in here) are unknown, not literal values.
pub(crate) fn json_task_definition(
    fid: FileId,
    json: ecs_gpu_hcl::json::Json,
) -> Option<TaskDefinition> {
    let obj = crate::walk::into_task_definition_object(json)?;
    let mut node = json_value_to_node(obj, JsonLocs::File(fid));
    placeholders_unknown(&mut node, 0);
    let loc = node.loc?;
    // The containers are moved out, not copied: they are most of the file.
    let container_definitions = match &mut node.value {
        Value::Object(o) => o
            .entries
            .iter()
            .position(|e| e.key == "containerDefinitions")
            .map(|i| o.entries.remove(i).value),
        _ => None,
    };
    let get = |k: &str| node.get(k).cloned();
    let os = node
        .get("runtimePlatform")
        .and_then(|p| p.get("operatingSystemFamily"))
        .cloned();
    let placement = node
        .get("placementConstraints")
        .and_then(|p| p.as_list())
        .map(|l| {
            l.iter()
                .map(|c| (c.get("type").cloned(), c.get("expression").cloned()))
                .collect()
        })
        .unwrap_or_default();
    Some(TaskDefinition {
        origin: TaskDefinitionOrigin::JsonFile(fid),
        loc,
        family: get("family"),
        requires_compatibilities: get("requiresCompatibilities"),
        cpu: get("cpu"),
        memory: get("memory"),
        network_mode: get("networkMode"),
        operating_system_family: os,
        container_definitions,
        task_level: Some(node),
        placement_constraints: placement,
    })
}

fn placeholders_unknown(n: &mut Node, depth: usize) {
    if depth > 256 {
        return;
    }
    match &mut n.value {
        Value::String(s) if s.contains("${") => {
            let fragments = s
                .split("${")
                .enumerate()
                .map(|(i, part)| {
                    if i == 0 {
                        part
                    } else {
                        part.split_once('}').map_or("", |x| x.1)
                    }
                })
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect();
            n.value = Value::Unknown(Box::new(Unknown {
                reason: UnknownReason::Unsupported,
                refs: Vec::new(),
                fragments,
                entries: Vec::new(),
                text: None,
            }));
        }
        Value::List(items) => items
            .iter_mut()
            .for_each(|i| placeholders_unknown(i, depth + 1)),
        Value::Object(o) => o
            .entries
            .iter_mut()
            .for_each(|e| placeholders_unknown(&mut e.value, depth + 1)),
        _ => {}
    }
}
