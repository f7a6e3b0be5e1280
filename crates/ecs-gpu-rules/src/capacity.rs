//! The capacity a task can be placed on: service → capacity provider strategy (or the cluster's
//! default strategy) → capacity provider → Auto Scaling group → launch template or mixed instances
//! policy → instance types, AMI, user data.
//!
//! Every step answers only what is known. A link written as a reference to a computed attribute
//! (`aws_autoscaling_group.gpu.arn`) is followed through the reference; a link written as a known
//! name (`aws_ecs_capacity_provider.gpu.name`, a literal `"gpu"`) is followed to the resource of that
//! kind whose `name` is that string. Anything else (a variable without a value, a name no resource
//! in the checked files has, a `dynamic` block with an unknown `for_each`) makes the step unknown.
//!
//! Rules that compare a task with its instance types (GPU103's fraction/whole check, GPU106,
//! GPU107, GPU401) ask [`capacity_for_task`] or [`service_capacity`] and need the walk known in
//! full. Rules about the configuration of GPU capacity (GPU2xx, GPU3xx) ask [`gpu_capacity`],
//! which collects every launch template, group and capacity provider that a GPU service is known
//! to reach, or that is known to launch GPU instance types for ECS (behind a capacity provider, as
//! the container instances of a group without one, or as a standalone `aws_instance`), even when
//! other branches of the walk are unknown: a broken link that is known is broken whatever the
//! unknown ones are.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use ecs_gpu_catalog::{catalog, AmiClass, AmiNameClass, InstanceType, Lookup};
use ecs_gpu_model::{
    Block, Body, Loc, Model, Node, Resource, ResourceId, TaskDefinition, TaskDefinitionOrigin,
    UnknownReason, Value,
};

use crate::backticked;
use crate::task::{every_known_string, is_checked, is_gpu_task};

/// The instance types a task can be placed on, and where they are written.
#[derive(Debug, Clone, Default)]
pub struct Capacity {
    /// Every instance type the task can land on, each known to the catalog.
    pub instance_types: Vec<&'static InstanceType>,
    /// Where the instance types come from (the launch template's `instance_type`, an override),
    /// for the rules' secondary labels: (location, message).
    pub labels: Vec<(Loc, String)>,
}

/// The capacity of a task, or `None` when it is not known in full: no service found for the task,
/// a service whose task definition is unknown (it might run this one too), an unknown strategy,
/// capacity provider, group, launch template or instance type, an instance type the catalog does
/// not know, attribute-based instance selection, or `launch_type = "EC2"` (instances may join the
/// cluster without a capacity provider).
pub fn capacity_for_task(model: &Model, td: &TaskDefinition) -> Option<Capacity> {
    capacity_for_task_in(model, &ServiceIndex::new(model), td)
}

/// The services of a model by the task definition they run, computed once per run (see
/// [`crate::Findings::capacity`]): looking the services up for every task definition would be
/// quadratic in the size of a monorepo.
#[derive(Debug, Default)]
pub struct ServiceIndex<'m> {
    by_task: std::collections::HashMap<ecs_gpu_model::ResourceId, Vec<&'m Resource>>,
    /// A service whose task definition is unknown: it might run any of them.
    any_unknown: bool,
    groups: Groups<'m>,
}

impl<'m> ServiceIndex<'m> {
    pub fn new(model: &'m Model) -> ServiceIndex<'m> {
        ServiceIndex::with_groups(model, Groups::NONE)
    }

    /// [`ServiceIndex::new`], with the groups' capacities worked out already.
    pub fn with_groups(model: &'m Model, groups: Groups<'m>) -> ServiceIndex<'m> {
        let mut index = ServiceIndex {
            groups,
            ..ServiceIndex::default()
        };
        for svc in model.resources_of("aws_ecs_service") {
            match service_task_definition(model, svc) {
                Some(id) => index.by_task.entry(id).or_default().push(svc),
                None => index.any_unknown = true,
            }
        }
        index
    }
}

/// [`capacity_for_task`] with the services already indexed.
pub fn capacity_for_task_in(
    model: &Model,
    index: &ServiceIndex<'_>,
    td: &TaskDefinition,
) -> Option<Capacity> {
    let TaskDefinitionOrigin::Resource(td_id) = td.origin else {
        return None;
    };
    // A service with an unknown task definition might run this one too: its capacity would count.
    if index.any_unknown {
        return None;
    }
    let services = index.by_task.get(&td_id)?;
    let mut out = Capacity::default();
    for svc in services {
        let cap = service_capacity_with(model, index.groups, svc);
        if !cap.complete {
            return None;
        }
        for t in cap.instance_types()? {
            let Lookup::Known(known) = catalog().lookup(&t.name) else {
                return None;
            };
            if !out.instance_types.iter().any(|k| k.name == known.name) {
                out.instance_types.push(known);
            }
            if let Some(loc) = t.node.loc {
                out.labels
                    .push((loc, format!("instance type `{}` comes from here", t.name)));
            }
        }
    }
    Some(out)
}

/// The instance types a task can be placed on, or `None` when unknown.
pub fn instance_types_for_task(
    model: &Model,
    td: &TaskDefinition,
) -> Option<Vec<&'static InstanceType>> {
    capacity_for_task(model, td).map(|c| c.instance_types)
}

// ---------------------------------------------------------------------------------------------
// Following links
// ---------------------------------------------------------------------------------------------

/// The known string of a node (not a `jsonencode` result).
fn known_str(node: &Node) -> Option<&str> {
    match &node.value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The resources of `kind` a link points to: through its references, or, for a known string, the
/// resources of that kind whose `name` is the string (or whose name ends an ARN that is the string).
/// `None` when unknown (no such resource in the checked files, or a value that cannot be followed).
pub fn resolve_link<'m>(
    model: &'m Model,
    node: &Node,
    kind: &'static str,
) -> Option<Vec<&'m Resource>> {
    if let Value::Unknown(u) = &node.value {
        // A reference to a resource's attribute is unknown until apply. An unknown for another
        // reason (`var.cp != null ? var.cp : aws_ecs_capacity_provider.gpu.name` with no value for
        // `var.cp`) might be something else than the resource it mentions.
        if u.reason != UnknownReason::AfterApply {
            return None;
        }
        let found = model.referenced(node, kind);
        return if found.is_empty() { None } else { Some(found) };
    }
    let s = known_str(node)?;
    // The name is the whole string, or what follows a `/` of an ARN (every `/`: a name is matched
    // whatever it holds).
    let mut found = model.with_attr_str(kind, "name", s);
    for (slash, _) in s.match_indices('/') {
        found.extend(model.with_attr_str(kind, "name", &s[slash + 1..]));
    }
    found.sort_by_key(|r| r.id);
    found.dedup_by_key(|r| r.id);
    if found.is_empty() {
        None
    } else {
        Some(found)
    }
}

/// The one resource a link points to, when known and unique.
fn resolve_one<'m>(model: &'m Model, node: &Node, kind: &'static str) -> Option<&'m Resource> {
    match resolve_link(model, node, kind)?.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The task definition resource a service runs, when known.
pub fn service_task_definition(model: &Model, svc: &Resource) -> Option<ecs_gpu_model::ResourceId> {
    let node = svc.body.attr("task_definition")?;
    if node.is_unknown() {
        return resolve_one(model, node, "aws_ecs_task_definition").map(|r| r.id);
    }
    // A known string: `family`, `family:revision` or an ARN; match the family.
    let s = known_str(node)?;
    let family = s.rsplit('/').next().unwrap_or(s);
    let family = family.split(':').next().unwrap_or(family);
    let found = model.with_attr_str("aws_ecs_task_definition", "family", family);
    match found.as_slice() {
        [one] => Some(one.id),
        _ => None,
    }
}

/// The task definition a service runs, when known.
pub fn service_task<'m>(model: &'m Model, svc: &Resource) -> Option<&'m TaskDefinition> {
    let id = service_task_definition(model, svc)?;
    model.task_definition_of(id)
}

/// A service whose task definition certainly reserves GPUs: with that task definition and the
/// capacity the service can be placed on.
#[derive(Debug, Clone)]
pub struct GpuService<'m> {
    pub service: &'m Resource,
    pub task: &'m TaskDefinition,
    pub capacity: ServiceCapacity<'m>,
}

/// The services whose task definition certainly reserves GPUs, each with it and its capacity
/// (the rules read them once per run: [`crate::Findings::gpu_services`]).
pub fn gpu_services(model: &Model) -> Vec<GpuService<'_>> {
    gpu_services_with(model, Groups::NONE)
}

/// [`gpu_services`], with the groups' capacities worked out already.
pub fn gpu_services_with<'m>(model: &'m Model, groups: Groups<'m>) -> Vec<GpuService<'m>> {
    model
        .resources_of("aws_ecs_service")
        .filter(|svc| !svc.instances_unknown)
        .filter_map(|svc| {
            let td = service_task(model, svc)?;
            (is_checked(model, td) && is_gpu_task(td)).then(|| GpuService {
                service: svc,
                task: td,
                capacity: service_capacity_with(model, groups, svc),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Service → capacity providers
// ---------------------------------------------------------------------------------------------

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
    pub provider: &'m Resource,
    /// Where the service (or the cluster's default strategy) names it.
    pub named_at: Option<Loc>,
    /// Its Auto Scaling group, when known.
    pub group: Option<Cow<'m, GroupCapacity<'m>>>,
}

/// What a service can be placed on.
#[derive(Debug, Clone)]
pub struct ServiceCapacity<'m> {
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
        match resolve_one(model, node, "aws_ecs_capacity_provider") {
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
                            resolve_one(model, node, "aws_ecs_capacity_provider")
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
    resolve_one(model, node, "aws_ecs_cluster")?
        .body
        .attr("name")
        .and_then(known_str)
}

/// The `aws_ecs_cluster_capacity_providers` of a service's cluster, when the cluster is known.
fn cluster_capacity_providers<'m>(model: &'m Model, svc: &Resource) -> Option<Vec<&'m Resource>> {
    let cluster_node = svc.body.attr("cluster")?;
    let cluster = resolve_one(model, cluster_node, "aws_ecs_cluster")?;
    let cluster_name = cluster.body.attr("name").and_then(known_str);
    // `cluster_name` refers to the cluster (unknown until apply), or is its known name.
    let mut found = model.referring(CLUSTER_CAPACITY_PROVIDERS, "cluster_name", cluster);
    if let Some(name) = cluster_name {
        found.extend(model.with_attr_str(CLUSTER_CAPACITY_PROVIDERS, "cluster_name", name));
    }
    found.sort_by_key(|r| r.id);
    Some(found)
}

/// The cluster associations of each capacity provider: the `aws_ecs_cluster_capacity_providers`
/// with the cluster's name (`None` when not known).
pub type ProviderClusters<'m> = HashMap<ResourceId, Vec<(&'m Resource, Option<String>)>>;

/// The clusters each capacity provider is associated with (`aws_ecs_cluster_capacity_providers`),
/// by provider, with their names: `None` for a name that is not known. `None` overall when an
/// association might exist that cannot be read (an unknown `capacity_providers` list or item).
/// One pass over the associations for every provider.
pub fn clusters_by_provider(model: &Model) -> Option<ProviderClusters<'_>> {
    let mut out = ProviderClusters::new();
    for ccp in model.resources_of(CLUSTER_CAPACITY_PROVIDERS) {
        let items = ccp.body.attr("capacity_providers")?.as_list()?;
        let mut providers = Vec::new();
        for item in items {
            match resolve_link(model, item, "aws_ecs_capacity_provider") {
                Some(rs) => providers.extend(rs.iter().map(|r| r.id)),
                None if item.is_unknown() => return None,
                None => {}
            }
        }
        if providers.is_empty() {
            continue;
        }
        providers.sort_unstable();
        providers.dedup();
        let name = ccp.body.attr("cluster_name").and_then(|n| {
            known_str(n).map(str::to_string).or_else(|| {
                resolve_one(model, n, "aws_ecs_cluster")
                    .and_then(|c| c.body.attr("name").and_then(known_str).map(str::to_string))
            })
        });
        for p in providers {
            out.entry(p).or_default().push((ccp, name.clone()));
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Capacity provider → group → launch templates → instance types
// ---------------------------------------------------------------------------------------------

/// A launch template as a group uses it, or a standalone `aws_instance` (an ECS container instance
/// of GPU capacity outside any group), which carries the same launch arguments: image, user data,
/// instance profile, metadata options. [`image_attr`] and [`user_data`] read either.
#[derive(Debug, Clone)]
pub struct TemplateUse<'m> {
    pub template: &'m Resource,
    /// The `version` argument, when written.
    pub version: Option<&'m Node>,
    /// The block that names the template (`launch_template`, `launch_template_specification`);
    /// `None` for a standalone `aws_instance`.
    pub spec: Option<&'m Block>,
}

/// One instance type a group can launch, where it is written, and from which template (for a
/// template's `instance_type`).
#[derive(Debug, Clone)]
pub struct InstanceTypeUse<'m> {
    pub name: String,
    pub node: &'m Node,
    pub template: Option<&'m Resource>,
    /// The override block it comes from (`mixed_instances_policy`).
    pub override_block: Option<&'m Block>,
}

/// An Auto Scaling group and what it launches.
#[derive(Debug, Clone)]
pub struct GroupCapacity<'m> {
    pub group: &'m Resource,
    /// Every launch template it uses, `None` when not known in full (a launch configuration, an
    /// unknown template reference).
    pub templates: Option<Vec<TemplateUse<'m>>>,
    /// The templates that are known to be used, even when others are not.
    pub known_templates: Vec<TemplateUse<'m>>,
    /// Every instance type it can launch, `None` when not known in full.
    pub instance_types: Option<Vec<InstanceTypeUse<'m>>>,
    /// The instance types known to be launched, even when others are not known.
    pub known_instance_types: Vec<InstanceTypeUse<'m>>,
    /// The `mixed_instances_policy` block, when there is one.
    pub mixed: Option<&'m Block>,
    /// The `override` blocks of its mixed instances policy (or the `override`/`overrides` blocks
    /// of a fleet's launch template configs), when none may be missing: `None` when a `dynamic`
    /// block over an unknown collection may add some.
    pub overrides: Option<Vec<&'m Block>>,
}

/// The Auto Scaling group of a capacity provider, when known.
pub fn provider_group<'m>(model: &'m Model, provider: &'m Resource) -> Option<GroupCapacity<'m>> {
    Some(group_capacity(model, provider_asg(model, provider)?))
}

/// The Auto Scaling group resource of a capacity provider, when known.
pub fn provider_asg<'m>(model: &'m Model, provider: &Resource) -> Option<&'m Resource> {
    let asgp = provider.body.block("auto_scaling_group_provider")?;
    let arn = asgp.body.attr("auto_scaling_group_arn")?;
    resolve_one(model, arn, "aws_autoscaling_group")
}

/// What every Auto Scaling group launches ([`group_capacity`]), worked out once for a run of the
/// rules: services, capacity providers and the rules that read them reach the same groups many
/// times.
#[derive(Debug, Default)]
pub struct GroupMemo<'m> {
    by_group: HashMap<ResourceId, GroupCapacity<'m>>,
}

impl<'m> GroupMemo<'m> {
    pub fn new(model: &'m Model) -> GroupMemo<'m> {
        GroupMemo {
            by_group: model
                .resources_of("aws_autoscaling_group")
                .map(|g| (g.id, group_capacity(model, g)))
                .collect(),
        }
    }
}

/// Where the capacity of a group comes from: a [`GroupMemo`], or worked out when asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Groups<'m>(Option<&'m GroupMemo<'m>>);

impl<'m> Groups<'m> {
    /// Each group worked out when asked.
    pub const NONE: Groups<'static> = Groups(None);

    pub fn from_memo(memo: &'m GroupMemo<'m>) -> Groups<'m> {
        Groups(Some(memo))
    }

    /// [`group_capacity`].
    pub fn of(self, model: &'m Model, group: &'m Resource) -> Cow<'m, GroupCapacity<'m>> {
        match self.0.and_then(|m| m.by_group.get(&group.id)) {
            Some(g) => Cow::Borrowed(g),
            None => Cow::Owned(group_capacity(model, group)),
        }
    }

    /// [`provider_group`].
    pub fn of_provider(
        self,
        model: &'m Model,
        provider: &'m Resource,
    ) -> Option<Cow<'m, GroupCapacity<'m>>> {
        Some(self.of(model, provider_asg(model, provider)?))
    }
}

/// The capacity providers backed by each group, by group, in one pass over the providers.
pub fn providers_by_group(model: &Model) -> HashMap<ResourceId, Vec<&Resource>> {
    let mut out: HashMap<ResourceId, Vec<&Resource>> = HashMap::new();
    for p in model.resources_of("aws_ecs_capacity_provider") {
        let group = p
            .body
            .block("auto_scaling_group_provider")
            .and_then(|b| b.body.attr("auto_scaling_group_arn"))
            .and_then(|n| resolve_one(model, n, "aws_autoscaling_group"));
        if let Some(g) = group {
            out.entry(g.id).or_default().push(p);
        }
    }
    out
}

/// The template a `launch_template` / `launch_template_specification` block names.
fn template_of<'m>(
    model: &'m Model,
    spec: &'m Block,
    id_attr: &str,
    name_attr: &str,
) -> Option<TemplateUse<'m>> {
    let node = spec
        .body
        .attr(id_attr)
        .or_else(|| spec.body.attr(name_attr))?;
    let template = resolve_one(model, node, "aws_launch_template")?;
    Some(TemplateUse {
        template,
        version: spec.body.attr("version"),
        spec: Some(spec),
    })
}

/// What a group launches.
pub fn group_capacity<'m>(model: &'m Model, group: &'m Resource) -> GroupCapacity<'m> {
    let body = &group.body;
    let mut cap = GroupCapacity {
        group,
        templates: None,
        known_templates: Vec::new(),
        instance_types: None,
        known_instance_types: Vec::new(),
        mixed: None,
        overrides: None,
    };
    // A launch configuration (the legacy way): its image, type and user data, like a template's.
    if let Some(node) = body.attr("launch_configuration") {
        let Some(lc) = resolve_one(model, node, LAUNCH_CONFIGURATION) else {
            return cap;
        };
        let use_ = TemplateUse {
            template: lc,
            version: None,
            spec: None,
        };
        cap.instance_types = template_instance_type(lc).map(|(name, node)| {
            vec![InstanceTypeUse {
                name,
                node,
                template: Some(lc),
                override_block: None,
            }]
        });
        cap.known_instance_types = cap.instance_types.clone().unwrap_or_default();
        cap.known_templates.push(use_.clone());
        cap.templates = Some(vec![use_]);
        return cap;
    }
    if body.may_have_unknown("launch_template") || body.may_have_unknown("mixed_instances_policy") {
        return cap;
    }
    if let Some(lt) = body.block("launch_template") {
        let Some(use_) = template_of(model, lt, "id", "name") else {
            return cap;
        };
        cap.instance_types = template_instance_type(use_.template).map(|(name, node)| {
            vec![InstanceTypeUse {
                name,
                node,
                template: Some(use_.template),
                override_block: None,
            }]
        });
        cap.known_instance_types = cap.instance_types.clone().unwrap_or_default();
        cap.known_templates.push(use_.clone());
        cap.templates = Some(vec![use_]);
        return cap;
    }
    let Some(mixed) = body.block("mixed_instances_policy") else {
        return cap;
    };
    cap.mixed = Some(mixed);
    let Some(lt) = mixed.body.block("launch_template") else {
        return cap;
    };
    if lt.body.may_have_unknown("override")
        || lt.body.may_have_unknown("launch_template_specification")
    {
        return cap;
    }
    let default = lt
        .body
        .block("launch_template_specification")
        .and_then(|s| template_of(model, s, "launch_template_id", "launch_template_name"));
    let mut templates = Vec::new();
    let mut all_templates = true;
    if let Some(d) = &default {
        templates.push(d.clone());
    } else {
        all_templates = false;
    }
    let mut types = Vec::new();
    let mut all_types = true;
    let overrides: Vec<&Block> = lt.body.blocks("override").collect();
    cap.overrides = Some(overrides.clone());
    for o in &overrides {
        if let Some(spec) = o.body.block("launch_template_specification") {
            match template_of(model, spec, "launch_template_id", "launch_template_name") {
                Some(t) => {
                    if !templates
                        .iter()
                        .any(|u: &TemplateUse<'_>| u.template.id == t.template.id)
                    {
                        templates.push(t);
                    }
                }
                None => all_templates = false,
            }
        }
        match o.body.attr("instance_type") {
            Some(n) => match known_str(n) {
                Some(s) => types.push(InstanceTypeUse {
                    name: s.to_string(),
                    node: n,
                    template: None,
                    override_block: Some(o),
                }),
                None => all_types = false,
            },
            // `instance_requirements`: attribute-based selection, not a list of names.
            None => all_types = false,
        }
    }
    if overrides.is_empty() {
        match default
            .as_ref()
            .and_then(|d| template_instance_type(d.template).map(|t| (t, d.template)))
        {
            Some(((name, node), template)) => types.push(InstanceTypeUse {
                name,
                node,
                template: Some(template),
                override_block: None,
            }),
            None => all_types = false,
        }
    }
    cap.known_templates = templates.clone();
    cap.templates = all_templates.then_some(templates);
    cap.known_instance_types = types.clone();
    cap.instance_types = all_types.then_some(types);
    cap
}

/// The fleet resource types read as capacity: an EC2 Fleet and a Spot Fleet request launch
/// instances from launch template configs, each a template with the overrides that replace its
/// instance type, as a mixed instances policy does for an Auto Scaling group.
pub const FLEETS: [&str; 2] = ["aws_ec2_fleet", "aws_spot_fleet_request"];

/// Whether a resource is an EC2 Fleet or a Spot Fleet request.
pub fn is_fleet(r: &Resource) -> bool {
    FLEETS.contains(&r.kind.as_str())
}

/// What an EC2 Fleet (`launch_template_config { launch_template_specification, override }`) or a
/// Spot Fleet request (`launch_template_config { launch_template_specification, overrides }`)
/// launches, as a [`GroupCapacity`] whose `group` is the fleet. An override replaces the
/// template's instance type when it names one (`instance_type`) or selects some
/// (`instance_requirements`, not a list of names); one that sets neither (only a subnet or an
/// Availability Zone) launches the template's. A Spot Fleet request's one inline
/// `launch_specification` is read with the request standing for it ([`inline_specification`]);
/// with several, the templates and types are not known in full.
pub fn fleet_capacity<'m>(model: &'m Model, fleet: &'m Resource) -> GroupCapacity<'m> {
    let (id_attr, name_attr, override_kind) = if fleet.kind == "aws_spot_fleet_request" {
        ("id", "name", "overrides")
    } else {
        ("launch_template_id", "launch_template_name", "override")
    };
    let body = &fleet.body;
    let mut complete = !body.may_have_unknown("launch_template_config");
    let inline = fleet.kind == "aws_spot_fleet_request"
        && (body.block("launch_specification").is_some()
            || body.may_have_unknown("launch_specification"));
    let one_inline = inline_specification(fleet);
    let (mut all_templates, mut all_types) = (
        complete && (!inline || one_inline.is_some()),
        complete && (!inline || one_inline.is_some()),
    );
    let (mut templates, mut types, mut overrides) = (Vec::new(), Vec::new(), Vec::new());
    // The one inline launch specification: the request itself stands for it, as a standalone
    // instance stands for its own launch arguments.
    if let Some(spec) = one_inline {
        templates.push(TemplateUse {
            template: fleet,
            version: None,
            spec: None,
        });
        match spec
            .body
            .attr("instance_type")
            .and_then(|n| Some((known_str(n)?, n)))
        {
            Some((name, n)) => types.push(InstanceTypeUse {
                name: name.to_string(),
                node: n,
                template: Some(fleet),
                override_block: None,
            }),
            None => all_types = false,
        }
    }
    for config in body.blocks("launch_template_config") {
        if config
            .body
            .may_have_unknown("launch_template_specification")
            || config.body.may_have_unknown(override_kind)
        {
            complete = false;
            all_templates = false;
            all_types = false;
        }
        let template = config
            .body
            .block("launch_template_specification")
            .and_then(|s| template_of(model, s, id_attr, name_attr));
        match &template {
            Some(t) => {
                if !templates
                    .iter()
                    .any(|u: &TemplateUse<'_>| u.template.id == t.template.id)
                {
                    templates.push(t.clone());
                }
            }
            None => all_templates = false,
        }
        let own_type = || {
            template.as_ref().and_then(|t| {
                template_instance_type(t.template).map(|(name, node)| (name, node, t.template))
            })
        };
        let config_overrides: Vec<&Block> = config.body.blocks(override_kind).collect();
        if config_overrides.is_empty() {
            match own_type() {
                Some((name, node, t)) => types.push(InstanceTypeUse {
                    name,
                    node,
                    template: Some(t),
                    override_block: None,
                }),
                None => all_types = false,
            }
        }
        for o in &config_overrides {
            if o.body.block("instance_requirements").is_some()
                || o.body.may_have_unknown("instance_requirements")
            {
                all_types = false;
                continue;
            }
            match o.body.attr("instance_type") {
                Some(n) => match known_str(n) {
                    Some(s) => types.push(InstanceTypeUse {
                        name: s.to_string(),
                        node: n,
                        template: None,
                        override_block: Some(o),
                    }),
                    None => all_types = false,
                },
                None => match own_type() {
                    Some((name, node, t)) => types.push(InstanceTypeUse {
                        name,
                        node,
                        template: Some(t),
                        override_block: Some(o),
                    }),
                    None => all_types = false,
                },
            }
        }
        overrides.extend(config_overrides);
    }
    GroupCapacity {
        group: fleet,
        templates: all_templates.then(|| templates.clone()),
        known_templates: templates,
        instance_types: all_types.then(|| types.clone()),
        known_instance_types: types,
        mixed: None,
        overrides: complete.then_some(overrides),
    }
}

/// Whether the group is replaced, rather than refreshed, when one of its launch templates gets a
/// new version: its `name` or `name_prefix` (which force a new group) is built from that template's
/// `latest_version` or `default_version` (the blue/green pattern), or its
/// `lifecycle { replace_triggered_by }` names that template (or its `latest_version` or
/// `default_version`): Terraform replaces the group whenever the template changes. Every new
/// template version then brings a new group, whose instances have the new AMI and user data.
pub fn replaced_on_new_template_version(model: &Model, group: &GroupCapacity<'_>) -> bool {
    let ours = |t: &Resource| group.known_templates.iter().any(|u| u.template.id == t.id);
    let triggered = group
        .group
        .body
        .block("lifecycle")
        .and_then(|l| l.body.attr("replace_triggered_by"))
        .and_then(Node::as_list)
        .is_some_and(|items| {
            items.iter().any(|item| {
                item.refs().iter().any(|r| {
                    r.attribute
                        .first()
                        .is_none_or(|a| a == "latest_version" || a == "default_version")
                        && model.resolve(r).iter().any(|t| ours(t))
                })
            })
        });
    triggered
        || ["name", "name_prefix"]
            .into_iter()
            .filter_map(|a| group.group.body.attr(a))
            .any(|n| {
                n.refs().iter().any(|r| {
                    r.attribute
                        .first()
                        .is_some_and(|a| a == "latest_version" || a == "default_version")
                        && model.resolve(r).iter().any(|t| ours(t))
                })
            })
}

/// A launch template's known `instance_type` (none when it selects by `instance_requirements`).
fn template_instance_type(t: &Resource) -> Option<(String, &Node)> {
    if t.body.block("instance_requirements").is_some()
        || t.body.may_have_unknown("instance_requirements")
    {
        return None;
    }
    let n = t.body.attr("instance_type")?;
    Some((known_str(n)?.to_string(), n))
}

// ---------------------------------------------------------------------------------------------
// GPU capacity
// ---------------------------------------------------------------------------------------------

/// Why a piece of capacity is GPU capacity: a GPU service reaches it, it launches GPU instance
/// types behind an ECS capacity provider, or it launches them as ECS container instances without
/// one (an Auto Scaling group or a standalone instance whose user data configures the agent: they
/// join a cluster by themselves, and a service with `launch_type = "EC2"` is placed on them).
#[derive(Debug, Clone)]
pub enum GpuReason<'m> {
    /// A service of a GPU task definition is placed on it.
    Service(&'m Resource),
    /// A capacity provider whose group launches instances with NVIDIA GPUs.
    GpuInstanceType {
        provider: &'m Resource,
        /// What it launches: [`NvidiaEvidence::launches`].
        launches: String,
    },
    /// An Auto Scaling group behind no capacity provider, an EC2 Fleet or a Spot Fleet request
    /// that launches instances with NVIDIA GPUs as ECS container instances.
    EcsInstances {
        group: &'m Resource,
        /// What it launches: [`NvidiaEvidence::launches`].
        launches: String,
        /// Where that is written.
        at: Option<Loc>,
    },
    /// A capacity provider of ECS Managed Instances whose `instance_requirements` select only
    /// instance types with NVIDIA GPUs. It has no group, launch template or user data.
    ManagedInstances {
        provider: &'m Resource,
        /// What it launches: [`NvidiaEvidence::launches`].
        launches: String,
        at: Option<Loc>,
    },
    /// A standalone `aws_instance` of a GPU instance type that is an ECS container instance.
    EcsInstance {
        instance: &'m Resource,
        instance_type: String,
        at: Option<Loc>,
    },
}

impl GpuReason<'_> {
    /// A secondary label saying why.
    pub fn label(&self, model: &Model) -> (Option<Loc>, String) {
        match self {
            GpuReason::Service(s) => (
                Some(s.loc),
                format!(
                    "the GPU service `{}` is placed on this capacity",
                    model.local_address(s)
                ),
            ),
            GpuReason::GpuInstanceType { provider, launches } => (
                Some(provider.loc),
                format!("this capacity provider launches {launches}"),
            ),
            GpuReason::EcsInstances {
                group,
                launches,
                at,
            } => (
                at.or(Some(group.loc)),
                format!(
                    "`{}` launches {launches} as ECS container instances",
                    model.local_address(group)
                ),
            ),
            GpuReason::ManagedInstances {
                provider,
                launches,
                at,
            } => (
                at.or(Some(provider.loc)),
                format!(
                    "the ECS Managed Instances capacity provider `{}` launches {launches}",
                    model.local_address(provider)
                ),
            ),
            GpuReason::EcsInstance {
                instance,
                instance_type,
                at,
            } => (
                at.or(Some(instance.loc)),
                format!(
                    "`{}` is an ECS container instance of the GPU instance type `{instance_type}`",
                    model.local_address(instance)
                ),
            ),
        }
    }
}

/// Everything known to be GPU capacity, each with the first reason found.
#[derive(Debug, Clone, Default)]
pub struct GpuCapacity<'m> {
    pub providers: Vec<(&'m Resource, GpuReason<'m>)>,
    pub groups: Vec<(Cow<'m, GroupCapacity<'m>>, GpuReason<'m>)>,
    pub templates: Vec<(TemplateUse<'m>, GpuReason<'m>)>,
    /// EC2 Fleets and Spot Fleet requests ([`fleet_capacity`]) that launch NVIDIA GPU instance
    /// types as ECS container instances (their user data configures the agent), each with why.
    /// Their launch templates are in `templates`.
    pub fleets: Vec<(GroupCapacity<'m>, GpuReason<'m>)>,
}

/// The capacity providers, groups and launch templates that are GPU capacity.
pub fn gpu_capacity(model: &Model) -> GpuCapacity<'_> {
    gpu_capacity_of(model, &gpu_services(model))
}

/// [`gpu_capacity`], with the GPU services already found.
pub fn gpu_capacity_of<'m>(model: &'m Model, services: &[GpuService<'m>]) -> GpuCapacity<'m> {
    gpu_capacity_with(model, Groups::NONE, services)
}

/// [`gpu_capacity_of`], with the groups' capacities worked out already.
pub fn gpu_capacity_with<'m>(
    model: &'m Model,
    groups_memo: Groups<'m>,
    services: &[GpuService<'m>],
) -> GpuCapacity<'m> {
    let mut out = GpuCapacity::default();
    let mut uses: Vec<(Cow<'_, ProviderUse<'m>>, GpuReason<'m>)> = Vec::new();
    let mut mi_providers = Vec::new();
    for s in services {
        // With `launch_type = "EC2"` ECS picks GPU instances among all of the cluster's: its other
        // capacity providers (CPU ones) are not where the GPU tasks go.
        if s.capacity.placement == Placement::LaunchTypeEc2 {
            continue;
        }
        for p in &s.capacity.providers {
            uses.push((Cow::Borrowed(p), GpuReason::Service(s.service)));
        }
    }
    for provider in model.resources_of("aws_ecs_capacity_provider") {
        let Some(group) = groups_memo.of_provider(model, provider) else {
            // ECS Managed Instances: no group, no launch template, no user data; GPU capacity
            // when its instance requirements select only NVIDIA GPU types.
            if let Some(evidence) = managed_instances_nvidia(provider) {
                mi_providers.push((provider, evidence));
            }
            continue;
        };
        if let Some(evidence) = nvidia_evidence(&group) {
            uses.push((
                Cow::Owned(ProviderUse {
                    provider,
                    named_at: None,
                    group: Some(group),
                }),
                GpuReason::GpuInstanceType {
                    provider,
                    launches: evidence.launches,
                },
            ));
        }
    }
    // Each provider, group and template once, with its first reason.
    let (mut providers, mut groups, mut templates) =
        (HashSet::new(), HashSet::new(), HashSet::new());
    for (p, reason) in uses {
        if p.provider.instances_unknown {
            continue;
        }
        if providers.insert(p.provider.id) {
            out.providers.push((p.provider, reason.clone()));
        }
        let Some(group) = &p.group else { continue };
        // A group that may not exist (`count = var.n`) proves nothing about its templates either.
        if group.group.instances_unknown {
            continue;
        }
        for t in &group.known_templates {
            if t.template.instances_unknown {
                continue;
            }
            if templates.insert(t.template.id) {
                out.templates.push((t.clone(), reason.clone()));
            }
        }
        if groups.insert(group.group.id) {
            out.groups.push((group.clone(), reason));
        }
    }
    for (provider, evidence) in mi_providers {
        if !provider.instances_unknown && providers.insert(provider.id) {
            out.providers.push((
                provider,
                GpuReason::ManagedInstances {
                    provider,
                    launches: evidence.launches,
                    at: evidence.at,
                },
            ));
        }
    }
    // Groups that no capacity provider above made GPU capacity: those that launch a GPU instance
    // type as ECS container instances.
    for group in model.resources_of("aws_autoscaling_group") {
        if group.instances_unknown || groups.contains(&group.id) {
            continue;
        }
        let cap = groups_memo.of(model, group);
        let Some(evidence) = nvidia_evidence(&cap) else {
            continue;
        };
        if !cap
            .known_templates
            .iter()
            .any(|t| launches_ecs_instances(t.template))
        {
            continue;
        }
        let reason = GpuReason::EcsInstances {
            group,
            launches: evidence.launches,
            at: evidence.at,
        };
        for t in &cap.known_templates {
            if !t.template.instances_unknown && templates.insert(t.template.id) {
                out.templates.push((t.clone(), reason.clone()));
            }
        }
        groups.insert(group.id);
        out.groups.push((cap, reason));
    }
    // Fleets that launch a GPU instance type as ECS container instances (no capacity provider
    // can point to a fleet).
    for kind in FLEETS {
        for fleet in model.resources_of(kind) {
            if fleet.instances_unknown {
                continue;
            }
            let cap = fleet_capacity(model, fleet);
            let Some(evidence) = nvidia_evidence(&cap) else {
                continue;
            };
            if !cap
                .known_templates
                .iter()
                .any(|t| launches_ecs_instances(t.template))
            {
                continue;
            }
            let reason = GpuReason::EcsInstances {
                group: fleet,
                launches: evidence.launches,
                at: evidence.at,
            };
            for t in &cap.known_templates {
                if !t.template.instances_unknown && templates.insert(t.template.id) {
                    out.templates.push((t.clone(), reason.clone()));
                }
            }
            out.fleets.push((cap, reason));
        }
    }
    // Standalone instances that are ECS container instances of a GPU instance type. One launched
    // from a launch template takes its arguments from it too, which is not followed here.
    for instance in model.resources_of(INSTANCE) {
        let body = &instance.body;
        if instance.instances_unknown
            || body.block("launch_template").is_some()
            || body.may_have_unknown("launch_template")
        {
            continue;
        }
        let Some(node) = body.attr("instance_type") else {
            continue;
        };
        let Some(instance_type) = known_str(node).filter(|t| is_nvidia_type(t)) else {
            continue;
        };
        if !launches_ecs_instances(instance) {
            continue;
        }
        let reason = GpuReason::EcsInstance {
            instance,
            instance_type: instance_type.to_string(),
            at: node.loc,
        };
        if templates.insert(instance.id) {
            let use_ = TemplateUse {
                template: instance,
                version: None,
                spec: None,
            };
            out.templates.push((use_, reason));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Purchasing options: Spot, Capacity Blocks
// ---------------------------------------------------------------------------------------------

/// A launch template's known `instance_market_options.market_type` (`spot`, `capacity-block`),
/// with its node. `None` when not written or not known (a `dynamic` block included).
pub fn template_market_type(template: &Resource) -> Option<(&str, &Node)> {
    if template.kind != "aws_launch_template"
        || template.body.may_have_unknown("instance_market_options")
    {
        return None;
    }
    let node = template
        .body
        .block("instance_market_options")?
        .body
        .attr("market_type")?;
    Some((known_str(node)?, node))
}

/// What shows that a group or fleet launches Spot Instances: where, and why.
#[derive(Debug, Clone)]
pub struct SpotEvidence {
    pub at: Option<Loc>,
    pub why: String,
}

/// Whether a group ([`group_capacity`]) or fleet ([`fleet_capacity`]) is known to launch Spot
/// Instances (source key BOTO for the defaults): a launch template with `market_type = "spot"`; a
/// mixed instances policy whose known `on_demand_percentage_above_base_capacity` is under 100 (the
/// default is 100), unless a known `on_demand_base_capacity` covers the known `max_size`; an EC2
/// Fleet whose `default_target_capacity_type` is `spot`, or whose known `spot_target_capacity` is
/// above 0; a Spot Fleet request, unless its known `on_demand_target_capacity` covers its known
/// `target_capacity`. `None` on anything unknown.
pub fn spot_evidence(cap: &GroupCapacity<'_>) -> Option<SpotEvidence> {
    use crate::task::number;
    let market = &catalog().market;
    let body = &cap.group.body;
    let num = |b: &Body, name: &str| b.attr(name).and_then(number);
    for t in &cap.known_templates {
        if let Some((kind, node)) = template_market_type(t.template) {
            if kind == market.spot_market_type {
                return Some(SpotEvidence {
                    at: node.loc,
                    why: format!(
                        "the launch template buys Spot Instances (`market_type = \"{kind}\"`)"
                    ),
                });
            }
        }
    }
    match cap.group.kind.as_str() {
        "aws_autoscaling_group" => {
            let dist = cap.mixed?.body.block("instances_distribution")?;
            let node = dist.body.attr("on_demand_percentage_above_base_capacity")?;
            let pct = number(node)?;
            if pct >= f64::from(market.on_demand_percentage_default) {
                return None;
            }
            if let (Some(base), Some(max)) = (
                num(&dist.body, "on_demand_base_capacity"),
                num(body, "max_size"),
            ) {
                if base >= max {
                    return None;
                }
            }
            Some(SpotEvidence {
                at: node.loc,
                why: format!(
                    "`on_demand_percentage_above_base_capacity` is {pct}, so the rest of the group is Spot"
                ),
            })
        }
        "aws_ec2_fleet" => {
            let spec = body.block("target_capacity_specification")?;
            let default = spec.body.attr("default_target_capacity_type");
            if let Some(n) =
                default.filter(|n| known_str(n) == Some(market.spot_market_type.as_str()))
            {
                return Some(SpotEvidence {
                    at: n.loc,
                    why: "the fleet's default target capacity type is Spot".to_string(),
                });
            }
            let n = spec.body.attr("spot_target_capacity")?;
            (number(n)? > 0.0).then(|| SpotEvidence {
                at: n.loc,
                why: "the fleet has a Spot target capacity".to_string(),
            })
        }
        "aws_spot_fleet_request" => {
            if let (Some(od), Some(total)) = (
                num(body, "on_demand_target_capacity"),
                num(body, "target_capacity"),
            ) {
                if od >= total {
                    return None;
                }
            }
            Some(SpotEvidence {
                at: Some(cap.group.loc),
                why: "a Spot Fleet request launches Spot Instances".to_string(),
            })
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Several GPU shapes in one group or fleet
// ---------------------------------------------------------------------------------------------

/// An instance type where it is written, with its catalog record.
pub type TypeRecord<'a, 'm> = (&'a InstanceTypeUse<'m>, &'static InstanceType);

/// Two instance types a group or fleet launches from its overrides that have different GPU
/// counts or GPU models, both known to the catalog: the first override's type, and the first
/// that differs from it, each with its catalog record. `None` otherwise (types the catalog does
/// not know are left out).
pub fn mixed_gpu_shapes<'a, 'm>(
    cap: &'a GroupCapacity<'m>,
) -> Option<(TypeRecord<'a, 'm>, TypeRecord<'a, 'm>)> {
    let known: Vec<_> = cap
        .known_instance_types
        .iter()
        .filter(|t| t.override_block.is_some())
        .filter_map(|t| match catalog().lookup(&t.name) {
            Lookup::Known(k) => Some((t, k)),
            _ => None,
        })
        .collect();
    let first = *known.first()?;
    let other = known
        .iter()
        .find(|(_, k)| k.gpus != first.1.gpus || k.gpu_model != first.1.gpu_model)?;
    Some((first, *other))
}

/// "4 × NVIDIA A10G": a type's GPUs, for messages.
pub fn describe_gpus(k: &InstanceType) -> String {
    format!(
        "{} × {}",
        k.gpus.count().map_or("?".to_string(), |n| n.to_string()),
        k.gpu_model.as_deref().unwrap_or("unknown GPU")
    )
}

// ---------------------------------------------------------------------------------------------
// Capacity provider of ECS Managed Instances
// ---------------------------------------------------------------------------------------------

/// Why a capacity provider of ECS Managed Instances cannot launch an instance with an NVIDIA GPU:
/// the argument of its `instance_requirements` that excludes them, and what it says.
#[derive(Debug, Clone)]
pub struct NoNvidiaSelection<'m> {
    pub node: &'m Node,
    /// For example "`accelerator_manufacturers` (`amd`) does not include `nvidia`".
    pub why: String,
}

/// Whether a capacity provider is of ECS Managed Instances (`managed_instances_provider`) and its
/// `instance_requirements` are known to select no instance type with an NVIDIA GPU:
/// `accelerator_types` without `gpu`, `accelerator_manufacturers` without `nvidia` (each a known
/// list of known values, source keys ECS-MI-GPU and BOTO), or `allowed_instance_types` whose every
/// pattern matches EC2 instance types (source key BOTO) and only types of families without GPUs
/// ([`Lookup::NoGpu`]) or GPU types the catalog knows to have no NVIDIA GPU (`g4ad`). `None` otherwise: another kind of provider, no requirements, a `dynamic`
/// block, an unknown or empty list, a value the sources do not list, a pattern that matches no
/// EC2 name (a new family, a typo) or one that matches a GPU type or a type the catalog does not
/// know. `accelerator_count` is not read: the fractional-GPU types count no whole GPU (the catalog's
/// `gpu_count` of `g6f.large` is 0), so a maximum of 0 does not exclude them.
pub fn managed_instances_without_nvidia(provider: &Resource) -> Option<NoNvidiaSelection<'_>> {
    let body = &provider.body;
    let mip = body.block("managed_instances_provider")?;
    if mip.body.may_have_unknown("instance_launch_template") {
        return None;
    }
    let template = mip.body.block("instance_launch_template")?;
    if template.body.may_have_unknown("instance_requirements") {
        return None;
    }
    let req = &template.body.block("instance_requirements")?.body;
    let mi = &catalog().managed_instances;
    type Mi = ecs_gpu_catalog::ManagedInstancesFacts;
    for (attr, values, needed) in [
        (
            "accelerator_types",
            &mi.accelerator_types,
            Mi::GPU_ACCELERATOR_TYPE,
        ),
        (
            "accelerator_manufacturers",
            &mi.accelerator_manufacturers,
            Mi::NVIDIA_MANUFACTURER,
        ),
    ] {
        let Some(node) = req.attr(attr) else { continue };
        let Some(set) = every_known_string(node) else {
            continue;
        };
        if set.iter().all(|v| values.iter().any(|known| known == v)) && !set.contains(&needed) {
            return Some(NoNvidiaSelection {
                node,
                why: format!(
                    "`{attr}` ({}) does not include `{needed}`",
                    backticked(&set)
                ),
            });
        }
    }
    let node = req.attr("allowed_instance_types")?;
    let patterns = every_known_string(node)?;
    let cat = catalog();
    // Every matched type is of a family without GPUs, or a GPU type without NVIDIA GPUs (`g4ad`).
    let mut gpus = false;
    let only_without_nvidia = patterns.iter().all(|p| {
        let mut matched = cat.ec2_instance_types_matching(p).peekable();
        matched.peek().is_some()
            && matched.all(|t| match cat.lookup(t) {
                Lookup::NoGpu => true,
                Lookup::Known(k) if !k.is_nvidia() => {
                    gpus = true;
                    true
                }
                _ => false,
            })
    });
    only_without_nvidia.then(|| NoNvidiaSelection {
        node,
        why: format!(
            "`allowed_instance_types` ({}) matches only instance types without {}",
            backticked(&patterns),
            if gpus { "an NVIDIA GPU" } else { "a GPU" }
        ),
    })
}

/// Whether a capacity provider of ECS Managed Instances (`managed_instances_provider`) selects
/// only instance types with NVIDIA GPUs: its `instance_launch_template.instance_requirements`,
/// read as an Auto Scaling group's override's are ([`selects_only_nvidia_gpus`]). `None` on
/// anything unknown.
pub fn managed_instances_nvidia(provider: &Resource) -> Option<NvidiaEvidence> {
    let mip = provider.body.block("managed_instances_provider")?;
    if mip.body.may_have_unknown("instance_launch_template") {
        return None;
    }
    let template = mip.body.block("instance_launch_template")?;
    if template.body.may_have_unknown("instance_requirements") {
        return None;
    }
    let (node, why) =
        selects_only_nvidia_gpus(&template.body.block("instance_requirements")?.body)?;
    Some(NvidiaEvidence {
        launches: format!(
            "only instance types with NVIDIA GPUs (its `instance_requirements`: {why})"
        ),
        at: node.loc,
    })
}

/// The most a capacity provider of ECS Managed Instances lets one of its instances have, in one
/// dimension (whole GPUs, CPU units, registrable memory), and the argument that says so.
#[derive(Debug, Clone)]
pub struct ManagedInstancesLimit<'m> {
    pub most: u64,
    pub node: &'m Node,
    /// For a message: "`accelerator_count.max` 4" or "`allowed_instance_types` `g5.xlarge`".
    pub why: String,
}

/// What the `instance_requirements` of a capacity provider of ECS Managed Instances certainly bound.
#[derive(Debug, Clone, Default)]
pub struct ManagedInstancesLimits<'m> {
    pub gpus: Option<ManagedInstancesLimit<'m>>,
    pub cpu_units: Option<ManagedInstancesLimit<'m>>,
    pub memory_mib: Option<ManagedInstancesLimit<'m>>,
}

/// A `{ min, max }` block of `instance_requirements` (`accelerator_count`, `vcpu_count`,
/// `memory_mib`): each bound when written and known, and the block. `None` when the block may be
/// added by a `dynamic` block over an unknown collection.
/// A `{ min, max }` block's bounds: the minimum, and the maximum with its node.
type Range<'m> = (Option<u64>, Option<(u64, &'m Node)>);

fn range<'m>(req: &'m Body, name: &str) -> Option<Range<'m>> {
    if req.may_have_unknown(name) {
        return None;
    }
    let Some(block) = req.block(name) else {
        return Some((None, None));
    };
    let bound = |attr: &str| {
        block.body.attr(attr).and_then(|n| match n.value {
            Value::Number(v) if v >= 0.0 && v.fract() == 0.0 => Some((v as u64, n)),
            _ => None,
        })
    };
    Some((bound("min").map(|(v, _)| v), bound("max")))
}

/// What the `instance_requirements` of a capacity provider of ECS Managed Instances
/// (`managed_instances_provider.instance_launch_template.instance_requirements`) certainly bound,
/// the most of each of these an instance it launches can have (source keys ECS-MI-GPU and BOTO):
///
/// - GPUs: `accelerator_count.max` (a GPU is an accelerator);
/// - CPU units: `vcpu_count.max` × 1024 (source key AGENT);
/// - memory the agent can register: `memory_mib.max` less the least any instance keeps back
///   ([`ecs_gpu_catalog::InstanceType::max_registrable_memory_mib`]);
/// - all three: `allowed_instance_types` when every item is an exact name (no wildcard) of a type
///   the catalog knows in full, the most of the types that the `min`/`max` of `accelerator_count`,
///   `vcpu_count` and `memory_mib` do not exclude.
///
/// `accelerator_names`, `accelerator_total_memory_mib` and the other arguments only narrow the
/// selection further and are not read: leaving a type in can only miss a finding. `None` for
/// another kind of provider, or requirements that may be added by a `dynamic` block; a bound that
/// is unknown is absent.
pub fn managed_instances_limits<'m>(provider: &'m Resource) -> Option<ManagedInstancesLimits<'m>> {
    let mip = provider.body.block("managed_instances_provider")?;
    if mip.body.may_have_unknown("instance_launch_template") {
        return None;
    }
    let template = mip.body.block("instance_launch_template")?;
    if template.body.may_have_unknown("instance_requirements") {
        return None;
    }
    let req = &template.body.block("instance_requirements")?.body;
    let (gpu_min, gpu_max) = range(req, "accelerator_count")?;
    let (vcpu_min, vcpu_max) = range(req, "vcpu_count")?;
    let (mem_min, mem_max) = range(req, "memory_mib")?;
    let reserve = catalog().agent.min_unregistered_memory_mib;
    let mut limits = ManagedInstancesLimits {
        gpus: gpu_max.map(|(most, node)| ManagedInstancesLimit {
            most,
            node,
            why: format!("`accelerator_count.max` {most}"),
        }),
        cpu_units: vcpu_max.map(|(most, node)| ManagedInstancesLimit {
            most: most * 1024,
            node,
            why: format!("`vcpu_count.max` {most}"),
        }),
        memory_mib: mem_max.map(|(most, node)| ManagedInstancesLimit {
            most: most.saturating_sub(reserve),
            node,
            why: format!("`memory_mib.max` {most}"),
        }),
    };
    let Some(node) = req.attr("allowed_instance_types") else {
        return Some(limits);
    };
    let Some(names) = every_known_string(node) else {
        return Some(limits);
    };
    let cat = catalog();
    let mut types = Vec::new();
    for name in &names {
        // A wildcard may match types the catalog does not know yet.
        if name.contains(['*', '?']) {
            return Some(limits);
        }
        let Lookup::Known(k) = cat.lookup(name) else {
            return Some(limits);
        };
        let (Some(gpus), Some(vcpus), Some(memory)) = (k.gpus.count(), k.vcpus, k.memory_mib)
        else {
            return Some(limits);
        };
        types.push((*name, (u64::from(gpus), u64::from(vcpus), memory)));
    }
    let within = |v: u64, min: Option<u64>, max: Option<(u64, &Node)>| {
        min.is_none_or(|m| v >= m) && max.is_none_or(|(m, _)| v <= m)
    };
    let (kept, selected): (Vec<&str>, Vec<(u64, u64, u64)>) = types
        .into_iter()
        .filter(|(_, (g, c, m))| {
            within(*g, gpu_min, gpu_max)
                && within(*c, vcpu_min, vcpu_max)
                && within(*m, mem_min, mem_max)
        })
        .unzip();
    // Requirements no allowed type meets select nothing: another finding, not a size.
    if selected.is_empty() {
        return Some(limits);
    }
    let why = if kept.len() == names.len() {
        format!("`allowed_instance_types` {}", backticked(&names))
    } else {
        format!(
            "`allowed_instance_types` {}, of which the ranges of `accelerator_count`, `vcpu_count` and `memory_mib` leave {}",
            backticked(&names),
            backticked(&kept)
        )
    };
    let tighter = |current: &mut Option<ManagedInstancesLimit<'m>>, most: u64| {
        if current.as_ref().is_none_or(|c| most < c.most) {
            *current = Some(ManagedInstancesLimit {
                most,
                node,
                why: why.clone(),
            });
        }
    };
    let most = |f: &dyn Fn(&(u64, u64, u64)) -> u64| selected.iter().map(f).max().unwrap_or(0);
    tighter(&mut limits.gpus, most(&|t| t.0));
    tighter(&mut limits.cpu_units, most(&|t| t.1 * 1024));
    tighter(
        &mut limits.memory_mib,
        most(&|t| t.2.saturating_sub(reserve)),
    );
    Some(limits)
}

/// The capacity providers of ECS Managed Instances a service can use, each with what its
/// requirements bound and where the service names it, when they are all it can use (its
/// strategy or its cluster's default one known in full, every provider of Managed Instances).
pub fn service_managed_instances<'m>(
    capacity: &ServiceCapacity<'m>,
) -> Option<Vec<(&'m Resource, ManagedInstancesLimits<'m>, Option<Loc>)>> {
    if !capacity.providers_complete
        || !matches!(
            capacity.placement,
            Placement::Strategy | Placement::ClusterDefault
        )
        || capacity.providers.is_empty()
    {
        return None;
    }
    capacity
        .providers
        .iter()
        .map(|p| {
            if p.provider.instances_unknown {
                return None;
            }
            Some((
                p.provider,
                managed_instances_limits(p.provider)?,
                p.named_at,
            ))
        })
        .collect()
}

/// What shows that an Auto Scaling group launches instances with NVIDIA GPUs.
#[derive(Debug, Clone)]
pub struct NvidiaEvidence {
    /// For a label: "the GPU instance type `g5.xlarge`", or "only instance types with NVIDIA GPUs
    /// (its `instance_requirements`: `accelerator_manufacturers` `nvidia`)".
    pub launches: String,
    /// Where it is written.
    pub at: Option<Loc>,
}

/// Whether the group launches instances with NVIDIA GPUs, and why: an instance type it launches
/// that has them (a launch template's own `instance_type` counts only when no `override` replaces
/// it), or an `override` whose `instance_requirements` select only such types
/// ([`selects_only_nvidia_gpus`]; the group then launches one of them when it launches from that
/// override, whichever the types are).
pub fn nvidia_evidence(cap: &GroupCapacity<'_>) -> Option<NvidiaEvidence> {
    if let Some(t) = cap
        .known_instance_types
        .iter()
        .find(|t| is_nvidia_type(&t.name))
    {
        return Some(NvidiaEvidence {
            launches: format!("the GPU instance type `{}`", t.name),
            at: t.node.loc,
        });
    }
    cap.overrides.as_ref()?.iter().find_map(|o| {
        if o.body.may_have_unknown("instance_requirements") {
            return None;
        }
        let (node, why) = selects_only_nvidia_gpus(&o.body.block("instance_requirements")?.body)?;
        Some(NvidiaEvidence {
            launches: format!(
                "only instance types with NVIDIA GPUs (its `instance_requirements`: {why})"
            ),
            at: node.loc,
        })
    })
}

/// Whether attribute-based `instance_requirements` (of an Auto Scaling group's `override`) are
/// known to select only instance types with NVIDIA GPUs, and the argument that shows it:
/// `allowed_instance_types` whose every pattern matches EC2 instance types (source key BOTO) and
/// only types the catalog knows to have NVIDIA GPUs; or `accelerator_manufacturers` that is
/// exactly `nvidia` (source keys ECS-MI-GPU and BOTO) with `accelerator_types` exactly `gpu`, or
/// with `allowed_instance_types` that match only types with GPUs. `None` on anything unknown, an
/// empty list ([`every_known_string`] has none), or a pattern that matches no EC2 name or a type
/// the catalog does not know.
fn selects_only_nvidia_gpus(req: &Body) -> Option<(&Node, String)> {
    type Mi = ecs_gpu_catalog::ManagedInstancesFacts;
    let cat = catalog();
    let only = |attr: &str, value: &str| {
        req.attr(attr)
            .and_then(every_known_string)
            .is_some_and(|set| set.iter().all(|v| *v == value))
    };
    let allowed = req.attr("allowed_instance_types").and_then(|node| {
        let patterns = every_known_string(node)?;
        let mut matched = Vec::new();
        for p in &patterns {
            let before = matched.len();
            matched.extend(cat.ec2_instance_types_matching(p).map(|t| cat.lookup(t)));
            if matched.len() == before {
                return None;
            }
        }
        Some((node, patterns, matched))
    });
    if let Some((node, patterns, matched)) = &allowed {
        if matched
            .iter()
            .all(|l| matches!(l, Lookup::Known(k) if k.is_nvidia()))
        {
            return Some((
                node,
                format!("`allowed_instance_types` {}", backticked(patterns)),
            ));
        }
    }
    if !only("accelerator_manufacturers", Mi::NVIDIA_MANUFACTURER) {
        return None;
    }
    let node = req.attr("accelerator_manufacturers")?;
    let gpus_only = only("accelerator_types", Mi::GPU_ACCELERATOR_TYPE)
        || allowed
            .as_ref()
            .is_some_and(|(_, _, matched)| matched.iter().all(|l| matches!(l, Lookup::Known(_))));
    gpus_only.then(|| {
        (
            node,
            format!("`accelerator_manufacturers` `{}`", Mi::NVIDIA_MANUFACTURER),
        )
    })
}

/// Whether the catalog knows the instance type and it has NVIDIA GPUs.
fn is_nvidia_type(name: &str) -> bool {
    matches!(catalog().lookup(name), Lookup::Known(k) if k.is_nvidia())
}

/// Whether a launch template is known to launch ECS container instances: the known part of its
/// user data configures the ECS agent (assigns `ECS_CLUSTER` or `ECS_ENABLE_GPU_SUPPORT`). The
/// image alone proves nothing: the ECS GPU-optimized AMI is also used for its NVIDIA driver by
/// GPU machines that never run the agent (a model server started from user data, a training
/// fleet), and those are not ECS capacity to the rules.
fn launches_ecs_instances(template: &Resource) -> bool {
    let agent = &catalog().agent;
    let (data, _) = user_data(template);
    data.known_parts().iter().any(|text| {
        [&agent.cluster_variable, &agent.gpu_support_variable]
            .into_iter()
            .any(|variable| config_value(text, variable).is_some())
    })
}

// ---------------------------------------------------------------------------------------------
// AMI and user data of a launch template
// ---------------------------------------------------------------------------------------------

/// Where a launch template's image comes from.
#[derive(Debug, Clone)]
pub enum AmiSource<'m> {
    /// An SSM parameter: `data "aws_ssm_parameter"`'s `name`, or a `resolve:ssm:` image ID.
    SsmParameter {
        name: String,
        /// The parameter name as written (the data source's `name`, or the `image_id`).
        at: Option<Loc>,
        data: Option<&'m Resource>,
    },
    /// A `data "aws_ami"` with a known `name` filter or `name_regex`, classified.
    AmiLookup {
        data: &'m Resource,
        class: AmiNameClass,
        /// The filter value or regex.
        at: Option<Loc>,
        pattern: String,
    },
    /// A literal `ami-...` ID.
    LiteralId {
        id: String,
        at: Option<Loc>,
    },
    Unknown,
}

impl AmiSource<'_> {
    /// The SSM parameter's class, for [`AmiSource::SsmParameter`].
    pub fn parameter_class(&self) -> Option<AmiClass<'static>> {
        match self {
            AmiSource::SsmParameter { name, .. } => Some(catalog().ami.classify_parameter(name)),
            _ => None,
        }
    }

    /// Known to be an ECS GPU-optimized AMI.
    pub fn is_ecs_gpu(&self) -> bool {
        match self {
            AmiSource::SsmParameter { .. } => {
                matches!(self.parameter_class(), Some(AmiClass::EcsGpu { .. }))
            }
            AmiSource::AmiLookup { class, .. } => matches!(class, AmiNameClass::EcsGpu { .. }),
            _ => false,
        }
    }

    /// Known to be an ECS-optimized AMI of a non-GPU variant.
    pub fn is_ecs_non_gpu(&self) -> bool {
        match self {
            AmiSource::SsmParameter { .. } => {
                matches!(self.parameter_class(), Some(AmiClass::EcsNonGpu { .. }))
            }
            AmiSource::AmiLookup { class, .. } => matches!(class, AmiNameClass::EcsNonGpu { .. }),
            _ => false,
        }
    }

    /// Known to be an ECS-optimized AMI, of the GPU variant or not.
    pub fn is_ecs_optimized(&self) -> bool {
        self.is_ecs_gpu()
            || self.is_ecs_non_gpu()
            || matches!(
                self,
                AmiSource::AmiLookup {
                    class: AmiNameClass::EcsAnyVariant { .. },
                    ..
                }
            )
    }
}

/// The resource type of a standalone EC2 instance.
const INSTANCE: &str = "aws_instance";

/// Whether a [`TemplateUse`] is a standalone `aws_instance` rather than a launch template.
pub fn is_standalone_instance(template: &Resource) -> bool {
    template.kind == INSTANCE
}

/// `aws_launch_configuration`: the legacy launch arguments of an Auto Scaling group, read like a
/// launch template's (no versions; `iam_instance_profile` is a string, as on an instance).
pub const LAUNCH_CONFIGURATION: &str = "aws_launch_configuration";

/// Whether a [`TemplateUse`] is a launch configuration.
pub fn is_launch_configuration(template: &Resource) -> bool {
    template.kind == LAUNCH_CONFIGURATION
}

/// What a [`TemplateUse`] is, for messages: "launch template", or "instance" for an
/// `aws_instance`.
pub fn launch_kind(template: &Resource) -> &'static str {
    if is_standalone_instance(template) {
        "instance"
    } else if is_launch_configuration(template) {
        "launch configuration"
    } else if template.kind == "aws_spot_fleet_request" {
        "Spot Fleet launch specification"
    } else {
        "launch template"
    }
}

/// The image argument of a launch template (`image_id`) or of an `aws_instance` (`ami`).
pub fn image_attr(template: &Resource) -> Option<&Node> {
    if let Some(spec) = inline_specification(template) {
        return spec.body.attr("ami");
    }
    let name = if is_standalone_instance(template) {
        "ami"
    } else {
        "image_id"
    };
    template.body.attr(name)
}

/// The one inline `launch_specification` of a Spot Fleet request (its image, instance type and
/// user data, read like an instance's). `None` for another resource, or a request with none,
/// several, or a `dynamic` one over an unknown collection.
pub fn inline_specification(fleet: &Resource) -> Option<&Block> {
    if fleet.kind != "aws_spot_fleet_request" || fleet.body.may_have_unknown("launch_specification")
    {
        return None;
    }
    let mut specs = fleet.body.blocks("launch_specification");
    let one = specs.next()?;
    specs.next().is_none().then_some(one)
}

/// The image source of a launch template (or of an `aws_instance`).
pub fn ami_source<'m>(model: &'m Model, template: &'m Resource) -> AmiSource<'m> {
    let Some(node) = image_attr(template) else {
        return AmiSource::Unknown;
    };
    if let Some(s) = known_str(node) {
        if let Some(param) = s.strip_prefix("resolve:ssm:") {
            // `resolve:ssm:name:version` / `name:label`: the name is before a `:` after the path.
            let name = match param.rfind(':') {
                Some(i) if param[..i].contains('/') => &param[..i],
                _ => param,
            };
            return AmiSource::SsmParameter {
                name: name.to_string(),
                at: node.loc,
                data: None,
            };
        }
        if s.starts_with("ami-") {
            return AmiSource::LiteralId {
                id: s.to_string(),
                at: node.loc,
            };
        }
        return AmiSource::Unknown;
    }
    // The value must be the data source's result itself (or a function of it alone): an unknown
    // for another reason (a conditional on a variable without a value, `var.pinned ? "ami-..." :
    // data.aws_ssm_parameter.x.value`) might be something else, and so might a value over two
    // data sources.
    if !matches!(&node.value, Value::Unknown(u) if u.reason == UnknownReason::DataSource) {
        return AmiSource::Unknown;
    }
    let refs = node.refs();
    let mut addresses: Vec<&str> = refs.iter().map(|r| r.address.as_str()).collect();
    addresses.sort_unstable();
    addresses.dedup();
    if addresses.len() != 1 {
        return AmiSource::Unknown;
    }
    let ssm = model.referenced(node, "aws_ssm_parameter");
    if let [data] = ssm.as_slice() {
        if let Some(name_node) = data.body.attr("name") {
            if let Some(name) = known_str(name_node) {
                return AmiSource::SsmParameter {
                    name: name.to_string(),
                    at: name_node.loc,
                    data: Some(data),
                };
            }
        }
        return AmiSource::Unknown;
    }
    // `data "aws_ssm_parameters_by_path"` over an AMI parameter's path, with the image ID picked
    // from its values (`values[index(names, "${path}/image_id")]`): every parameter under the
    // path is of that AMI, so the path classifies it as a parameter name would.
    let by_path = model.referenced(node, "aws_ssm_parameters_by_path");
    if let [data] = by_path.as_slice() {
        if let Some(path_node) = data.body.attr("path") {
            if let Some(path) = known_str(path_node) {
                return AmiSource::SsmParameter {
                    name: path.trim_end_matches('/').to_string(),
                    at: path_node.loc,
                    data: Some(data),
                };
            }
        }
        return AmiSource::Unknown;
    }
    let amis = model.referenced(node, "aws_ami");
    if let [data] = amis.as_slice() {
        return ami_lookup(data);
    }
    AmiSource::Unknown
}

/// Whether a `data "aws_ami"` is scoped to images Amazon owns: `owners` known and only Amazon's
/// alias, or an `owner-alias` filter whose values are only that alias.
fn owned_by_amazon(data: &Resource) -> bool {
    let alias = catalog().ami.amazon_owner_alias.as_str();
    let only_alias = |node: &Node| {
        every_known_string(node).is_some_and(|owners| owners.iter().all(|o| *o == alias))
    };
    data.body.attr("owners").is_some_and(only_alias)
        || data.body.blocks("filter").any(|f| {
            f.body.attr("name").and_then(known_str) == Some("owner-alias")
                && f.body.attr("values").is_some_and(only_alias)
        })
}

/// What a `data "aws_ami"` says about the image: its `name` filter or `name_regex`, classified
/// ([`ecs_gpu_catalog::AmiFacts::classify_name`]), when the lookup is scoped to Amazon's images
/// ([`owned_by_amazon`]); unknown otherwise.
fn ami_lookup(data: &Resource) -> AmiSource<'_> {
    if data.body.may_have_unknown("filter") || !owned_by_amazon(data) {
        return AmiSource::Unknown;
    }
    // Every `name` filter must hold; one whose values all classify alike decides.
    for f in data.body.blocks("filter") {
        let Some(name) = f.body.attr("name").and_then(known_str) else {
            return AmiSource::Unknown;
        };
        if name != "name" {
            continue;
        }
        let Some(values) = f.body.attr("values").and_then(Node::as_list) else {
            return AmiSource::Unknown;
        };
        let mut class = None;
        let mut first = None;
        for v in values {
            let Some(s) = known_str(v) else {
                return AmiSource::Unknown;
            };
            let c = catalog().ami.classify_name(s);
            if first.is_none() {
                first = Some((s.to_string(), v.loc));
            }
            class = match class {
                None => Some(c),
                Some(prev) => match both_classes(prev, c) {
                    Some(both) => Some(both),
                    None => return AmiSource::Unknown,
                },
            };
        }
        if let (Some(class), Some((pattern, at))) = (class, first) {
            if class != AmiNameClass::Unknown {
                return AmiSource::AmiLookup {
                    data,
                    class,
                    at,
                    pattern,
                };
            }
        }
    }
    if let Some(re) = data.body.attr("name_regex") {
        if let Some(s) = known_str(re) {
            // The literal beginning of an anchored regex, as a name pattern.
            if let Some(rest) = s.strip_prefix('^') {
                let literal: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect();
                if !literal.is_empty() {
                    let pattern = format!("{literal}*");
                    let class = catalog().ami.classify_name(&pattern);
                    if class != AmiNameClass::Unknown {
                        return AmiSource::AmiLookup {
                            data,
                            class,
                            at: re.loc,
                            pattern: s.to_string(),
                        };
                    }
                }
            }
        }
    }
    AmiSource::Unknown
}

/// What two values of one name filter (either may match) say together: the same kind of AMI, and
/// Amazon Linux 2 only when both are (`amzn2-...` or `al2023-...` is not known to be either);
/// `None` when they are different kinds.
fn both_classes(a: AmiNameClass, b: AmiNameClass) -> Option<AmiNameClass> {
    use AmiNameClass::*;
    Some(match (a, b) {
        (EcsGpu { amazon_linux_2: x }, EcsGpu { amazon_linux_2: y }) => EcsGpu {
            amazon_linux_2: x && y,
        },
        (EcsNonGpu { amazon_linux_2: x }, EcsNonGpu { amazon_linux_2: y }) => EcsNonGpu {
            amazon_linux_2: x && y,
        },
        (EcsAnyVariant { amazon_linux_2: x }, EcsAnyVariant { amazon_linux_2: y }) => {
            EcsAnyVariant {
                amazon_linux_2: x && y,
            }
        }
        (Unknown, Unknown) => Unknown,
        _ => return None,
    })
}

/// What is known of a launch template's user data (decoded from base64).
#[derive(Debug, Clone, PartialEq)]
pub enum UserData {
    /// No `user_data` argument.
    Absent,
    /// The whole decoded text.
    Known(String),
    /// Only these fragments are known to be in it.
    Partial(Vec<String>),
    /// Nothing is known (an unknown value, or bytes that are not text, such as gzip).
    Unknown,
}

impl UserData {
    /// The text that is certainly there.
    pub fn known_parts(&self) -> Vec<&str> {
        match self {
            UserData::Known(s) => vec![s.as_str()],
            UserData::Partial(f) => f.iter().map(String::as_str).collect(),
            UserData::Absent | UserData::Unknown => Vec::new(),
        }
    }

    /// The whole text, when known (empty when absent).
    pub fn full(&self) -> Option<&str> {
        match self {
            UserData::Absent => Some(""),
            UserData::Known(s) => Some(s),
            _ => None,
        }
    }
}

/// The user data of a launch template, or of an `aws_instance` (its `user_data`, or
/// `user_data_base64`). Both are read alike: text that is base64 is decoded, other text is the
/// script itself.
pub fn user_data(template: &Resource) -> (UserData, Option<Loc>) {
    let body = inline_specification(template).map_or(&template.body, |spec| &spec.body);
    let node = body.attr("user_data").or_else(|| {
        (is_standalone_instance(template) || is_launch_configuration(template))
            .then(|| template.body.attr("user_data_base64"))
            .flatten()
    });
    let Some(node) = node else {
        return (UserData::Absent, None);
    };
    let data = match &node.value {
        Value::Null => UserData::Absent,
        Value::String(s) => match base64_decode(s) {
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(text) => UserData::Known(text),
                Err(_) => UserData::Unknown,
            },
            // Not base64: the text itself (the provider sends what it is given).
            None => UserData::Known(s.to_string()),
        },
        Value::Unknown(u) if !u.fragments.is_empty() => UserData::Partial(u.fragments.clone()),
        _ => UserData::Unknown,
    };
    (data, node.loc)
}

/// Standard base64 (padding optional, whitespace ignored). `None` when it is not base64.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut bits: u32 = 0;
    let mut n = 0;
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut padding = 0;
    let mut chars = 0usize;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            b'\n' | b'\r' => continue,
            _ => return None,
        };
        if padding > 0 {
            return None;
        }
        chars += 1;
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    if chars == 0 || chars % 4 == 1 || padding > 2 {
        return None;
    }
    Some(out)
}

/// The value a user data text gives an `ecs.config` variable, as the last `NAME=value` assignment
/// written in it (quotes removed). Lines that are comments (`#`) are skipped.
pub fn config_value<'a>(text: &'a str, variable: &str) -> Option<&'a str> {
    let mut last = None;
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find(variable) {
            let before_ok = rest[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            let after = &rest[i + variable.len()..];
            rest = after;
            if !before_ok {
                continue;
            }
            if let Some(v) = after.strip_prefix('=') {
                let v = v.trim_start_matches(['"', '\'']);
                let end = v
                    .find(|c: char| {
                        c.is_whitespace() || c == '"' || c == '\'' || c == '>' || c == ';'
                    })
                    .unwrap_or(v.len());
                last = Some(&v[..end]);
            }
        }
    }
    last
}

/// The known string of a node.
pub fn string(node: Option<&Node>) -> Option<&str> {
    node.and_then(known_str)
}

/// Every Auto Scaling group behind an ECS capacity provider, with the first such provider.
pub fn provider_groups(model: &Model) -> Vec<(&Resource, Cow<'_, GroupCapacity<'_>>)> {
    provider_groups_with(model, Groups::NONE)
}

/// [`provider_groups`], with the groups' capacities worked out already.
pub fn provider_groups_with<'m>(
    model: &'m Model,
    groups: Groups<'m>,
) -> Vec<(&'m Resource, Cow<'m, GroupCapacity<'m>>)> {
    let mut out: Vec<(&Resource, Cow<'_, GroupCapacity<'_>>)> = Vec::new();
    let mut seen = HashSet::new();
    for p in model.resources_of("aws_ecs_capacity_provider") {
        if p.instances_unknown {
            continue;
        }
        if let Some(g) = groups.of_provider(model, p) {
            if !g.group.instances_unknown && seen.insert(g.group.id) {
                out.push((p, g));
            }
        }
    }
    out
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

/// Whether a user data text may take its ECS configuration from somewhere else (a download, an
/// included URL, a parameter or secret read at boot): then what the text does not say proves nothing.
pub fn fetches_config(text: &str) -> bool {
    const MARKERS: [&str; 15] = [
        "#include",
        "s3://",
        "aws s3",
        "aws ssm",
        "aws secretsmanager",
        "aws appconfig",
        "curl",
        "wget",
        "Invoke-WebRequest",
        "source ",
        "EnvironmentFile",
        "ansible",
        // Parts whose content is encoded (MIME multipart, cloud-config `write_files`).
        "Content-Transfer-Encoding",
        "encoding: b64",
        "encoding: gz",
    ];
    MARKERS.iter().any(|m| text.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_rejects_text() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("#!/bin/bash\necho hi"), None);
        assert_eq!(base64_decode(""), None);
    }

    #[test]
    fn config_values_take_the_last_uncommented_assignment() {
        let t = "#!/bin/bash\n# ECS_ENABLE_GPU_SUPPORT=false\necho ECS_CLUSTER=gpu >> /etc/ecs/ecs.config\necho \"ECS_ENABLE_GPU_SUPPORT=true\" >> /etc/ecs/ecs.config\n";
        assert_eq!(config_value(t, "ECS_CLUSTER"), Some("gpu"));
        assert_eq!(config_value(t, "ECS_ENABLE_GPU_SUPPORT"), Some("true"));
        assert_eq!(config_value("MY_ECS_CLUSTER=x", "ECS_CLUSTER"), None);
        assert_eq!(
            config_value("ECS_CLUSTER=${cluster}", "ECS_CLUSTER"),
            Some("${cluster}")
        );
    }
}
