//! `aws_ecs_capacity_provider` and `aws_ecs_cluster`: destroyed or replaced capacity, a delete ECS
//! refuses, and managed termination protection turned off.

use super::relations::{
    capacity_provider_associations, capacity_provider_groups, capacity_provider_services,
    cluster_services,
};
use super::{destroy_phrase, list, metadata_only, reason, relate};
use crate::json_tree::Value;
use crate::model::{Change, Model};
use crate::value::Side;
use crate::{Effect, EffectKind};

const TERMINATION_PROTECTION: &[&str] = &[
    "auto_scaling_group_provider",
    "0",
    "managed_termination_protection",
];

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    if !c.has("delete") {
        if r.type_ == "aws_ecs_capacity_provider" && protection_removed(m, i, c, out) {
            return;
        }
        out.extend(metadata_only(m, i, c));
        return;
    }
    if r.type_ == "aws_ecs_capacity_provider" {
        capacity_provider_deleted(m, i, c, out);
        return;
    }
    let services = cluster_services(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &services);
    out.push(Effect {
        kind: EffectKind::CapacityDestroyed,
        address: r.address.clone(),
        related,
        message: format!(
            "the cluster {}{}: ECS deletes a cluster only once it has no active service and no registered container instance, so every GPU task in it stops first, or the apply fails",
            destroy_phrase(c),
            reason(c)
        ),
        help: None,
    });
}

/// A capacity provider is deleted (or replaced). ECS deletes a capacity provider only once no
/// service's strategy names it and no cluster lists it (DeleteCapacityProvider): when the plan
/// deletes it while the cluster's association or a service still does, the provider's delete
/// waits until it times out and the apply fails (hashicorp/terraform-provider-aws#14393).
fn capacity_provider_deleted(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    let services = capacity_provider_services(m, i);
    let associations = capacity_provider_associations(m, i);
    let groups = capacity_provider_groups(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &associations);
    relate(&mut related, m, &services);
    relate(&mut related, m, &groups);
    let name = c.before().str(&["name"]).unwrap_or_default().to_string();
    // Terraform deletes an object after the objects that depend on it are updated or deleted,
    // except when it replaces it delete-first: its dependents are updated only once the new one
    // exists, so at the delete they still name the old one.
    let delete_first = c.is_replace() && c.actions.first().is_some_and(|a| a == "delete");
    let holders: Vec<usize> = associations
        .iter()
        .chain(services.iter())
        .copied()
        .filter(|&u| still_uses(m, u, &name, delete_first))
        .collect();
    if !holders.is_empty() {
        let names: Vec<&str> = holders
            .iter()
            .map(|&u| m.resources[u].address.as_str())
            .collect();
        let verb = if names.len() == 1 { "names" } else { "name" };
        let when = if delete_first {
            format!(
                "Terraform deletes it first, before the new one exists, while {} still {verb} it",
                list(names.iter().copied())
            )
        } else {
            format!(
                "{} still {verb} it when Terraform deletes it",
                list(names.iter().copied())
            )
        };
        out.push(Effect {
            kind: EffectKind::ApplyFails,
            address: r.address.clone(),
            related,
            message: format!(
                "the capacity provider {}{}: {when}, but ECS deletes a capacity provider only once no cluster lists it and no service's strategy names it, so the provider's delete waits until it times out and the apply fails",
                destroy_phrase(c),
                reason(c)
            ),
            help: Some(if delete_first {
                "add `lifecycle { create_before_destroy = true }` to the capacity provider, so the new one is created and the cluster and the services move to it before the old one is deleted; or move them off it in an earlier apply".to_string()
            } else {
                "remove it from the cluster's capacity providers and from the services' strategies in an earlier apply, then delete it".to_string()
            }),
        });
        return;
    }
    let mut s = format!(
        "the capacity provider {}{}: once it is deleted, no GPU task is placed through it",
        destroy_phrase(c),
        reason(c)
    );
    if !services.is_empty() {
        let names: Vec<&str> = services
            .iter()
            .map(|&s| m.resources[s].address.as_str())
            .collect();
        s.push_str(&format!(" (used by {})", list(names)));
    }
    let groups_go = groups.iter().any(|&g| {
        m.resources[g]
            .change
            .as_ref()
            .is_some_and(|gc| gc.has("delete"))
    });
    if c.before().str(TERMINATION_PROTECTION) == Some("ENABLED") && !groups_go {
        // Replacing (or renaming) the capacity provider leaves its Auto Scaling group in place: no
        // instance is terminated by this change.
        s.push_str("; its Auto Scaling group and instances stay (managed termination protection keeps the instances that run tasks protected from scale-in), and the new capacity provider must be attached to the group before it places tasks");
    }
    // Services that keep a strategy naming it: they cannot place tasks once it is gone.
    let staying = services.iter().any(|&s| {
        m.resources[s]
            .change
            .as_ref()
            .is_none_or(|sc| !sc.has("delete"))
    });
    out.push(Effect {
        kind: EffectKind::CapacityDestroyed,
        address: r.address.clone(),
        related,
        message: s,
        help: staying.then(|| {
            "move the services to another capacity provider in an earlier apply".to_string()
        }),
    });
}

/// Whether resource `u` (a service or a cluster association) names capacity provider `name` when
/// its delete runs.
fn still_uses(m: &Model, u: usize, name: &str, delete_first: bool) -> bool {
    let res = &m.resources[u];
    match &res.change {
        // Deleted (or replaced) before the capacity provider: gone by then.
        Some(uc) if uc.has("delete") => false,
        Some(uc) if uc.actions.as_slice() == ["create"] => false,
        // Updated: after the delete when it comes first, else before it.
        Some(uc) if delete_first => names(&uc.before(), name),
        Some(uc) => names(&uc.after(), name),
        None => names(&res.current(), name),
    }
}

/// Whether a service's strategy or a cluster association names capacity provider `name`.
fn names(side: &Side<'_>, name: &str) -> bool {
    let in_list = |list: &str, key: Option<&str>| {
        side.raw(&[list])
            .and_then(Value::as_array)
            .is_some_and(|items| {
                items.iter().any(|item| match key {
                    Some(k) => item.get(k).and_then(Value::as_str) == Some(name),
                    None => item.as_str() == Some(name),
                })
            })
    };
    !name.is_empty()
        && (in_list("capacity_provider_strategy", Some("capacity_provider"))
            || in_list("capacity_providers", None)
            || in_list(
                "default_capacity_provider_strategy",
                Some("capacity_provider"),
            ))
}

/// Managed termination protection goes from ENABLED to DISABLED.
fn protection_removed(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) -> bool {
    if !c.is_update()
        || c.before().str(TERMINATION_PROTECTION) != Some("ENABLED")
        || c.after().str(TERMINATION_PROTECTION) != Some("DISABLED")
    {
        return false;
    }
    let r = &m.resources[i];
    let groups = capacity_provider_groups(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &groups);
    relate(&mut related, m, &capacity_provider_services(m, i));
    let mut message = "managed termination protection goes from ENABLED to DISABLED: ECS no longer keeps the instances that run tasks protected from scale-in, so when the group scales in (managed scaling, a scheduled action, a lower desired capacity) Auto Scaling may terminate an instance that runs GPU tasks; those tasks stop, and a service's replacements need free GPUs elsewhere".to_string();
    // Auto Scaling never terminates a protected instance on scale-in, and without managed
    // termination protection nothing takes the launch-time protection off an idle one.
    if groups
        .iter()
        .any(|&g| m.resources[g].current().bool(&["protect_from_scale_in"]) == Some(true))
    {
        message.push_str("; the group still launches its instances protected from scale-in (`protect_from_scale_in = true`) and ECS no longer removes that protection from idle ones, so those stay protected: scale-in cannot terminate them and idle GPU instances keep running");
    }
    out.push(Effect {
        kind: EffectKind::ProtectionRemoved,
        address: r.address.clone(),
        related,
        message,
        help: Some("keep `managed_termination_protection = \"ENABLED\"` (with `protect_from_scale_in = true` on the group) unless the GPU tasks may be stopped at any time".to_string()),
    });
    true
}
