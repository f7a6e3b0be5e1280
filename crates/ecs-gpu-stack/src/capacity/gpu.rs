//! What is GPU capacity: the services whose tasks reserve GPUs, what they reach, and the groups,
//! fleets and instances known to launch GPU instance types for ECS.

use std::borrow::Cow;
use std::collections::HashSet;

use ecs_gpu_catalog::{catalog, InstanceType, Lookup};
use ecs_gpu_model::{Body, Loc, Model, Node, Resource, TaskDefinition};

use super::ami::{ami_source, AMI};
use super::graph::{
    fleet_capacity, known_str, service_task, GroupCapacity, Groups, InstanceTypeUse, TemplateUse,
    FLEETS, GROUPS, INSTANCE, SERVICE_TASK,
};
use super::managed_instances::MANAGED_INSTANCES;
use super::placement::{
    service_capacity_with, Placement, ProviderUse, ServiceCapacity, SERVICE_CAPACITY,
};
use super::user_data::{config_value, user_data, Setting, USER_DATA};
use crate::task::{every_known_string, is_checked, is_gpu_task};
use crate::{backticked, reads, Reads};

/// What [`gpu_services`] reads.
pub const GPU_SERVICES: Reads = reads! { analyses: [SERVICE_TASK, SERVICE_CAPACITY] };

/// What [`gpu_capacity`] reads (and `Findings::is_gpu_resource` of the rules): the GPU services, the
/// capacity they reach, and every group, fleet and standalone instance, with its user data.
pub const GPU_CAPACITY: Reads = reads! {
    arguments: { "aws_instance": ["instance_type", "launch_template"] },
    analyses: [GPU_SERVICES, GROUPS, MANAGED_INSTANCES, USER_DATA, AMI],
};

/// A service whose task definition certainly reserves GPUs: with that task definition and the
/// capacity the service can be placed on.
#[derive(Debug, Clone)]
pub struct GpuService<'m> {
    /// The `aws_ecs_service`.
    pub service: &'m Resource,
    /// The task definition it runs.
    pub task: &'m TaskDefinition,
    /// What it can be placed on.
    pub capacity: ServiceCapacity<'m>,
}

/// The services whose task definition certainly reserves GPUs, each with it and its capacity
/// (the rules read them once per run: `Findings::gpu_services`).
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
        /// The capacity provider.
        provider: &'m Resource,
        /// What it launches: [`NvidiaEvidence::launches`].
        launches: String,
    },
    /// An Auto Scaling group behind no capacity provider, an EC2 Fleet or a Spot Fleet request
    /// that launches instances with NVIDIA GPUs as ECS container instances.
    EcsInstances {
        /// The group or fleet.
        group: &'m Resource,
        /// What it launches: [`NvidiaEvidence::launches`].
        launches: String,
        /// Where that is written.
        at: Option<Loc>,
    },
    /// A capacity provider of ECS Managed Instances whose `instance_requirements` select only
    /// instance types with NVIDIA GPUs. It has no group, launch template or user data.
    ManagedInstances {
        /// The capacity provider.
        provider: &'m Resource,
        /// What it launches: [`NvidiaEvidence::launches`].
        launches: String,
        /// Where its instance requirements say so.
        at: Option<Loc>,
    },
    /// A capacity provider, Auto Scaling group or fleet whose instance types do not show NVIDIA GPUs
    /// (not known, attribute-based, a GPU family that ECS GPU support does not cover) and that is
    /// configured for ECS GPU tasks ([`gpu_intent`]).
    Intent {
        /// The capacity provider, group or fleet.
        unit: &'m Resource,
        /// [`GpuIntent::why`].
        why: String,
        /// [`GpuIntent::at`].
        at: Option<Loc>,
    },
    /// A standalone `aws_instance` of a GPU instance type that is an ECS container instance.
    EcsInstance {
        /// The `aws_instance`.
        instance: &'m Resource,
        /// Its GPU instance type.
        instance_type: String,
        /// Where the instance type is written.
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
            GpuReason::Intent { unit, why, at } => (
                at.or(Some(unit.loc)),
                format!(
                    "`{}` is configured for GPU tasks: {why}",
                    model.local_address(unit)
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
    /// Capacity providers, each with why.
    pub providers: Vec<(&'m Resource, GpuReason<'m>)>,
    /// Auto Scaling groups, with what they launch and why.
    pub groups: Vec<(Cow<'m, GroupCapacity<'m>>, GpuReason<'m>)>,
    /// Launch templates, launch configurations and standalone instances, each with why.
    pub templates: Vec<(TemplateUse<'m>, GpuReason<'m>)>,
    /// EC2 Fleets and Spot Fleet requests ([`fleet_capacity`]) that launch NVIDIA GPU instance
    /// types as ECS container instances (their user data configures the agent), each with why.
    /// Their launch templates are in `templates`.
    pub fleets: Vec<(GroupCapacity<'m>, GpuReason<'m>)>,
}

/// The capacity providers, groups and launch templates that are GPU capacity.
pub fn gpu_capacity(model: &Model) -> GpuCapacity<'_> {
    gpu_capacity_with(model, Groups::NONE, &gpu_services(model))
}

/// [`gpu_capacity`], with the groups' capacities worked out already and the GPU services found.
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
        let reason = match nvidia_evidence(&group) {
            Some(evidence) => GpuReason::GpuInstanceType {
                provider,
                launches: evidence.launches,
            },
            None => match gpu_intent(model, &group) {
                Some(intent) => GpuReason::Intent {
                    unit: provider,
                    why: intent.why,
                    at: intent.at,
                },
                None => continue,
            },
        };
        uses.push((
            Cow::Owned(ProviderUse {
                provider,
                named_at: None,
                group: Some(group),
            }),
            reason,
        ));
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
        let Some(reason) = ecs_instances_reason(model, group, &cap) else {
            continue;
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
            let Some(reason) = ecs_instances_reason(model, fleet, &cap) else {
                continue;
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

/// Why a group behind no capacity provider, or a fleet, is GPU capacity: it launches ECS container
/// instances (the agent is configured in a template's user data) with NVIDIA GPUs, or configured
/// for GPU tasks. `None` when it is not known to be GPU capacity.
fn ecs_instances_reason<'m>(
    model: &Model,
    unit: &'m Resource,
    cap: &GroupCapacity<'_>,
) -> Option<GpuReason<'m>> {
    if !cap
        .known_templates
        .iter()
        .any(|t| launches_ecs_instances(t.template))
    {
        return None;
    }
    Some(match nvidia_evidence(cap) {
        Some(evidence) => GpuReason::EcsInstances {
            group: unit,
            launches: evidence.launches,
            at: evidence.at,
        },
        None => {
            let intent = gpu_intent(model, cap)?;
            GpuReason::Intent {
                unit,
                why: intent.why,
                at: intent.at,
            }
        }
    })
}

/// An instance type where it is written, with its catalog record.
pub type TypeRecord<'a, 'm> = (&'a InstanceTypeUse<'m>, &'static InstanceType);

/// Two instance types a group or fleet launches from its overrides whose GPUs differ in a way a
/// task sized for one cannot ignore (`different_gpu_shape`), both known to the catalog: the
/// first override's type, and the first that differs from it, each with its catalog record.
/// `None` otherwise (types the catalog does not know are left out).
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
        .find(|(_, k)| different_gpu_shape(first.1, k))?;
    Some((first, *other))
}

/// Whether two GPU instance types differ in their GPU count (or fraction) or in the memory of
/// each GPU. Another GPU model with the same count and memory per GPU (`g5.12xlarge`'s four A10G
/// beside `g6.12xlarge`'s four L4) sizes tasks and managed scaling alike, and the Terraform module
/// accepts such a pair by opt-in; when a memory is unknown, another model counts as different.
fn different_gpu_shape(a: &InstanceType, b: &InstanceType) -> bool {
    if a.gpus != b.gpus {
        return true;
    }
    match (a.gpu_memory_mib, b.gpu_memory_mib) {
        (Some(x), Some(y)) => x != y,
        _ => a.gpu_model != b.gpu_model,
    }
}

/// "4 × NVIDIA A10G, 22888 MiB each": a type's GPUs, for messages.
pub fn describe_gpus(k: &InstanceType) -> String {
    let each = k
        .gpu_memory_mib
        .map_or(String::new(), |m| format!(", {m} MiB each"));
    format!(
        "{} × {}{each}",
        k.gpus.count().map_or("?".to_string(), |n| n.to_string()),
        k.gpu_model.as_deref().unwrap_or("unknown GPU")
    )
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
/// (`selects_only_nvidia_gpus`; the group then launches one of them when it launches from that
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
    cap.overrides
        .as_ref()?
        .iter()
        .find_map(|o| requirements_evidence(&o.body))
}

/// Whether a capacity provider of ECS Managed Instances (`managed_instances_provider`) selects
/// only instance types with NVIDIA GPUs: its `instance_launch_template.instance_requirements`,
/// read as an Auto Scaling group's override's are. `None` on anything unknown.
pub fn managed_instances_nvidia(provider: &Resource) -> Option<NvidiaEvidence> {
    let mip = provider.body.block("managed_instances_provider")?;
    if mip.body.may_have_unknown("instance_launch_template") {
        return None;
    }
    requirements_evidence(&mip.body.block("instance_launch_template")?.body)
}

/// What the `instance_requirements` of a body (an override, a launch template of ECS Managed
/// Instances) show when they select only instance types with NVIDIA GPUs
/// (`selects_only_nvidia_gpus`).
fn requirements_evidence(body: &Body) -> Option<NvidiaEvidence> {
    if body.may_have_unknown("instance_requirements") {
        return None;
    }
    let (node, why) = selects_only_nvidia_gpus(&body.block("instance_requirements")?.body)?;
    Some(NvidiaEvidence {
        launches: format!(
            "only instance types with NVIDIA GPUs (its `instance_requirements`: {why})"
        ),
        at: node.loc,
    })
}

/// What shows that capacity is configured for ECS GPU tasks, whatever its instance types show.
#[derive(Debug, Clone)]
pub struct GpuIntent {
    /// For a label: "its user data sets `ECS_ENABLE_GPU_SUPPORT=true`".
    pub why: String,
    /// Where that is written.
    pub at: Option<Loc>,
}

/// Whether a group or fleet is configured for ECS GPU tasks though its instance types do not show
/// NVIDIA GPUs: a launch template's user data sets `ECS_ENABLE_GPU_SUPPORT=true`, its image is an
/// ECS GPU-optimized AMI (an SSM parameter or `aws_ami` name filter, [`AmiSource::is_ecs_gpu`]),
/// or attribute-based `instance_requirements` (the template's, or an override's) ask only for
/// NVIDIA GPUs (`asks_only_for_nvidia`). `None` when an instance
/// type it is known to launch has no GPU at all: such capacity is not GPU capacity, whatever the
/// image or the agent's configuration say.
///
/// [`AmiSource::is_ecs_gpu`]: super::AmiSource::is_ecs_gpu
pub fn gpu_intent(model: &Model, cap: &GroupCapacity<'_>) -> Option<GpuIntent> {
    if cap
        .known_instance_types
        .iter()
        .any(|t| matches!(catalog().lookup(&t.name), Lookup::NoGpu))
    {
        return None;
    }
    let variable = &catalog().agent.gpu_support_variable;
    for t in &cap.known_templates {
        let (data, loc) = user_data(t.template);
        if matches!(data.setting(variable), Setting::Value(v) if v.eq_ignore_ascii_case("true")) {
            return Some(GpuIntent {
                why: format!("its user data sets `{variable}=true`"),
                at: loc,
            });
        }
        let source = ami_source(model, t.template);
        if source.is_ecs_gpu() {
            return Some(GpuIntent {
                why: "its image is the ECS GPU-optimized AMI".to_string(),
                at: source.at(),
            });
        }
    }
    let requirements = cap
        .known_templates
        .iter()
        .map(|t| &t.template.body)
        .chain(cap.overrides.iter().flatten().map(|o| &o.body));
    for body in requirements {
        if body.may_have_unknown("instance_requirements") {
            continue;
        }
        let Some(req) = body.block("instance_requirements") else {
            continue;
        };
        if let Some((node, what)) = asks_only_for_nvidia(&req.body) {
            return Some(GpuIntent {
                why: format!("its `instance_requirements` ask for {what}"),
                at: node.loc,
            });
        }
    }
    None
}

/// Whether attribute-based `instance_requirements` ask only for NVIDIA GPUs (source keys ECS-MI-GPU
/// and BOTO), the argument that shows it and what it asks for: `accelerator_manufacturers` known
/// and only `nvidia`, or `accelerator_names` known and only names of NVIDIA GPUs (`a10g`, `t4`,
/// ...); with `accelerator_count`, its `min` is said. Not when `accelerator_count.max` is 0: that
/// excludes every type with an accelerator. `accelerator_count` alone, or with `accelerator_types =
/// ["gpu"]`, is no intent: EC2 counts FPGAs and Inferentia chips as accelerators, and AMD Radeon
/// Pro and Habana Gaudi devices as GPUs.
fn asks_only_for_nvidia(req: &Body) -> Option<(&Node, String)> {
    let mi = &catalog().managed_instances;
    let only = |attr: &str, allowed: &dyn Fn(&str) -> bool| {
        let node = req.attr(attr)?;
        let set = every_known_string(node)?;
        (!set.is_empty() && set.iter().all(|v| allowed(v))).then_some((node, set))
    };
    if req.may_have_unknown("accelerator_count") {
        return None;
    }
    let count = req.block("accelerator_count").map(|b| &b.body);
    let bound = |attr: &str| count.and_then(|b| b.attr(attr)).map(|n| n.as_f64());
    if matches!(bound("max"), Some(v) if v.is_none_or(|v| v < 1.0)) {
        return None;
    }
    let gpus = match bound("min").flatten() {
        Some(n) if n >= 1.0 && n.fract() == 0.0 => {
            format!("at least {n} NVIDIA GPU{}", if n == 1.0 { "" } else { "s" })
        }
        _ => "NVIDIA GPUs".to_string(),
    };
    if let Some((node, _)) = only("accelerator_manufacturers", &|m| {
        m == ecs_gpu_catalog::ManagedInstancesFacts::NVIDIA_MANUFACTURER
    }) {
        return Some((node, gpus));
    }
    let (node, names) = only("accelerator_names", &|n| {
        mi.nvidia_accelerator_names.iter().any(|v| v == n)
    })?;
    Some((node, format!("{gpus} ({})", backticked(&names))))
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
