use ecs_gpu_catalog::{catalog, Lookup};
use ecs_gpu_model::{Model, Node, TaskDefinition, Value};

use crate::capacity::{
    ami_source, fetches_config, sets_nvidia_default_runtime, user_data, AMI, GROUPS, TENANTS,
    USER_DATA,
};
use crate::task::{containers, reserves_no_gpu, task_name};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Capacity providers whose Auto Scaling group launches only NVIDIA GPU instance types (every
    /// type known), when every task placed on them is known and none reserves a GPU: each service
    /// whose capacity provider strategy (or its cluster's default one) names the provider, or that
    /// runs with `launch_type = "EC2"` in a cluster the provider is associated with, and every task
    /// definition no service runs (a `RunTask` call may place it there).
    ///
    /// Not reported when anything could give a container the GPUs without a reservation, or is not
    /// known: a service that may be placed there without being known to be, a task definition or
    /// container that is not known in full, a container with `privileged` or `linuxParameters`
    /// `devices`, a launch template whose image is not an ECS-optimized AMI (a custom AMI may make
    /// `nvidia` Docker's default runtime), user data not known in full, that fetches configuration
    /// at boot, or that makes `nvidia` the default runtime (the GPU-sharing recipe, GPU206).
    ///
    /// ## Why it matters
    ///
    /// The ECS agent gives the NVIDIA runtime, and so the GPUs, only to containers that reserve GPUs
    /// in their `resourceRequirements` (inside a GPU task, also to containers that set
    /// `NVIDIA_VISIBLE_DEVICES`). A container that reserves none runs on a GPU instance without
    /// seeing a GPU: the model falls back to the CPU, or fails to find CUDA, while the GPU
    /// instances are billed.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   instance_type = "g5.xlarge"
    /// }
    ///
    /// resource "aws_ecs_task_definition" "inference" {
    ///   container_definitions = jsonencode([{
    ///     name  = "model"
    ///     image = "vllm/vllm-openai:v0.10.2"
    ///     # no resourceRequirements
    ///   }])
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// If the containers need the GPU, reserve it in the container definition:
    /// `resourceRequirements = [{ type = "GPU", value = "1" }]`. If they do not, use an instance type
    /// without GPUs.
    pub static RULE = {
        id: "GPU211",
        name: "gpu-capacity-runs-no-gpu-task",
        severity: Warning,
        summary: "no task placed on GPU-only capacity reserves a GPU, so no container sees its GPUs",
        reads: { analyses: [GROUPS, TENANTS, USER_DATA, AMI] },
        check: check,
    }
}

/// Whether a container may reach the GPU devices without a reservation (`privileged`, devices
/// mapped into it), or its settings for that are not known.
fn may_map_devices(node: &Node) -> bool {
    let privileged = node.get("privileged").map(|n| &n.value);
    let devices = node
        .get("linuxParameters")
        .and_then(|l| l.get("devices"))
        .map(|n| &n.value);
    !matches!(
        privileged,
        None | Some(Value::Null) | Some(Value::Bool(false))
    ) || !matches!(devices, None | Some(Value::Null))
        || matches!(node.value, Value::Unknown(_))
}

/// Whether the task definition certainly gives no container a GPU.
fn sees_no_gpu(td: &TaskDefinition) -> bool {
    reserves_no_gpu(td) && !containers(td).known.iter().any(|c| may_map_devices(c.node))
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (provider, group) in report.provider_groups() {
        if provider.instances_unknown || group.group.instances_unknown {
            continue;
        }
        // Only GPU instances: every type known, each with NVIDIA GPUs.
        let Some(types) = &group.instance_types else {
            continue;
        };
        if types.is_empty()
            || !types
                .iter()
                .all(|t| matches!(catalog().lookup(&t.name), Lookup::Known(k) if k.is_nvidia()))
        {
            continue;
        }
        // Nothing on the instances gives containers the GPUs by default.
        let Some(templates) = &group.templates else {
            continue;
        };
        let plain_runtime = !templates.is_empty()
            && templates.iter().all(|t| {
                let (data, _) = user_data(t.template);
                ami_source(model, t.template).is_ecs_optimized()
                    && data.known_text().is_some_and(|text| {
                        !fetches_config(text) && !sets_nvidia_default_runtime(text)
                    })
            });
        if !plain_runtime {
            continue;
        }
        let Some(tenants) = report.tenants(provider) else {
            continue;
        };
        if tenants.services.is_empty()
            || !tenants.services.iter().all(|(_, td)| sees_no_gpu(td))
            || !tenants.unplaced.iter().all(|td| sees_no_gpu(td))
        {
            continue;
        }
        let t = &types[0];
        let mut b = report
            .add(
                t.node.loc.or(Some(provider.loc)),
                format!(
                    "`{}` launches only GPU instances (`{}`), and no task placed on it reserves a GPU, so no container sees their GPUs",
                    model.local_address(provider),
                    t.name
                ),
            )
            .label(Some(provider.loc), "the capacity provider");
        for (svc, td) in &tenants.services {
            b = b.label(
                Some(svc.loc),
                format!(
                    "`{}` is placed on it; its task definition {} reserves no GPU",
                    model.local_address(svc),
                    task_name(model, td)
                ),
            );
        }
        b.help("if a container needs the GPU, reserve it: `resourceRequirements = [{ type = \"GPU\", value = \"1\" }]` in its definition (ECS gives the NVIDIA runtime only to containers that reserve GPUs); if none does, use an instance type without GPUs")
            .resource(provider);
    }
}
