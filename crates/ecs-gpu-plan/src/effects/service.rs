//! `aws_ecs_service`: a deployment, a replaced service, or tags.

use super::relations::{service_capacity_providers, service_task_definitions};
use super::{destroy_phrase, list, metadata_only, plural, reason, relate};
use crate::model::{Change, Model};
use crate::value::{Side, Val};
use crate::{Effect, EffectKind};

/// In-place changes that make ECS start a new deployment (UpdateService with a new value).
const DEPLOYING: &[&str] = &[
    "network_configuration",
    "capacity_provider_strategy",
    "load_balancer",
    "service_registries",
    "service_connect_configuration",
    "volume_configuration",
    "platform_version",
];

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    let tds = service_task_definitions(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &tds);

    if c.has("delete") {
        let cps = service_capacity_providers(m, i);
        relate(&mut related, m, &cps);
        let tasks = running_tasks(&c.before());
        let stop = if tasks.starts_with("its 1 ") {
            "stops"
        } else {
            "stop"
        };
        let new_first = c.actions.first().is_some_and(|a| a == "create");
        let message = if !c.is_replace() {
            format!(
                "the service is destroyed and not created again{}: {tasks} {stop}",
                reason(c)
            )
        } else if new_first {
            format!(
                "the service {}{}: {tasks} {stop} once the new service exists, and the new service's GPU tasks need free GPUs while the old ones still run",
                destroy_phrase(c),
                reason(c)
            )
        } else {
            format!(
                "the service {}{}: {tasks} {stop}, and the service runs no task until the new one's GPU tasks are placed and healthy",
                destroy_phrase(c),
                reason(c)
            )
        };
        let strategy = c
            .replace_paths
            .iter()
            .any(|p| p.starts_with("capacity_provider_strategy"));
        let help = match (c.is_replace(), strategy) {
            (false, _) => None,
            (true, true) => Some(
                "with `force_new_deployment = true` the provider changes the capacity provider strategy in place, as a deployment instead of a replacement"
                    .to_string(),
            ),
            (true, false) => Some(
                "expect downtime; if the change is not meant to replace the service, revert the attribute that forces it"
                    .to_string(),
            ),
        };
        out.push(Effect {
            kind: EffectKind::ServiceReplaced,
            address: r.address.clone(),
            related,
            message,
            help,
        });
        return;
    }
    if !c.is_update() {
        return;
    }

    let after = c.after();
    let mut reasons: Vec<String> = Vec::new();
    let mut certain = false;
    if c.changes(&["task_definition"]) {
        let new_revisions: Vec<usize> = tds
            .iter()
            .copied()
            .filter(|&t| {
                m.resources[t]
                    .change
                    .as_ref()
                    .is_some_and(|tc| tc.has("create"))
            })
            .collect();
        if !new_revisions.is_empty() {
            certain = true;
            let names: Vec<&str> = new_revisions
                .iter()
                .map(|&t| m.resources[t].address.as_str())
                .collect();
            reasons.push(format!(
                "`task_definition` moves to the new revision of {}",
                list(names)
            ));
        } else if after.is_unknown(&["task_definition"]) {
            reasons.push("`task_definition` is known only after apply".to_string());
        } else {
            certain = true;
            reasons.push(format!(
                "`task_definition` changes from `{}` to `{}`",
                c.before().get(&["task_definition"]).show(),
                after.get(&["task_definition"]).show()
            ));
        }
    }
    for attr in DEPLOYING {
        if c.changes(&[attr]) {
            if after.is_unknown(&[attr]) {
                reasons.push(format!("`{attr}` is known only after apply"));
            } else {
                certain = true;
                reasons.push(format!("`{attr}` changes"));
            }
        }
    }
    let non_metadata = super::changed(c)
        .iter()
        .any(|k| !super::METADATA.contains(&k.as_str()));
    if non_metadata && after.bool(&["force_new_deployment"]) == Some(true) {
        certain = true;
        reasons.push(if c.changes(&["triggers"]) {
            "`triggers` change with `force_new_deployment` set".to_string()
        } else {
            "`force_new_deployment` is set, so any update deploys".to_string()
        });
    }

    if reasons.is_empty() {
        out.extend(metadata_only(m, i, c));
        return;
    }
    let verb = if certain { "starts" } else { "may start" };
    let (breaker, help) = circuit_breaker(&after);
    out.push(Effect {
        kind: EffectKind::Deployment,
        address: r.address.clone(),
        related,
        message: format!(
            "{verb} a new deployment because {}: it replaces {}; {}; {breaker}",
            reasons.join(", and "),
            running_tasks(&after),
            rolling(&after)
        ),
        help,
    });
}

/// "its 4 running tasks", from the desired count.
pub(super) fn running_tasks(side: &Side<'_>) -> String {
    if side.str(&["scheduling_strategy"]) == Some("DAEMON") {
        return "its tasks (one per container instance, `DAEMON`)".to_string();
    }
    match side.get(&["desired_count"]) {
        v @ Val::Known(_) => match v.as_f64() {
            Some(n) => format!("its {} running task{}", v.show(), plural(n)),
            None => format!("its running tasks (desired count: {})", v.show()),
        },
        v @ (Val::Unknown | Val::Sensitive) => {
            format!("its running tasks (desired count: {})", v.show())
        }
        Val::Absent => "its running tasks".to_string(),
    }
}

/// Minimum healthy and maximum percent, and what they mean for GPUs.
fn rolling(after: &Side<'_>) -> String {
    let min = after.get(&["deployment_minimum_healthy_percent"]);
    let max = after.get(&["deployment_maximum_percent"]);
    let pct = |v: Val<'_>, default: &str| match v {
        Val::Absent => format!("{default}%"),
        v => match v.as_f64() {
            Some(_) => format!("{}%", v.show()),
            None => v.show(),
        },
    };
    let mut s = format!(
        "minimum healthy {}, maximum {}",
        pct(min, "100"),
        pct(max, "200")
    );
    let min_n = match min {
        Val::Absent => Some(100.0),
        v => v.as_f64(),
    };
    if min_n.is_some_and(|n| n >= 100.0) {
        s.push_str(": old tasks stop only once new ones run, so each new task needs a free GPU");
    }
    s
}

fn circuit_breaker(after: &Side<'_>) -> (String, Option<String>) {
    let enable = after.get(&["deployment_circuit_breaker", "0", "enable"]);
    let rollback = after.get(&["deployment_circuit_breaker", "0", "rollback"]);
    let help = Some(
        "set `deployment_circuit_breaker { enable = true, rollback = true }` so a deployment whose GPU tasks cannot be placed rolls back by itself"
            .to_string(),
    );
    match (enable, rollback) {
        (Val::Known(e), Val::Known(r))
            if e.as_bool() == Some(true) && r.as_bool() == Some(true) =>
        {
            ("circuit breaker on, with rollback".to_string(), None)
        }
        (Val::Known(e), Val::Unknown | Val::Sensitive) if e.as_bool() == Some(true) => (
            format!("circuit breaker on, rollback: {}", rollback.show()),
            None,
        ),
        (Val::Known(e), _) if e.as_bool() == Some(true) => (
            "circuit breaker on, without rollback: a failed deployment stops where it is"
                .to_string(),
            help,
        ),
        (Val::Unknown | Val::Sensitive, _) => (format!("circuit breaker: {}", enable.show()), None),
        _ => (
            "circuit breaker off: a deployment whose GPU tasks cannot be placed keeps trying"
                .to_string(),
            help,
        ),
    }
}
