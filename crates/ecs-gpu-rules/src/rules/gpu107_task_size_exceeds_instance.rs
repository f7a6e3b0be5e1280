use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Loc, Model, Node, Value};

use crate::capacity::{
    service_managed_instances, ManagedInstancesLimit, ManagedInstancesLimits, GPU_SERVICES,
    MANAGED_INSTANCES, TASK_CAPACITY,
};
use crate::task::{containers, is_gpu_task, task_definitions, task_name, TASK_DEFINITIONS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A GPU task's CPU and memory against what every instance type it can be placed on registers
    /// with ECS. The task's size is its task-level `cpu` and `memory` when set, otherwise the sums
    /// over its containers (`cpu`; `memoryReservation`, or `memory` where no reservation is given).
    /// Unknown values count as nothing, so the size is never overstated.
    ///
    /// - CPU: the agent registers vCPUs × 1024 units.
    /// - Memory: the agent registers the memory the kernel reports, which is less than the EC2
    ///   figure. The margin used is the least any instance keeps back, 207 MiB (the ECS memory guide:
    ///   8192 MiB installed, 7985 MiB registered); `ECS_RESERVED_MEMORY` (0 by default) lowers it
    ///   further, and the real difference on large instances is bigger. So a finding means the task
    ///   can never fit, while a task just under the limit may still not fit in practice.
    ///
    /// A service whose capacity is only ECS Managed Instances is checked against what each
    /// capacity provider's `instance_requirements` allow: `vcpu_count.max`, `memory_mib.max` (less
    /// the same margin), and `allowed_instance_types` when every item is an exact type name the
    /// catalog knows (the largest of the types the `min`/`max` of `accelerator_count`,
    /// `vcpu_count` and `memory_mib` leave in). A wildcard, a type the catalog does not know, or
    /// an unknown value says nothing.
    ///
    /// ## Why it matters
    ///
    /// ECS places a task only on a container instance with that much unreserved CPU and memory. A task
    /// larger than every instance type of its capacity is never placed: it stays in `PROVISIONING`,
    /// and managed scaling launches instances that cannot take it.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   instance_type = "g5.xlarge" # 4 vCPUs, 16384 MiB
    /// }
    ///
    /// resource "aws_ecs_task_definition" "infer" {
    ///   cpu    = "4096"
    ///   memory = "16384" # more than a g5.xlarge registers
    ///   # ...
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Size the task below what the instance registers (on a g5.xlarge, about 15 GiB: leave at
    /// least 5 % of the memory for the OS and the agent), or use a larger instance type.
    pub static RULE = {
        id: "GPU107",
        name: "task-size-exceeds-instance",
        severity: Error,
        summary: "a GPU task needs more cpu or memory than any instance type it can be placed on registers",
        reads: { analyses: [TASK_DEFINITIONS, TASK_CAPACITY, GPU_SERVICES, MANAGED_INSTANCES] },
        check: check,
    }
}

/// CPU units from `1024`, `"1024"`, `"1 vCPU"` (the catalog reads the string forms).
fn cpu_units(node: &Node) -> Option<f64> {
    match &node.value {
        Value::Number(n) => Some(*n),
        Value::String(s) => ecs_gpu_catalog::task_cpu_units(s),
        _ => None,
    }
}

/// MiB from `16384`, `"16384"`, `"16 GB"` (the catalog reads the string forms).
fn memory_mib(node: &Node) -> Option<f64> {
    match &node.value {
        Value::Number(n) => Some(*n),
        Value::String(s) => ecs_gpu_catalog::task_memory_mib(s),
        _ => None,
    }
}

/// The task's size in one dimension: the task-level value when known, else a lower bound from the
/// containers. `None` when the task-level value is written but unknown (it may be anything).
fn size(
    level: Option<&Node>,
    parse: fn(&Node) -> Option<f64>,
    per_container: impl Fn(&crate::task::Container<'_>) -> Option<(f64, Option<Loc>)>,
    td: &ecs_gpu_model::TaskDefinition,
) -> Option<(f64, Option<Loc>)> {
    if let Some(n) = level {
        if matches!(n.value, Value::Null) {
        } else {
            return parse(n).map(|v| (v, n.loc));
        }
    }
    let mut total = 0.0;
    let mut loc = None;
    for c in containers(td).known {
        if let Some((v, l)) = per_container(&c) {
            total += v;
            loc = loc.or(l);
        }
    }
    (total > 0.0).then_some((total, loc.or(Some(td.loc))))
}

type Size = Option<(f64, Option<Loc>)>;

/// The task's CPU units and memory (MiB), each as far as known.
fn task_size(td: &ecs_gpu_model::TaskDefinition) -> (Size, Size) {
    let cpu = size(
        td.cpu.as_ref(),
        cpu_units,
        |c| {
            let n = c.get("cpu")?;
            cpu_units(n).map(|v| (v, n.loc))
        },
        td,
    );
    let memory = size(
        td.memory.as_ref(),
        memory_mib,
        |c| {
            let n = c
                .get("memoryReservation")
                .filter(|n| !matches!(n.value, Value::Null))
                .or_else(|| c.get("memory"))?;
            memory_mib(n).map(|v| (v, n.loc))
        },
        td,
    );
    (cpu, memory)
}

fn check(model: &Model, report: &mut Findings<'_>) {
    managed_instances(model, report);
    let reserve = catalog().agent.min_unregistered_memory_mib;
    for td in task_definitions(model) {
        if !is_gpu_task(td) {
            continue;
        }
        let Some(capacity) = report.capacity(td) else {
            continue;
        };
        if capacity.instance_types.is_empty() {
            continue;
        }
        let (cpu, memory) = task_size(td);

        let limits: Option<Vec<(&str, u64, u64)>> = capacity
            .instance_types
            .iter()
            .map(|t| {
                Some((
                    t.name.as_str(),
                    u64::from(t.cpu_units()?),
                    t.max_registrable_memory_mib()?,
                ))
            })
            .collect();
        let Some(limits) = limits else { continue };
        let max_cpu = limits.iter().map(|l| l.1).max().unwrap_or(0);
        let max_mem = limits.iter().map(|l| l.2).max().unwrap_or(0);

        if let Some((units, loc)) = cpu {
            if units > max_cpu as f64 {
                let types = limits
                    .iter()
                    .map(|(n, c, _)| format!("`{n}` registers {c}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut b = report
                    .add(
                        loc,
                        format!(
                            "the GPU task {} needs {units} CPU units, more than any instance type it can be placed on: {types}",
                            task_name(model, td)
                        ),
                    )
                    .help(format!("ask for at most {max_cpu} CPU units, or use a larger instance type"))
                    .task(td);
                for (l, m) in &capacity.labels {
                    b = b.label(Some(*l), m.clone());
                }
            }
        }
        if let Some((mib, loc)) = memory {
            if mib > max_mem as f64 {
                let types = limits
                    .iter()
                    .map(|(n, _, m)| format!("`{n}` registers at most {m}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut b = report
                    .add(
                        loc,
                        format!(
                            "the GPU task {} needs {mib} MiB of memory, more than any instance type it can be placed on: {types}",
                            task_name(model, td)
                        ),
                    )
                    .help(format!(
                        "ask for at most {max_mem} MiB (the instance memory less at least {reserve} MiB the agent cannot register), or use a larger instance type"
                    ))
                    .task(td);
                for (l, m) in &capacity.labels {
                    b = b.label(Some(*l), m.clone());
                }
            }
        }
    }
}

/// A service whose capacity is only ECS Managed Instances, each provider's requirements allowing
/// less CPU or memory than its task needs.
fn managed_instances(model: &Model, report: &mut Findings<'_>) {
    let reserve = catalog().agent.min_unregistered_memory_mib;
    for gs in report.gpu_services() {
        let Some(providers) = service_managed_instances(&gs.capacity) else {
            continue;
        };
        let (cpu, memory) = task_size(gs.task);
        let dimensions: [(Size, &str, String, Pick); 2] = [
            (cpu, "CPU units", "CPU units".to_string(), |l| {
                l.cpu_units.as_ref()
            }),
            (
                memory,
                "MiB of memory",
                format!("MiB (the instance memory less at least {reserve} MiB the agent cannot register)"),
                |l| l.memory_mib.as_ref(),
            ),
        ];
        for ((need, loc), what, unit, pick) in dimensions
            .into_iter()
            .filter_map(|(size, what, unit, pick)| Some((size?, what, unit, pick)))
        {
            let Some(limits) = providers
                .iter()
                .map(|(p, l, at)| Some((*p, pick(l)?, *at)))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            if limits.iter().any(|(_, l, _)| need <= l.most as f64) {
                continue;
            }
            let most = limits.iter().map(|(_, l, _)| l.most).max().unwrap_or(0);
            let each = limits
                .iter()
                .map(|(p, l, _)| {
                    format!(
                        "`{}` allows at most {} {what} ({})",
                        model.local_address(p),
                        l.most,
                        l.why
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let mut b = report
                .add(
                    loc,
                    format!(
                        "the GPU task {} needs {need} {what}, more than any instance the ECS Managed Instances of `{}` can launch: {each}",
                        task_name(model, gs.task),
                        model.local_address(gs.service)
                    ),
                )
                .help(format!(
                    "ask for at most {most} {unit}, or let the capacity provider's `instance_requirements` allow larger instance types"
                ))
                .task(gs.task);
            for (p, l, at) in &limits {
                b = b
                    .label(
                        l.node.loc,
                        format!(
                            "the requirements of `{}` allow at most {} {what} here",
                            model.local_address(p),
                            l.most
                        ),
                    )
                    .label(*at, "the service uses this capacity provider");
            }
        }
    }
}

/// Which bound of a provider's requirements a dimension reads.
type Pick = for<'a> fn(&'a ManagedInstancesLimits<'a>) -> Option<&'a ManagedInstancesLimit<'a>>;
