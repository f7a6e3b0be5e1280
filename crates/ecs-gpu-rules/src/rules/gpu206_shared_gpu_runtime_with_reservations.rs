use std::collections::HashMap;

use ecs_gpu_model::{Model, Resource, ResourceId};

use crate::capacity::{
    providers_by_group, sets_nvidia_default_runtime, GpuReason, GPU_CAPACITY, TENANTS, USER_DATA,
};
use crate::{declare_rule, task, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates of capacity that a GPU service (a task definition with GPU
    /// `resourceRequirements`) is placed on, whose user data makes `nvidia` Docker's default runtime:
    /// `--default-runtime nvidia` (in `/etc/sysconfig/docker` or `OPTIONS`) or
    /// `"default-runtime": "nvidia"` (in `/etc/docker/daemon.json`). Text known to be in the user data
    /// is enough, even when other parts are unknown.
    ///
    /// Not reported when every container placed on that capacity is known to reserve GPUs (each
    /// service on its capacity providers, and every task definition no service runs): ECS then
    /// gives each container its own GPUs, and no container runs outside that accounting.
    ///
    /// ## Why it matters
    ///
    /// Making `nvidia` the default runtime is the manual GPU-sharing recipe: every container then sees
    /// the GPUs named by its own `NVIDIA_VISIBLE_DEVICES`, outside ECS's accounting. Mixed with tasks
    /// that reserve GPUs, containers without a reservation can use the GPUs ECS assigned to another
    /// task, so placement and GPU memory use become non-deterministic (out-of-memory errors, slow
    /// inference under contention).
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   user_data = base64encode(<<-EOT
    ///     #!/bin/bash
    ///     sed -i 's/^OPTIONS="/OPTIONS="--default-runtime nvidia /' /etc/sysconfig/docker
    ///   EOT
    ///   )
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Choose one model: either reserve GPUs in task definitions and leave Docker's default runtime
    /// alone (ECS selects the NVIDIA runtime for containers with GPUs), or share GPUs with ECS's own
    /// `sharingStrategy` (NVIDIA MPS) instead of the default-runtime recipe.
    pub static RULE = {
        id: "GPU206",
        name: "shared-gpu-runtime-with-reservations",
        severity: Warning,
        summary: "user data makes nvidia the default Docker runtime on capacity where tasks reserve GPUs",
        reads: { analyses: [GPU_CAPACITY, USER_DATA, TENANTS] },
        check: check,
    }
}

/// Whether every container placed on the capacity that launches `template` reserves GPUs: then
/// no container runs with the NVIDIA runtime outside ECS's GPU accounting. Known only when the
/// template's groups are all behind capacity providers whose tasks are all known.
fn every_container_reserves_gpus<'m>(
    report: &Findings<'m>,
    providers: &HashMap<ResourceId, Vec<&'m Resource>>,
    template: ResourceId,
) -> bool {
    let mut any = false;
    for (group, _) in &report.gpu_capacity().groups {
        if !group
            .known_templates
            .iter()
            .any(|t| t.template.id == template)
        {
            continue;
        }
        let Some(providers) = providers.get(&group.group.id) else {
            return false;
        };
        for provider in providers {
            let Some(tenants) = report.tenants(provider) else {
                return false;
            };
            let mut tasks = tenants
                .services
                .iter()
                .map(|(_, td)| *td)
                .chain(tenants.unplaced.iter().copied());
            if !tasks.all(task::every_container_reserves_gpus) {
                return false;
            }
            any = true;
        }
    }
    any
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let mut providers = None;
    for (t, reason, data, loc) in report.gpu_templates_with_user_data() {
        let GpuReason::Service(_) = reason else {
            continue;
        };
        let providers = providers.get_or_insert_with(|| providers_by_group(report.model()));
        if every_container_reserves_gpus(report, providers, t.template.id) {
            continue;
        }
        if !data
            .known_parts()
            .iter()
            .any(|p| sets_nvidia_default_runtime(p))
        {
            continue;
        }
        let (why_at, why) = reason.label(model);
        report
            .add(loc, "the user data makes `nvidia` the default Docker runtime on capacity where tasks reserve GPUs")
            .label(why_at, why)
            .help("remove the default-runtime change, or share GPUs with the task definition's `sharingStrategy` instead")
            .resource(t.template);
    }
}

#[cfg(test)]
mod tests {
    use crate::capacity::sets_nvidia_default_runtime as f;

    #[test]
    fn default_runtime_forms() {
        assert!(f("OPTIONS=\"--default-runtime nvidia\""));
        assert!(f("{\"default-runtime\": \"nvidia\", \"runtimes\": {}}"));
        assert!(f("dockerd --default-runtime=nvidia"));
        assert!(!f("# --default-runtime nvidia"));
        assert!(!f("--default-runtime runc"));
    }
}
