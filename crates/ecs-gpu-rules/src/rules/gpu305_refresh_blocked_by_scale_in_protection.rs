use ecs_gpu_model::{Model, Value};

use crate::capacity::{string, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Auto Scaling groups of GPU capacity with `protect_from_scale_in = true` and an
    /// `instance_refresh` whose `preferences.scale_in_protected_instances` is `"Wait"`.
    ///
    /// An absent `scale_in_protected_instances` is not reported: the AWS default is `Ignore`, which
    /// skips protected instances instead of blocking.
    ///
    /// ## Why it matters
    ///
    /// With managed termination protection, ECS keeps scale-in protection on every instance that runs
    /// tasks, which on GPU capacity is nearly all of them. A refresh told to `Wait` for protected
    /// instances waits until it times out and fails: no instance gets the new AMI.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   protect_from_scale_in = true
    ///   instance_refresh {
    ///     strategy = "Rolling"
    ///     preferences {
    ///       scale_in_protected_instances = "Wait"
    ///     }
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set `scale_in_protected_instances = "Refresh"` to replace protected instances too (ECS drains
    /// their tasks first), or `"Ignore"` to leave them.
    pub static RULE = {
        id: "GPU305",
        name: "refresh-blocked-by-scale-in-protection",
        severity: Warning,
        summary: "an instance refresh waits for scale-in protected instances that never lose their protection",
        reads: {
            arguments: { "aws_autoscaling_group": ["instance_refresh", "protect_from_scale_in"] },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (group, reason) in &report.gpu_capacity().groups {
        let body = &group.group.body;
        let protect = body.attr("protect_from_scale_in");
        if !matches!(protect.map(|n| &n.value), Some(Value::Bool(true))) {
            continue;
        }
        let Some(refresh) = body.block("instance_refresh") else {
            continue;
        };
        let Some(prefs) = refresh.body.block("preferences") else {
            continue;
        };
        let sipi = prefs.body.attr("scale_in_protected_instances");
        if string(sipi) != Some("Wait") {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                sipi.and_then(|n| n.loc),
                "the instance refresh waits for scale-in protected instances, and every instance is protected",
            )
            .label(protect.and_then(|n| n.loc), "instances are protected from scale-in here")
            .label(why_at, why)
            .help("set `scale_in_protected_instances = \"Refresh\"` (or `\"Ignore\"`)")
            .resource(group.group);
    }
}
