use ecs_gpu_catalog::{catalog, EcsStatus, Lookup};
use ecs_gpu_model::Model;

use crate::capacity::{GpuReason, GPU_CAPACITY};
use crate::{declare_rule, Findings, Severity};

declare_rule! {
    /// ## What it checks
    ///
    /// The instance types of GPU capacity (the launch templates' `instance_type` and the mixed
    /// instances policies' overrides that a GPU service is placed on, or of capacity configured for
    /// GPU tasks: user data that sets `ECS_ENABLE_GPU_SUPPORT=true`, the ECS GPU-optimized AMI,
    /// `instance_requirements` that ask for NVIDIA accelerators) whose family ECS GPU support does
    /// not cover, as the catalog records each family's status:
    ///
    /// - error: `g2` (ECS GPU support is deprecated), `g4ad` (AMD GPUs: ECS GPU support is for NVIDIA),
    ///   `g5g` (arm64: there is no ECS GPU-optimized AMI for it);
    /// - warning: `p2` (only ECS GPU-optimized AMIs older than 20230912 support its K80 GPUs).
    ///
    /// Families the catalog does not know, and unverified ones, are never reported. Nor is a family
    /// no ECS GPU AMI release ships a driver for (`g7`): a custom AMI can carry one, so GPU216
    /// reports it where the image is known to be the ECS GPU AMI.
    ///
    /// ## Why it matters
    ///
    /// The instances start, but the ECS agent registers no usable GPU (no driver for the family in
    /// the current GPU-optimized AMI, or no GPU AMI at all), so GPU tasks are never placed. A `p2`
    /// works only on an old, pinned AMI that no longer receives driver or security updates.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g5g.xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Choose an NVIDIA x86_64 family that the current ECS GPU-optimized AMI supports (`g4dn`, `g5`,
    /// `g6`, `g6e`, `p4d`, `p5`...; `ecs-gpu types --supported` lists them).
    pub static RULE = {
        id: "GPU202",
        name: "gpu-family-unsupported",
        severity: Error,
        summary: "an instance type of GPU capacity is of a family that ECS GPU support does not cover",
        reads: { analyses: [GPU_CAPACITY] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let mut seen = std::collections::HashSet::new();
    for (group, reason) in &report.gpu_capacity().groups {
        // Capacity a GPU service is placed on, or configured for GPU tasks (`ECS_ENABLE_GPU_SUPPORT`,
        // the ECS GPU AMI): a family ECS GPU support does not cover defeats either.
        if !matches!(reason, GpuReason::Service(_) | GpuReason::Intent { .. }) {
            continue;
        }
        for t in &group.known_instance_types {
            let family = match catalog().lookup(&t.name) {
                Lookup::Known(k) => catalog().family(&k.family),
                Lookup::Unknown { family } => family,
                Lookup::NoGpu => None,
            };
            let Some(family) = family else { continue };
            let severity = match family.status {
                EcsStatus::Deprecated | EcsStatus::NotNvidia | EcsStatus::NoEcsGpuAmi => {
                    Severity::Error
                }
                EcsStatus::Restricted => Severity::Warning,
                EcsStatus::Supported | EcsStatus::Unverified | EcsStatus::NoEcsGpuAmiDriver => {
                    continue
                }
            };
            if seen.contains(&t.node.loc) {
                continue;
            }
            seen.insert(t.node.loc);
            let why_family = family
                .reason
                .clone()
                .unwrap_or_else(|| family.status.to_string());
            let (at, why) = reason.label(model);
            let b = report
                .add(
                    t.node.loc,
                    format!(
                        "`{}` is of the `{}` family, which ECS GPU support does not cover: {}",
                        t.name, family.name, why_family
                    ),
                )
                .severity(severity)
                .label(at, why)
                .help("choose an NVIDIA x86_64 family the current ECS GPU-optimized AMI supports (`ecs-gpu types --supported`)");
            match t.template {
                Some(lt) => b.resource(lt),
                None => b.resource(group.group),
            };
        }
    }
}
