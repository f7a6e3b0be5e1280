use ecs_gpu_model::{Model, Node, Value};

use crate::task::{containers, is_gpu_requirement, task_definitions, task_name, TASK_DEFINITIONS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A GPU requirement (`{ type = "GPU", ... }`) that ECS never reads:
    ///
    /// - at task level, outside every container definition (a task-definition JSON file with a
    ///   top-level `resourceRequirements`);
    /// - inside a container under a misspelt key (`resourceRequirement`, `resource_requirements`,
    ///   `resource-requirements`);
    /// - nested somewhere inside a container (under `linuxParameters`, say) instead of at the
    ///   container's top level.
    ///
    /// Keys that differ from `resourceRequirements` only in letter case are not reported: the AWS
    /// provider reads container definitions case-insensitively.
    ///
    /// ## Why it matters
    ///
    /// GPUs are reserved per container, only through the container's `resourceRequirements`. The AWS
    /// provider drops unknown keys from container definitions without a word, so the task registers
    /// and starts without a GPU: the container gets no `NVIDIA_VISIBLE_DEVICES`, no NVIDIA runtime,
    /// and the workload falls back to the CPU or crashes looking for CUDA. Placement ignores GPUs too,
    /// so the task can land on an instance whose GPUs are all taken.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// container_definitions = jsonencode([{
    ///   name                  = "model"
    ///   image                 = "nvcr.io/nvidia/tritonserver:24.08-py3"
    ///   resource_requirements = [{ type = "GPU", value = "1" }]
    /// }])
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the requirement at the container's top level, spelt `resourceRequirements`:
    ///
    /// ```hcl
    /// container_definitions = jsonencode([{
    ///   name                 = "model"
    ///   image                = "nvcr.io/nvidia/tritonserver:24.08-py3"
    ///   resourceRequirements = [{ type = "GPU", value = "1" }]
    /// }])
    /// ```
    pub static RULE = {
        id: "GPU102",
        name: "gpu-requirement-misplaced",
        severity: Error,
        summary: "a GPU requirement is outside a container definition or under a misspelt key",
        reads: { analyses: [TASK_DEFINITIONS] },
        check: check,
    }
}

const KEY: &str = "resourceRequirements";
/// The letters of [`KEY`] that every variant has: in lower case, without the final `s`.
const LETTERS: &str = "resourcerequirement";

/// `resourceRequirements` written another way: any case, `_` and `-` ignored, with or without the
/// final `s` (`resource_requirements`, `ResourceRequirement`). Compared without building a string:
/// every key of every container is asked.
fn is_variant(key: &str) -> bool {
    // A variant has the ASCII letters of `LETTERS`, a byte each: most keys are shorter, and are
    // rejected without looking at their letters.
    if key.len() < LETTERS.len() {
        return false;
    }
    let mut letters = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase);
    let mut expected = LETTERS.chars();
    if !expected.all(|e| letters.next() == Some(e)) {
        return false;
    }
    match letters.next() {
        None => true,
        Some('s') => letters.next().is_none(),
        Some(_) => false,
    }
}

/// The first GPU entry a `resourceRequirements`-like value certainly holds.
fn gpu_entry(value: &Node) -> Option<&Node> {
    match &value.value {
        Value::List(items) => items.iter().find(|e| is_gpu_requirement(e)),
        Value::Object(_) if is_gpu_requirement(value) => Some(value),
        _ => None,
    }
}

/// Nested objects of a container holding a GPU requirement: (key location, entry).
fn nested<'a>(node: &'a Node, out: &mut Vec<(&'a ecs_gpu_model::Entry, &'a Node)>) {
    match &node.value {
        Value::Object(o) => {
            for e in &o.entries {
                if is_variant(&e.key) {
                    if let Some(g) = gpu_entry(&e.value) {
                        out.push((e, g));
                        continue;
                    }
                }
                nested(&e.value, out);
            }
        }
        Value::List(items) => items.iter().for_each(|i| nested(i, out)),
        _ => {}
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for td in task_definitions(model) {
        if let Some(obj) = td.task_level.as_ref().and_then(Node::as_object) {
            for e in obj.entries.iter().filter(|e| is_variant(&e.key)) {
                if let Some(g) = gpu_entry(&e.value) {
                    report
                        .add(
                            e.key_loc.or(g.loc),
                            format!(
                                "the task definition {} has a GPU requirement at task level, outside every container definition",
                                task_name(model, td)
                            ),
                        )
                        .help(format!("move the entry into the `{KEY}` of the container that uses the GPU"))
                        .task(td);
                }
            }
        }
        for c in containers(td).known {
            let Some(obj) = c.node.as_object() else {
                continue;
            };
            for e in &obj.entries {
                if e.key == KEY || e.key.eq_ignore_ascii_case(KEY) {
                    continue;
                }
                if is_variant(&e.key) {
                    if let Some(g) = gpu_entry(&e.value) {
                        report
                            .add(
                                e.key_loc.or(g.loc),
                                format!(
                                    "container {} reserves GPUs under `{}`, a key ECS ignores",
                                    c.display_name(),
                                    e.key
                                ),
                            )
                            .help(format!("rename the key to `{KEY}`"))
                            .task(td);
                    }
                    continue;
                }
                let mut found = Vec::new();
                nested(&e.value, &mut found);
                for (inner, g) in found {
                    report
                        .add(
                            inner.key_loc.or(g.loc),
                            format!(
                                "container {} has a GPU requirement nested under `{}`, where ECS never reads it",
                                c.display_name(),
                                e.key
                            ),
                        )
                        .help(format!("move it to the container's top-level `{KEY}`"))
                        .task(td);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_variant, KEY, LETTERS};

    #[test]
    fn variants_of_the_key_are_recognised_and_nothing_else() {
        for k in [
            "resourceRequirements",
            "resourceRequirement",
            "resource_requirements",
            "Resource-Requirement",
            "RESOURCEREQUIREMENTS",
        ] {
            assert!(is_variant(k), "{k}");
        }
        for k in [
            "resourceRequirementss",
            "resourceRequirementx",
            "resourceRequire",
            "resources",
            "",
            "xresourceRequirements",
        ] {
            assert!(!is_variant(k), "{k}");
        }
    }

    #[test]
    fn letters_are_the_key_in_lower_case_without_its_s() {
        assert_eq!(format!("{LETTERS}s"), KEY.to_lowercase());
    }
}
