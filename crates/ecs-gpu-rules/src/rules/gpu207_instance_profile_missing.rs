use ecs_gpu_model::{Model, Resource, Value};

use crate::capacity::{inline_specification, is_standalone_instance, GpuReason, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates of GPU capacity that have no `iam_instance_profile` block, and no `dynamic
    /// "iam_instance_profile"` whose `for_each` is unknown (which might create one); and standalone
    /// `aws_instance`s of GPU capacity whose `iam_instance_profile` is not set (or `null`; an
    /// unknown value is not reported). A Spot Fleet request's one inline `launch_specification`
    /// names its profile inside the block, by name (`iam_instance_profile`) or ARN
    /// (`iam_instance_profile_arn`): it is reported when it sets neither (or both `null`). A
    /// request with several inline specifications is not read.
    ///
    /// ## Why it matters
    ///
    /// The ECS agent calls the ECS API with the instance's role (`AmazonEC2ContainerServiceforEC2Role`
    /// or equivalent). Without an instance profile it cannot register the instance: the GPU
    /// instances run and are billed, but never appear in the cluster, and the tasks stay `PENDING`.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g5.xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Give the template the profile of a role with the `AmazonEC2ContainerServiceforEC2Role` policy:
    /// `iam_instance_profile { arn = aws_iam_instance_profile.ecs.arn }`.
    pub static RULE = {
        id: "GPU207",
        name: "instance-profile-missing",
        severity: Error,
        summary: "a launch template or instance of GPU capacity has no IAM instance profile",
        reads: {
            arguments: {
                "aws_instance": ["iam_instance_profile"],
                "aws_launch_configuration": ["iam_instance_profile"],
                "aws_launch_template": ["iam_instance_profile"],
            },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

/// The AWS managed policy the ECS agent's instance role needs to register the instance.
const AGENT_POLICY: &str = "AmazonEC2ContainerServiceforEC2Role";

fn check(model: &Model, report: &mut Findings<'_>) {
    for (t, reason) in &report.gpu_capacity().templates {
        if crate::capacity::is_fleet(t.template) {
            spot_fleet_specification(model, report, t.template, reason);
            continue;
        }
        let body = &t.template.body;
        let standalone = is_standalone_instance(t.template);
        let string_profile = standalone || crate::capacity::is_launch_configuration(t.template);
        let has_profile = if string_profile {
            // A string argument: set unless absent or `null` (an unknown may be either).
            body.attr("iam_instance_profile")
                .is_some_and(|n| !matches!(n.value, Value::Null))
        } else {
            body.block("iam_instance_profile").is_some()
                || body.may_have_unknown("iam_instance_profile")
        };
        if has_profile {
            continue;
        }
        let (why_at, why) = reason.label(model);
        let (message, help) = if crate::capacity::is_launch_configuration(t.template) {
            (
                format!(
                    "the launch configuration `{}` has no IAM instance profile, so the ECS agent cannot register its instances",
                    model.local_address(t.template)
                ),
                format!("set `iam_instance_profile` to the name of an instance profile whose role has the `{AGENT_POLICY}` policy"),
            )
        } else if standalone {
            (
                format!(
                    "the instance `{}` has no IAM instance profile, so the ECS agent cannot register it",
                    model.local_address(t.template)
                ),
                format!("set `iam_instance_profile` to the name of an instance profile whose role has the `{AGENT_POLICY}` policy"),
            )
        } else {
            (
                format!(
                    "the launch template `{}` has no IAM instance profile, so the ECS agent cannot register its instances",
                    model.local_address(t.template)
                ),
                format!("add `iam_instance_profile {{ arn = ... }}` with a role that has the `{AGENT_POLICY}` policy"),
            )
        };
        report
            .add(Some(t.template.loc), message)
            .label(why_at, why)
            .help(help)
            .resource(t.template);
    }
}

/// A Spot Fleet request's one inline `launch_specification` with neither `iam_instance_profile`
/// nor `iam_instance_profile_arn` (each absent or `null`; an unknown value may be a profile).
fn spot_fleet_specification(
    model: &Model,
    report: &mut Findings<'_>,
    fleet: &Resource,
    reason: &GpuReason<'_>,
) {
    let Some(spec) = inline_specification(fleet) else {
        return;
    };
    let has_profile = ["iam_instance_profile", "iam_instance_profile_arn"]
        .into_iter()
        .any(|a| {
            spec.body
                .attr(a)
                .is_some_and(|n| !matches!(n.value, Value::Null))
        });
    if has_profile {
        return;
    }
    let (why_at, why) = reason.label(model);
    report
        .add(
            spec.loc,
            format!(
                "the launch specification of `{}` has no IAM instance profile, so the ECS agent cannot register its instances",
                model.local_address(fleet)
            ),
        )
        .label(why_at, why)
        .help(format!("set `iam_instance_profile_arn` (or `iam_instance_profile`) in the `launch_specification` to an instance profile whose role has the `{AGENT_POLICY}` policy"))
        .resource(fleet);
}
