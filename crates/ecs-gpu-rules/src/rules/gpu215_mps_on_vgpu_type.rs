use ecs_gpu_catalog::catalog;
use ecs_gpu_model::Model;

use crate::capacity::TASK_CAPACITY;
use crate::task::{gpu_containers, task_definitions, task_name, TASK_DEFINITIONS};
use crate::{backticked, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Task definitions whose GPU requirement shares a GPU with NVIDIA MPS (`sharingStrategy`)
    /// and whose every instance type, as far as the capacity walk knows them all, is a fractional
    /// GPU type (`g6f`, `gr6f`; source keys AGENT-MPS-VGPU, UPDATES-2026). A task whose capacity
    /// is not known in full, or that may land on a whole-GPU type too, is not reported.
    ///
    /// ## Why it matters
    ///
    /// The ECS agent withholds the MPS capability (`ecs.capability.gpu-sharing-mps`) on an NVIDIA
    /// vGPU slice, so a task that asks for MPS sharing is never placed on g6f or gr6f instances:
    /// the service stays at zero running tasks.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_task_definition" "embed" {
    ///   container_definitions = jsonencode([{
    ///     name                 = "embed"
    ///     resourceRequirements = [{ type = "GPU", sharingStrategy = { nvidiaMps = { memory = 2048 } } }]
    ///   }])
    /// }
    /// # ... placed on a capacity provider whose group launches g6f.xlarge
    /// ```
    ///
    /// ## How to fix
    ///
    /// Ask for the partition itself (`value = "0.125"` on g6f.xlarge, as `ecs-gpu types` shows),
    /// or share a whole GPU with MPS on a whole-GPU type (`g6`, `g5`, ...).
    pub static RULE = {
        id: "GPU215",
        name: "mps-on-vgpu-type",
        severity: Error,
        summary: "a task shares a GPU with NVIDIA MPS, and its only instance types are fractional GPU types, where MPS is not offered",
        reads: { analyses: [TASK_DEFINITIONS, TASK_CAPACITY] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let vgpu = &catalog().vgpu;
    if vgpu.mps {
        return;
    }
    for td in task_definitions(model) {
        let sharing: Vec<_> = gpu_containers(td)
            .into_iter()
            .flat_map(|c| {
                c.gpu_requirements()
                    .into_iter()
                    .filter_map(|e| e.get("sharingStrategy").filter(|s| s.is_given()))
                    .map(move |s| (c.display_name(), s.loc))
                    .collect::<Vec<_>>()
            })
            .collect();
        let Some((container, at)) = sharing.first() else {
            continue;
        };
        let Some(capacity) = report.capacity(td) else {
            continue;
        };
        if capacity.instance_types.is_empty()
            || !capacity
                .instance_types
                .iter()
                .all(|t| vgpu.is_vgpu_family(&t.family))
        {
            continue;
        }
        let names: Vec<&str> = capacity
            .instance_types
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        let mut b = report
            .add(
                *at,
                format!(
                    "container {container} of the task {} shares a GPU with NVIDIA MPS, and it can only be placed on {}, vGPU slices where the ECS agent offers no MPS: the task is never placed",
                    task_name(model, td),
                    backticked(&names),
                ),
            )
            .help("ask for the GPU partition itself (`ecs-gpu types` shows its value), or use MPS on a whole-GPU type")
            .task(td);
        for (loc, msg) in &capacity.labels {
            b = b.label(Some(*loc), msg.clone());
        }
    }
}
