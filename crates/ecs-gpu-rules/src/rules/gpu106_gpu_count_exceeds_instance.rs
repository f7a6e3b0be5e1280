use ecs_gpu_catalog::{GpuValue, Gpus};
use ecs_gpu_model::{Loc, Model, TaskDefinition, Value};

use crate::capacity::{service_managed_instances, GPU_SERVICES, MANAGED_INSTANCES, TASK_CAPACITY};
use crate::task::{gpu_containers, task_definitions, task_name, TASK_DEFINITIONS};
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
    /// A service whose capacity is only ECS Managed Instances (every capacity provider of its
    /// strategy, or of its cluster's default one, has a `managed_instances_provider`) is checked
    /// against what each provider's `instance_requirements` allow: `accelerator_count.max`, and
    /// `allowed_instance_types` when every item is an exact type name the catalog knows (the most
    /// GPUs of the types that the `min`/`max` of `accelerator_count`, `vcpu_count` and
    /// `memory_mib` leave in). A wildcard, a type the catalog does not know, or an unknown value
    /// says nothing; `accelerator_names` and `accelerator_total_memory_mib` are not read (they
    /// only narrow the choice further).
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
    /// The same on ECS Managed Instances: a capacity provider that allows only `g5.xlarge` cannot
    /// run a task that asks for 8 GPUs.
    ///
    /// ```hcl
    /// resource "aws_ecs_capacity_provider" "gpu" {
    ///   managed_instances_provider {
    ///     instance_launch_template {
    ///       instance_requirements {
    ///         allowed_instance_types = ["g5.xlarge"] # 1 GPU
    ///         # ...
    ///       }
    ///     }
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Ask for at most the GPUs of the instance type, or use an instance type with enough GPUs
    /// (`ecs-gpu types --min-gpus 4` lists them); on ECS Managed Instances, let the capacity
    /// provider's `instance_requirements` allow such a type.
    pub static RULE = {
        id: "GPU106",
        name: "gpu-count-exceeds-instance",
        severity: Error,
        summary: "a task asks for more GPUs than any instance type it can be placed on has",
        reads: { analyses: [TASK_DEFINITIONS, TASK_CAPACITY, GPU_SERVICES, MANAGED_INSTANCES] },
        check: check,
    }
}

/// The whole GPUs a task certainly asks for, and where the first is written.
fn whole_gpus(td: &TaskDefinition) -> (u64, Option<Loc>) {
    let mut total: u64 = 0;
    let mut first_loc = None;
    for c in &gpu_containers(td) {
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
    (total, first_loc)
}

fn check(model: &Model, report: &mut Findings<'_>) {
    managed_instances(model, report);
    for td in task_definitions(model) {
        let (total, first_loc) = whole_gpus(td);
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

/// A service whose capacity is only ECS Managed Instances, each provider's requirements allowing
/// fewer GPUs than its task asks for.
fn managed_instances(model: &Model, report: &mut Findings<'_>) {
    for gs in report.gpu_services() {
        let (total, first_loc) = whole_gpus(gs.task);
        if total == 0 {
            continue;
        }
        let Some(providers) = service_managed_instances(&gs.capacity) else {
            continue;
        };
        let Some(limits) = providers
            .iter()
            .map(|(p, l, at)| Some((*p, l.gpus.clone()?, *at)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        if limits.iter().any(|(_, l, _)| l.most >= total) {
            continue;
        }
        let most = limits.iter().map(|(_, l, _)| l.most).max().unwrap_or(0);
        let each = limits
            .iter()
            .map(|(p, l, _)| {
                format!(
                    "`{}` allows at most {} ({})",
                    model.local_address(p),
                    gpus(l.most),
                    l.why
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut b = report
            .add(
                first_loc,
                format!(
                    "the task {} asks for {total} GPUs, more than any instance the ECS Managed Instances of `{}` can launch: {each}",
                    task_name(model, gs.task),
                    model.local_address(gs.service)
                ),
            )
            .help(format!(
                "ask for at most {most} {}, or let the capacity provider's `instance_requirements` allow instance types with {total} or more (`ecs-gpu types --min-gpus {total}`)",
                if most == 1 { "GPU" } else { "GPUs" }
            ))
            .task(gs.task);
        for (p, l, at) in &limits {
            b = b
                .label(
                    l.node.loc,
                    format!(
                        "the requirements of `{}` allow at most {} here",
                        model.local_address(p),
                        gpus(l.most)
                    ),
                )
                .label(*at, "the service uses this capacity provider");
        }
    }
}

/// "1 GPU", "4 GPUs".
fn gpus(n: u64) -> String {
    format!("{n} {}", if n == 1 { "GPU" } else { "GPUs" })
}
