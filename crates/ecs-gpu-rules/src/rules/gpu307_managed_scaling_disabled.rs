use ecs_gpu_model::Model;

use crate::capacity::{string, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Capacity providers of GPU capacity whose `auto_scaling_group_provider.managed_scaling.status`
    /// is `"DISABLED"`. An absent `managed_scaling` block or `status` is not reported, because the
    /// configuration alone does not say what ECS applies then, nor a group of fixed size
    /// (`min_size` = `max_size` = `desired_capacity`, all known), which nothing could scale anyway
    /// (GPU503 exempts it the same way).
    ///
    /// ## Why it matters
    ///
    /// Without managed scaling nothing adds GPU instances when GPU tasks are waiting: tasks stay
    /// `PENDING` until someone changes the group's desired capacity by hand, and idle GPU instances are
    /// never removed.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// managed_scaling {
    ///   status = "DISABLED"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// `managed_scaling { status = "ENABLED" target_capacity = 100 }`.
    pub static RULE = {
        id: "GPU307",
        name: "managed-scaling-disabled",
        severity: Warning,
        summary: "managed scaling is disabled on a capacity provider of GPU capacity",
        reads: {
            arguments: { "aws_autoscaling_group": ["desired_capacity", "max_size", "min_size"] },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (provider, reason) in &report.gpu_capacity().providers {
        let Some(asgp) = provider.body.block("auto_scaling_group_provider") else {
            continue;
        };
        let Some(ms) = asgp.body.block("managed_scaling") else {
            continue;
        };
        let status = ms.body.attr("status");
        if string(status) != Some("DISABLED") {
            continue;
        }
        if let Some(asg) = crate::capacity::provider_asg(model, provider) {
            if fixed_size(asg) {
                continue;
            }
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                status.and_then(|n| n.loc),
                "managed scaling is disabled, so no GPU instance is added for waiting GPU tasks",
            )
            .label(why_at, why)
            .help("set `status = \"ENABLED\"` in `managed_scaling`")
            .resource(provider);
    }
}

/// A group whose size is fixed (`min_size` = `max_size` = `desired_capacity`, all known): scaling
/// cannot change it.
pub(crate) fn fixed_size(asg: &ecs_gpu_model::Resource) -> bool {
    let number = |name: &str| asg.body.attr(name).and_then(crate::task::number);
    matches!(
        (number("min_size"), number("max_size"), number("desired_capacity")),
        (Some(min), Some(max), Some(desired)) if min == max && desired == min
    )
}
