use ecs_gpu_model::Model;

use crate::task::{
    gpu_containers, is_json, known_strings, task_definitions, task_name, TASK_DEFINITIONS,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A task definition whose containers reserve GPUs (a `resourceRequirements` entry of type `GPU`)
    /// and whose `requires_compatibilities` (`requiresCompatibilities` in JSON) lists `FARGATE`.
    ///
    /// ## Why it matters
    ///
    /// Fargate has no GPUs, and ECS does not accept a GPU resource requirement for it. The task
    /// definition is refused at registration (so `terraform apply` fails half-way), or, registered for
    /// EC2 only elsewhere, the Fargate run path never starts a task. Either way the GPU workload does
    /// not run on Fargate.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_task_definition" "inference" {
    ///   family                   = "inference"
    ///   requires_compatibilities = ["FARGATE"]
    ///   network_mode             = "awsvpc"
    ///   cpu                      = "4096"
    ///   memory                   = "16384"
    ///   container_definitions = jsonencode([{
    ///     name                 = "model"
    ///     image                = "nvcr.io/nvidia/tritonserver:24.08-py3"
    ///     resourceRequirements = [{ type = "GPU", value = "1" }]
    ///   }])
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Run GPU tasks on EC2 capacity with NVIDIA GPU instances (or ECS Managed Instances): set
    /// `requires_compatibilities = ["EC2"]` (or `["MANAGED_INSTANCES"]`) and give the service a
    /// capacity provider backed by a GPU Auto Scaling group.
    pub static RULE = {
        id: "GPU101",
        name: "gpu-task-on-fargate",
        severity: Error,
        summary: "a GPU task definition is Fargate-compatible",
        reads: { analyses: [TASK_DEFINITIONS] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for td in task_definitions(model) {
        let gpus = gpu_containers(td);
        let Some(first) = gpus.first() else { continue };
        let Some(compat) = &td.requires_compatibilities else {
            continue;
        };
        // Presence is proven by one known `FARGATE` item, whatever the other items are.
        let Some((_, fargate)) = known_strings(compat)
            .into_iter()
            .find(|(s, _)| s == "FARGATE")
        else {
            continue;
        };
        let entry = first.gpu_requirements()[0];
        report
            .add(
                fargate.loc.or(compat.loc),
                format!(
                    "the GPU task definition {} is Fargate-compatible, and Fargate has no GPUs",
                    task_name(model, td)
                ),
            )
            .label(
                entry.loc,
                format!("container {} reserves GPUs here", first.display_name()),
            )
            .help(if is_json(td) {
                "remove `FARGATE` from `requiresCompatibilities` and run the task on EC2 GPU capacity (`[\"EC2\"]`)"
            } else {
                "remove `FARGATE` from `requires_compatibilities` and run the task on EC2 GPU capacity (`[\"EC2\"]`)"
            })
            .task(td);
    }
}
