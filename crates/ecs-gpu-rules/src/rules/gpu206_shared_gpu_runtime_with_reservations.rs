use ecs_gpu_model::Model;

use crate::capacity::{GpuReason, GPU_CAPACITY, USER_DATA};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates of capacity that a GPU service (a task definition with GPU
    /// `resourceRequirements`) is placed on, whose user data makes `nvidia` Docker's default runtime:
    /// `--default-runtime nvidia` (in `/etc/sysconfig/docker` or `OPTIONS`) or
    /// `"default-runtime": "nvidia"` (in `/etc/docker/daemon.json`). Text known to be in the user data
    /// is enough, even when other parts are unknown.
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
        reads: { walks: [GPU_CAPACITY, USER_DATA] },
        check: check,
    }
}

/// Whether the text sets Docker's default runtime to `nvidia`.
fn sets_nvidia_default_runtime(text: &str) -> bool {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|line| {
            line.match_indices("default-runtime").any(|(i, m)| {
                let rest = line[i + m.len()..].trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | ':' | '=' | '\\')
                });
                rest.starts_with("nvidia")
            })
        })
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for (t, reason, data, loc) in report.gpu_templates_with_user_data() {
        let GpuReason::Service(_) = reason else {
            continue;
        };
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
    use super::sets_nvidia_default_runtime as f;

    #[test]
    fn default_runtime_forms() {
        assert!(f("OPTIONS=\"--default-runtime nvidia\""));
        assert!(f("{\"default-runtime\": \"nvidia\", \"runtimes\": {}}"));
        assert!(f("dockerd --default-runtime=nvidia"));
        assert!(!f("# --default-runtime nvidia"));
        assert!(!f("--default-runtime runc"));
    }
}
