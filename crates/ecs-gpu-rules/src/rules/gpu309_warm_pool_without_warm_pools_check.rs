use ecs_gpu_catalog::catalog;
use ecs_gpu_model::Model;

use crate::capacity::{
    ami_source, fetches_config, launch_kind, user_data, Setting, AMI, GPU_CAPACITY, USER_DATA,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity with a `warm_pool` block whose launch templates (or
    /// launch configuration) have user data, known in full, that does not set
    /// `ECS_WARM_POOLS_CHECK=true`. The agent's default is `false` (AGENT README).
    ///
    /// Not reported: user data that does not mention the variable on an image not known to be an
    /// ECS-optimized AMI (a custom AMI may bake it into `/etc/ecs/ecs.config`); user data with an
    /// unknown part that may set it (one that can stand for a whole line, or in a line that writes
    /// the agent's configuration; a hole in another line's value, such as the cluster name, does
    /// not hide it), that fetches its configuration at boot, or that is gzip; a `dynamic
    /// "warm_pool"` over an unknown collection; ECS Managed Instances, which have
    /// no warm pool and no user data. (hashicorp/aws 5.100.0 has no separate warm-pool resource:
    /// the `warm_pool` block is the only way to declare one.)
    ///
    /// ## Why it matters
    ///
    /// A warm pool launches instances, runs their user data and stops them (or keeps them running)
    /// until the group scales out. Without `ECS_WARM_POOLS_CHECK=true` the ECS agent registers each
    /// warm-pool instance with the cluster while it is being prepared: ECS places GPU tasks on it,
    /// and they are stopped with the instance when it enters the pool; a stopped instance stays in
    /// the cluster as a disconnected container instance. The ECS guide's warm-pool page asks for
    /// the variable in the launch template's user data (agent 1.59.0 and later).
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   user_data = base64encode("#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\n")
    /// }
    ///
    /// resource "aws_autoscaling_group" "gpu" {
    ///   warm_pool {
    ///     pool_state = "Stopped"
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write `ECS_WARM_POOLS_CHECK=true` to `/etc/ecs/ecs.config` in the user data:
    ///
    /// ```sh
    /// echo ECS_WARM_POOLS_CHECK=true >> /etc/ecs/ecs.config
    /// ```
    pub static RULE = {
        id: "GPU309",
        name: "warm-pool-without-warm-pools-check",
        severity: Warning,
        summary: "a GPU group has a warm pool and its user data does not set `ECS_WARM_POOLS_CHECK=true`",
        reads: {
            arguments: { "aws_autoscaling_group": ["warm_pool"] },
            analyses: [GPU_CAPACITY, USER_DATA, AMI],
        },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let var = &catalog().agent.warm_pools_check_variable;
    for (group, reason) in &report.gpu_capacity().groups {
        let body = &group.group.body;
        if body.may_have_unknown("warm_pool") {
            continue;
        }
        let Some(pool) = body.block("warm_pool") else {
            continue;
        };
        let (why_at, why) = reason.label(model);
        for t in &group.known_templates {
            let (data, loc) = user_data(t.template);
            let Some(text) = data.known_text() else {
                continue;
            };
            if fetches_config(text) {
                continue;
            }
            match data.setting(var) {
                Setting::Value(v) if v.eq_ignore_ascii_case("true") => continue,
                // A value built at boot (`${...}`, `$VAR`) may be true.
                Setting::Value(v) if v.contains('$') => continue,
                Setting::Value(_) => {}
                Setting::UnknownValue | Setting::Unknown => continue,
                // Unset here: a custom AMI may have it in its own `ecs.config`.
                Setting::Unset if !ami_source(model, t.template).is_ecs_optimized() => continue,
                Setting::Unset => {}
            }
            report
                .add(
                    loc.or(Some(t.template.loc)),
                    format!(
                        "`{}` has a warm pool, and this {}'s user data does not set `{var}=true`, so warm-pool instances register with the cluster and take GPU tasks while they are prepared",
                        model.local_address(group.group),
                        launch_kind(t.template)
                    ),
                )
                .label(pool.loc, "the warm pool")
                .label(why_at, why.clone())
                .help(format!("write `{var}=true` to `/etc/ecs/ecs.config` in the user data"))
                .resource(t.template);
        }
    }
}
