use ecs_gpu_model::Model;

use crate::capacity::{
    provider_clusters, service_cluster_name, user_data, user_data_mark, Setting, GPU_SERVICES,
    SERVICE_CAPACITY, USER_DATA,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// GPU services whose `capacity_provider_strategy` names a capacity provider that belongs to
    /// another cluster:
    ///
    /// - the provider is associated (`aws_ecs_cluster_capacity_providers`) only with clusters whose
    ///   names are known and differ from the service's cluster;
    /// - or, with no association in the configuration, the user data of the provider's launch
    ///   templates, known in full, joins its instances to another cluster (`ECS_CLUSTER=...`).
    ///
    /// The service's cluster must be known (a name, an ARN, or an `aws_ecs_cluster` whose `name`
    /// is known); a service that uses its cluster's default strategy is not read (that strategy
    /// names the cluster's own providers).
    ///
    /// ## Why it matters
    ///
    /// A capacity provider can only be used by services of a cluster it is associated with:
    /// `CreateService` fails ("The specified capacity provider is not associated with the
    /// cluster"). When the association is made elsewhere but the instances join another cluster
    /// through their user data, the service is created and its GPU tasks never place: the
    /// provider scales out instances that register with the other cluster.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_cluster_capacity_providers" "gpu" {
    ///   cluster_name       = "gpu-a"
    ///   capacity_providers = [aws_ecs_capacity_provider.gpu.name]
    /// }
    ///
    /// resource "aws_ecs_service" "inference" {
    ///   cluster = "gpu-b"
    ///   capacity_provider_strategy {
    ///     capacity_provider = aws_ecs_capacity_provider.gpu.name
    ///     weight            = 1
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Run the service in the provider's cluster, or associate the provider with the service's
    /// cluster (and make its instances join that cluster: `ECS_CLUSTER` in the user data).
    pub static RULE = {
        id: "GPU405",
        name: "capacity-provider-in-another-cluster",
        severity: Error,
        summary: "a GPU service's strategy names a capacity provider of another cluster",
        reads: { analyses: [GPU_SERVICES, SERVICE_CAPACITY, USER_DATA] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for s in report.gpu_services() {
        let svc = s.service;
        if svc
            .body
            .blocks("capacity_provider_strategy")
            .next()
            .is_none()
        {
            continue;
        }
        let Some(cluster) = service_cluster_name(model, svc) else {
            continue;
        };
        let cluster_at = svc.body.attr("cluster").and_then(|n| n.loc);
        for p in &s.capacity.providers {
            let Some(named_at) = p.named_at else { continue };
            let name = model.local_address(p.provider);
            match provider_clusters(model, p.provider) {
                // An association of its root module cannot be read.
                None => continue,
                Some(with) if !with.is_empty() => {
                    let names: Option<Vec<&str>> = with.iter().map(|(_, n)| n.as_deref()).collect();
                    let Some(names) = names else { continue };
                    if names.contains(&cluster) {
                        continue;
                    }
                    let mut finding = report
                        .add(
                            Some(named_at),
                            format!(
                                "the service runs in cluster `{cluster}`, and `{name}` is associated with {}",
                                crate::backticked(&names)
                            ),
                        )
                        .label(cluster_at, "the service's cluster")
                        .help(format!(
                            "run the service in the provider's cluster, or add `{name}` to the capacity providers of `{cluster}`"
                        ));
                    for (ccp, _) in &with {
                        finding =
                            finding.label(Some(ccp.loc), "the provider's cluster association");
                    }
                    finding.resource(svc);
                }
                Some(_) => {
                    // No association written here: the instances' user data says which cluster
                    // they join.
                    let Some(group) = &p.group else { continue };
                    for t in &group.known_templates {
                        let (data, at) = user_data(t.template);
                        let Setting::Value(joins) = data.setting("ECS_CLUSTER") else {
                            continue;
                        };
                        if joins == cluster || joins.contains("${") {
                            continue;
                        }
                        let mark = user_data_mark(t.template);
                        let joins = if mark.is_hidden() {
                            mark.label()
                        } else {
                            joins
                        };
                        report
                            .add(
                                Some(named_at),
                                format!(
                                    "the service runs in cluster `{cluster}`, and the instances of `{name}` join cluster `{joins}`"
                                ),
                            )
                            .label(at, "`ECS_CLUSTER` is set here")
                            .label(cluster_at, "the service's cluster")
                            .help(format!(
                                "set `ECS_CLUSTER={cluster}` in the launch template's user data, or run the service in `{joins}`"
                            ))
                            .resource(svc);
                    }
                }
            }
        }
    }
}
