//! From changes to effects: one file per resource family, plus drift.

mod autoscaling;
mod capacity;
mod drift;
mod driver;
mod gpus;
mod launch_template;
pub(crate) mod relations;
mod service;
mod task_definition;

use std::collections::BTreeSet;

use crate::model::{Change, Model, Setting};
use crate::{Effect, EffectKind};

/// Attributes that only describe a resource: changing them reaches no task and no instance.
const METADATA: &[&str] = &["tags", "tags_all", "tag", "description"];

/// Attributes a provider recomputes on every update, which say nothing by themselves.
const COMPUTED: &[&str] = &[
    "latest_version",
    "default_version",
    "update_default_version",
];

pub(crate) fn detect(m: &Model) -> Vec<Effect> {
    let mut out = Vec::new();
    for &i in &m.changed {
        let r = &m.resources[i];
        let Some(c) = &r.change else { continue };
        match r.type_.as_str() {
            "aws_ecs_service" => service::effects(m, i, c, &mut out),
            "aws_ecs_task_definition" => task_definition::effects(m, i, c, &mut out),
            "aws_launch_template" | "aws_launch_configuration" => {
                launch_template::effects(m, i, c, &mut out);
                driver::effects(m, i, c, &mut out);
            }
            "aws_autoscaling_group" => autoscaling::effects(m, i, c, &mut out),
            "aws_ecs_capacity_provider" | "aws_ecs_cluster" => {
                capacity::effects(m, i, c, &mut out);
            }
            _ => {
                if let Some(e) = metadata_only(m, i, c) {
                    out.push(e);
                }
            }
        }
    }
    drift::effects(m, &mut out);
    out
}

/// The attributes an in-place update changes, less the ones recomputed by the provider.
pub(super) fn changed(c: &Change) -> BTreeSet<String> {
    let mut keys = c.changed_attributes();
    keys.retain(|k| !COMPUTED.contains(&k.as_str()));
    keys
}

/// A `no-effect` when an in-place update changes only metadata.
pub(super) fn metadata_only(m: &Model, i: usize, c: &Change) -> Option<Effect> {
    if !c.is_update() {
        return None;
    }
    let keys = changed(c);
    if !keys.iter().all(|k| METADATA.contains(&k.as_str())) {
        return None;
    }
    let what = if keys.is_empty() {
        "no attribute visibly changes".to_string()
    } else {
        format!("only {} change", list(keys.iter().map(String::as_str)))
    };
    Some(Effect {
        kind: EffectKind::NoEffect,
        address: m.resources[i].address.clone(),
        related: Vec::new(),
        message: format!("{what}: no running task or instance is affected"),
        help: None,
    })
}

/// A help that asks for `action` (`set \`skip_destroy = true\``) on the argument at `path` (dotted,
/// without block indexes) of resource `i`: on the resource when it is in the root module, else
/// through the module input that sets it, or saying that the module has none.
pub(super) fn arg_help(m: &Model, i: usize, path: &str, action: &str) -> String {
    let address = &m.resources[i].address;
    match m.setting(i, path) {
        Setting::Root => format!("{action} on `{address}`"),
        Setting::Input { call, input } => format!(
            "{action} through the input `{input}` of `{call}`, which sets `{path}` on `{address}`"
        ),
        Setting::NotExposed { call } => format!(
            "{action} on `{address}` (`{call}` has no input for `{path}`: it takes a change in the module)"
        ),
    }
}

/// [`arg_help`] for several arguments of one resource, in one sentence when they are set the same
/// way.
pub(super) fn args_help(m: &Model, i: usize, args: &[(&str, &str)]) -> String {
    let address = &m.resources[i].address;
    let settings: Vec<Setting> = args.iter().map(|(path, _)| m.setting(i, path)).collect();
    let actions: Vec<&str> = args.iter().map(|(_, action)| *action).collect();
    match settings.first() {
        Some(Setting::Root) if settings.iter().all(|s| *s == Setting::Root) => {
            format!("{} on `{address}`", actions.join(" and "))
        }
        Some(first @ Setting::NotExposed { call }) if settings.iter().all(|s| s == first) => {
            format!(
                "{} on `{address}` (`{call}` has no input for them: it takes a change in the module)",
                actions.join(" and ")
            )
        }
        _ => args
            .iter()
            .map(|(path, action)| arg_help(m, i, path, action))
            .collect::<Vec<_>>()
            .join(", and "),
    }
}

/// `a`, `b` and `c`, each in backticks.
pub(super) fn list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.into_iter().map(|s| format!("`{s}`")).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

pub(super) fn addresses(m: &Model, idxs: &[usize]) -> Vec<String> {
    idxs.iter()
        .map(|&i| m.resources[i].address.clone())
        .collect()
}

/// Adds `idxs`' addresses to `related`, once each.
pub(super) fn relate(related: &mut Vec<String>, m: &Model, idxs: &[usize]) {
    for a in addresses(m, idxs) {
        if !related.contains(&a) {
            related.push(a);
        }
    }
}

/// Why a resource is replaced or destroyed, as a clause starting with "because", or "".
pub(super) fn reason(c: &Change) -> String {
    let paths = || {
        let mut p: Vec<&str> = c.replace_paths.iter().map(String::as_str).collect();
        p.dedup();
        p
    };
    match c.action_reason.as_deref() {
        Some("replace_because_tainted") => " because it is tainted".to_string(),
        Some("replace_by_request") => " because of `-replace`".to_string(),
        Some("replace_by_triggers") => " because of `replace_triggered_by`".to_string(),
        Some("delete_because_no_resource_config") => {
            " because its configuration was removed".to_string()
        }
        Some("delete_because_no_module") => " because its module was removed".to_string(),
        Some(
            "delete_because_wrong_repetition"
            | "delete_because_count_index"
            | "delete_because_each_key",
        ) => " because its `count` or `for_each` key is gone".to_string(),
        _ if !c.replace_paths.is_empty() && c.is_replace() => {
            let p = paths();
            let verb = if p.len() == 1 { "changes" } else { "change" };
            format!(" because {} {verb} and cannot change in place", list(p))
        }
        _ => String::new(),
    }
}

/// "is destroyed and created again", or for create-before-destroy "is created again, then the old
/// one destroyed", or "is destroyed".
pub(super) fn destroy_phrase(c: &Change) -> &'static str {
    match c.actions.as_slice() {
        [a, b] if a == "create" && b == "delete" => {
            "is created again (new before old), then the old one is destroyed"
        }
        _ if c.is_replace() => "is destroyed and created again",
        _ => "is destroyed",
    }
}

/// "s" when `n` is not 1.
pub(super) fn plural(n: f64) -> &'static str {
    if (n - 1.0).abs() < f64::EPSILON {
        ""
    } else {
        "s"
    }
}
