use ecs_gpu_model::{Model, Value};

use crate::task::{gpu_containers, task_definitions, task_name, TASK_DEFINITIONS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A task definition whose containers reserve GPUs and whose
    /// `runtime_platform.operating_system_family` (`runtimePlatform.operatingSystemFamily`) is a
    /// Windows family (`WINDOWS_SERVER_2022_CORE`, ...).
    ///
    /// ## Why it matters
    ///
    /// ECS does not support GPUs for Windows containers. No Windows container instance registers a
    /// GPU resource, so the task is never placed: the service stays at zero running tasks with
    /// placement failures.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_task_definition" "render" {
    ///   family = "render"
    ///   runtime_platform {
    ///     operating_system_family = "WINDOWS_SERVER_2022_CORE"
    ///   }
    ///   container_definitions = jsonencode([{
    ///     name                 = "render"
    ///     image                = "render:1"
    ///     resourceRequirements = [{ type = "GPU", value = "1" }]
    ///   }])
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Run GPU work in Linux containers (`operating_system_family = "LINUX"`) on the ECS GPU-optimized
    /// Amazon Linux AMI.
    pub static RULE = {
        id: "GPU104",
        name: "gpu-task-on-windows",
        severity: Error,
        summary: "a GPU task definition runs on Windows",
        reads: { analyses: [TASK_DEFINITIONS] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for td in task_definitions(model) {
        let gpus = gpu_containers(td);
        let Some(first) = gpus.first() else { continue };
        let Some(os) = &td.operating_system_family else {
            continue;
        };
        let Value::String(family) = &os.value else {
            continue;
        };
        if !family.starts_with("WINDOWS") {
            continue;
        }
        report
            .add(
                os.loc,
                format!(
                    "the GPU task definition {} runs on `{family}`, and ECS has no GPUs for Windows containers",
                    task_name(model, td)
                ),
            )
            .label(
                first.gpu_requirements()[0].loc,
                format!("container {} reserves GPUs here", first.display_name()),
            )
            .help("run GPU containers on Linux (`operating_system_family = \"LINUX\"`) with the ECS GPU-optimized AMI")
            .task(td);
    }
}
