use ecs_gpu_model::Model;

use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates of GPU capacity that have no `iam_instance_profile` block, and no `dynamic
    /// "iam_instance_profile"` whose `for_each` is unknown (which might create one).
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
        summary: "a launch template of GPU capacity has no IAM instance profile",
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (t, reason) in &report.gpu_capacity().templates {
        let body = &t.template.body;
        if body.block("iam_instance_profile").is_some()
            || body.may_have_unknown("iam_instance_profile")
        {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(
                Some(t.template.loc),
                format!(
                    "the launch template `{}` has no IAM instance profile, so the ECS agent cannot register its instances",
                    model.local_address(t.template)
                ),
            )
            .label(why_at, why)
            .help("add `iam_instance_profile { arn = ... }` with a role that has the `AmazonEC2ContainerServiceforEC2Role` policy")
            .resource(t.template);
    }
}
