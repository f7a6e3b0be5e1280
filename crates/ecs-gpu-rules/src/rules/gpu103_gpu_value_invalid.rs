use ecs_gpu_catalog::{catalog, GpuValue, GpuValueError, Gpus};
use ecs_gpu_model::{Model, Node, Value};

use crate::capacity::TASK_CAPACITY;
use crate::task::{
    containers, containers_in_json, task_definitions, task_name, Container, TASK_DEFINITIONS,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// The `value` of each GPU `resourceRequirements` entry, and how the entries of a task fit
    /// together:
    ///
    /// - the value is a JSON number (`value = 1`) rather than a string (`value = "1"`);
    /// - the value is not a whole number of at least 1, `ALL`, or one of the GPU fractions ECS
    ///   accepts (`0.125`, `0.25`, `0.5`);
    /// - an entry has both `value` and `sharingStrategy` (both known and not null);
    /// - more than one container asks for a fraction, or one does and another container reserves
    ///   GPUs too;
    /// - when every instance type the task can be placed on is known: a fraction where none of them
    ///   is a fractional (g6f, gr6f) type of that size, or a whole number where all of them are
    ///   fractional.
    ///
    /// ## Why it matters
    ///
    /// ECS reads the value as a string. A JSON number makes the AWS provider fail to decode the
    /// container definitions, and the apply stops. An invalid value or a forbidden combination is
    /// refused when the task definition is registered. A value that no instance type of the task's
    /// capacity can satisfy is accepted, and the task then waits in `PROVISIONING` forever: whole
    /// GPUs are only on full-GPU instances, and a fraction only on the partition of that size.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// container_definitions = jsonencode([{
    ///   name                 = "model"
    ///   image                = "nvcr.io/nvidia/tritonserver:24.08-py3"
    ///   resourceRequirements = [{ type = "GPU", value = 1 }]
    /// }])
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the value as a string: `value = "1"`. Use whole GPUs on full-GPU instances, and the
    /// fraction that matches the partition (`"0.125"` on g6f.large and g6f.xlarge, `"0.25"` on
    /// g6f.2xlarge, `"0.5"` on g6f.4xlarge and gr6f.4xlarge) in one container only. For MPS sharing,
    /// give `sharingStrategy` without `value`.
    pub static RULE = {
        id: "GPU103",
        name: "gpu-value-invalid",
        severity: Error,
        summary: "a GPU requirement's value is not one ECS accepts",
        reads: { analyses: [TASK_DEFINITIONS, TASK_CAPACITY] },
        check: check,
    }
}

/// A GPU entry whose value is known and valid.
struct Parsed<'a> {
    container: Container<'a>,
    entry: &'a Node,
    value: GpuValue,
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let fractions: Vec<&str> = catalog()
        .gpu_requirement
        .fractions
        .iter()
        .map(String::as_str)
        .collect();
    let fraction_list = fractions
        .iter()
        .map(|f| format!("`\"{f}\"`"))
        .collect::<Vec<_>>()
        .join(", ");
    for td in task_definitions(model) {
        let mut parsed: Vec<Parsed<'_>> = Vec::new();
        let mut gpu_containers: Vec<Container<'_>> = Vec::new();
        for c in containers(td).known {
            let entries = c.gpu_requirements();
            if !entries.is_empty() {
                gpu_containers.push(c);
            }
            for entry in entries {
                let value = entry.get("value").filter(|v| v.is_given());
                let sharing = entry.get("sharingStrategy").filter(|v| v.is_given());
                if let (Some(v), Some(s)) = (value, sharing) {
                    report
                        .add(
                            v.loc.or(entry.loc),
                            format!(
                                "the GPU requirement of container {} has both `value` and `sharingStrategy`",
                                c.display_name()
                            ),
                        )
                        .label(s.loc, "the sharing strategy")
                        .help("give `value` for dedicated GPUs, or `sharingStrategy` alone for MPS sharing")
                        .task(td);
                }
                let Some(v) = value else { continue };
                // A sensitive value is never quoted (`Node::shown`).
                let sensitive = v.is_sensitive();
                let quoted = |raw: String| if sensitive { v.shown() } else { raw };
                match &v.value {
                    // A number past an f64's range (`1e999`) is read as the largest f64: a JSON
                    // number all the same, not one to print back.
                    Value::Number(n) if n.abs() == f64::MAX => {
                        report
                            .add(
                                v.loc,
                                format!(
                                    "the GPU value of container {} is a JSON number, and ECS takes a string",
                                    c.display_name()
                                ),
                            )
                            .help("write the number of GPUs as a string: `\"1\"`")
                            .task(td);
                    }
                    Value::Number(n) => {
                        let n = quoted(n.to_string());
                        report
                            .add(
                                v.loc,
                                format!(
                                    "the GPU value of container {} is the JSON number `{n}`, and ECS takes a string",
                                    c.display_name()
                                ),
                            )
                            .help(if containers_in_json(td) {
                                format!("quote it: `\"value\": \"{n}\"`")
                            } else {
                                format!("quote it: `value = \"{n}\"`")
                            })
                            .task(td);
                    }
                    Value::String(s) => match GpuValue::parse(s) {
                        Ok(value) => parsed.push(Parsed {
                            container: c,
                            entry,
                            value,
                        }),
                        Err(e) => {
                            let name = c.display_name();
                            let message = match e {
                                GpuValueError::Empty => {
                                    format!("the GPU value of container {name} is empty")
                                }
                                GpuValueError::NotANumber(v) => format!(
                                    "the GPU value `{}` of container {name} is not a number of GPUs, `ALL` or a GPU fraction",
                                    quoted(v)
                                ),
                                GpuValueError::NotPositive(v) => format!(
                                    "the GPU value `{}` of container {name} is not at least 1",
                                    quoted(v)
                                ),
                                GpuValueError::NotAllowed(v) => format!(
                                    "the GPU value `{}` of container {name} is neither a whole number of GPUs nor one of the fractions {fraction_list}",
                                    quoted(v)
                                ),
                            };
                            report
                                .add(v.loc, message)
                                .help(format!(
                                    "use a whole number of GPUs (`\"1\"`), `\"ALL\"`, or one of {fraction_list} on a fractional GPU type"
                                ))
                                .task(td);
                        }
                    },
                    _ => {}
                }
            }
        }

        // Only one container may ask for a fraction, and then no other container may reserve GPUs.
        let fractional: Vec<&Parsed<'_>> = parsed
            .iter()
            .filter(|p| matches!(p.value, GpuValue::Fraction(_)))
            .collect();
        if let Some(first) = fractional.first() {
            for other in &gpu_containers {
                if other.index == first.container.index {
                    continue;
                }
                let entry = other.gpu_requirements()[0];
                let also_fraction = fractional.iter().any(|p| p.container.index == other.index);
                let message = if also_fraction {
                    format!(
                        "containers {} and {} both ask for a GPU fraction, and only one container per task may",
                        first.container.display_name(),
                        other.display_name()
                    )
                } else {
                    format!(
                        "container {} reserves GPUs while container {} asks for a GPU fraction, and then no other container may",
                        other.display_name(),
                        first.container.display_name()
                    )
                };
                report
                    .add(entry.get("value").and_then(|v| v.loc).or(entry.loc), message)
                    .label(first.entry.get("value").and_then(|v| v.loc), "the fraction")
                    .help("give the fraction to one container and remove the other containers' GPU requirements, or use whole GPUs")
                    .task(td);
            }
        }

        // Whole or fractional, against the capacity, when all of it is known.
        if parsed.is_empty() {
            continue;
        }
        let Some(capacity) = report.capacity(td) else {
            continue;
        };
        if capacity.instance_types.is_empty() {
            continue;
        }
        for p in &parsed {
            let fits = |g: Gpus| match (p.value, g) {
                (GpuValue::Fraction(f), Gpus::Fraction(t)) => f == t,
                (GpuValue::Whole(_), Gpus::Whole(_)) => true,
                (GpuValue::All, _) => true,
                (_, Gpus::Unknown) => true,
                _ => false,
            };
            if capacity.instance_types.iter().any(|t| fits(t.gpus)) {
                continue;
            }
            let types = capacity
                .instance_types
                .iter()
                .map(|t| format!("`{}`", t.name))
                .collect::<Vec<_>>()
                .join(", ");
            let (what, help) = match p.value {
                GpuValue::Fraction(f) => (
                    format!("the GPU fraction `{f}`"),
                    "use a fractional type with that partition size (g6f, gr6f), or ask for whole GPUs".to_string(),
                ),
                _ => (
                    format!("the whole GPU value `{}`", p.value),
                    format!(
                        "ask for the fraction of the partition ({fraction_list}), or use full-GPU instance types"
                    ),
                ),
            };
            let mut b = report
                .add(
                    p.entry.get("value").and_then(|v| v.loc),
                    format!(
                        "{what} of container {} fits none of the instance types the task {} can be placed on: {types}",
                        p.container.display_name(),
                        task_name(model, td)
                    ),
                )
                .help(help)
                .task(td);
            for (loc, msg) in &capacity.labels {
                b = b.label(Some(*loc), msg.clone());
            }
        }
    }
}
