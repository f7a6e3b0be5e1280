use std::collections::HashSet;

use ecs_gpu_catalog::{catalog, EcsStatus, Lookup};
use ecs_gpu_model::Model;

use crate::capacity::{image_attr, launch_kind, templates_launching, AMI, GPU_CAPACITY};
use crate::driver::ami_driver;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates (and standalone `aws_instance`s) of GPU capacity whose image follows the
    /// newest release of an ECS GPU-optimized AMI (its `recommended` parameter, or a `data
    /// "aws_ami"` lookup of its name family scoped to Amazon's images) whose NVIDIA driver has
    /// changed from release to release (the Amazon Linux 2023 GPU AMI: 570 and then the 580
    /// branch, a new 580 version every few months; the catalog's table of releases, derived from
    /// the AMI's repository), and that launch an NVIDIA instance type the ECS GPU AMI runs (a
    /// type of a family other rules refuse, and a type not known, are not reported). The Amazon
    /// Linux 2 GPU AMIs, frozen at one driver, are not reported.
    ///
    /// ## Why it matters
    ///
    /// Worth knowing, not wrong: every instance launched or refreshed after an AMI release gets
    /// that release's driver, and with it the CUDA versions the driver supports and the GPUs it
    /// drives. An image that ran yesterday can stop on the next driver, and a driver branch change
    /// reaches every instance an instance refresh replaces. `ecs-gpu plan` says the driver before
    /// and after an AMI change.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// data "aws_ssm_parameter" "gpu_ami" {
    ///   name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
    /// }
    ///
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.gpu_ami.value
    ///   instance_type = "g6.xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Nothing, if the driver may move with the AMI. To choose when it moves, pin a release: the
    /// version-pinned parameter
    /// `/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/<AMI name>/image_id` (the AMI names
    /// are in the release notes), and move the pin after checking the images against the new
    /// driver (`ecs-gpu plan`).
    pub static RULE = {
        id: "GPU218",
        name: "ami-driver-follows-recommended",
        severity: Info,
        summary: "the image of GPU capacity follows the newest ECS GPU AMI release, whose NVIDIA driver moves with each release",
        reads: { analyses: [GPU_CAPACITY, AMI] },
        check: check,
    }
}

/// An NVIDIA type whose family the ECS GPU AMI is known or not refused to run.
fn runs_on_the_ecs_gpu_ami(instance_type: &str) -> bool {
    matches!(
        catalog().lookup(instance_type),
        Lookup::Known(t) if t.is_nvidia() && matches!(t.ecs_status, EcsStatus::Supported | EcsStatus::Unverified)
    )
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let drivers = &catalog().drivers;
    let launching: HashSet<_> = templates_launching(report.gpu_capacity(), runs_on_the_ecs_gpu_ami)
        .iter()
        .map(|v| v.template.id)
        .collect();
    let mut seen = HashSet::new();
    for (t, reason) in &report.gpu_capacity().templates {
        if !launching.contains(&t.template.id) {
            continue;
        }
        let Some(ami) = ami_driver(model, t.template) else {
            continue;
        };
        let variant = ami.variant.variant.as_str();
        if !ami.follows_newest || !drivers.driver_moves(variant) || !seen.insert(t.template.id) {
            continue;
        }
        let versions: Vec<&ecs_gpu_catalog::DriverVersion> =
            drivers.releases(variant).map(|r| &r.driver).collect();
        let (Some(oldest), Some(newest)) = (versions.iter().min(), versions.iter().max()) else {
            continue;
        };
        let first = drivers.releases(variant).next().map(|r| r.release.as_str());
        let pinned = drivers
            .ami_variants
            .get(variant)
            .and_then(|v| v.pinned_major)
            .map_or(String::new(), |m| {
                format!("; its builds pin the {m} branch, and a new pin moves the branch too")
            });
        let cuda = drivers
            .cuda_of_driver(&ami.release.driver)
            .map_or(String::new(), |c| format!(", CUDA {c}"));
        let (why_at, why) = reason.label(model);
        let image_loc = image_attr(t.template).and_then(|n| n.loc);
        let folder = ami
            .variant
            .parameter
            .strip_suffix("/recommended")
            .unwrap_or(&ami.variant.parameter);
        report
            .add(
                ami.at.or(image_loc),
                format!(
                    "{} follows the newest release of the {} ECS GPU AMI (NVIDIA driver {}{cuda}, in release {}, the newest the catalog knows): its driver moves with each release that an apply and an instance refresh bring ({oldest} to {newest} across the releases the catalog knows since {}){pinned}",
                    ami.what,
                    ami.os(),
                    ami.release.driver,
                    ami.release.release,
                    first.unwrap_or("its first"),
                ),
            )
            .label(
                image_loc,
                format!("the {} takes its image from it", launch_kind(t.template)),
            )
            .label(why_at, why)
            .help(format!(
                "to choose when the driver moves, pin a release (`{folder}/{}<version>/image_id`) and move the pin after `ecs-gpu plan` says what the new driver runs",
                ami.variant.name_prefix
            ))
            .resource(t.template);
    }
}
