//! Effects as text, one file per output format. Renderers decide nothing; they only format.

mod human;
mod json;

pub use human::human;
pub use json::json;

use crate::plan_json::DeploymentCapacity;
use crate::{Effect, EffectKind};

/// The capacity answer shown under a deployment of the same service.
fn capacity_of<'a>(
    e: &Effect,
    capacity: &'a [DeploymentCapacity],
) -> Option<&'a DeploymentCapacity> {
    if e.kind != EffectKind::Deployment {
        return None;
    }
    capacity.iter().find(|c| c.address == e.address)
}
