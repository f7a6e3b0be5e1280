use ecs_gpu_catalog::catalog;
use ecs_gpu_model::Model;

use crate::capacity::{
    fetches_config, launch_kind, user_data, vgpu_templates, UserData, GPU_CAPACITY, USER_DATA,
};
use crate::{backticked, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates (and standalone `aws_instance`s) of GPU capacity that launch an instance
    /// type the catalog says needs memory overcommit (`g6f.large`; source key AMI-README-G6F),
    /// whose user data is known and never sets `vm.overcommit_memory`, or that has none. User data
    /// that is not known, that is known only in part (an interpolation such as
    /// `${var.extra_user_data}` on a line of its own may hold anything), or that fetches its
    /// configuration from elsewhere (a download, an SSM parameter, an included URL) is not
    /// reported; nor is any mention of `overcommit_memory` (a `sysctl` line, a file under
    /// `/etc/sysctl.d`, a write to `/proc`). A name written in the configuration is known, as
    /// `terraform plan` shows it: `ECS_CLUSTER=${aws_ecs_cluster.gpu.name}`, with the cluster's
    /// `name = "gpu"`, leaves the user data known.
    ///
    /// ## Why it matters
    ///
    /// The ECS GPU-optimized AMI's README says `g6f.large` instances require memory overcommit to
    /// run ECS tasks with NVIDIA GPU support, set in the EC2 user data: without it GPU tasks do
    /// not run on them.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g6f.large"
    ///   user_data = base64encode(<<-EOT
    ///     #!/bin/bash
    ///     echo ECS_CLUSTER=gpu >> /etc/ecs/ecs.config
    ///   EOT
    ///   )
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Enable it in the user data, before the agent starts:
    ///
    /// ```hcl
    ///   user_data = base64encode(<<-EOT
    ///     #!/bin/bash
    ///     echo "vm.overcommit_memory = 1" > /etc/sysctl.d/99-ecs-gpu.conf
    ///     sysctl -w vm.overcommit_memory=1
    ///     echo ECS_CLUSTER=gpu >> /etc/ecs/ecs.config
    ///   EOT
    ///   )
    /// ```
    pub static RULE = {
        id: "GPU214",
        name: "memory-overcommit-not-enabled",
        severity: Error,
        summary: "an instance type that needs memory overcommit for GPU tasks (g6f.large) has user data that does not enable it",
        reads: { analyses: [GPU_CAPACITY, USER_DATA] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let vgpu = &catalog().vgpu;
    let setting = vgpu.memory_overcommit_setting.as_str();
    let value = vgpu.memory_overcommit_value.as_str();
    // Whatever way the user data sets it, the kernel name's last part is written.
    let needle = setting.rsplit('.').next().unwrap_or(setting);
    for v in vgpu_templates(report.gpu_capacity()) {
        let needing: Vec<&(String, _)> = v
            .types
            .iter()
            .filter(|(n, _)| vgpu.needs_memory_overcommit(n))
            .collect();
        let Some((_, first_at)) = needing.first() else {
            continue;
        };
        let (data, data_at) = user_data(v.template);
        let why = match &data {
            UserData::Absent => format!("the {} has no user data", launch_kind(v.template)),
            UserData::Known(text) if !text.contains(needle) && !fetches_config(text) => {
                format!("its user data never sets `{setting}`")
            }
            _ => continue,
        };
        let names: Vec<&str> = needing.iter().map(|(n, _)| n.as_str()).collect();
        let mut b = report
            .add(
                first_at.or(data_at),
                format!(
                    "{} needs `{setting} = {value}` to run GPU tasks, and {why}",
                    backticked(&names),
                ),
            )
            .label(data_at, "the user data")
            .help(format!(
                "set it in the user data before the agent starts: `sysctl -w {setting}={value}` (and a line `{setting} = {value}` in /etc/sysctl.d to keep it)"
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
