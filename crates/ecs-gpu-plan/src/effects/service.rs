//! `aws_ecs_service`: a deployment, a replaced or moved service, a count that goes up or down, or
//! tags.

use super::relations::{service_capacity_providers, service_task_definitions};
use super::{arg_help, destroy_phrase, gpus, list, metadata_only, plural, reason, relate};
use crate::model::{Change, Model};
use crate::value::{Side, Val};
use crate::{Effect, EffectKind};

/// In-place changes that make ECS start a new deployment: UpdateService "starts new tasks with the
/// new configuration" when the network configuration, load balancers, service registries, task
/// placement constraints and strategies or the task definition change
/// (docs.aws.amazon.com/AmazonECS/latest/APIReference/API_UpdateService.html), and the capacity
/// provider strategy, volume and Service Connect configuration and platform version are deployed
/// the same way.
const DEPLOYING: &[&str] = &[
    "network_configuration",
    "capacity_provider_strategy",
    "load_balancer",
    "service_registries",
    "service_connect_configuration",
    "volume_configuration",
    "platform_version",
    "placement_constraints",
    "ordered_placement_strategy",
];

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    let tds = service_task_definitions(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &tds);

    if c.has("delete") {
        replaced(m, i, c, related, out);
        return;
    }
    if !c.is_update() {
        return;
    }

    let after = c.after();
    let before = c.before();
    let mut reasons: Vec<String> = Vec::new();
    let mut certain = false;
    // The GPUs one task needs before and after, when a new revision changes them.
    let mut gpu_change: Option<(u32, u32)> = None;
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
            for &t in &new_revisions {
                if let Some(tc) = &m.resources[t].change {
                    if let (Some(b), Some(a)) =
                        (gpus::per_task(&tc.before()), gpus::per_task(&tc.after()))
                    {
                        if a != b {
                            gpu_change = Some((b, a));
                        }
                    }
                }
            }
        } else if after.is_unknown(&["task_definition"]) {
            reasons.push("`task_definition` is known only after apply".to_string());
        } else {
            match same_revision(m, &tds, &before, &after) {
                Revision::Same(rev) => {
                    // ECS resolves a family to its latest ACTIVE revision; the same revision
                    // starts no deployment.
                    out.push(Effect {
                        kind: EffectKind::NoEffect,
                        address: r.address.clone(),
                        related: related.clone(),
                        message: format!(
                            "`task_definition` changes from `{}` to `{}`, which names the same revision (`{rev}`): ECS starts no deployment for it",
                            before.get(&["task_definition"]).show(),
                            after.get(&["task_definition"]).show()
                        ),
                        help: None,
                    });
                }
                Revision::Unknown => {
                    reasons.push(format!(
                        "`task_definition` changes from `{}` to `{}`, a family whose latest ACTIVE revision is not in the plan",
                        before.get(&["task_definition"]).show(),
                        after.get(&["task_definition"]).show()
                    ));
                }
                Revision::Different => {
                    certain = true;
                    reasons.push(format!(
                        "`task_definition` changes from `{}` to `{}`",
                        before.get(&["task_definition"]).show(),
                        after.get(&["task_definition"]).show()
                    ));
                }
            }
        }
    }
    for attr in DEPLOYING {
        if c.changes(&[attr]) {
            if after.is_unknown(&[attr]) {
                reasons.push(format!("`{attr}` is known only after apply"));
            } else {
                certain = true;
                reasons.push(match (*attr, constraints(&after)) {
                    ("placement_constraints", Some(now)) => {
                        format!("`placement_constraints` changes (now {now})")
                    }
                    _ => format!("`{attr}` changes"),
                });
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

    count_change(m, i, c, &related, out);
    if reasons.is_empty() {
        out.extend(metadata_only(m, i, c));
        return;
    }
    let verb = if certain { "starts" } else { "may start" };
    let (breaker, help) = circuit_breaker(m, i, &after);
    let gpus_line = match gpu_change {
        Some((b, a)) => format!("; {}", gpu_need(m, i, &after, b, a)),
        None => String::new(),
    };
    out.push(Effect {
        kind: EffectKind::Deployment,
        address: r.address.clone(),
        related,
        message: format!(
            "{verb} a new deployment because {}: {}; {}{gpus_line}; {breaker}",
            reasons.join(", and "),
            match running_tasks(&after) {
                t if t.starts_with("no ") => format!("there is {t} to replace"),
                t => format!("it replaces {t}"),
            },
            rolling(&after, gpu_change.is_none())
        ),
        help,
    });
}

/// The service is destroyed: replaced, moved to another address, or gone.
fn replaced(m: &Model, i: usize, c: &Change, mut related: Vec<String>, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    let cps = service_capacity_providers(m, i);
    relate(&mut related, m, &cps);
    let stopping = tasks_stop(&c.before());
    if !c.is_replace() {
        if let Some(twin) = created_twin(m, i) {
            // A service of the same name in the same cluster is created at another address.
            let to = &m.resources[twin].address;
            relate(&mut related, m, &[twin]);
            out.push(Effect {
                kind: EffectKind::ServiceReplaced,
                address: r.address.clone(),
                related,
                message: format!(
                    "the service moves to `{to}`{}: Terraform deletes this one and creates a service of the same name in the same cluster, in no fixed order: {stopping}, and either nothing runs until the new service's GPU tasks are placed, or the create fails on the name of the service still there",
                    reason(c)
                ),
                help: Some(format!(
                    "to keep the service and its tasks, add a `moved` block with `from = {}` and `to = {to}` to the root module, so Terraform moves it in the state instead of replacing it",
                    r.address
                )),
            });
            return;
        }
        out.push(Effect {
            kind: EffectKind::ServiceReplaced,
            address: r.address.clone(),
            related,
            message: format!(
                "the service is destroyed and not created again{}: {stopping}",
                reason(c)
            ),
            help: None,
        });
        return;
    }
    let new_first = c.actions.first().is_some_and(|a| a == "create");
    let message = if new_first {
        format!(
            "the service {}{}: {stopping} once the new service exists, and the new service's GPU tasks need free GPUs while the old ones still run",
            destroy_phrase(c),
            reason(c)
        )
    } else {
        format!(
            "the service {}{}: {stopping}, and the service runs no task until the new one's GPU tasks are placed and healthy",
            destroy_phrase(c),
            reason(c)
        )
    };
    // The provider changes the capacity provider strategy in place with `force_new_deployment`;
    // any other attribute that forces the replacement (a new cluster, name, launch type) still does.
    let only_strategy = !c.replace_paths.is_empty()
        && c.replace_paths
            .iter()
            .all(|p| p.starts_with("capacity_provider_strategy"));
    let help = if only_strategy {
        Some(format!(
            "for the provider to change the capacity provider strategy in place, as a deployment instead of a replacement, {}",
            arg_help(m, i, "force_new_deployment", "set `force_new_deployment = true`")
        ))
    } else if c.replace_paths.iter().any(|p| p == "cluster") {
        Some("a service cannot move to another cluster: expect downtime, or create the new service beside the old one and delete the old one once the new one runs".to_string())
    } else {
        Some(
            "expect downtime; if the change is not meant to replace the service, revert the attribute that forces it"
                .to_string(),
        )
    };
    out.push(Effect {
        kind: EffectKind::ServiceReplaced,
        address: r.address.clone(),
        related,
        message,
        help,
    });
}

/// A service created in this plan with the name and cluster of service `i`, which is deleted.
fn created_twin(m: &Model, i: usize) -> Option<usize> {
    let gone = m.resources[i].before();
    let name = gone.str(&["name"])?;
    let cluster = gone.str(&["cluster"]);
    m.of_type("aws_ecs_service").find(|&j| {
        j != i
            && m.resources[j]
                .change
                .as_ref()
                .is_some_and(|c| c.actions.as_slice() == ["create"])
            && m.resources[j].after().str(&["name"]) == Some(name)
            && match (cluster, m.resources[j].after().str(&["cluster"])) {
                (Some(a), Some(b)) => same_cluster(a, b),
                // Known only after apply: the same name is enough to pair them.
                _ => true,
            }
    })
}

/// A cluster named by ARN or by name.
fn same_cluster(a: &str, b: &str) -> bool {
    let short = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
    short(a) == short(b)
}

enum Revision {
    /// Both name this revision (`family:revision`).
    Same(String),
    Different,
    /// One names a family whose latest ACTIVE revision the plan does not hold.
    Unknown,
}

/// Whether two `task_definition` values name the same revision: an ARN, `family:revision` and a
/// family (the latest ACTIVE revision, the task definition's in the plan when it stays) compare by
/// family and revision, not as text.
fn same_revision(m: &Model, tds: &[usize], before: &Side<'_>, after: &Side<'_>) -> Revision {
    let (Some(b), Some(a)) = (
        before.str(&["task_definition"]),
        after.str(&["task_definition"]),
    ) else {
        return Revision::Different;
    };
    let resolve = |s: &str| -> Option<(String, String)> {
        let tail = s.rsplit("task-definition/").next().unwrap_or(s);
        match tail.rsplit_once(':') {
            Some((f, rev)) if rev.bytes().all(|c| c.is_ascii_digit()) && !rev.is_empty() => {
                Some((f.to_string(), rev.to_string()))
            }
            _ => {
                // A family: its latest ACTIVE revision, when the plan holds the task definition
                // and does not replace it.
                tds.iter().find_map(|&t| {
                    let td = &m.resources[t];
                    let stays = td.change.as_ref().is_none_or(|tc| !tc.has("delete"));
                    let side = td.after();
                    let family = side.str(&["family"])?;
                    (stays && family == tail)
                        .then(|| {
                            side.raw(&["revision"])
                                .map(|r| (family.to_string(), r.to_string()))
                        })
                        .flatten()
                })
            }
        }
    };
    match (resolve(b), resolve(a)) {
        (Some(x), Some(y)) if x == y => Revision::Same(format!("{}:{}", x.0, x.1)),
        (Some(_), Some(_)) => Revision::Different,
        _ => Revision::Unknown,
    }
}

/// The `memberOf` expressions of the placement constraints, in backticks.
fn constraints(side: &Side<'_>) -> Option<String> {
    let items = side.raw(&["placement_constraints"])?.as_array()?;
    let mut shown = Vec::new();
    for n in 0..items.len() {
        let n = n.to_string();
        match side.get(&["placement_constraints", &n, "expression"]) {
            v @ Val::Known(_) => shown.push(format!("`{}`", v.show())),
            Val::Absent => {}
            v => shown.push(v.show()),
        }
    }
    (!shown.is_empty()).then(|| shown.join(", "))
}

/// What a new GPU count per task means for the deployment.
fn gpu_need(m: &Model, i: usize, after: &Side<'_>, before: u32, now: u32) -> String {
    let mut s = format!(
        "each new task needs {} where the old ones need {}",
        gpus::count(now),
        gpus::count(before)
    );
    let min = match after.get(&["deployment_minimum_healthy_percent"]) {
        Val::Absent => Some(100.0),
        v => v.as_f64(),
    };
    if min.is_some_and(|n| n >= 100.0) {
        s.push_str(&format!(
            ": with minimum healthy at 100%, ECS starts each new task before it stops an old one, so every new task needs {} free on one instance while the old tasks hold theirs",
            gpus::count(now)
        ));
    } else if let Some(n) = min {
        s.push_str(&format!(
            ": with minimum healthy at {n}%, ECS may stop old tasks first and free their GPUs, but each new task still needs {} free on one instance",
            gpus::count(now)
        ));
    }
    // The instance type of the capacity the service places on, when the plan holds it.
    let groups: Vec<usize> = super::relations::service_capacity_providers(m, i)
        .into_iter()
        .flat_map(|cp| super::relations::capacity_provider_groups(m, cp))
        .collect();
    for g in groups {
        if let Some((itype, n)) = gpus::per_instance(m, g) {
            if n < now {
                s.push_str(&format!(
                    "; a {itype} has {}, so no instance of `{}` can run a new task: the deployment never places one",
                    gpus::count(n),
                    m.resources[g].address
                ));
            }
        }
    }
    s
}

/// A lower or higher desired count set in the code (not a value set back after drift, which
/// `drift-revert` reports).
fn count_change(m: &Model, i: usize, c: &Change, related: &[String], out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    if r.drift
        .as_ref()
        .is_some_and(|d| d.before().raw(&["desired_count"]) != d.after().raw(&["desired_count"]))
    {
        return;
    }
    let before = c.before().get(&["desired_count"]);
    let after = c.after().get(&["desired_count"]);
    let (Some(b), Some(a)) = (before.as_f64(), after.as_f64()) else {
        return;
    };
    if (a - b).abs() < f64::EPSILON {
        return;
    }
    let diff = (a - b).abs();
    let n = format!("{diff}");
    if a < b {
        out.push(Effect {
            kind: EffectKind::ScaleIn,
            address: r.address.clone(),
            related: related.to_vec(),
            message: format!(
                "`desired_count` goes from {} to {}: ECS stops {n} running task{} of the service and frees their GPUs",
                before.show(),
                after.show(),
                plural(diff)
            ),
            help: None,
        });
    } else {
        let per_task = service_task_definitions(m, i)
            .into_iter()
            .find_map(|t| gpus::per_task(&m.resources[t].after()));
        let need = match per_task {
            Some(g) => format!(", each needing {} free on one instance", gpus::count(g)),
            None => String::new(),
        };
        out.push(Effect {
            kind: EffectKind::ScaleOut,
            address: r.address.clone(),
            related: related.to_vec(),
            message: format!(
                "`desired_count` goes from {} to {}: ECS starts {n} more task{}{need}; a task that finds no free GPU is not placed until capacity is added",
                before.show(),
                after.show(),
                plural(diff)
            ),
            help: None,
        });
    }
}

/// "its 4 running tasks stop", "its 1 running task stops", "no task runs (desired count 0)".
fn tasks_stop(side: &Side<'_>) -> String {
    let tasks = running_tasks(side);
    if tasks.starts_with("no ") {
        return "no task runs (desired count 0)".to_string();
    }
    let verb = if tasks.starts_with("its 1 ") {
        "stops"
    } else {
        "stop"
    };
    format!("{tasks} {verb}")
}

/// "its 4 running tasks", from the desired count ("no running task" for 0).
pub(super) fn running_tasks(side: &Side<'_>) -> String {
    if side.str(&["scheduling_strategy"]) == Some("DAEMON") {
        return "its tasks (one per container instance, `DAEMON`)".to_string();
    }
    match side.get(&["desired_count"]) {
        v @ Val::Known(_) => match v.as_f64() {
            Some(n) if n.abs() < f64::EPSILON => "no running task (desired count 0)".to_string(),
            Some(n) => format!("its {} running task{}", v.show(), plural(n)),
            None => format!("its running tasks (desired count: {})", v.show()),
        },
        v @ (Val::Unknown | Val::Sensitive) => {
            format!("its running tasks (desired count: {})", v.show())
        }
        Val::Absent => "its running tasks".to_string(),
    }
}

/// Minimum healthy and maximum percent, and (`say_gpus`) what they mean for GPUs.
fn rolling(after: &Side<'_>, say_gpus: bool) -> String {
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
    if say_gpus && min_n.is_some_and(|n| n >= 100.0) {
        s.push_str(": old tasks stop only once new ones run, so each new task needs a free GPU");
    }
    s
}

fn circuit_breaker(m: &Model, i: usize, after: &Side<'_>) -> (String, Option<String>) {
    let enable = after.get(&["deployment_circuit_breaker", "0", "enable"]);
    let rollback = after.get(&["deployment_circuit_breaker", "0", "rollback"]);
    let help = Some(format!(
        "for a deployment whose GPU tasks cannot be placed to roll back by itself, {}",
        arg_help(
            m,
            i,
            "deployment_circuit_breaker",
            "set `deployment_circuit_breaker { enable = true, rollback = true }`"
        )
    ));
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
