use ecs_gpu_model::{IgnoreChanges, Model};

use crate::capacity::GPU_CAPACITY;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// `lifecycle { ignore_changes = all }` on an `aws_ecs_service`, `aws_ecs_task_definition`,
    /// `aws_launch_template`, `aws_autoscaling_group` or `aws_ecs_capacity_provider` that is a GPU
    /// service, a GPU task definition or GPU capacity. A generic module's resources are not
    /// reported: some document `ignore_changes = all` as deliberate (another tool deploys).
    ///
    /// ## Why it matters
    ///
    /// Terraform then never updates the resource: a new GPU AMI, a fixed user data, a corrected GPU
    /// reservation or capacity provider setting is planned as "no changes" and never reaches AWS,
    /// so a fix made in code silently does nothing.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   lifecycle {
    ///     ignore_changes = all
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// List only the attributes something else owns: `ignore_changes = [desired_count]` on a service,
    /// `ignore_changes = [desired_capacity]` on a group under managed scaling.
    pub static RULE = {
        id: "GPU502",
        name: "ignore-changes-all",
        severity: Warning,
        summary: "`ignore_changes = all` on a service, task definition, launch template, Auto Scaling group or capacity provider",
        reads: {
            arguments: {
                "aws_autoscaling_group": [],
                "aws_ecs_capacity_provider": [],
                "aws_ecs_service": [],
                "aws_ecs_task_definition": [],
                "aws_launch_template": [],
            },
            analyses: [GPU_CAPACITY],
        },
        check: check,
    }
}

const KINDS: [&str; 5] = [
    "aws_ecs_service",
    "aws_ecs_task_definition",
    "aws_launch_template",
    "aws_autoscaling_group",
    "aws_ecs_capacity_provider",
];

fn check(model: &Model, report: &mut Findings<'_>) {
    for kind in KINDS {
        for r in model.resources_of(kind) {
            // A resource that may not exist (`count = var.n`) is skipped like everywhere else.
            if r.instances_unknown
                || r.ignore_changes != IgnoreChanges::All
                || !report.is_gpu_resource(r)
            {
                continue;
            }
            report
                .add(
                    Some(r.loc),
                    format!(
                        "`{}` ignores all changes, so no fix to it in code ever reaches AWS",
                        model.local_address(r)
                    ),
                )
                .help("list only the attributes another system owns in `ignore_changes`")
                .resource(r);
        }
    }
}
