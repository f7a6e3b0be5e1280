use ecs_gpu_catalog::{catalog, Lookup};
use ecs_gpu_model::Model;

use crate::capacity::{managed_instances_without_nvidia, GpuReason, Placement, GPU_CAPACITY};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// The instance types of GPU capacity: the `instance_type` of the launch templates and the
    /// `override.instance_type` of the mixed instances policies that a GPU service (one whose task
    /// definition reserves GPUs) is placed on, through its capacity provider strategy or its
    /// cluster's default strategy (with `launch_type = "EC2"` ECS itself picks GPU instances among the
    /// cluster's, so its CPU capacity is not reported). It fires on a type that the EC2 API lists and that belongs to a
    /// family without GPUs (`m5.large`, `c6i.xlarge`). A type the catalog does not know (a new
    /// family, a typo) is never reported here, and neither is capacity no GPU service is known to use.
    ///
    /// A capacity provider of ECS Managed Instances (`managed_instances_provider`) that a GPU
    /// service is placed on has no instance type written: EC2 picks them from its
    /// `instance_requirements`. The rule fires when those requirements are known to exclude every
    /// NVIDIA GPU: `accelerator_types` without `gpu`, `accelerator_manufacturers` without `nvidia`,
    /// or `allowed_instance_types` whose every pattern (`*` for any characters) matches only EC2
    /// instance types without an NVIDIA GPU (families without GPUs, and `g4ad`, whose GPUs are
    /// AMD's). Requirements that do not mention accelerators are
    /// not reported (what Managed Instances then launches is not known), nor is a pattern that
    /// matches no EC2 instance type, nor `accelerator_count` (the fractional-GPU types `g6f` and
    /// `gr6f` count no whole GPU).
    ///
    /// ## Why it matters
    ///
    /// ECS places a GPU task only on a container instance that registered GPUs. An instance without
    /// an NVIDIA GPU registers none, so the task stays `PENDING` on it forever, and managed scaling
    /// may keep launching such instances for tasks that can never be placed on them.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "m5.xlarge"
    /// }
    /// ```
    ///
    /// On Managed Instances:
    ///
    /// ```hcl
    /// resource "aws_ecs_capacity_provider" "gpu" {
    ///   managed_instances_provider {
    ///     instance_launch_template {
    ///       instance_requirements {
    ///         allowed_instance_types = ["m6i.*", "c6i.*"]
    ///       }
    ///     }
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use an NVIDIA GPU instance type that ECS supports (`ecs-gpu types` lists them), for example
    /// `instance_type = "g5.xlarge"`. On Managed Instances, ask for NVIDIA GPUs:
    /// `accelerator_types = ["gpu"]` and `accelerator_manufacturers = ["nvidia"]`, or allow GPU
    /// instance types (`allowed_instance_types = ["g5.*", "g6.*"]`).
    pub static RULE = {
        id: "GPU201",
        name: "instance-type-without-gpu",
        severity: Error,
        summary: "an instance type of GPU capacity has no NVIDIA GPU",
        reads: { analyses: [GPU_CAPACITY] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    managed_instances(model, report);
    let mut seen = std::collections::HashSet::new();
    for (group, reason) in &report.gpu_capacity().groups {
        // Only capacity a GPU service is placed on: a group that mixes GPU and CPU types for other
        // workloads is not this rule's business.
        if !matches!(reason, GpuReason::Service(_)) {
            continue;
        }
        for t in &group.known_instance_types {
            if !matches!(catalog().lookup(&t.name), Lookup::NoGpu) || seen.contains(&t.node.loc) {
                continue;
            }
            seen.insert(t.node.loc);
            let (at, why) = reason.label(model);
            let b = report
                .add(
                    t.node.loc,
                    format!("`{}` has no GPU, and a GPU service is placed on this capacity", t.name),
                )
                .label(at, why)
                .help("use an NVIDIA GPU instance type that ECS supports (`ecs-gpu types` lists them)");
            match t.template {
                Some(lt) => b.resource(lt),
                None => b.resource(group.group),
            };
        }
    }
}

/// The Managed Instances capacity providers of GPU services whose instance requirements exclude
/// NVIDIA GPUs, each once (with the first service placed on it).
fn managed_instances(model: &Model, report: &mut Findings<'_>) {
    let mut seen = std::collections::HashSet::new();
    for s in report.gpu_services() {
        // With `launch_type = "EC2"` ECS picks GPU instances among all of the cluster's.
        if !matches!(
            s.capacity.placement,
            Placement::Strategy | Placement::ClusterDefault
        ) {
            continue;
        }
        for p in &s.capacity.providers {
            if p.provider.instances_unknown || seen.contains(&p.provider.id) {
                continue;
            }
            let Some(no) = managed_instances_without_nvidia(p.provider) else {
                continue;
            };
            seen.insert(p.provider.id);
            let (at, why) = GpuReason::Service(s.service).label(model);
            report
                .add(
                    no.node.loc,
                    format!(
                        "{}, so this Managed Instances capacity provider launches no instance with an NVIDIA GPU, and a GPU service is placed on it",
                        no.why
                    ),
                )
                .label(at, why)
                .help("ask for NVIDIA GPUs in `instance_requirements`: `accelerator_types = [\"gpu\"]` and `accelerator_manufacturers = [\"nvidia\"]`, or allow GPU instance types")
                .resource(p.provider);
        }
    }
}
