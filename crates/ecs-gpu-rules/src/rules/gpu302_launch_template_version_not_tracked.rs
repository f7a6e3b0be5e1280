use ecs_gpu_model::Model;

use crate::capacity::{replaced_on_new_template_version, string, GPU_CAPACITY, REPLACEMENT};
use crate::task::number;
use crate::{declare_rule, Findings, Severity};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity (capacity a GPU service is placed on, a capacity
    /// provider's group that launches NVIDIA GPU instance types, or a group without a capacity
    /// provider that launches them as ECS container instances) whose launch template `version`
    /// (in `launch_template`, or `mixed_instances_policy.launch_template.launch_template_specification`)
    /// is `"$Latest"`, `"$Default"`, a fixed number, or not set (which means `$Default`). A version
    /// written as `aws_launch_template.x.latest_version` (or any other unknown value) is fine, and
    /// so is a group whose `name` or `name_prefix` is built from the template's `latest_version`
    /// (or `default_version`), or whose `lifecycle { replace_triggered_by }` names the template (or
    /// those attributes): a new template version replaces the whole group.
    ///
    /// An info, not a warning, for `$Latest` on a group with a `max_instance_lifetime` (other than
    /// 0, or not known): every instance is replaced within that time, and its replacement launches
    /// from the newest version.
    ///
    /// ## Why it matters
    ///
    /// Terraform sees no change to the group when the template gets a new version (a new GPU AMI, new
    /// user data), so the group's `instance_refresh` is never triggered: running GPU instances keep the
    /// old driver and AMI until they happen to be replaced, and `$Default` even keeps launching the
    /// old version.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   launch_template {
    ///     id      = aws_launch_template.gpu.id
    ///     version = "$Latest"
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Track the template's newest version: `version = aws_launch_template.gpu.latest_version`, with an
    /// `instance_refresh` block so that the change rolls out.
    pub static RULE = {
        id: "GPU302",
        name: "launch-template-version-not-tracked",
        severity: Warning,
        summary: "the group's launch template version does not change when the template does",
        reads: {
            arguments: { "aws_autoscaling_group": ["instance_refresh", "max_instance_lifetime"] },
            analyses: [GPU_CAPACITY, REPLACEMENT],
        },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (group, reason) in &report.gpu_capacity().groups {
        // Without any `instance_refresh` there is nothing for a tracked version to trigger:
        // GPU303 reports a group that nothing refreshes, and a maximum instance lifetime
        // replaces instances with the version `$Latest` names anyway.
        let body = &group.group.body;
        if replaced_on_new_template_version(model, group)
            || (body.block("instance_refresh").is_none()
                && !body.may_have_unknown("instance_refresh"))
        {
            continue;
        }
        for t in &group.known_templates {
            // A launch configuration has no versions: a change replaces it, and the group.
            if crate::capacity::is_launch_configuration(t.template) {
                continue;
            }
            // Only the group's own template reference (not overrides' specifications).
            let (at, what) = match t.version {
                None => (
                    t.spec.and_then(|s| s.loc),
                    "`$Default` (no `version`)".to_string(),
                ),
                Some(v) => match string(Some(v)) {
                    Some(s) if s == "$Latest" || s == "$Default" || s.parse::<u64>().is_ok() => {
                        (v.loc, format!("`{s}`"))
                    }
                    _ => continue,
                },
            };
            let (why_at, why) = reason.label(model);
            let lifetime = body
                .attr("max_instance_lifetime")
                .filter(|n| n.is_unknown() || number(n).is_some_and(|s| s > 0.0));
            if let (Some(lifetime), Some("$Latest")) =
                (lifetime, t.version.and_then(|v| string(Some(v))))
            {
                report
                    .add(
                        at,
                        "the launch template version is `$Latest`, so a new template version never triggers an instance refresh; the maximum instance lifetime replaces every instance with the newest version in time",
                    )
                    .severity(Severity::Info)
                    .label(lifetime.loc, "the maximum instance lifetime")
                    .label(Some(t.template.loc), "the launch template")
                    .label(why_at, why)
                    .help(format!(
                        "set `version = {}.latest_version` to roll a new version out at once",
                        model.local_address(t.template)
                    ))
                    .resource(group.group);
                continue;
            }
            report
                .add(
                    at,
                    format!("the launch template version is {what}, so a new template version never triggers an instance refresh"),
                )
                .label(Some(t.template.loc), "the launch template")
                .label(why_at, why)
                .help(format!(
                    "set `version = {}.latest_version`",
                    model.local_address(t.template)
                ))
                .resource(group.group);
        }
    }
}
