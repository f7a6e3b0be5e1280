use ecs_gpu_catalog::catalog;
use ecs_gpu_model::Model;

use crate::capacity::{
    ami_source, config_value, fetches_config, image_attr, Setting, AMI, GPU_CAPACITY, USER_DATA,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// The user data of every launch template (and standalone `aws_instance`) of GPU capacity, for
    /// `ECS_ENABLE_GPU_SUPPORT`:
    ///
    /// 1. The user data sets `ECS_ENABLE_GPU_SUPPORT=false` (as its last assignment of the
    ///    variable, outside `#` comments). Text that is known to be in the user data proves it, even
    ///    when other parts of the user data are not known, as long as no known part sets it to `true`.
    /// 2. The user data does not set `ECS_ENABLE_GPU_SUPPORT` at all while the image is known **not**
    ///    to be an ECS GPU-optimized AMI: an ECS-optimized AMI parameter or `aws_ami` name filter of a
    ///    non-GPU variant. This needs the user data known (or no `user_data`): whole, or a template
    ///    whose unknown parts cannot write the agent's configuration (read line by line, as GPU311
    ///    reads it); a user data that fetches its configuration from elsewhere (`aws s3 cp`, `curl`,
    ///    `#include`...) is not reported.
    ///
    /// An image that is not known (a variable, a literal AMI ID, a custom AMI name) is never assumed
    /// to lack GPU support: a custom AMI built from the GPU AMI keeps its `ECS_ENABLE_GPU_SUPPORT=true`.
    /// The ECS GPU-optimized AMIs set the variable themselves, so leaving it out on them is fine.
    ///
    /// ## Why it matters
    ///
    /// `ECS_ENABLE_GPU_SUPPORT` defaults to `false` in the ECS agent. Without it the agent registers
    /// no GPU resource, and every task that reserves GPUs stays `PENDING` with "no container instance
    /// met all of its requirements".
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g5.xlarge"
    ///   user_data = base64encode(<<-EOT
    ///     #!/bin/bash
    ///     echo ECS_CLUSTER=gpu >> /etc/ecs/ecs.config
    ///     echo ECS_ENABLE_GPU_SUPPORT=false >> /etc/ecs/ecs.config
    ///   EOT
    ///   )
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Remove the `false` assignment and use the ECS GPU-optimized AMI, which enables GPU support;
    /// on any other AMI write `ECS_ENABLE_GPU_SUPPORT=true` to `/etc/ecs/ecs.config`.
    pub static RULE = {
        id: "GPU204",
        name: "gpu-support-disabled",
        severity: Error,
        summary: "the ECS agent of GPU capacity does not enable GPU support",
        reads: { analyses: [GPU_CAPACITY, USER_DATA, AMI] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let var = &catalog().agent.gpu_support_variable;
    for (t, reason, data, loc) in report.gpu_templates_with_user_data() {
        let template = t.template;
        let (why_at, why) = reason.label(model);
        let values: Vec<&str> = data
            .known_parts()
            .into_iter()
            .filter_map(|p| config_value(p, var))
            .collect();
        let disabled = values.iter().any(|v| v.eq_ignore_ascii_case("false"));
        let enabled = values.iter().any(|v| !v.eq_ignore_ascii_case("false"));
        if disabled && !enabled {
            report
                .add(
                    loc,
                    format!("the user data sets `{var}=false`, so the ECS agent registers no GPU"),
                )
                .label(why_at, why)
                .help(format!(
                    "remove the assignment, or write `{var}=true` to `/etc/ecs/ecs.config`"
                ))
                .resource(template);
            continue;
        }
        let Some(text) = data.known_text() else {
            continue;
        };
        if !values.is_empty()
            || text.contains(var.as_str())
            || fetches_config(text)
            || data.setting(var) != Setting::Unset
        {
            continue;
        }
        let source = ami_source(model, template);
        if !source.is_ecs_non_gpu() {
            continue;
        }
        let image_loc = image_attr(template).and_then(|n| n.loc);
        report
            .add(
                loc.or(Some(template.loc)),
                format!("the user data does not set `{var}`, and the image is an ECS-optimized AMI without GPU support, so the agent registers no GPU"),
            )
            .label(image_loc, "the image is not the ECS GPU-optimized AMI")
            .label(why_at, why)
            .help(format!("use the ECS GPU-optimized AMI, or write `{var}=true` to `/etc/ecs/ecs.config`"))
            .resource(template);
    }
}
