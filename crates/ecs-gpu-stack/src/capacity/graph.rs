//! Following links through the model, and what launches the instances: capacity provider → Auto
//! Scaling group (or EC2 Fleet, Spot Fleet request) → launch templates, or the overrides of a mixed
//! instances policy → instance types.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::task::TASK_DEFINITIONS;
use crate::{reads, Reads};
use ecs_gpu_model::{
    Block, Model, Node, Resource, ResourceId, TaskDefinition, UnknownReason, Value,
};

/// What the trace from a capacity provider to its Auto Scaling group, and from a group or fleet to
/// its launch templates and instance types, reads ([`group_capacity`], [`fleet_capacity`],
/// [`provider_asg`], [`providers_by_group`], [`provider_groups`]). A link written as a name is
/// followed to the resource with that `name`. A launch configuration's `instance_requirements`
/// (not one of its arguments) reads as absent, like a template's.
pub const GROUPS: Reads = reads! {
    arguments: {
        "aws_autoscaling_group": [
            "launch_configuration",
            "launch_template",
            "mixed_instances_policy",
            "name",
        ],
        "aws_ec2_fleet": ["launch_template_config"],
        "aws_ecs_capacity_provider": ["auto_scaling_group_provider"],
        "aws_launch_configuration": ["instance_requirements", "instance_type", "name"],
        "aws_launch_template": ["instance_requirements", "instance_type", "name"],
        "aws_spot_fleet_request": ["launch_specification", "launch_template_config"],
    },
};

/// What [`service_task_definition`] and [`service_task`] read.
pub const SERVICE_TASK: Reads = reads! {
    arguments: { "aws_ecs_service": ["task_definition"] },
    analyses: [TASK_DEFINITIONS],
};

/// What [`replaced_on_new_template_version`] reads.
pub const REPLACEMENT: Reads = reads! {
    arguments: { "aws_autoscaling_group": ["name", "name_prefix"] },
    analyses: [GROUPS],
};

/// The known string of a node (not a `jsonencode` result).
pub(super) fn known_str(node: &Node) -> Option<&str> {
    match &node.value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The resources of `kind` a link from `from` points to: through its references, or, for a known
/// string, the resources of that kind in the root module of `from` (with the modules it calls)
/// whose `name` is the string (or whose name ends an ARN that is the string): each root module is
/// its own Terraform configuration, so two roots checked in one run (a staging and a prod copy of
/// one stack, with the same names or not) know nothing of each other. `None` when unknown (no
/// such resource in the root module, or a value that cannot be followed).
pub fn resolve_link<'m>(
    model: &'m Model,
    from: &Resource,
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
    let root = model.root_of(from.module);
    let mut found = model.with_attr_str(root, kind, "name", s);
    for (slash, _) in s.match_indices('/') {
        found.extend(model.with_attr_str(root, kind, "name", &s[slash + 1..]));
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
pub(super) fn resolve_one<'m>(
    model: &'m Model,
    from: &Resource,
    node: &Node,
    kind: &'static str,
) -> Option<&'m Resource> {
    match resolve_link(model, from, node, kind)?.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The task definition resource a service runs, when known.
pub fn service_task_definition(model: &Model, svc: &Resource) -> Option<ecs_gpu_model::ResourceId> {
    let node = svc.body.attr("task_definition")?;
    if node.is_unknown() {
        return resolve_one(model, svc, node, "aws_ecs_task_definition").map(|r| r.id);
    }
    // A known string: `family`, `family:revision` or an ARN; match the family.
    let s = known_str(node)?;
    let family = s.rsplit('/').next().unwrap_or(s);
    let family = family.split(':').next().unwrap_or(family);
    let root = model.root_of(svc.module);
    let found = model.with_attr_str(root, "aws_ecs_task_definition", "family", family);
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

/// A launch template as a group uses it, or a standalone `aws_instance` (an ECS container instance
/// of GPU capacity outside any group), which carries the same launch arguments: image, user data,
/// instance profile, metadata options. [`image_attr`](super::image_attr) and [`user_data`](super::user_data()) read either.
#[derive(Debug, Clone)]
pub struct TemplateUse<'m> {
    /// The launch template, launch configuration, Spot Fleet request or `aws_instance`.
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
    /// The instance type's name (`g5.xlarge`).
    pub name: String,
    /// Where it is written.
    pub node: &'m Node,
    /// The template whose `instance_type` it is; `None` for an override's.
    pub template: Option<&'m Resource>,
    /// The override block it comes from (`mixed_instances_policy`).
    pub override_block: Option<&'m Block>,
}

/// An Auto Scaling group and what it launches.
#[derive(Debug, Clone)]
pub struct GroupCapacity<'m> {
    /// The Auto Scaling group (or fleet, [`fleet_capacity`]).
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

/// The Auto Scaling group resource of a capacity provider, when known.
pub fn provider_asg<'m>(model: &'m Model, provider: &Resource) -> Option<&'m Resource> {
    let asgp = provider.body.block("auto_scaling_group_provider")?;
    let arn = asgp.body.attr("auto_scaling_group_arn")?;
    resolve_one(model, provider, arn, "aws_autoscaling_group")
}

/// What every Auto Scaling group launches ([`group_capacity`]), worked out once for a run of the
/// rules: services, capacity providers and the rules that read them reach the same groups many
/// times.
#[derive(Debug, Default)]
pub struct GroupMemo<'m> {
    by_group: HashMap<ResourceId, GroupCapacity<'m>>,
}

impl<'m> GroupMemo<'m> {
    /// What every group of `model` launches.
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

    /// The groups worked out in `memo`.
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

    /// The capacity of a provider's group ([`provider_asg`], then [`Groups::of`]).
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
            .and_then(|n| resolve_one(model, p, n, "aws_autoscaling_group"));
        if let Some(g) = group {
            out.entry(g.id).or_default().push(p);
        }
    }
    out
}

/// The template a `launch_template` / `launch_template_specification` block names.
fn template_of<'m>(
    model: &'m Model,
    from: &Resource,
    spec: &'m Block,
    id_attr: &str,
    name_attr: &str,
) -> Option<TemplateUse<'m>> {
    let node = spec
        .body
        .attr(id_attr)
        .or_else(|| spec.body.attr(name_attr))?;
    let template = resolve_one(model, from, node, "aws_launch_template")?;
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
        let Some(lc) = resolve_one(model, group, node, LAUNCH_CONFIGURATION) else {
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
        let Some(use_) = template_of(model, group, lt, "id", "name") else {
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
        .and_then(|s| {
            template_of(
                model,
                group,
                s,
                "launch_template_id",
                "launch_template_name",
            )
        });
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
            match template_of(
                model,
                group,
                spec,
                "launch_template_id",
                "launch_template_name",
            ) {
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
            .and_then(|s| template_of(model, fleet, s, id_attr, name_attr));
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

/// The resource type of a standalone EC2 instance.
pub(super) const INSTANCE: &str = "aws_instance";

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
