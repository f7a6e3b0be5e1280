use ecs_gpu_catalog::{catalog, AmiClass, AmiNameClass};
use ecs_gpu_model::Model;

use crate::capacity::{ami_source, image_attr, launch_kind, AmiSource, AMI, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates (and standalone `aws_instance`s) of GPU capacity whose image comes from an
    /// Amazon Linux 2 ECS-optimized AMI:
    /// an SSM parameter under `/aws/service/ecs/optimized-ami/amazon-linux-2/` (GPU or not, kernel
    /// 5.10 included), or a `data "aws_ami"` name filter of the Amazon Linux 2 ECS AMIs
    /// (`amzn2-ami-ecs-gpu-hvm-*`, or one that matches the GPU and other variants alike, such as
    /// `amzn2-ami-ecs-gpu-*` or `amzn2-ami-ecs-*`). The end-of-life date comes from the catalog.
    /// A filter whose values also match Amazon Linux 2023 AMIs is not reported: the newest AMI of
    /// either may be the one chosen. Nor is a lookup that is not scoped to Amazon's images
    /// (`owners = ["amazon"]` or an `owner-alias` filter of `amazon`): with `self`, an account ID
    /// or no owner, an image of the same name may be another build.
    ///
    /// The message says "reached end of life on" once the catalog's date has passed and "reaches
    /// end of life on" before, by the clock of the machine that runs the check
    /// (`SOURCE_DATE_EPOCH`, seconds since 1970, sets another day).
    ///
    /// ## Why it matters
    ///
    /// The Amazon Linux 2 ECS-optimized AMIs reach their end of life on 2026-06-30: no new AMI, no
    /// NVIDIA driver, agent or security update after it. New GPU families get drivers only in the
    /// Amazon Linux 2023 GPU AMI.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// data "aws_ssm_parameter" "ecs_gpu_ami" {
    ///   name = "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Move to the Amazon Linux 2023 GPU AMI:
    /// `name = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"`. Check
    /// user data written for Amazon Linux 2 (`yum`, `amazon-linux-extras`) on the way.
    pub static RULE = {
        id: "GPU209",
        name: "ami-end-of-life",
        severity: Warning,
        summary: "the image of GPU capacity is an Amazon Linux 2 ECS-optimized AMI, at or near its end of life",
        reads: { analyses: [GPU_CAPACITY, AMI] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let ami = &catalog().ami;
    let recommended = &ami.recommended_parameter;
    let mut seen = std::collections::HashSet::new();
    let today = crate::clock::today();
    for (t, reason) in &report.gpu_capacity().templates {
        let source = ami_source(model, t.template);
        let (what, at, eol) = match &source {
            AmiSource::SsmParameter { name, at, .. } => match ami.classify_parameter(name) {
                AmiClass::EcsGpu {
                    end_of_life: Some(eol),
                    ..
                }
                | AmiClass::EcsNonGpu {
                    end_of_life: Some(eol),
                } => (name.clone(), *at, eol.to_string()),
                _ => continue,
            },
            AmiSource::AmiLookup {
                class, at, pattern, ..
            } => match (class, ami.amazon_linux_2_end_of_life()) {
                (
                    AmiNameClass::EcsGpu {
                        amazon_linux_2: true,
                    }
                    | AmiNameClass::EcsNonGpu {
                        amazon_linux_2: true,
                    }
                    | AmiNameClass::EcsAnyVariant {
                        amazon_linux_2: true,
                    },
                    Some(eol),
                ) => (pattern.clone(), *at, eol.to_string()),
                _ => continue,
            },
            _ => continue,
        };
        if seen.contains(&(t.template.id, at)) {
            continue;
        }
        seen.insert((t.template.id, at));
        let (why_at, why) = reason.label(model);
        let image_loc = image_attr(t.template).and_then(|n| n.loc);
        report
            .add(
                at.or(image_loc),
                format!(
                    "`{what}` is an Amazon Linux 2 ECS-optimized AMI, which {}",
                    end_of_life(&eol, &today)
                ),
            )
            .label(
                image_loc,
                format!("the {} takes its image from it", launch_kind(t.template)),
            )
            .label(why_at, why)
            .help(format!(
                "move to the Amazon Linux 2023 GPU AMI: `{recommended}`"
            ))
            .resource(t.template);
    }
}

/// "reached end of life on <date>" once the date has passed, "reaches end of life on <date>"
/// before (dates as `YYYY-MM-DD`).
fn end_of_life(eol: &str, today: &str) -> String {
    if today > eol {
        format!("reached end of life on {eol}")
    } else {
        format!("reaches end of life on {eol}")
    }
}

#[cfg(test)]
mod tests {
    use super::end_of_life;

    /// The wording follows the day the check runs.
    #[test]
    fn the_wording_follows_the_clock() {
        assert_eq!(
            end_of_life("2026-06-30", "2026-06-29"),
            "reaches end of life on 2026-06-30"
        );
        assert_eq!(
            end_of_life("2026-06-30", "2026-06-30"),
            "reaches end of life on 2026-06-30"
        );
        assert_eq!(
            end_of_life("2026-06-30", "2026-07-01"),
            "reached end of life on 2026-06-30"
        );
    }
}
