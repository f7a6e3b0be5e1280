use ecs_gpu_model::{Model, Resource};

use crate::capacity::{string, GPU_CAPACITY, SERVICE_CAPACITY};
use crate::{attribute_site, declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// GPU services (their task definition reserves GPUs, or they are placed on GPU capacity) that
    /// set `desired_count` and do not ignore it (`lifecycle { ignore_changes =
    /// [desired_count] }`), while an `aws_appautoscaling_target` with `service_namespace = "ecs"` and
    /// `scalable_dimension = "ecs:service:DesiredCount"` owns their desired count. The target's
    /// `resource_id` is followed through its references to the service, or matched as the known
    /// string `service/<cluster>/<service name>` (the service of that name whose cluster is known
    /// to be that one). A service without `desired_count`, or whose
    /// `desired_count` is null or unknown (a variable without a value may be given null), is not
    /// reported. When the value comes from elsewhere (a variable's default, a `.tfvars` file), the
    /// finding points at `desired_count` in the service, with a note where the value is written.
    ///
    /// ## Why it matters
    ///
    /// Application Auto Scaling changes the desired count; the next `terraform apply` sets it back to
    /// the written value. A deploy during a traffic peak scales GPU inference down (tasks stopped,
    /// requests failing), and scaling then fights Terraform on every apply.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_service" "inference" {
    ///   desired_count = 2
    /// }
    ///
    /// resource "aws_appautoscaling_target" "inference" {
    ///   service_namespace  = "ecs"
    ///   scalable_dimension = "ecs:service:DesiredCount"
    ///   resource_id        = "service/${aws_ecs_cluster.gpu.name}/${aws_ecs_service.inference.name}"
    ///   min_capacity       = 1
    ///   max_capacity       = 8
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Add `lifecycle { ignore_changes = [desired_count] }` to the service.
    pub static RULE = {
        id: "GPU501",
        name: "desired-count-fights-autoscaling",
        severity: Warning,
        summary: "an Application Auto Scaling target owns a service's desired count and the service does not ignore it",
        reads: {
            arguments: {
                "aws_appautoscaling_target": [
                    "resource_id",
                    "scalable_dimension",
                    "service_namespace",
                ],
                "aws_ecs_service": ["desired_count", "name"],
            },
            analyses: [GPU_CAPACITY, SERVICE_CAPACITY],
        },
        check: check,
    }
}

fn targets<'m>(model: &'m Model, target: &'m Resource) -> Vec<&'m Resource> {
    let Some(id) = target.body.attr("resource_id") else {
        return Vec::new();
    };
    if id.is_unknown() {
        return model.referenced(id, "aws_ecs_service");
    }
    let Some(s) = string(Some(id)) else {
        return Vec::new();
    };
    let mut parts = s.split('/');
    let (Some("service"), Some(cluster), Some(name), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Vec::new();
    };
    // The service of that name in that cluster, in the target's root module: a service whose
    // cluster is not known may be another cluster's.
    let root = model.root_of(target.module);
    let found: Vec<&Resource> = model
        .with_attr_str(root, "aws_ecs_service", "name", name)
        .into_iter()
        .filter(|r| crate::capacity::service_cluster_name(model, r) == Some(cluster))
        .collect();
    if found.len() == 1 {
        found
    } else {
        Vec::new()
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    let mut seen = std::collections::HashSet::new();
    for target in model.resources_of("aws_appautoscaling_target") {
        if target.instances_unknown
            || string(target.body.attr("service_namespace")) != Some("ecs")
            || string(target.body.attr("scalable_dimension")) != Some("ecs:service:DesiredCount")
        {
            continue;
        }
        for svc in targets(model, target) {
            if svc.instances_unknown
                || !report.is_gpu_resource(svc)
                || svc.ignore_changes.ignores("desired_count")
                || seen.contains(&svc.id)
            {
                continue;
            }
            let Some(dc) = svc.body.attribute("desired_count") else {
                continue;
            };
            if !dc.value.is_given() {
                continue;
            }
            seen.insert(svc.id);
            let (at, value_at) = attribute_site(svc, dc);
            report
                .add(
                    at,
                    format!(
                        "`{}` sets `desired_count`, which Application Auto Scaling owns: every apply resets the scaled count",
                        model.local_address(svc)
                    ),
                )
                .label(value_at, "the value comes from here")
                .label(Some(target.loc), "this scalable target changes the desired count")
                .help("add `lifecycle { ignore_changes = [desired_count] }` to the service")
                .resource(svc);
        }
    }
}
