use ecs_gpu_model::Model;

use crate::capacity::{replaced_on_new_template_version, GroupCapacity, GPU_CAPACITY, REPLACEMENT};
use crate::task::number;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity without an `instance_refresh` block (and without a
    /// `dynamic "instance_refresh"` whose `for_each` is unknown).
    ///
    /// Not reported: a group whose `name` or `name_prefix` is built from its launch template's
    /// `latest_version` (or `default_version`), or whose `lifecycle { replace_triggered_by }` names
    /// the template (or those attributes): a new template version then replaces the whole group
    /// (the blue/green pattern), so its instances get the new AMI without a refresh. Nor a
    /// group with a `max_instance_lifetime` (other than 0, or not known), which replaces every
    /// instance within that time.
    ///
    /// ## Why it matters
    ///
    /// Without an instance refresh, a new launch template version (a new ECS GPU AMI with a newer
    /// NVIDIA driver, changed user data) only reaches instances launched after it. Running GPU
    /// instances keep the old AMI and driver until a scale event replaces them, which on steady
    /// capacity can be never.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   launch_template {
    ///     id      = aws_launch_template.gpu.id
    ///     version = aws_launch_template.gpu.latest_version
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Add `instance_refresh { strategy = "Rolling" preferences { instance_warmup = 300 } }`.
    pub static RULE = {
        id: "GPU303",
        name: "instance-refresh-missing",
        severity: Warning,
        summary: "an Auto Scaling group of GPU capacity has no instance refresh",
        reads: {
            arguments: { "aws_autoscaling_group": ["instance_refresh", "max_instance_lifetime"] },
            walks: [GPU_CAPACITY, REPLACEMENT],
        },
        check: check,
    }
}

/// Whether GPU303 reports `group`: nothing replaces its instances when the AMI or the launch
/// template changes (no `instance_refresh`, no maximum instance lifetime, no replacement of the
/// group on a new template version). GPU302 says nothing more on such a group.
fn refresh_missing(model: &Model, group: &GroupCapacity<'_>) -> bool {
    let body = &group.group.body;
    // A maximum instance lifetime replaces every instance within it: the new AMI does reach
    // them (0, the default, turns it off; an unknown value may set it).
    let lifetime = body
        .attr("max_instance_lifetime")
        .is_some_and(|n| n.is_unknown() || number(n).is_some_and(|s| s > 0.0));
    !(body.block("instance_refresh").is_some()
        || body.may_have_unknown("instance_refresh")
        || replaced_on_new_template_version(model, group)
        || lifetime)
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (group, reason) in &report.gpu_capacity().groups {
        if !refresh_missing(model, group) {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                Some(group.group.loc),
                format!(
                    "`{}` has no instance refresh, so AMI and driver changes never reach running GPU instances",
                    model.local_address(group.group)
                ),
            )
            .label(why_at, why)
            .help("add `instance_refresh { strategy = \"Rolling\" }` to the Auto Scaling group")
            .resource(group.group);
    }
}
