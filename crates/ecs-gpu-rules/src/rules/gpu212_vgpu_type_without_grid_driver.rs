use ecs_gpu_catalog::{catalog, AmiClass, AmiNameClass};
use ecs_gpu_model::Model;

use crate::capacity::{ami_source, image_attr, vgpu_templates, AmiSource, AMI, GPU_CAPACITY};
use crate::{backticked, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates (and standalone `aws_instance`s) of GPU capacity that launch a fractional
    /// GPU type (`g6f`, `gr6f`: NVIDIA vGPU slices of an L4) from an Amazon Linux 2 ECS GPU AMI: an
    /// SSM parameter of the Amazon Linux 2 GPU variants (`.../amazon-linux-2/gpu/...`,
    /// `.../amazon-linux-2/kernel-5.10/gpu/...`) or a `data "aws_ami"` lookup, scoped to Amazon's
    /// images, whose name filter only matches Amazon Linux 2 ECS AMIs. Which AMI variants have the
    /// driver comes from the catalog (source keys AMI-GRID-KMOD, UPDATES-2026). A non-GPU ECS AMI
    /// is GPU203's finding, not this one's.
    ///
    /// ## Why it matters
    ///
    /// A vGPU slice needs the NVIDIA GRID driver. Only the Amazon Linux 2023 ECS GPU AMI installs
    /// it (and loads it for the g6f and gr6f profiles); the Amazon Linux 2 recipes do not. On the
    /// Amazon Linux 2 GPU AMI the instance starts, the agent registers no GPU, and GPU tasks are
    /// never placed.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// data "aws_ssm_parameter" "ecs_gpu_ami" {
    ///   name = "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id"
    /// }
    ///
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g6f.xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Read the image from the Amazon Linux 2023 GPU AMI parameter:
    /// `name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"`.
    pub static RULE = {
        id: "GPU212",
        name: "vgpu-type-without-grid-driver",
        severity: Error,
        summary: "a fractional GPU type (g6f, gr6f) is launched from an AMI without the NVIDIA GRID driver",
        reads: { analyses: [GPU_CAPACITY, AMI] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let ami = &catalog().ami;
    let vgpu = &catalog().vgpu;
    let with_driver = |variant: &str| vgpu.ami_variants.iter().any(|v| v == variant);
    let recommended = &ami.recommended_parameter;
    for v in vgpu_templates(report.gpu_capacity()) {
        let source = ami_source(model, v.template);
        let (what, at) = match &source {
            AmiSource::SsmParameter { name, at, .. } => match ami.gpu_variant(name) {
                Some(p) if !with_driver(&p.variant) => (format!("`{name}`"), *at),
                // A GPU path of no listed variant: only an Amazon Linux 2 one is known to lack it.
                None if matches!(
                    ami.classify_parameter(name),
                    AmiClass::EcsGpu {
                        end_of_life: Some(_),
                        ..
                    }
                ) =>
                {
                    (format!("`{name}`"), *at)
                }
                _ => continue,
            },
            AmiSource::AmiLookup {
                class:
                    AmiNameClass::EcsGpu {
                        amazon_linux_2: true,
                    }
                    | AmiNameClass::EcsAnyVariant {
                        amazon_linux_2: true,
                    },
                at,
                pattern,
                ..
            } => (format!("the AMIs named `{pattern}`"), *at),
            _ => continue,
        };
        let names: Vec<&str> = v.types.iter().map(|(n, _)| n.as_str()).collect();
        let (are, need, their, them) = if names.len() == 1 {
            ("is an NVIDIA vGPU type", "needs", "its", "it")
        } else {
            ("are NVIDIA vGPU types", "need", "their", "them")
        };
        let first_at = v.types.first().and_then(|(_, at)| *at);
        let image_loc = image_attr(v.template).and_then(|n| n.loc);
        let mut b = report
            .add(
                first_at.or(image_loc),
                format!(
                    "{} {are}, which {need} the NVIDIA GRID driver, and {their} image comes from {what}, an Amazon Linux 2 ECS AMI without it",
                    backticked(&names),
                ),
            )
            .label(at.or(image_loc), "an Amazon Linux 2 ECS GPU AMI: no GRID driver")
            .help(format!(
                "launch {them} from the Amazon Linux 2023 GPU AMI: `{recommended}`"
            ))
            .resource(v.template);
        if let Some(l) = v.launcher {
            b = b.label(
                Some(l.loc),
                format!("`{}` launches {them}", model.local_address(l)),
            );
        }
        let _ = b;
    }
}
