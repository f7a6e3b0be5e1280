use ecs_gpu_catalog::catalog;
use ecs_gpu_model::Model;

use crate::capacity::{ami_source, image_attr, AmiSource, AMI, GPU_CAPACITY};
use crate::{declare_rule, Findings, Severity};

declare_rule! {
    /// ## What it checks
    ///
    /// The image of every launch template of GPU capacity (capacity a GPU service is placed on, an
    /// ECS capacity provider's group that launches NVIDIA GPU instance types, or a group without a
    /// capacity provider that launches them as ECS container instances), and the `ami` of every
    /// standalone `aws_instance` of GPU capacity:
    ///
    /// - error: `image_id` comes from an SSM parameter of the ECS-optimized AMIs that is not a GPU
    ///   variant (`data "aws_ssm_parameter"` with `name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"`,
    ///   or `resolve:ssm:...`), or from a `data "aws_ami"` whose `name` filter (or anchored
    ///   `name_regex`) can only match non-GPU ECS-optimized AMIs (`al2023-ami-ecs-hvm-*`) and
    ///   that is scoped to Amazon's images (`owners = ["amazon"]`, or an `owner-alias` filter);
    /// - warning: `image_id` is a literal AMI ID (`ami-0abc...`), which cannot be verified here and
    ///   goes stale.
    ///
    /// An image from a variable, a non-ECS parameter, or a filter that could match GPU AMIs is not
    /// reported.
    ///
    /// ## Why it matters
    ///
    /// Only the ECS GPU-optimized AMI ships the NVIDIA driver, the NVIDIA container runtime and
    /// `ECS_ENABLE_GPU_SUPPORT=true`. On the standard ECS AMI the agent registers no GPU, so GPU tasks
    /// are never placed. A pinned AMI ID never receives driver, agent or security updates.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// data "aws_ssm_parameter" "ecs_ami" {
    ///   name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"
    /// }
    ///
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_ami.value
    ///   instance_type = "g5.xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Read the image from the ECS GPU-optimized AMI parameter:
    /// `name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"`.
    pub static RULE = {
        id: "GPU203",
        name: "ami-not-gpu-optimized",
        severity: Error,
        summary: "the image of GPU capacity is not an ECS GPU-optimized AMI",
        reads: { analyses: [GPU_CAPACITY, AMI] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let recommended = &catalog().ami.recommended_parameter;
    for (t, reason) in &report.gpu_capacity().templates {
        let template = t.template;
        let image = image_attr(template);
        let image_loc = image.and_then(|n| n.loc);
        let (why_at, why) = reason.label(model);
        match ami_source(model, template) {
            AmiSource::SsmParameter { name, at, .. } => {
                let src = ami_source(model, template);
                if !src.is_ecs_non_gpu() {
                    continue;
                }
                report
                    .add(
                        image_loc.or(at),
                        format!("the image comes from `{name}`, the ECS-optimized AMI without GPU support"),
                    )
                    .label(at, "the non-GPU ECS AMI parameter")
                    .label(why_at, why)
                    .help(format!("read the image from the ECS GPU-optimized AMI parameter `{recommended}`"))
                    .resource(template);
            }
            src @ AmiSource::AmiLookup { .. } => {
                if !src.is_ecs_non_gpu() {
                    continue;
                }
                let AmiSource::AmiLookup { at, pattern, .. } = &src else {
                    continue;
                };
                report
                    .add(
                        image_loc.or(*at),
                        format!("the image is looked up by `{pattern}`, which only matches ECS-optimized AMIs without GPU support"),
                    )
                    .label(*at, "this name filter matches non-GPU ECS AMIs")
                    .label(why_at, why)
                    .help(format!("read the image from the ECS GPU-optimized AMI parameter `{recommended}`"))
                    .resource(template);
            }
            AmiSource::LiteralId { id, at } => {
                report
                    .add(
                        at,
                        format!("the image is the literal AMI ID `{id}`, which cannot be verified to be an ECS GPU-optimized AMI and goes stale"),
                    )
                    .severity(Severity::Warning)
                    .label(why_at, why)
                    .help(format!("read the image from the ECS GPU-optimized AMI parameter `{recommended}`"))
                    .resource(template);
            }
            AmiSource::Unknown => {}
        }
    }
}
