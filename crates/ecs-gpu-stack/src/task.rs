//! Reading task definitions: their containers and GPU requirements, with unknowns kept apart.
//!
//! Every helper answers only what is *known*: a container whose requirements are unknown is not
//! a GPU container here, and is not a non-GPU container either ([`Containers::complete`] says
//! whether every container could be read).

use crate::{reads, Reads};
use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Model, Node, TaskDefinition, TaskDefinitionOrigin, Value};

/// What the model reads to build [`Model::task_definitions`] from `aws_ecs_task_definition`
/// resources: a rule that reads task definitions reads these.
pub const TASK_DEFINITIONS: Reads = reads! {
    arguments: {
        "aws_ecs_task_definition": [
            "container_definitions",
            "cpu",
            "family",
            "memory",
            "network_mode",
            "placement_constraints",
            "requires_compatibilities",
            "runtime_platform",
        ],
    },
};

/// The task definitions that certainly exist: a resource whose instance count is unknown may have
/// none, so nothing may be concluded from it.
pub fn task_definitions(model: &Model) -> impl Iterator<Item = &TaskDefinition> {
    model
        .task_definitions
        .iter()
        .filter(move |td| is_checked(model, td))
}

/// Whether [`task_definitions`] yields this task definition.
pub fn is_checked(model: &Model, td: &TaskDefinition) -> bool {
    match td.origin {
        TaskDefinitionOrigin::Resource(id) => !model.resource(id).instances_unknown,
        TaskDefinitionOrigin::JsonFile(_) => true,
    }
}

/// Whether the task definition comes from a JSON file (remedies are then written in JSON).
pub fn is_json(td: &TaskDefinition) -> bool {
    matches!(td.origin, TaskDefinitionOrigin::JsonFile(_))
}

/// Whether the containers are written as JSON text: in a JSON file, or in a Terraform string (a
/// heredoc, a template, `templatefile`) rather than `jsonencode(...)`. Container-level remedies
/// are then written in JSON.
pub fn containers_in_json(td: &TaskDefinition) -> bool {
    is_json(td)
        || td
            .container_definitions
            .as_ref()
            .is_some_and(|n| !matches!(n.value, Value::Json(_)))
}

/// How a task definition is named in a message: its resource address, else its family, else
/// "the task definition".
pub fn task_name(model: &Model, td: &TaskDefinition) -> String {
    match td.origin {
        TaskDefinitionOrigin::Resource(id) => {
            format!("`{}`", model.local_address(model.resource(id)))
        }
        TaskDefinitionOrigin::JsonFile(_) => match td.family.as_ref().and_then(|f| f.as_str()) {
            Some(f) => format!("`{f}`"),
            None => "in this file".to_string(),
        },
    }
}

/// The containers of a task definition.
#[derive(Debug)]
pub struct Containers<'a> {
    /// The container objects that are known (in order).
    pub known: Vec<Container<'a>>,
    /// Whether every container is known (no unknown list, no unknown element).
    pub complete: bool,
}

/// One container definition object.
#[derive(Debug, Clone, Copy)]
pub struct Container<'a> {
    /// The container definition object.
    pub node: &'a Node,
    /// Position in `containerDefinitions`.
    pub index: usize,
}

impl<'a> Container<'a> {
    /// The value of a key. In a partly known container (a `merge` with an unknown argument, see
    /// [`containers`]) a key that is not among the known entries may still be there: its value is
    /// then the container itself, an unknown, and no rule concludes anything from it.
    pub fn get(&self, key: &str) -> Option<&'a Node> {
        match &self.node.value {
            Value::Unknown(u) => Some(
                u.entries
                    .iter()
                    .find(|e| e.key == key)
                    .map_or(self.node, |e| &e.value),
            ),
            _ => self.node.get(key),
        }
    }

    /// `` `app` `` (its name), or `` container 2 `` when the name is not known.
    pub fn display_name(&self) -> String {
        match self.get("name").and_then(|n| n.as_str()) {
            Some(n) => format!("`{n}`"),
            None => format!("number {}", self.index + 1),
        }
    }

    /// The GPU `resourceRequirements` entries that are certainly there (type known to be `GPU`).
    pub fn gpu_requirements(&self) -> Vec<&'a Node> {
        let Some(list) = self.get("resourceRequirements").and_then(Node::as_list) else {
            return Vec::new();
        };
        list.iter().filter(|e| is_gpu_requirement(e)).collect()
    }

    /// Whether this container certainly reserves GPUs.
    pub fn reserves_gpus(&self) -> bool {
        !self.gpu_requirements().is_empty()
    }

    /// The container's environment as (name, value) nodes, or `None` when it cannot be known in
    /// full (an unknown list or entry, an unknown name, or `environmentFiles` that may add to it).
    pub fn environment(&self) -> Option<Vec<(&'a str, &'a Node)>> {
        if let Some(files) = self.get("environmentFiles") {
            match files.as_list() {
                Some([]) => {}
                _ if matches!(files.value, Value::Null) => {}
                _ => return None,
            }
        }
        let env = match self.get("environment") {
            None => return Some(Vec::new()),
            Some(n) if matches!(n.value, Value::Null) => return Some(Vec::new()),
            Some(n) => n.as_list()?,
        };
        let mut out = Vec::new();
        for e in env {
            let name = e.get("name")?;
            let Value::String(name) = &name.value else {
                return None;
            };
            out.push((name.as_str(), e.get("value")?));
        }
        Some(out)
    }
}

/// Whether a `resourceRequirements` entry is certainly a GPU one.
pub fn is_gpu_requirement(entry: &Node) -> bool {
    entry
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t == catalog().gpu_requirement.type_)
}

/// The containers of a task definition, as far as they are known.
pub fn containers(td: &TaskDefinition) -> Containers<'_> {
    let Some(list) = td.containers().and_then(Node::as_list) else {
        return Containers {
            known: Vec::new(),
            complete: false,
        };
    };
    let mut known = Vec::new();
    let mut complete = true;
    for (index, node) in list.iter().enumerate() {
        match &node.value {
            Value::Object(_) => known.push(Container { node, index }),
            // Partly known (`merge(var.defaults, { ... })`): its known entries are read through
            // [`Container::get`], and the list is not known in full.
            Value::Unknown(u) if !u.entries.is_empty() => {
                known.push(Container { node, index });
                complete = false;
            }
            _ => complete = false,
        }
    }
    Containers { known, complete }
}

/// The containers that certainly reserve GPUs. A task definition with at least one is a GPU task
/// definition.
pub fn gpu_containers(td: &TaskDefinition) -> Vec<Container<'_>> {
    containers(td)
        .known
        .into_iter()
        .filter(Container::reserves_gpus)
        .collect()
}

/// Whether every container of the task definition is known and reserves GPUs.
pub fn every_container_reserves_gpus(td: &TaskDefinition) -> bool {
    let c = containers(td);
    c.complete && !c.known.is_empty() && c.known.iter().all(Container::reserves_gpus)
}

/// Whether the task definition certainly reserves no GPU: every container is known, and every
/// `resourceRequirements` entry has a known type other than `GPU`.
pub fn reserves_no_gpu(td: &TaskDefinition) -> bool {
    let c = containers(td);
    c.complete
        && c.known.iter().all(|container| {
            match container.get("resourceRequirements").map(|n| &n.value) {
                None | Some(Value::Null) => true,
                Some(Value::List(items)) => items.iter().all(|e| {
                    e.get("type")
                        .and_then(|t| t.as_str())
                        .is_some_and(|t| t != catalog().gpu_requirement.type_)
                }),
                Some(_) => false,
            }
        })
}

/// Whether the task definition certainly reserves GPUs.
pub fn is_gpu_task(td: &TaskDefinition) -> bool {
    !gpu_containers(td).is_empty()
}

/// The known string items of a list value (`requires_compatibilities`), with their nodes.
pub fn known_strings(node: &Node) -> Vec<(String, &Node)> {
    match node.as_list() {
        Some(items) => items
            .iter()
            .filter_map(|i| match &i.value {
                Value::String(s) => Some((s.to_string(), i)),
                _ => None,
            })
            .collect(),
        None => Vec::new(),
    }
}

/// The strings of a list value when it is known, not empty, and every item is a known string
/// (for a rule that says something of every item; [`known_strings`] keeps the known ones).
pub fn every_known_string(node: &Node) -> Option<Vec<&str>> {
    let items: Option<Vec<&str>> = node
        .as_list()?
        .iter()
        .map(|i| match &i.value {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    items.filter(|v| !v.is_empty())
}

/// A number written as a JSON number or a numeric string (`"1024"`), when known.
pub fn number(node: &Node) -> Option<f64> {
    match &node.value {
        Value::Number(n) => Some(*n),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
