use ecs_gpu_model::Model;

use crate::capacity::{string, GPU_CAPACITY, GROUPS};
use crate::{attribute_site, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity behind a capacity provider with `managed_scaling { status = "ENABLED" }`
    /// that set `desired_capacity` and do not ignore it (`lifecycle { ignore_changes =
    /// [desired_capacity] }`). A null or unknown `desired_capacity` is not reported (a variable
    /// without a value may be given null), nor a fixed size (`min_size` = `max_size` =
    /// `desired_capacity`), which managed scaling cannot change. When the value comes from elsewhere (a variable's
    /// default, a `.tfvars` file), the finding points at `desired_capacity` in the group, with a
    /// note where the value is written.
    ///
    /// ## Why it matters
    ///
    /// Managed scaling sets the group's desired capacity from the tasks waiting for it; every
    /// `terraform apply` sets it back to the written number. GPU instances running tasks are
    /// terminated (or protected instances block the change), and scaling fights Terraform on every
    /// apply.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   desired_capacity = 1
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Remove `desired_capacity` (let managed scaling own it), or add
    /// `lifecycle { ignore_changes = [desired_capacity] }`.
    pub static RULE = {
        id: "GPU503",
        name: "asg-desired-capacity-fights-managed-scaling",
        severity: Warning,
        summary: "a group under managed scaling sets `desired_capacity` and does not ignore it",
        reads: {
            arguments: { "aws_autoscaling_group": ["desired_capacity", "max_size", "min_size"] },
            analyses: [GROUPS, GPU_CAPACITY],
        },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (provider, group) in report.provider_groups() {
        let status = provider
            .body
            .block("auto_scaling_group_provider")
            .and_then(|b| b.body.block("managed_scaling"))
            .and_then(|m| m.body.attr("status"));
        if string(status) != Some("ENABLED") {
            continue;
        }
        let asg = group.group;
        if asg.ignore_changes.ignores("desired_capacity") || !report.is_gpu_resource(asg) {
            continue;
        }
        let Some(dc) = asg.body.attribute("desired_capacity") else {
            continue;
        };
        if !dc.value.is_given() {
            continue;
        }
        // A group whose size is fixed (`min_size` = `max_size` = `desired_capacity`): managed
        // scaling cannot change it, so no apply resets anything.
        let number = |name: &str| asg.body.attr(name).and_then(crate::task::number);
        if let (Some(min), Some(max), Some(desired)) = (
            number("min_size"),
            number("max_size"),
            crate::task::number(&dc.value),
        ) {
            if min == max && desired == min {
                continue;
            }
        }
        let (at, value_at) = attribute_site(asg, dc);
        report
            .add(
                at,
                format!(
                    "`{}` sets `desired_capacity`, which managed scaling owns: every apply resets it",
                    model.local_address(asg)
                ),
            )
            .label(value_at, "the value comes from here")
            .label(status.and_then(|n| n.loc), "managed scaling is enabled here")
            .help("remove `desired_capacity`, or add `lifecycle { ignore_changes = [desired_capacity] }`")
            .resource(asg);
    }
}
