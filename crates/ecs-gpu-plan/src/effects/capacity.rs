//! `aws_ecs_capacity_provider` and `aws_ecs_cluster`: destroyed or replaced capacity.

use super::relations::{capacity_provider_groups, capacity_provider_services, cluster_services};
use super::{destroy_phrase, list, metadata_only, reason, relate};
use crate::model::{Change, Model};
use crate::{Effect, EffectKind};

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    if !c.has("delete") {
        out.extend(metadata_only(m, i, c));
        return;
    }
    let mut related = Vec::new();
    let (message, help) = if r.type_ == "aws_ecs_capacity_provider" {
        let services = capacity_provider_services(m, i);
        let groups = capacity_provider_groups(m, i);
        relate(&mut related, m, &groups);
        relate(&mut related, m, &services);
        let mut s = format!(
            "the capacity provider {}{}: ECS deletes it only once no service's strategy uses it and it is detached from the cluster, and services that place GPU tasks through it cannot place new ones until then",
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
        if c.before().str(&[
            "auto_scaling_group_provider",
            "0",
            "managed_termination_protection",
        ]) == Some("ENABLED")
            && !groups_go
        {
            // Replacing (or renaming) the capacity provider leaves its Auto Scaling group in
            // place: no instance is terminated by this change.
            s.push_str("; its Auto Scaling group and instances stay (managed termination protection keeps the instances that run tasks protected from scale-in), and the new capacity provider must be attached to the group before it places tasks");
        }
        (
            s,
            Some("move the services to another capacity provider in an earlier apply".to_string()),
        )
    } else {
        let services = cluster_services(m, i);
        relate(&mut related, m, &services);
        (
            format!(
                "the cluster {}{}: ECS deletes a cluster only once it has no active service and no registered container instance, so every GPU task in it stops first, or the apply fails",
                destroy_phrase(c),
                reason(c)
            ),
            None,
        )
    };
    out.push(Effect {
        kind: EffectKind::CapacityDestroyed,
        address: r.address.clone(),
        related,
        message,
        help,
    });
}
