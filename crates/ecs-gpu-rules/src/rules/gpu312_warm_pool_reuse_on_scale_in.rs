use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Model, Value};

use crate::capacity::GPU_CAPACITY;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity whose `warm_pool` has
    /// `instance_reuse_policy { reuse_on_scale_in = true }`: on scale in, the group returns
    /// instances to the warm pool instead of terminating them. The ECS guide's warm-pool page
    /// (source key ECS-WARM) says that for an Auto Scaling group for ECS this option cannot be set.
    ///
    /// Not reported: `reuse_on_scale_in` unset, `false` or unknown (a variable without a value); a
    /// `dynamic "warm_pool"` or `dynamic "instance_reuse_policy"` over an unknown collection; ECS
    /// Managed Instances and fleets, which have no warm pool.
    ///
    /// ## Why it matters
    ///
    /// ECS documents warm pools for its Auto Scaling groups only without instance reuse. With it,
    /// an instance that scales in is stopped (or kept running) in the pool instead of terminated,
    /// while it was a registered container instance of the cluster; what ECS then does with it is
    /// not documented, and the guide rules it out. EC2 Auto Scaling does not know that the group
    /// serves ECS: its `PutWarmPool` reference names the groups it refuses a warm pool (a mixed
    /// instances policy, Spot) and not this one, so the apply is not known to fail. That is why
    /// this is a warning, not an error: the configuration is unsupported, and it shows only at
    /// scale in, on the most expensive instances.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   warm_pool {
    ///     pool_state = "Stopped"
    ///     instance_reuse_policy {
    ///       reuse_on_scale_in = true
    ///     }
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Remove the `instance_reuse_policy` block (or set `reuse_on_scale_in = false`): instances
    /// that scale in are terminated, and the warm pool is refilled with new ones.
    pub static RULE = {
        id: "GPU312",
        name: "warm-pool-reuse-on-scale-in",
        severity: Warning,
        summary: "a GPU group's warm pool returns instances to the pool on scale in, which ECS does not support",
        reads: { arguments: { "aws_autoscaling_group": ["warm_pool"] }, analyses: [GPU_CAPACITY] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    // The fact the rule stands on: ECS does not allow reuse on scale in.
    if catalog().autoscaling.ecs_warm_pool_reuse_on_scale_in {
        return;
    }
    for (group, reason) in &report.gpu_capacity().groups {
        let body = &group.group.body;
        if body.may_have_unknown("warm_pool") {
            continue;
        }
        let Some(pool) = body.block("warm_pool") else {
            continue;
        };
        if pool.body.may_have_unknown("instance_reuse_policy") {
            continue;
        }
        let Some(policy) = pool.body.block("instance_reuse_policy") else {
            continue;
        };
        let Some(reuse) = policy.body.attr("reuse_on_scale_in") else {
            continue;
        };
        let on = match &reuse.value {
            Value::Bool(b) => *b,
            Value::String(s) => s.as_str() == "true",
            _ => false,
        };
        if !on {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                reuse.loc,
                format!(
                    "the warm pool of `{}` returns instances to the pool on scale in, which ECS does not support for its Auto Scaling groups",
                    model.local_address(group.group)
                ),
            )
            .label(pool.loc, "the warm pool")
            .label(why_at, why)
            .help("remove `instance_reuse_policy` (or set `reuse_on_scale_in = false`): instances that scale in are terminated and the pool is refilled")
            .resource(group.group);
    }
}
