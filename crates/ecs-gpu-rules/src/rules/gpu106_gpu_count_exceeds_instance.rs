use ecs_gpu_catalog::{GpuValue, Gpus};
use ecs_gpu_model::{Model, Value};

use crate::task::{gpu_containers, task_definitions, task_name};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// The GPUs a task asks for, summed over its containers' whole-GPU `resourceRequirements`, against
    /// the GPUs of every instance type the task can be placed on (through its service's capacity
    /// providers, Auto Scaling groups and launch templates). It fires only when every instance type
    /// is known and none has that many GPUs. Values that are unknown, `ALL` or fractions count as
    /// nothing, so the sum is never more than the task really asks for.
    ///
    /// ## Why it matters
    ///
    /// A task's GPUs must all come from one instance. When no instance type has enough, ECS never
    /// places the task: the service reports "unable to place a task because no container instance
    /// met all of its requirements", the task stays in `PROVISIONING`, and managed scaling can add
    /// instances forever without helping.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   instance_type = "g5.xlarge" # 1 GPU
    /// }
    ///
    /// resource "aws_ecs_task_definition" "train" {
    ///   container_definitions = jsonencode([{
    ///     name                 = "train"
    ///     image                = "train:1"
    ///     resourceRequirements = [{ type = "GPU", value = "4" }]
    ///   }])
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Ask for at most the GPUs of the instance type, or use an instance type with enough GPUs
    /// (`ecs-gpu types --min-gpus 4` lists them).
    pub static RULE = {
        id: "GPU106",
        name: "gpu-count-exceeds-instance",
        severity: Error,
        summary: "a task asks for more GPUs than any instance type it can be placed on has",
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for td in task_definitions(model) {
        let containers = gpu_containers(td);
        let mut total: u64 = 0;
        let mut first_loc = None;
        for c in &containers {
            for entry in c.gpu_requirements() {
                let Some(v) = entry.get("value") else {
                    continue;
                };
                let Value::String(s) = &v.value else { continue };
                if let Ok(GpuValue::Whole(n)) = GpuValue::parse(s) {
                    total += u64::from(n);
                    first_loc = first_loc.or(v.loc);
                }
            }
        }
        if total == 0 {
            continue;
        }
        let Some(capacity) = report.capacity(td) else {
            continue;
        };
        // Whole GPUs on fractional types only is GPU103's finding.
        if capacity.instance_types.is_empty()
            || capacity
                .instance_types
                .iter()
                .all(|t| matches!(t.gpus, Gpus::Fraction(_)))
        {
            continue;
        }
        // Every type's GPU count must be known; a fractional type has no whole GPU.
        let Some(counts) = capacity
            .instance_types
            .iter()
            .map(|t| t.gpus.count().map(|n| (t, n)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let most = counts.iter().map(|(_, n)| u64::from(*n)).max().unwrap_or(0);
        if total <= most {
            continue;
        }
        let types = counts
            .iter()
            .map(|(t, n)| format!("`{}` has {n}", t.name))
            .collect::<Vec<_>>()
            .join(", ");
        let mut b = report
            .add(
                first_loc,
                format!(
                    "the task {} asks for {total} GPUs, more than any instance type it can be placed on: {types}",
                    task_name(model, td)
                ),
            )
            .help(format!(
                "ask for at most {most} {}, or give the task capacity with an instance type that has {total} or more (`ecs-gpu types --min-gpus {total}`)",
                if most == 1 { "GPU" } else { "GPUs" }
            ))
            .task(td);
        for (loc, msg) in &capacity.labels {
            b = b.label(Some(*loc), msg.clone());
        }
    }
}
