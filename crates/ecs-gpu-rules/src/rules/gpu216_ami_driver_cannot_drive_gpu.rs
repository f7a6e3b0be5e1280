use ecs_gpu_catalog::{catalog, family_of, EcsStatus, Support};
use ecs_gpu_model::Model;

use crate::capacity::{image_attr, templates_launching, AMI, GPU_CAPACITY};
use crate::driver::ami_driver;
use crate::{backticked, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// The instance types of GPU capacity whose GPU the NVIDIA driver of their launch template's
    /// image cannot drive, where the image is known to be an ECS GPU-optimized AMI release whose
    /// driver the catalog has (`crates/ecs-gpu-catalog/data/sources/ecs-gpu-ami-drivers.json`,
    /// derived from the AMI's repository): the `recommended` parameter (the newest release the
    /// catalog knows), a version-pinned parameter, or a `data "aws_ami"` name lookup scoped to
    /// Amazon's images. What a family's GPU needs of the driver comes from the catalog, each fact
    /// with its source (docs/drivers.md): G7's RTX PRO 4500 Blackwell needs driver 595 or later,
    /// and every ECS GPU AMI release ships 580 or older.
    ///
    /// Only a driver the sources say cannot drive the GPU is reported. An image the catalog cannot
    /// place (a literal AMI ID, a variable, a custom AMI), a release it has no driver for, and a
    /// family whose needs no source gives, are not. Families GPU202 reports (g2, p2, g4ad, g5g,
    /// p6e) are left to it.
    ///
    /// ## Why it matters
    ///
    /// The instance starts and joins the cluster, but the driver does not support its GPU: the
    /// ECS agent registers no usable GPU, and GPU tasks are never placed on it (on EKS, the same
    /// 580 driver loads on G7 with the GPU unusable: awslabs/amazon-eks-ami#2768).
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
    ///   instance_type = "g7.2xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Launch the type from an AMI whose driver supports its GPU: for G7, a custom AMI with the
    /// NVIDIA 595 driver (the EKS AMI recipe builds one with `nvidia_driver_major_version=595`).
    /// That driver cannot run P3, P3dn and G6f: keep those on the ECS GPU AMI, in groups of their
    /// own. Or choose a family the ECS GPU AMI drives (`ecs-gpu types --supported`).
    pub static RULE = {
        id: "GPU216",
        name: "ami-driver-cannot-drive-gpu",
        severity: Error,
        summary: "the NVIDIA driver of the ECS GPU AMI a GPU instance type is launched from cannot drive its GPU",
        reads: { analyses: [GPU_CAPACITY, AMI] },
        check: check,
    }
}

/// Whether GPU202 reports the family already (its status says it cannot run ECS GPU tasks
/// whatever the AMI's driver).
fn left_to_gpu202(family: &str) -> bool {
    catalog().family(family).is_some_and(|f| {
        matches!(
            f.status,
            EcsStatus::Deprecated
                | EcsStatus::Restricted
                | EcsStatus::NotNvidia
                | EcsStatus::NoEcsGpuAmi
        )
    })
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let drivers = &catalog().drivers;
    let with_needs = |t: &str| drivers.family_needs(family_of(t)).is_some();
    for v in templates_launching(report.gpu_capacity(), with_needs) {
        let Some(ami) = ami_driver(model, v.template) else {
            continue;
        };
        let driver = &ami.release.driver;
        let mut seen = Vec::new();
        for (name, at) in &v.types {
            let family = family_of(name);
            if left_to_gpu202(family) || seen.contains(&family) {
                continue;
            }
            if drivers.family_supports(family, driver) != Support::No {
                continue;
            }
            seen.push(family);
            let Some(needs) = drivers.family_needs(family) else {
                continue;
            };
            let image_loc = image_attr(v.template).and_then(|n| n.loc);
            let help = match needs.min_branch {
                Some(min) => {
                    let broken: Vec<&str> = drivers
                        .families()
                        .filter(|(_, n)| n.unsupported_branches.contains(&min))
                        .map(|(f, _)| f)
                        .collect();
                    let keep = match broken.split_last() {
                        None => String::new(),
                        Some((last, [])) => {
                            format!("; that driver cannot run `{last}`: keep it on the ECS GPU AMI")
                        }
                        Some((last, rest)) => format!(
                            "; that driver cannot run {} or `{last}`: keep them on the ECS GPU AMI",
                            backticked(rest)
                        ),
                    };
                    format!(
                        "launch `{name}` from an AMI with NVIDIA driver {min} or later (a custom AMI){keep}"
                    )
                }
                None => format!(
                    "launch `{name}` from an AMI whose NVIDIA driver supports its GPU, or choose a family this AMI drives (`ecs-gpu types --supported`)"
                ),
            };
            let mut b = report
                .add(
                    *at,
                    format!(
                        "the GPU of `{name}`, {}, {}, and its image {} is {}: the instance starts and its GPU is not usable",
                        needs.gpu,
                        needs.describe(),
                        ami.what,
                        ami.describe()
                    ),
                )
                .label(ami.at.or(image_loc), "the ECS GPU AMI it launches from")
                .help(help)
                .resource(v.template);
            if let Some(l) = v.launcher {
                b = b.label(
                    Some(l.loc),
                    format!("`{}` launches it", model.local_address(l)),
                );
            }
        }
    }
}
