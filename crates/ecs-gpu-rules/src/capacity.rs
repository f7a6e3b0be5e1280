//! The capacity a task can be placed on: service → capacity provider strategy (or the cluster's
//! default strategy) → capacity provider → Auto Scaling group → launch template or mixed instances
//! policy → instance types.
//!
//! Rules that compare a task with its instance types (GPU103's fraction/whole check, GPU106,
//! GPU107) ask [`capacity_for_task`]. It answers `None` whenever any link of the walk is unknown:
//! a rule can only say "exceeds every instance type" when it knows every instance type.

use ecs_gpu_catalog::InstanceType;
use ecs_gpu_model::{Loc, Model, TaskDefinition};

/// The instance types a task can be placed on, and where they are written.
#[derive(Debug, Clone, Default)]
pub struct Capacity {
    /// Every instance type the task can land on, each known to the catalog.
    pub instance_types: Vec<&'static InstanceType>,
    /// Where the instance types come from (the launch template's `instance_type`, an override),
    /// for the rules' secondary labels: (location, message).
    pub labels: Vec<(Loc, String)>,
}

/// The capacity of a task, or `None` when it is not known in full.
///
/// Not yet implemented (see CONTRIBUTING.md): until then it answers `None`, so the
/// capacity-dependent rules stay silent, never wrong.
pub fn capacity_for_task(_model: &Model, _td: &TaskDefinition) -> Option<Capacity> {
    None
}

/// The instance types a task can be placed on, or `None` when unknown.
pub fn instance_types_for_task(
    model: &Model,
    td: &TaskDefinition,
) -> Option<Vec<&'static InstanceType>> {
    capacity_for_task(model, td).map(|c| c.instance_types)
}
