//! `aws_ecs_task_definition`: never updated in place; a change registers a new revision and
//! deregisters the old one unless `skip_destroy` is set.

use super::relations::{names_family_only, runs_this_revision, task_definition_services};
use super::{metadata_only, reason, relate};
use crate::model::Completeness;
use crate::model::{Change, Model};
use crate::value::Val;
use crate::{Effect, EffectKind};

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    if !c.has("delete") {
        out.extend(metadata_only(m, i, c));
        return;
    }
    let before = c.before();
    if before.bool(&["skip_destroy"]) == Some(true) {
        return;
    }
    // The delete reads `skip_destroy` from the state, the value before this plan: set in the same
    // plan as the change that replaces the revision, it does not keep that revision.
    let set_now = c.after().bool(&["skip_destroy"]) == Some(true);
    let services = task_definition_services(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &services);

    let revision = match (before.get(&["family"]), before.get(&["revision"])) {
        (f @ Val::Known(_), rev @ Val::Known(_)) => {
            format!("revision `{}:{}`", f.show(), rev.show())
        }
        (f @ Val::Known(_), _) => format!("the current revision of `{}`", f.show()),
        _ => "the current revision".to_string(),
    };
    let mut message = if c.is_replace() {
        format!(
            "{revision} is deregistered (INACTIVE) and a new revision registered{}",
            reason(c)
        )
    } else {
        format!("{revision} is deregistered (INACTIVE){}", reason(c))
    };
    // A service that names the family gets the new revision only at its next deployment.
    let mut stays = false;
    for &s in &services {
        let svc = &m.resources[s];
        let deploys_or_goes = svc.change.as_ref().is_some_and(|sc| {
            sc.has("delete") || (sc.is_update() && sc.changes(&["task_definition"]))
        });
        if !c.is_replace() || deploys_or_goes {
            continue;
        }
        if names_family_only(m, s, i) {
            message.push_str(&format!(
                "; `{}` names the task definition by family only, so this plan starts no deployment: its tasks keep running the old, INACTIVE revision until the next deployment",
                svc.address
            ));
            stays = true;
        } else if runs_this_revision(m, s, i) {
            // Why the service's change is missing: only a complete plan says it has none.
            let why = match (m.completeness, svc.change.is_some()) {
                (Completeness::Errored, _) => {
                    message.push_str(&format!(
                        "; `{}` runs this revision, and this plan stopped at an error before it was complete: whether the service gets a deployment is known only from a plan that succeeds",
                        svc.address
                    ));
                    stays = true;
                    continue;
                }
                (Completeness::Partial, false) => "it is not in this targeted plan",
                (_, _) => "its `task_definition` does not change in this plan (`ignore_changes`?)",
            };
            message.push_str(&format!(
                "; `{}` runs this revision and {why}, so it gets no deployment: its tasks keep running the INACTIVE revision",
                svc.address
            ));
            stays = true;
        }
    }
    if !stays {
        message.push_str("; tasks already running on it keep running");
    }
    out.push(Effect {
        kind: EffectKind::RevisionDeregistered,
        address: r.address.clone(),
        related,
        message,
        help: Some(if set_now {
            "`skip_destroy = true` is set in this same plan, but the delete of the old revision reads the value in the state (not set), so this apply still deregisters it: apply `skip_destroy = true` on its own first, then the change".to_string()
        } else {
            format!(
                "to keep old revisions ACTIVE (ECS cannot move a service back to an INACTIVE revision), {}",
                super::arg_help(m, i, "skip_destroy", "set `skip_destroy = true`")
            )
        }),
    });
}
