use ecs_gpu_catalog::{catalog, Lookup};
use ecs_gpu_model::Model;

use crate::capacity::{describe_gpus, mixed_gpu_shapes, GROUPS};
use crate::{declare_rule, Findings, Severity};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups behind an ECS capacity provider whose `mixed_instances_policy` overrides
    /// name GPU instance types (known to the catalog) with different GPU counts or different memory
    /// per GPU, for example `g5.xlarge` (1 A10G) and `g5.12xlarge` (4 A10G), or `g5.xlarge` (22888
    /// MiB per GPU) and `g6e.xlarge` (45776 MiB). Another GPU model with the same count and memory
    /// per GPU (`g5.12xlarge` and `g6.12xlarge`, four A10G or four L4) is not reported: tasks and
    /// managed scaling size alike on either, and the Terraform module accepts such a pair by
    /// opt-in; when a type's GPU memory is unknown, another model counts as different. Types the
    /// catalog does not know are left out of the comparison. Warning; error when an override also
    /// sets `weighted_capacity` (known and not null).
    ///
    /// ## Why it matters
    ///
    /// Managed scaling computes how many instances it needs as if every instance were alike, so it
    /// sizes on whatever type it launched: tasks that need 4 GPUs wait on 1-GPU instances, and
    /// 4-GPU instances sit mostly idle for 1-GPU tasks. ECS capacity providers do not support
    /// weighted instance types at all; with `weighted_capacity` the capacity provider's scaling is
    /// wrong or refused.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// mixed_instances_policy {
    ///   launch_template {
    ///     launch_template_specification {
    ///       launch_template_id = aws_launch_template.gpu.id
    ///     }
    ///     override { instance_type = "g5.xlarge" }
    ///     override { instance_type = "g5.12xlarge" }
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Give each GPU shape its own group and capacity provider, and choose one per service with a
    /// capacity provider strategy; keep overrides to types with the same GPU count and memory per
    /// GPU (and a model the task's image runs on).
    pub static RULE = {
        id: "GPU306",
        name: "mixed-gpu-types-in-capacity-provider",
        severity: Warning,
        summary: "a group behind a capacity provider mixes instance types with different GPUs",
        reads: { analyses: [GROUPS] },
        check: check,
    }
}

fn check(_model: &Model, report: &mut Findings<'_>) {
    for (provider, group) in report.provider_groups() {
        if group.mixed.is_none() {
            continue;
        }
        let Some(((first, first_type), (other, other_type))) = mixed_gpu_shapes(group) else {
            continue;
        };
        let weighted = group
            .known_instance_types
            .iter()
            .filter(|t| matches!(catalog().lookup(&t.name), Lookup::Known(_)))
            .find_map(|t| {
                t.override_block
                    .and_then(|o| o.body.attr("weighted_capacity"))
                    // An unknown may be null: the finding stays a warning then.
                    .filter(|n| n.is_given())
            });
        let mut b = report
            .add(
                other.node.loc,
                format!(
                    "`{}` ({}) and `{}` ({}) are mixed in one group behind a capacity provider, so managed scaling sizes on the wrong one",
                    other.name,
                    describe_gpus(other_type),
                    first.name,
                    describe_gpus(first_type)
                ),
            )
            .label(first.node.loc, format!("`{}` is here", first.name))
            .label(Some(provider.loc), "the capacity provider that scales this group")
            .help("give each GPU shape its own Auto Scaling group and capacity provider");
        if let Some(w) = weighted {
            b = b.severity(Severity::Error).label(
                w.loc,
                "`weighted_capacity` is set here, which ECS capacity providers do not support",
            );
        }
        b.resource(group.group);
    }
}
