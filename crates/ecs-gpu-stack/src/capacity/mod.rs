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
//! GPU107, GPU401) ask [`capacity_for_task`] or [`service_capacity`] and need the trace known in
//! full. Rules about the configuration of GPU capacity (GPU2xx, GPU3xx) ask [`gpu_capacity`],
//! which collects every launch template, group and capacity provider that a GPU service is known
//! to reach, or that is known to launch GPU instance types for ECS (behind a capacity provider, as
//! the container instances of a group without one, or as a standalone `aws_instance`), even when
//! other branches of the trace are unknown: a broken link that is known is broken whatever the
//! unknown ones are.

mod ami;
mod gpu;
mod graph;
mod managed_instances;
mod placement;
mod spot;
mod tenants;
mod user_data;
mod vgpu;

pub use self::ami::*;
pub use self::gpu::*;
pub use self::graph::*;
pub use self::managed_instances::*;
pub use self::placement::*;
pub use self::spot::*;
pub use self::tenants::*;
pub use self::user_data::*;
pub use self::vgpu::*;

use ecs_gpu_catalog::{catalog, InstanceType, Lookup};
use ecs_gpu_model::{Loc, Model, Node, Resource, TaskDefinition, TaskDefinitionOrigin};

use crate::{reads, Reads};

/// What [`capacity_for_task`] and [`ServiceIndex`] read.
pub const TASK_CAPACITY: Reads = reads! { analyses: [SERVICE_TASK, SERVICE_CAPACITY] };

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
/// `Findings::capacity` of the rules): looking the services up for every task definition would be
/// quadratic in the size of a monorepo.
#[derive(Debug, Default)]
pub struct ServiceIndex<'m> {
    by_task: std::collections::HashMap<ecs_gpu_model::ResourceId, Vec<&'m Resource>>,
    /// The root modules with a service whose task definition is unknown: it might run any of
    /// theirs.
    any_unknown: std::collections::HashSet<ecs_gpu_model::ModuleId>,
    groups: Groups<'m>,
}

impl<'m> ServiceIndex<'m> {
    /// The services of `model`, each group's capacity worked out when asked.
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
                None => {
                    index.any_unknown.insert(model.root_of(svc.module));
                }
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
    if index
        .any_unknown
        .contains(&model.root_of(model.resource(td_id).module))
    {
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

/// The known string of a node.
pub fn string(node: Option<&Node>) -> Option<&str> {
    node.and_then(known_str)
}
