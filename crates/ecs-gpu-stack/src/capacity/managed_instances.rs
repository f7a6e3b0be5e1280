//! Capacity providers of ECS Managed Instances: what their `instance_requirements` select and
//! bound.

use ecs_gpu_catalog::{catalog, Lookup};
use ecs_gpu_model::{Body, Loc, Node, Resource, Value};

use super::placement::{Placement, ServiceCapacity};
use crate::task::every_known_string;
use crate::{backticked, reads, Reads};

/// What the functions over capacity providers of ECS Managed Instances read.
pub const MANAGED_INSTANCES: Reads = reads! {
    arguments: { "aws_ecs_capacity_provider": ["managed_instances_provider"] },
};

/// Why a capacity provider of ECS Managed Instances cannot launch an instance with an NVIDIA GPU:
/// the argument of its `instance_requirements` that excludes them, and what it says.
#[derive(Debug, Clone)]
pub struct NoNvidiaSelection<'m> {
    /// The argument.
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

/// The most a capacity provider of ECS Managed Instances lets one of its instances have, in one
/// dimension (whole GPUs, CPU units, registrable memory), and the argument that says so.
#[derive(Debug, Clone)]
pub struct ManagedInstancesLimit<'m> {
    /// The most.
    pub most: u64,
    /// The argument that says so.
    pub node: &'m Node,
    /// For a message: "`accelerator_count.max` 4" or "`allowed_instance_types` `g5.xlarge`".
    pub why: String,
}

/// What the `instance_requirements` of a capacity provider of ECS Managed Instances certainly bound.
#[derive(Debug, Clone, Default)]
pub struct ManagedInstancesLimits<'m> {
    /// Whole GPUs.
    pub gpus: Option<ManagedInstancesLimit<'m>>,
    /// CPU units (1,024 a vCPU).
    pub cpu_units: Option<ManagedInstancesLimit<'m>>,
    /// Memory, in MiB.
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
