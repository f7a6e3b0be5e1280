//! How a service chooses its capacity: its capacity provider strategy (or its cluster's default
//! one), the clusters each capacity provider is associated with, and placement constraints.

use std::borrow::Cow;

use ecs_gpu_model::{Body, Loc, Model, Node, Resource};

use super::graph::{
    known_str, resolve_link, resolve_one, service_task, GroupCapacity, Groups, InstanceTypeUse,
    GROUPS, SERVICE_TASK,
};
use crate::{reads, Reads};

/// What [`service_capacity`], [`service_cluster_name`] and [`provider_clusters`] read: a
/// service's capacity provider strategy or its cluster's default one, the providers they name, and
/// what those launch ([`GROUPS`]).
pub const SERVICE_CAPACITY: Reads = reads! {
    arguments: {
        "aws_ecs_capacity_provider": ["name"],
        "aws_ecs_cluster": ["name"],
        "aws_ecs_cluster_capacity_providers": [
            "capacity_providers",
            "cluster_name",
            "default_capacity_provider_strategy",
        ],
        "aws_ecs_service": ["capacity_provider_strategy", "cluster", "launch_type"],
    },
    analyses: [GROUPS],
};

/// What [`placement_constraints`] reads.
pub const PLACEMENT_CONSTRAINTS: Reads = reads! {
    arguments: { "aws_ecs_service": ["placement_constraints"] },
    analyses: [SERVICE_TASK],
};

/// How a service chooses its capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Its own `capacity_provider_strategy`.
    Strategy,
    /// The cluster's default capacity provider strategy (no strategy, no launch type).
    ClusterDefault,
    /// `launch_type = "EC2"`: any container instance of the cluster.
    LaunchTypeEc2,
    /// `launch_type = "FARGATE"` or a Fargate capacity provider.
    Fargate,
    /// `launch_type = "EXTERNAL"`, or not known.
    Other,
}

/// One capacity provider a service can use.
#[derive(Debug, Clone)]
pub struct ProviderUse<'m> {
    /// The `aws_ecs_capacity_provider`.
    pub provider: &'m Resource,
    /// Where the service (or the cluster's default strategy) names it.
    pub named_at: Option<Loc>,
    /// Its Auto Scaling group, when known.
    pub group: Option<Cow<'m, GroupCapacity<'m>>>,
}

/// What a service can be placed on.
#[derive(Debug, Clone)]
pub struct ServiceCapacity<'m> {
    /// How the service chooses its capacity.
    pub placement: Placement,
    /// The capacity providers known to be used.
    pub providers: Vec<ProviderUse<'m>>,
    /// Whether `providers` is every capacity the service can use, each with a known group.
    pub complete: bool,
    /// Whether `providers` is every capacity the service can use, whether or not their groups are
    /// known (a capacity provider of ECS Managed Instances has none).
    pub providers_complete: bool,
    /// The strategy item or `launch_type` that names Fargate, for GPU403.
    pub fargate_at: Option<Loc>,
}

impl<'m> ServiceCapacity<'m> {
    /// The service may use capacity that is not in `providers`.
    fn unknown_provider(&mut self) {
        self.complete = false;
        self.providers_complete = false;
    }

    /// Every instance type, when the capacity is complete and every group's types are known.
    pub fn instance_types(&self) -> Option<Vec<InstanceTypeUse<'m>>> {
        if !self.complete {
            return None;
        }
        let mut out = Vec::new();
        for p in &self.providers {
            out.extend(p.group.as_ref()?.instance_types.clone()?);
        }
        Some(out)
    }
}

fn fargate_provider(name: &str) -> bool {
    ecs_gpu_catalog::catalog()
        .fargate
        .is_capacity_provider(name)
}

/// Resolves strategy blocks (`capacity_provider_strategy` / `default_capacity_provider_strategy`).
fn strategy<'m>(
    model: &'m Model,
    groups: Groups<'m>,
    from: &'m Resource,
    body: &'m Body,
    kind: &str,
    cap: &mut ServiceCapacity<'m>,
) {
    if body.may_have_unknown(kind) {
        cap.unknown_provider();
    }
    for item in body.blocks(kind) {
        let Some(node) = item.body.attr("capacity_provider") else {
            cap.unknown_provider();
            continue;
        };
        if let Some(name) = known_str(node) {
            if fargate_provider(name) {
                cap.placement = Placement::Fargate;
                cap.fargate_at = cap.fargate_at.or(node.loc);
                // Tasks may also land on Fargate: the EC2 providers are not all the capacity.
                cap.unknown_provider();
                continue;
            }
        }
        match resolve_one(model, from, node, "aws_ecs_capacity_provider") {
            Some(provider) => {
                let group = groups.of_provider(model, provider);
                if group.is_none() {
                    cap.complete = false;
                }
                cap.providers.push(ProviderUse {
                    provider,
                    named_at: node.loc.or(item.loc),
                    group,
                });
            }
            None => cap.unknown_provider(),
        }
    }
}

/// The capacity a service can be placed on, as far as it is known.
pub fn service_capacity<'m>(model: &'m Model, svc: &'m Resource) -> ServiceCapacity<'m> {
    service_capacity_with(model, Groups::NONE, svc)
}

/// [`service_capacity`], with the groups' capacities worked out already.
pub fn service_capacity_with<'m>(
    model: &'m Model,
    groups: Groups<'m>,
    svc: &'m Resource,
) -> ServiceCapacity<'m> {
    let mut cap = ServiceCapacity {
        placement: Placement::Strategy,
        providers: Vec::new(),
        complete: true,
        providers_complete: true,
        fargate_at: None,
    };
    let has_strategy = svc.body.block("capacity_provider_strategy").is_some();
    if has_strategy || svc.body.may_have_unknown("capacity_provider_strategy") {
        strategy(
            model,
            groups,
            svc,
            &svc.body,
            "capacity_provider_strategy",
            &mut cap,
        );
        return cap;
    }
    let launch_type = svc.body.attr("launch_type");
    match launch_type.map(|n| (known_str(n), n)) {
        Some((Some("FARGATE"), n)) => {
            cap.placement = Placement::Fargate;
            cap.fargate_at = n.loc;
            cap.unknown_provider();
            return cap;
        }
        Some((Some("EC2"), _)) => {
            cap.placement = Placement::LaunchTypeEc2;
            // Every capacity provider of the cluster; instances may also join the cluster without
            // one, so this is never complete.
            cap.unknown_provider();
            for ccp in cluster_capacity_providers(model, svc).unwrap_or_default() {
                if let Some(list) = ccp.body.attr("capacity_providers").and_then(Node::as_list) {
                    for node in list {
                        if let Some(provider) =
                            resolve_one(model, ccp, node, "aws_ecs_capacity_provider")
                        {
                            let group = groups.of_provider(model, provider);
                            cap.providers.push(ProviderUse {
                                provider,
                                named_at: node.loc,
                                group,
                            });
                        }
                    }
                }
            }
            return cap;
        }
        Some((Some(_), _)) | Some((None, _)) => {
            cap.placement = Placement::Other;
            cap.unknown_provider();
            return cap;
        }
        None => {}
    }
    cap.placement = Placement::ClusterDefault;
    match cluster_capacity_providers(model, svc) {
        Some(ccps) if ccps.len() == 1 => {
            let ccp = ccps[0];
            if ccp
                .body
                .block("default_capacity_provider_strategy")
                .is_none()
                && !ccp
                    .body
                    .may_have_unknown("default_capacity_provider_strategy")
            {
                // No default strategy: the service needs a launch type; nothing is known.
                cap.unknown_provider();
            }
            strategy(
                model,
                groups,
                ccp,
                &ccp.body,
                "default_capacity_provider_strategy",
                &mut cap,
            );
        }
        _ => cap.unknown_provider(),
    }
    cap
}

const CLUSTER_CAPACITY_PROVIDERS: &str = "aws_ecs_cluster_capacity_providers";

/// The name of a service's cluster, when known: the `name` of the `aws_ecs_cluster` its `cluster`
/// refers to, or its known `cluster` (a name, or an ARN `...:cluster/NAME`). `None` for a service
/// that names no cluster: which one ECS then uses is not in the sources.
pub fn service_cluster_name<'m>(model: &'m Model, svc: &'m Resource) -> Option<&'m str> {
    let node = svc.body.attr("cluster")?;
    if let Some(s) = known_str(node) {
        return Some(s.rsplit_once(":cluster/").map_or(s, |(_, name)| name));
    }
    resolve_one(model, svc, node, "aws_ecs_cluster")?
        .body
        .attr("name")
        .and_then(known_str)
}

/// The `aws_ecs_cluster_capacity_providers` of a service's cluster, when the cluster is known.
fn cluster_capacity_providers<'m>(model: &'m Model, svc: &Resource) -> Option<Vec<&'m Resource>> {
    let cluster_node = svc.body.attr("cluster")?;
    let cluster = resolve_one(model, svc, cluster_node, "aws_ecs_cluster")?;
    let cluster_name = cluster.body.attr("name").and_then(known_str);
    // `cluster_name` refers to the cluster (unknown until apply), or is its known name (in the
    // service's root module: another root's cluster of the same name is another configuration's).
    let mut found = model.referring(CLUSTER_CAPACITY_PROVIDERS, "cluster_name", cluster);
    if let Some(name) = cluster_name {
        let root = model.root_of(svc.module);
        found.extend(model.with_attr_str(root, CLUSTER_CAPACITY_PROVIDERS, "cluster_name", name));
    }
    found.sort_by_key(|r| r.id);
    Some(found)
}

/// The clusters a capacity provider is associated with: the `aws_ecs_cluster_capacity_providers`
/// of its root module that list it, each with the cluster's name (`None` when not known). `None`
/// when an association might exist that cannot be read (an unknown `capacity_providers` list or
/// item in that root module).
pub fn provider_clusters<'m>(
    model: &'m Model,
    provider: &Resource,
) -> Option<Vec<(&'m Resource, Option<String>)>> {
    let mut out = Vec::new();
    let root = model.root_of(provider.module);
    for ccp in model.resources_in(root, CLUSTER_CAPACITY_PROVIDERS) {
        let items = ccp.body.attr("capacity_providers")?.as_list()?;
        let mut listed = false;
        for item in items {
            match resolve_link(model, ccp, item, "aws_ecs_capacity_provider") {
                Some(rs) => listed |= rs.iter().any(|r| r.id == provider.id),
                None if item.is_unknown() => return None,
                None => {}
            }
        }
        if !listed {
            continue;
        }
        let name = ccp.body.attr("cluster_name").and_then(|n| {
            known_str(n).map(str::to_string).or_else(|| {
                resolve_one(model, ccp, n, "aws_ecs_cluster")
                    .and_then(|c| c.body.attr("name").and_then(known_str).map(str::to_string))
            })
        });
        out.push((ccp, name));
    }
    Some(out)
}

/// A placement constraint: its `type` and `expression` nodes, each when written.
pub type Constraint<'m> = (Option<&'m Node>, Option<&'m Node>);

/// The placement constraints of a service and of its task definition: (type, expression) nodes,
/// and whether the list is complete (no `dynamic "placement_constraints"` with an unknown
/// `for_each`, no unknown task definition).
pub fn placement_constraints<'m>(
    model: &'m Model,
    svc: &'m Resource,
) -> (Vec<Constraint<'m>>, bool) {
    let mut out = Vec::new();
    let mut complete = !svc.body.may_have_unknown("placement_constraints");
    for b in svc.body.blocks("placement_constraints") {
        out.push((b.body.attr("type"), b.body.attr("expression")));
    }
    match service_task(model, svc) {
        Some(td) => {
            for (t, e) in &td.placement_constraints {
                out.push((t.as_ref(), e.as_ref()));
            }
        }
        None => complete = false,
    }
    (out, complete)
}
