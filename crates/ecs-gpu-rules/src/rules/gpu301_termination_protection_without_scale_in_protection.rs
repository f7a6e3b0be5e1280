use ecs_gpu_model::{Model, Value};

use crate::capacity::{provider_asg, string, GPU_CAPACITY, GROUPS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Capacity providers of GPU capacity (a GPU service is placed on them, or their group launches
    /// NVIDIA GPU instances) with `managed_termination_protection = "ENABLED"` whose Auto Scaling
    /// group (followed through `auto_scaling_group_arn`) has `protect_from_scale_in = false`, or does
    /// not set it (the AWS provider's default is `false`). A value that is not known is not reported.
    ///
    /// ## Why it matters
    ///
    /// ECS refuses to create (or update) a capacity provider with managed termination protection when
    /// its group does not protect new instances from scale-in: `terraform apply` fails with
    /// "The managed termination protection setting for the capacity provider is invalid".
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_autoscaling_group" "gpu" {
    ///   # protect_from_scale_in is not set: false
    /// }
    ///
    /// resource "aws_ecs_capacity_provider" "gpu" {
    ///   auto_scaling_group_provider {
    ///     auto_scaling_group_arn         = aws_autoscaling_group.gpu.arn
    ///     managed_termination_protection = "ENABLED"
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set `protect_from_scale_in = true` on the group (ECS then removes the protection from instances
    /// it drains), or turn managed termination protection off.
    pub static RULE = {
        id: "GPU301",
        name: "termination-protection-without-scale-in-protection",
        severity: Error,
        summary: "managed termination protection is on and the group does not protect new instances from scale-in",
        reads: {
            arguments: { "aws_autoscaling_group": ["protect_from_scale_in"] },
            analyses: [GPU_CAPACITY, GROUPS],
        },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let mut found = Vec::new();
    for (cp, reason) in &report.gpu_capacity().providers {
        let cp = *cp;
        if cp.instances_unknown {
            continue;
        }
        let Some(asgp) = cp.body.block("auto_scaling_group_provider") else {
            continue;
        };
        let mtp = asgp.body.attr("managed_termination_protection");
        if string(mtp) != Some("ENABLED") {
            continue;
        }
        let Some(asg) = provider_asg(model, cp) else {
            continue;
        };
        if asg.instances_unknown {
            continue;
        }
        let protect = asg.body.attr("protect_from_scale_in");
        // Absent means the AWS provider's default, false (catalog: source key TF-AWS).
        let provider_default = ecs_gpu_catalog::catalog()
            .autoscaling
            .protect_from_scale_in_provider_default;
        let label_at = match protect.map(|n| &n.value) {
            None if !provider_default => Some(asg.loc),
            Some(Value::Bool(false)) => protect.and_then(|n| n.loc),
            _ => continue,
        };
        found.push((
            cp,
            asg,
            mtp.and_then(|n| n.loc),
            label_at,
            reason.label(model),
        ));
    }
    for (cp, asg, at, label_at, (why_at, why)) in found {
        report
            .add(
                at,
                format!(
                    "managed termination protection is enabled, but `{}` does not protect new instances from scale-in",
                    model.local_address(asg)
                ),
            )
            .label(label_at, "`protect_from_scale_in` is false here (the default when not set)")
            .label(why_at, why)
            .help("set `protect_from_scale_in = true` on the Auto Scaling group, or disable managed termination protection")
            .resource(cp);
    }
}
