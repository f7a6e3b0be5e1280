use std::collections::HashMap;

use ecs_gpu_catalog::catalog;
use ecs_gpu_model::{Model, Resource, ResourceId};

use crate::capacity::{
    ami_source, fetches_config, provider_clusters, providers_by_group, GpuCapacity, Setting, AMI,
    GPU_CAPACITY, USER_DATA,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Launch templates of GPU capacity whose whole user data is known (or that have none) and never
    /// mentions `ECS_CLUSTER`, on an ECS-optimized image (an ECS AMI parameter or name filter, GPU or
    /// not), behind capacity providers whose clusters are all known by name and none of them is the
    /// `default` cluster.
    ///
    /// A template with unknown parts is read line by line, as GPU311 reads it.
    ///
    /// Not reported: user data whose unknown parts may write any configuration, that is known
    /// only in fragments, that fetches configuration from elsewhere
    /// (`aws s3 cp`, `curl`, `#include`...), an image that is not known to be an ECS-optimized AMI (a
    /// custom AMI may bake `ECS_CLUSTER` in), or a capacity provider whose cluster is not known.
    ///
    /// ## Why it matters
    ///
    /// Without `ECS_CLUSTER` the ECS agent registers the instance in the cluster named `default`. The
    /// capacity provider's instances then never join the cluster the GPU service runs in: the service's
    /// tasks stay `PENDING` while managed scaling keeps launching GPU instances that are billed and idle.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_launch_template" "gpu" {
    ///   image_id      = data.aws_ssm_parameter.ecs_gpu_ami.value
    ///   instance_type = "g5.xlarge"
    ///   user_data     = base64encode("#!/bin/bash\necho ECS_ENABLE_GPU_SUPPORT=true >> /etc/ecs/ecs.config\n")
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the cluster name into the agent's configuration:
    /// `echo ECS_CLUSTER=${aws_ecs_cluster.gpu.name} >> /etc/ecs/ecs.config`.
    pub static RULE = {
        id: "GPU205",
        name: "ecs-cluster-not-set",
        severity: Warning,
        summary: "the user data of GPU capacity does not write `ECS_CLUSTER`",
        reads: { analyses: [GPU_CAPACITY, USER_DATA, AMI] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let agent = &catalog().agent;
    let capacity = report.gpu_capacity();
    let mut links: Option<Links<'_>> = None;
    for (t, reason, data, loc) in report.gpu_templates_with_user_data() {
        let template = t.template;
        let Some(text) = data.known_text() else {
            continue;
        };
        if text.contains(agent.cluster_variable.as_str())
            || fetches_config(text)
            || data.setting(&agent.cluster_variable) != Setting::Unset
        {
            continue;
        }
        let source = ami_source(model, template);
        if !source.is_ecs_optimized() {
            continue;
        }
        // The clusters the template's instances are meant for: every one known, none `default`.
        // The links are followed once for all templates, on the first that needs them.
        let links = links.get_or_insert_with(|| Links::new(model, capacity));
        let mut clusters = Vec::new();
        let mut known = true;
        for group in links
            .template_groups
            .get(&template.id)
            .into_iter()
            .flatten()
        {
            for p in links.group_providers.get(group).into_iter().flatten() {
                match provider_clusters(model, p) {
                    Some(with) => clusters.extend(with),
                    None => known = false,
                }
            }
        }
        if !known
            || clusters.is_empty()
            || clusters
                .iter()
                .any(|(_, name)| name.as_deref().is_none_or(|n| n == agent.cluster_default))
        {
            continue;
        }
        let (ccp, name) = &clusters[0];
        let name = name.as_deref().unwrap_or_default();
        let (why_at, why) = reason.label(model);
        report
            .add(
                loc.or(Some(template.loc)),
                format!(
                    "the user data does not write `{}`, so instances join the `{}` cluster instead of `{name}`",
                    agent.cluster_variable, agent.cluster_default
                ),
            )
            .label(Some(ccp.loc), format!("the capacity provider belongs to the cluster `{name}`"))
            .label(why_at, why)
            .help(format!(
                "write `{}={name}` to `/etc/ecs/ecs.config` in the user data",
                agent.cluster_variable
            ))
            .resource(template);
    }
}

/// From a GPU launch template to the clusters its instances are meant for.
struct Links<'m> {
    /// The GPU groups that use each template, in [`GpuCapacity::groups`] order.
    template_groups: HashMap<ResourceId, Vec<ResourceId>>,
    group_providers: HashMap<ResourceId, Vec<&'m Resource>>,
}

impl<'m> Links<'m> {
    fn new(model: &'m Model, capacity: &GpuCapacity<'_>) -> Links<'m> {
        let mut template_groups: HashMap<ResourceId, Vec<ResourceId>> = HashMap::new();
        for (g, _) in &capacity.groups {
            let mut templates: Vec<ResourceId> =
                g.known_templates.iter().map(|u| u.template.id).collect();
            templates.sort_unstable();
            templates.dedup();
            for t in templates {
                template_groups.entry(t).or_default().push(g.group.id);
            }
        }
        Links {
            template_groups,
            group_providers: providers_by_group(model),
        }
    }
}
