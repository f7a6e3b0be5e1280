use ecs_gpu_model::{Loc, Model, Resource, Value};

use crate::capacity::{
    replaced_on_new_template_version, resolve_link, string, GroupCapacity, GPU_CAPACITY,
    REPLACEMENT,
};
use crate::task::number;
use crate::{declare_rule, Findings, Severity};

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
    /// instance within that time. Nor a group that can never run an instance (`max_size = 0`).
    ///
    /// An info, not a warning, for a group that a scheduled action (`aws_autoscaling_schedule`)
    /// scales to zero every day (`max_size = 0`, or `min_size` and `desired_capacity` 0, on a
    /// `recurrence` whose day, month and weekday are all `*`) and whose instances are not protected
    /// from scale-in: every instance is then replaced from the current template within a day, as a
    /// maximum instance lifetime would.
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
            whole: ["aws_autoscaling_schedule"],
            arguments: {
                "aws_autoscaling_group": [
                    "instance_refresh",
                    "max_instance_lifetime",
                    "max_size",
                    "min_size",
                    "protect_from_scale_in",
                ],
            },
            analyses: [GPU_CAPACITY, REPLACEMENT],
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
    // A group that can never run an instance has none to refresh.
    let empty = body
        .attr("max_size")
        .and_then(number)
        .is_some_and(|m| m == 0.0);
    !(body.block("instance_refresh").is_some()
        || body.may_have_unknown("instance_refresh")
        || replaced_on_new_template_version(model, group)
        || lifetime
        || empty)
}

/// A scheduled action that scales `group` to zero every day, when its instances are not protected
/// from scale-in (a protected instance outlives the scale-in): where its recurrence is written.
fn scaled_to_zero_daily(model: &Model, group: &Resource) -> Option<Option<Loc>> {
    let protected = match group.body.attr("protect_from_scale_in").map(|n| &n.value) {
        None => {
            ecs_gpu_catalog::catalog()
                .autoscaling
                .protect_from_scale_in_provider_default
        }
        Some(Value::Bool(b)) => *b,
        Some(_) => true,
    };
    if protected {
        return None;
    }
    let zero = |n: Option<&ecs_gpu_model::Node>| n.and_then(number).is_some_and(|v| v == 0.0);
    model
        .resources_in(model.root_of(group.module), "aws_autoscaling_schedule")
        .filter(|s| !s.instances_unknown)
        .find_map(|s| {
            let target = resolve_link(
                model,
                s,
                s.body.attr("autoscaling_group_name")?,
                "aws_autoscaling_group",
            )?;
            if target.iter().map(|g| g.id).ne([group.id]) {
                return None;
            }
            let recurrence = s.body.attr("recurrence")?;
            let fields: Vec<&str> = string(Some(recurrence))?.split_whitespace().collect();
            let daily = matches!(fields.as_slice(), [_, _, "*", "*", "*"]);
            // Without `min_size`, the group's own must already be 0 for the desired 0 to hold.
            let min_zero = zero(s.body.attr("min_size"))
                || (s.body.attr("min_size").is_none() && zero(group.body.attr("min_size")));
            let to_zero = zero(s.body.attr("max_size"))
                || (zero(s.body.attr("desired_capacity")) && min_zero);
            (daily && to_zero).then_some(recurrence.loc)
        })
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (group, reason) in &report.gpu_capacity().groups {
        if !refresh_missing(model, group) {
            continue;
        }
        let (why_at, why) = reason.label(model);
        if let Some(at) = scaled_to_zero_daily(model, group.group) {
            report
                .add(
                    Some(group.group.loc),
                    format!(
                        "`{}` has no instance refresh; a scheduled action scales it to zero every day, so AMI and driver changes reach its GPU instances within a day",
                        model.local_address(group.group)
                    ),
                )
                .severity(Severity::Info)
                .label(at, "the group is scaled to zero on this schedule")
                .label(why_at, why)
                .help("add `instance_refresh { strategy = \"Rolling\" }` to roll changes out without waiting for the schedule")
                .resource(group.group);
            continue;
        }
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
