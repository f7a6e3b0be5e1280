use ecs_gpu_model::Model;

use crate::capacity::{Placement, GPU_SERVICES};
use crate::task::{gpu_containers, TASK_DEFINITIONS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Services whose task definition reserves GPUs and that run on Fargate: `launch_type =
    /// "FARGATE"`, or a `capacity_provider_strategy` naming `FARGATE` or `FARGATE_SPOT`.
    ///
    /// ## Why it matters
    ///
    /// Fargate has no GPUs. ECS refuses to run a task with a GPU requirement there, so the service
    /// never starts a task (or `terraform apply` fails creating it).
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_service" "inference" {
    ///   task_definition = aws_ecs_task_definition.inference.arn
    ///   launch_type     = "FARGATE"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Place the service on EC2 GPU capacity: a `capacity_provider_strategy` with a capacity provider
    /// whose Auto Scaling group launches NVIDIA GPU instances.
    pub static RULE = {
        id: "GPU403",
        name: "gpu-service-on-fargate",
        severity: Error,
        summary: "a service of a GPU task runs on Fargate",
        reads: { analyses: [TASK_DEFINITIONS, GPU_SERVICES] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for s in report.gpu_services() {
        let (svc, td, cap) = (s.service, s.task, &s.capacity);
        if cap.placement != Placement::Fargate {
            continue;
        }
        let gpus = gpu_containers(td);
        let entry = gpus
            .first()
            .and_then(|c| c.gpu_requirements().first().copied());
        report
            .add(
                cap.fargate_at.or(Some(svc.loc)),
                format!(
                    "the service `{}` runs a GPU task on Fargate, which has no GPUs",
                    model.local_address(svc)
                ),
            )
            .label(entry.and_then(|e| e.loc), "the task reserves GPUs here")
            .help("use a capacity provider backed by an Auto Scaling group of NVIDIA GPU instances")
            .resource(svc);
    }
}
