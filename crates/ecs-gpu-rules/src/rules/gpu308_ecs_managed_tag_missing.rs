use ecs_gpu_model::Model;

use crate::capacity::{string, GPU_CAPACITY, GROUPS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity (a GPU service is placed on them, or they launch NVIDIA GPU
    /// instances) behind an ECS capacity provider with managed scaling whose `tag` blocks are all known and none
    /// has the key `AmazonECSManaged`, and whose `lifecycle { ignore_changes }` does not cover `tag`.
    /// Only groups whose capacity provider has `managed_scaling { status = "ENABLED" }` (ECS adds the
    /// tag when it manages the group's scaling). A `dynamic "tag"` with an unknown `for_each`, or a tag
    /// key that is not known, is not reported.
    ///
    /// ## Why it matters
    ///
    /// When managed scaling is turned on, ECS tags the group `AmazonECSManaged`. Terraform does not
    /// know the tag, so every apply removes it again: a perpetual diff, and the capacity provider's
    /// scaling can stop working between the apply and ECS restoring the tag.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   # no AmazonECSManaged tag
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// ```hcl
    /// tag {
    ///   key                 = "AmazonECSManaged"
    ///   value               = true
    ///   propagate_at_launch = true
    /// }
    /// ```
    pub static RULE = {
        id: "GPU308",
        name: "ecs-managed-tag-missing",
        severity: Warning,
        summary: "a GPU group behind a capacity provider lacks the `AmazonECSManaged` tag",
        reads: {
            arguments: { "aws_autoscaling_group": ["tag", "tags"] },
            analyses: [GPU_CAPACITY, GROUPS],
        },
        check: check,
    }
}

const TAG: &str = "AmazonECSManaged";

fn check(model: &Model, report: &mut Findings<'_>) {
    let gpu_groups: std::collections::HashSet<_> = report
        .gpu_capacity()
        .groups
        .iter()
        .map(|(g, _)| g.group.id)
        .collect();
    for (provider, group) in report.provider_groups() {
        let asg = group.group;
        if !gpu_groups.contains(&asg.id) {
            continue;
        }
        let body = &asg.body;
        if body.may_have_unknown("tag")
            || asg.ignore_changes.ignores("tag")
            || body.attr("tags").is_some()
        {
            continue;
        }
        // ECS tags the group only when it manages its scaling.
        let enabled = provider
            .body
            .block("auto_scaling_group_provider")
            .and_then(|b| b.body.block("managed_scaling"))
            .and_then(|m| string(m.body.attr("status")))
            == Some("ENABLED");
        if !enabled {
            continue;
        }
        let mut keys_known = true;
        let mut found = false;
        for t in body.blocks("tag") {
            match string(t.body.attr("key")) {
                Some(k) if k == TAG => found = true,
                Some(_) => {}
                None => keys_known = false,
            }
        }
        if found || !keys_known {
            continue;
        }
        report
            .add(
                Some(asg.loc),
                format!(
                    "`{}` is behind a capacity provider and has no `{TAG}` tag, so every apply removes the tag ECS adds",
                    model.local_address(asg)
                ),
            )
            .label(Some(provider.loc), "the capacity provider that manages this group")
            .help(format!("add `tag {{ key = \"{TAG}\" value = true propagate_at_launch = true }}`"))
            .resource(asg);
    }
}
