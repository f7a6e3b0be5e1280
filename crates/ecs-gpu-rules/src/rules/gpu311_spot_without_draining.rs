use std::collections::HashSet;

use ecs_gpu_catalog::catalog;
use ecs_gpu_model::Model;

use crate::capacity::{
    ami_source, fetches_config, launch_kind, spot_evidence, user_data, Setting, AMI, GPU_CAPACITY,
    SPOT, USER_DATA,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// GPU capacity known to launch Spot Instances — a launch template with
    /// `instance_market_options { market_type = "spot" }`, a mixed instances policy whose
    /// `on_demand_percentage_above_base_capacity` is under 100, an EC2 Fleet whose target capacity
    /// is Spot, a Spot Fleet request — whose user data, known in full, does not set
    /// `ECS_ENABLE_SPOT_INSTANCE_DRAINING=true` (the agent's default is `false`, AGENT README).
    /// Info: some workloads handle interruptions themselves.
    ///
    /// A template with unknown parts (`ECS_CLUSTER=${aws_ecs_cluster.main.name}`) is read line by
    /// line: a line without an unknown part is known whole, and an unknown value of another
    /// variable does not hide whether this one is set.
    ///
    /// Not reported: user data that does not mention the variable on an image not known to be an
    /// ECS-optimized AMI (a custom AMI may bake it in); user data whose unknown parts may write any
    /// configuration (a line that is only an interpolation, an unknown word of a line that writes
    /// `/etc/ecs/ecs.config`), that is known only in fragments, or that fetches its configuration
    /// at boot,
    /// On-Demand capacity and Capacity Blocks (`market_type = "capacity-block"`), and ECS Managed
    /// Instances (no user data).
    ///
    /// ## Why it matters
    ///
    /// EC2 reclaims a Spot Instance two minutes after its interruption notice. With Spot draining,
    /// the agent sets the container instance to DRAINING on the notice: ECS stops placing tasks on
    /// it and starts the services' replacement tasks elsewhere while the old ones still run.
    /// Without it the GPU tasks are killed with the instance, and their replacements wait for new
    /// capacity, which for scarce GPU types can take long.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   instance_market_options {
    ///     market_type = "spot"
    ///   }
    ///   user_data = base64encode("#!/bin/bash\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\n")
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write `ECS_ENABLE_SPOT_INSTANCE_DRAINING=true` to `/etc/ecs/ecs.config` in the user data.
    pub static RULE = {
        id: "GPU311",
        name: "spot-without-draining",
        severity: Info,
        summary: "capacity of Spot GPU instances does not drain its tasks on an interruption notice",
        reads: { analyses: [GPU_CAPACITY, USER_DATA, AMI, SPOT] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let var = &catalog().agent.spot_draining_variable;
    let gpu = report.gpu_capacity();
    let units = gpu
        .groups
        .iter()
        .map(|(g, r)| (g.as_ref(), r))
        .chain(gpu.fleets.iter().map(|(f, r)| (f, r)));
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for (cap, reason) in units {
        let Some(spot) = spot_evidence(cap) else {
            continue;
        };
        for t in &cap.known_templates {
            if !seen.insert(t.template.id) {
                continue;
            }
            let (data, loc) = user_data(t.template);
            let Some(text) = data.known_text() else {
                continue;
            };
            if fetches_config(text) {
                continue;
            }
            match data.setting(var) {
                Setting::Value(v) if v.eq_ignore_ascii_case("true") || v.contains('$') => continue,
                Setting::Value(_) => {}
                Setting::UnknownValue | Setting::Unknown => continue,
                // Unset here: a custom AMI may have it in its own `ecs.config`.
                Setting::Unset if !ami_source(model, t.template).is_ecs_optimized() => continue,
                Setting::Unset => {}
            }
            found.push((t.template, loc, spot.clone(), reason.label(model)));
        }
    }
    for (template, loc, spot, (why_at, why)) in found {
        report
            .add(
                loc.or(Some(template.loc)),
                format!(
                    "this {}'s user data does not set `{var}=true`, so GPU tasks on Spot Instances are killed with them instead of drained",
                    launch_kind(template)
                ),
            )
            .label(spot.at, spot.why)
            .label(why_at, why)
            .help(format!("write `{var}=true` to `/etc/ecs/ecs.config` in the user data"))
            .resource(template);
    }
}
