//! GPU counts read from the plan: the GPUs one task asks for (the task definition's containers) and
//! the GPUs one instance has (its launch template's instance type, from the catalog).

use ecs_gpu_catalog::{catalog, Lookup};

use super::relations::group_templates;
use crate::json_tree::Value;
use crate::model::Model;
use crate::value::{Side, Val};

/// The whole GPUs one task asks for: the sum of the containers' `GPU` requirements. `None` when
/// the definitions are not known (sensitive, known after apply), ask for no GPU, or ask for `ALL`
/// or a fraction.
pub(super) fn per_task(side: &Side<'_>) -> Option<u32> {
    let Val::Known(Value::String(text)) = side.get(&["container_definitions"]) else {
        return None;
    };
    let defs: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut total: u32 = 0;
    for c in defs.as_array()? {
        for r in c
            .get("resourceRequirements")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            if r.get("type").and_then(serde_json::Value::as_str) != Some("GPU") {
                continue;
            }
            let n: u32 = r.get("value")?.as_str()?.trim().parse().ok()?;
            total = total.checked_add(n)?;
        }
    }
    (total > 0).then_some(total)
}

/// The instance type a group launches (its launch template's `instance_type`, after the plan), and
/// its whole GPUs from the catalog, when both are known.
pub(super) fn per_instance(m: &Model, asg: usize) -> Option<(String, u32)> {
    for t in group_templates(m, asg) {
        if let Some(itype) = m.resources[t].after().str(&["instance_type"]) {
            if let Lookup::Known(known) = catalog().lookup(itype) {
                return known.gpus.whole().map(|n| (itype.to_string(), n));
            }
        }
    }
    None
}

/// "1 GPU", "4 GPUs".
pub(super) fn count(n: u32) -> String {
    if n == 1 {
        "1 GPU".to_string()
    } else {
        format!("{n} GPUs")
    }
}
