use ecs_gpu_model::Model;

use crate::capacity::{describe_gpus, mixed_gpu_shapes, GpuReason, GroupCapacity, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// GPU capacity that no capacity provider scales — an EC2 Fleet (`aws_ec2_fleet`), a Spot
    /// Fleet request (`aws_spot_fleet_request`), or an Auto Scaling group whose instances join the
    /// cluster through their user data — whose overrides (`override`, `overrides`, a
    /// `mixed_instances_policy`'s `override`, `dynamic` ones over known collections included) name
    /// GPU instance types, known to the catalog, with different GPU counts or different memory per
    /// GPU: for example `g5.xlarge` (1 A10G) and `g5.12xlarge` (4 A10G). Another GPU model with the
    /// same count and memory per GPU (`g5.12xlarge` and `g6.12xlarge`) is not reported, as GPU306
    /// does not, and as the Terraform module accepts it by opt-in. Types the catalog does not know
    /// are left out. A group behind a capacity provider is GPU306's.
    ///
    /// ## Why it matters
    ///
    /// The fleet or group counts instances (or weights), not GPUs, and EC2 picks whichever type
    /// it can launch. Which GPUs the cluster has then depends on that choice: a task that reserves
    /// more GPUs than the smaller type has, or that needs the larger GPU memory, stays pending (or
    /// fails on the smaller GPU) whenever EC2 launched the other type, and GPUs of the larger type
    /// sit idle under tasks sized for the smaller one.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ec2_fleet" "gpu" {
    ///   launch_template_config {
    ///     launch_template_specification {
    ///       launch_template_id = aws_launch_template.gpu.id
    ///       version            = aws_launch_template.gpu.latest_version
    ///     }
    ///     override { instance_type = "g5.xlarge" }
    ///     override { instance_type = "g5.12xlarge" }
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Keep the overrides of one fleet or group to types with the same GPU count and memory per GPU
    /// (for Spot diversity, the same shape in several families: `g5.xlarge`, `g6.xlarge` only when
    /// tasks accept either GPU model), and launch each GPU shape in a fleet or group of its own.
    pub static RULE = {
        id: "GPU310",
        name: "mixed-gpu-types-without-capacity-provider",
        severity: Warning,
        summary: "a fleet or group outside capacity providers mixes instance types with different GPUs",
        reads: { analyses: [GPU_CAPACITY] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let gpu = report.gpu_capacity();
    // Groups behind no capacity provider are GPU capacity through their user data only.
    let groups = gpu
        .groups
        .iter()
        .filter(|(_, reason)| matches!(reason, GpuReason::EcsInstances { .. }))
        .map(|(g, r)| (g.as_ref(), r));
    let fleets = gpu.fleets.iter().map(|(f, r)| (f, r));
    let all: Vec<(&GroupCapacity<'_>, &GpuReason<'_>)> = groups.chain(fleets).collect();
    for (cap, reason) in all {
        let Some(((first, first_type), (other, other_type))) = mixed_gpu_shapes(cap) else {
            continue;
        };
        let (why_at, why) = reason.label(model);
        // The reason often points at the first type already: say it once.
        let (why_at, why) = if why_at == first.node.loc {
            (
                Some(cap.group.loc),
                format!("`{}` is GPU capacity", model.local_address(cap.group)),
            )
        } else {
            (why_at, why)
        };
        report
            .add(
                other.node.loc,
                format!(
                    "`{}` ({}) and `{}` ({}) are both launched by `{}`, so the GPUs a task finds depend on which type EC2 launched",
                    other.name,
                    describe_gpus(other_type),
                    first.name,
                    describe_gpus(first_type),
                    model.local_address(cap.group)
                ),
            )
            .label(first.node.loc, format!("`{}` is here", first.name))
            .label(why_at, why)
            .help("keep one GPU count and memory per GPU per fleet or group, and launch other shapes in their own")
            .resource(cap.group);
    }
}
