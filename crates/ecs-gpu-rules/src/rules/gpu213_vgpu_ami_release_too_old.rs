use ecs_gpu_catalog::{catalog, AmiNameClass};
use ecs_gpu_model::{Model, Node, Resource};

use crate::capacity::{
    ami_source, image_attr, string, vgpu_templates, AmiSource, AMI, GPU_CAPACITY,
};
use crate::{backticked, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates (and standalone `aws_instance`s) of GPU capacity that launch a fractional
    /// GPU type (`g6f`, `gr6f`) from a pinned release of the Amazon Linux 2023 ECS GPU AMI older
    /// than the first release whose GRID driver keeps its license (`20260323`, from the catalog;
    /// source key AMI-GRIDD): a version-pinned SSM parameter
    /// (`.../amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20251027-kernel-6.1-x86_64`), or a
    /// `data "aws_ami"` lookup, scoped to Amazon's images, whose every `name` value writes out such
    /// a release. The `recommended` parameter, a release written with a wildcard, and any other
    /// image are not reported.
    ///
    /// ## Why it matters
    ///
    /// Before release 20260323 the AMI installs the GRID driver without `nvidia-gridd`, the daemon
    /// that licenses the vGPU. The GPU tasks start, and after 24 hours the GPU slice loses its
    /// license and degrades ("device doesn't have valid Grid license").
    ///
    /// ## Example
    ///
    /// ```hcl
    /// data "aws_ssm_parameter" "ecs_gpu_ami" {
    ///   name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/al2023-ami-ecs-gpu-hvm-2023.0.20251027-kernel-6.1-x86_64/image_id"
    /// }
    ///
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g6f.2xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Pin release 20260323 or later, or read the image from the `recommended` parameter:
    /// `name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"`.
    pub static RULE = {
        id: "GPU213",
        name: "vgpu-ami-release-too-old",
        severity: Warning,
        summary: "a fractional GPU type (g6f, gr6f) is launched from an AMI release whose vGPU license lapses after 24 hours",
        reads: { analyses: [GPU_CAPACITY, AMI] },
        check: check,
    }
}

/// The releases every `name` value of a `data "aws_ami"`'s filters writes out, when each does.
fn lookup_releases(data: &Resource) -> Option<Vec<String>> {
    let ami = &catalog().ami;
    let mut releases = Vec::new();
    for f in data.body.blocks("filter") {
        if string(f.body.attr("name")) != Some("name") {
            continue;
        }
        for v in f.body.attr("values").and_then(Node::as_list)? {
            releases.push(ami.gpu_ami_release(string(Some(v))?)?.to_string());
        }
    }
    (!releases.is_empty()).then_some(releases)
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let ami = &catalog().ami;
    let vgpu = &catalog().vgpu;
    let min = vgpu.min_ami_release.as_str();
    let with_driver = |variant: &str| vgpu.ami_variants.iter().any(|v| v == variant);
    for v in vgpu_templates(report.gpu_capacity()) {
        let (what, release, at) = match ami_source(model, v.template) {
            AmiSource::SsmParameter { name, at, .. } => {
                let Some(variant) = ami.gpu_variant(&name) else {
                    continue;
                };
                let Some(release) = ami.gpu_ami_release(name.trim_end_matches("/image_id")) else {
                    continue;
                };
                if !with_driver(&variant.variant) {
                    continue;
                }
                (format!("`{name}`"), release.to_string(), at)
            }
            AmiSource::AmiLookup {
                data,
                at,
                pattern,
                class:
                    AmiNameClass::EcsGpu {
                        amazon_linux_2: false,
                    },
            } => {
                let Some(releases) = lookup_releases(data) else {
                    continue;
                };
                // The newest release the lookup may pick.
                let newest = releases.into_iter().max().expect("not empty");
                (format!("the AMIs named `{pattern}`"), newest, at)
            }
            _ => continue,
        };
        if release.as_str() >= min {
            continue;
        }
        let names: Vec<&str> = v.types.iter().map(|(n, _)| n.as_str()).collect();
        let first_at = v.types.first().and_then(|(_, at)| *at);
        let image_loc = image_attr(v.template).and_then(|n| n.loc);
        let mut b = report
            .add(
                at.or(image_loc),
                format!(
                    "{} {} launched from {what}, release {release}, older than {min}; {}",
                    backticked(&names),
                    if names.len() == 1 { "is" } else { "are" },
                    vgpu.min_ami_release_reason,
                ),
            )
            .label(first_at, "a fractional GPU (vGPU) type")
            .label(at.and(image_loc), "the image")
            .help(format!(
                "pin release {min} or later, or read the image from `{}`",
                ami.recommended_parameter
            ))
            .resource(v.template);
        if let Some(l) = v.launcher {
            b = b.label(
                Some(l.loc),
                format!("`{}` launches it", model.local_address(l)),
            );
        }
    }
}
