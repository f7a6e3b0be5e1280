use std::collections::HashSet;

use ecs_gpu_catalog::{catalog, ImageCuda, RunVerdict, StartCheck};
use ecs_gpu_model::{Model, Value};

use crate::capacity::{image_attr, Placement, AMI, GPU_SERVICES};
use crate::driver::ami_driver;
use crate::task::{gpu_containers, TASK_DEFINITIONS};
use crate::{declare_rule, Findings, Severity};

declare_rule! {
    /// ## What it checks
    ///
    /// Each GPU container of a service placed on capacity whose launch template's image is an ECS
    /// GPU-optimized AMI release with a known driver (the `recommended` parameter, the newest
    /// release the catalog knows; a version-pinned parameter; a `data "aws_ami"` name lookup scoped
    /// to Amazon's images), and whose image's CUDA the catalog knows (`nvidia/cuda:<version>-...`,
    /// `pytorch/pytorch:...-cuda<version>-...-runtime`, the vLLM, Triton and NGC PyTorch releases
    /// it lists, each with its source): the CUDA the image is built for against the CUDA the AMI's driver
    /// supports (NVIDIA's toolkit driver table).
    ///
    /// - **error** when no compatibility path can apply: the image needs another CUDA major
    ///   release than the driver's, and it carries no CUDA compatibility package (the PyTorch
    ///   runtime images install PyTorch's pip wheels, which carry none);
    /// - **info** when one may: the same major release (minor version compatibility, with its
    ///   limits), or an image with the compatibility package (forward compatibility, on a data
    ///   center GPU, when the package supports the driver's branch).
    ///
    /// An image whose CUDA the catalog does not know (`latest`, a digest, another registry, a
    /// release it does not list) and an AMI it cannot place are not reported, nor is a service
    /// with `launch_type = "EC2"` (it may be placed on any instance of the cluster).
    ///
    /// ## Why it matters
    ///
    /// A CUDA application needs a driver that supports its CUDA release. Under the NVIDIA
    /// runtime's legacy mode (the Amazon Linux 2 GPU AMIs), an image that requires a newer CUDA
    /// stops at start with `unsatisfied condition: cuda>=12.8`; under CDI mode (the Amazon Linux
    /// 2023 GPU AMI from release 20260206) it starts and fails on its first CUDA call. Either way
    /// the task never serves. The Amazon Linux 2 GPU AMIs, still published after their end of
    /// life, are frozen at driver 550 (CUDA 12.4); the Amazon Linux 2023 GPU AMI moves within the
    /// 580 branch (CUDA 13.0).
    ///
    /// ## Example
    ///
    /// ```hcl
    /// data "aws_ssm_parameter" "gpu_ami" {
    ///   name = "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended/image_id"
    /// }
    ///
    /// resource "aws_ecs_task_definition" "train" {
    ///   container_definitions = jsonencode([{
    ///     name                 = "train"
    ///     image                = "pytorch/pytorch:2.9.0-cuda13.0-cudnn9-runtime"
    ///     resourceRequirements = [{ type = "GPU", value = "1" }]
    ///   }])
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Run the service on an AMI whose driver supports the image's CUDA (the Amazon Linux 2023
    /// GPU AMI: `/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id`), or
    /// use an image built for the CUDA the driver supports.
    pub static RULE = {
        id: "GPU217",
        name: "image-cuda-needs-newer-driver",
        severity: Error,
        summary: "a GPU container's image is built for a newer CUDA than the driver of the ECS GPU AMI its service runs on supports",
        reads: { analyses: [TASK_DEFINITIONS, GPU_SERVICES, AMI] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let drivers = &catalog().drivers;
    let mut seen = HashSet::new();
    for s in report.gpu_services() {
        if !matches!(
            s.capacity.placement,
            Placement::Strategy | Placement::ClusterDefault
        ) {
            continue;
        }
        let templates = s
            .capacity
            .providers
            .iter()
            .filter_map(|p| p.group.as_ref())
            .flat_map(|g| g.known_templates.iter().map(|t| t.template));
        for template in templates {
            let Some(ami) = ami_driver(model, template) else {
                continue;
            };
            let driver = &ami.release.driver;
            let Some(supported) = drivers.cuda_of_driver(driver) else {
                continue;
            };
            for c in gpu_containers(s.task) {
                let Some(image_node) = c.get("image") else {
                    continue;
                };
                let Value::String(image) = &image_node.value else {
                    continue;
                };
                let ImageCuda::Known(known) = drivers.image_cuda(image) else {
                    continue;
                };
                let verdict = drivers.can_run(&known, driver);
                // Under the runtime's legacy mode, either compatibility path needs the image's
                // start check to let the driver's branch through first.
                let start_check = if known.entry.start_check == StartCheck::Alternatives
                    && drivers.start_check_runs(&ami.variant.variant, &ami.release.release)
                {
                    format!(
                        "; and this AMI's NVIDIA runtime checks `{}` at start, which stops the container unless the image lists driver branch {} among its alternatives",
                        drivers.container_requirement.cuda_variable,
                        driver.branch()
                    )
                } else {
                    String::new()
                };
                let (severity, how) = match &verdict {
                    RunVerdict::Runs | RunVerdict::Unknown => continue,
                    RunVerdict::Cannot(why) => {
                        (Severity::Error, format!("it cannot run there ({why})"))
                    }
                    RunVerdict::MayRunMinorCompat => (
                        Severity::Info,
                        format!(
                            "it may run there only through CUDA minor version compatibility, without what CUDA {} adds{start_check}",
                            known.cuda.major_minor()
                        ),
                    ),
                    RunVerdict::MayRunForwardCompat => (
                        Severity::Info,
                        format!(
                            "it may run there only through forward compatibility: on a data center GPU, with the image's `{}` package supporting driver branch {}{start_check}",
                            drivers.forward_compatibility.package_of(known.cuda),
                            driver.branch()
                        ),
                    ),
                };
                if !seen.insert((s.service.id, template.id, c.index)) {
                    continue;
                }
                let min = drivers
                    .min_driver_for_cuda(known.cuda.major_minor())
                    .map_or(String::new(), |m| format!(" (NVIDIA driver {m} or later)"));
                // The newest Amazon Linux 2023 release, unless that is the AMI already.
                let newer = ["al2023"]
                    .into_iter()
                    .filter(|v| *v != ami.variant.variant || !ami.follows_newest)
                    .filter_map(|v| drivers.newest_release(v))
                    .find(|r| {
                        drivers
                            .cuda_of_driver(&r.driver)
                            .is_some_and(|c| c >= known.cuda.major_minor())
                    })
                    .map(|r| {
                        format!(
                            ", such as the Amazon Linux 2023 GPU AMI `{}` (driver {})",
                            catalog().ami.recommended_parameter,
                            r.driver
                        )
                    })
                    .unwrap_or_default();
                let image_loc = image_attr(template).and_then(|n| n.loc);
                report
                    .add(
                        image_node.loc,
                        format!(
                            "the image `{image}` of container {} is built for CUDA {}{min}, and the service runs on `{}`, whose image {} is {}, which supports CUDA {supported}: {how}",
                            c.display_name(),
                            known.cuda,
                            model.local_address(template),
                            ami.what,
                            ami.describe(),
                        ),
                    )
                    .severity(severity)
                    .label(ami.at.or(image_loc), "the ECS GPU AMI of the service's capacity")
                    .label(
                        Some(s.service.loc),
                        format!("the GPU service `{}` is placed on it", model.local_address(s.service)),
                    )
                    .help(format!(
                        "run it on an AMI whose driver supports CUDA {}{newer}, or use an image built for CUDA {supported} or older",
                        known.cuda.major_minor()
                    ))
                    .task(s.task);
            }
        }
    }
}
