//! `aws_autoscaling_group`: an instance refresh, a destroyed group, or a template change that the
//! group does not roll out.

use super::launch_template::content;
use super::relations::{capacity_provider_services, group_capacity_providers, group_templates};
use super::{destroy_phrase, metadata_only, plural, reason, relate};
use crate::model::{Change, Model};
use crate::value::{Side, Val};
use crate::{Effect, EffectKind};

const ROLLING: &[&str] = &[
    "launch_template",
    "mixed_instances_policy",
    "launch_configuration",
];

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    let cps = group_capacity_providers(m, i);
    let templates = group_templates(m, i);
    let mut related = Vec::new();
    relate(&mut related, m, &cps);

    if c.has("delete") {
        destroyed(m, i, c, &cps, related, out);
        return;
    }
    if !c.is_update() {
        return;
    }
    capacity_change(m, i, c, &cps, &related, out);
    let after = c.after();
    let mut why: Vec<String> = Vec::new();
    let changed_templates: Vec<usize> = templates
        .iter()
        .copied()
        .filter(|&t| {
            m.resources[t]
                .change
                .as_ref()
                .is_some_and(|tc| tc.is_update() || tc.is_replace() || tc.has("create"))
        })
        .collect();
    let reference_changes = ROLLING.iter().any(|a| c.changes(&[a]));
    if reference_changes {
        if changed_templates.is_empty() {
            why.push(format!(
                "its {} changes",
                super::list(ROLLING.iter().copied().filter(|a| c.changes(&[a])))
            ));
        }
        for &t in &changed_templates {
            if let Some(tc) = &m.resources[t].change {
                let ta = &m.resources[t].address;
                why.push(if tc.has("create") && !tc.has("delete") {
                    format!("the group moves to the new `{ta}`")
                } else {
                    format!("`{ta}` changes: {}", content(m, t, tc))
                });
            }
        }
    }
    let triggers: Vec<String> = after
        .raw(&["instance_refresh", "0", "triggers"])
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str())
                .filter(|t| c.changes(&[t]))
                .map(|t| format!("`{t}` changes and is in `triggers`"))
                .collect()
        })
        .unwrap_or_default();
    why.extend(triggers);
    let refresh = after.has_block(&["instance_refresh"]);

    if refresh && !why.is_empty() {
        relate(&mut related, m, &changed_templates);
        let prefs = ["instance_refresh", "0", "preferences", "0"];
        let p = |k: &str| after.get(&[prefs.as_slice(), &[k]].concat());
        let min_healthy = match p("min_healthy_percentage") {
            // The API's default (catalog: source key ASG-API).
            Val::Absent => format!(
                "{}% (the default)",
                ecs_gpu_catalog::catalog()
                    .autoscaling
                    .instance_refresh_min_healthy_percentage_default
            ),
            v if v.as_f64().is_some() => format!("{}%", v.show()),
            v => v.show(),
        };
        let seconds = |v: Val<'_>| match v {
            Val::Known(x)
                if x.as_f64().is_some() || x.as_str().is_some_and(|s| s.parse::<f64>().is_ok()) =>
            {
                Some(format!("{}s", v.show()))
            }
            Val::Unknown | Val::Sensitive => Some(v.show()),
            _ => None,
        };
        let nonzero = |v: Val<'_>| v.as_f64().is_none_or(|n| n > 0.0);
        let warmup = seconds(p("instance_warmup"))
            .or_else(|| {
                let d = after.get(&["default_instance_warmup"]);
                nonzero(d)
                    .then(|| seconds(d))
                    .flatten()
                    .map(|s| format!("{s} (`default_instance_warmup`)"))
            })
            .or_else(|| {
                seconds(after.get(&["health_check_grace_period"]))
                    .map(|s| format!("{s} (the health check grace period)"))
            })
            .unwrap_or_else(|| "the group's default".to_string());
        let min_n = p("min_healthy_percentage").as_f64();
        let mut helps = Vec::new();
        if min_n.is_none_or(|n| n < 100.0) {
            helps.push(format!(
                "while instances are replaced, the remaining ones need free GPUs for the rescheduled tasks; for new instances to launch before old ones terminate, {}",
                super::args_help(
                    m,
                    i,
                    &[
                        (
                            "instance_refresh.preferences.min_healthy_percentage",
                            "set `min_healthy_percentage = 100`"
                        ),
                        (
                            "instance_refresh.preferences.max_healthy_percentage",
                            "`max_healthy_percentage` above 100"
                        )
                    ]
                )
            ));
        }
        // ECS managed termination protection marks the instances that run tasks as protected from
        // scale-in, and a refresh skips protected instances unless told otherwise.
        let protected = after.bool(&["protect_from_scale_in"]) == Some(true)
            || cps.iter().any(|&cp| {
                m.resources[cp].current().str(&[
                    "auto_scaling_group_provider",
                    "0",
                    "managed_termination_protection",
                ]) == Some("ENABLED")
            });
        let skip = |default: &str| {
            format!("; instances protected from scale-in (managed termination protection protects those that run tasks) are skipped under {default}`scale_in_protected_instances = \"Ignore\"`, so the instances that run GPU tasks keep the old launch template")
        };
        // (what happens to the protected instances, whether they keep the old template)
        let (skipped, kept_old) = match (protected, p("scale_in_protected_instances")) {
            (false, _) => (String::new(), false),
            (true, Val::Absent) => (skip("the default "), true),
            (true, Val::Known(v)) if v.as_str() == Some("Ignore") => (skip(""), true),
            (true, Val::Known(v)) if v.as_str() == Some("Wait") => (
                "; the refresh waits for protected instances (those that run tasks) until their protection is removed".to_string(),
                false,
            ),
            _ => (String::new(), false),
        };
        if kept_old {
            helps.push(format!(
                "for the instances that run GPU tasks to be replaced too, {}",
                super::arg_help(
                    m,
                    i,
                    "instance_refresh.preferences.scale_in_protected_instances",
                    "set `scale_in_protected_instances = \"Refresh\"` in the refresh preferences"
                )
            ));
        }
        out.push(Effect {
            kind: EffectKind::InstanceReplacement,
            address: r.address.clone(),
            related,
            message: format!(
                "starts an instance refresh that replaces {} ({}): minimum healthy {min_healthy}, warmup {warmup}; the GPU tasks on each replaced instance are stopped and rescheduled on the new instances{skipped}; Terraform does not wait for the refresh to finish",
                instances(&after, "desired_capacity", "its"),
                why.join("; ")
            ),
            help: (!helps.is_empty()).then(|| helps.join("; ")),
        });
        return;
    }
    // A template whose change this group does not roll out is reported by the template; a change
    // of the group's own template reference without a template change is reported here.
    if reference_changes && !refresh && changed_templates.is_empty() {
        relate(&mut related, m, &templates);
        out.push(Effect {
            kind: EffectKind::NotReachingRunningInstances,
            address: r.address.clone(),
            related,
            message: format!(
                "{}, but the group has no `instance_refresh` block: only instances launched from now on use it; running GPU instances keep the old AMI and NVIDIA driver until something replaces them",
                why.join("; ")
            ),
            help: Some(format!(
                "add an `instance_refresh` block to `{}` so a change of its launch template starts a refresh",
                r.address
            )),
        });
        return;
    }
    if !reference_changes {
        out.extend(metadata_only(m, i, c));
    }
}

/// The group is destroyed. What the provider does: with `force_delete`, DeleteAutoScalingGroup
/// with ForceDelete, without waiting; without it, it first sets the desired, min and max size to
/// 0, removes the scale-in protection of the instances, and waits (the delete timeout, 10 minutes
/// by default) for them to terminate (hashicorp/terraform-provider-aws
/// internal/service/autoscaling/group.go, resourceGroupDelete and drainGroup).
fn destroyed(
    m: &Model,
    i: usize,
    c: &Change,
    cps: &[usize],
    mut related: Vec<String>,
    out: &mut Vec<Effect>,
) {
    let r = &m.resources[i];
    let mut services = Vec::new();
    for &cp in cps {
        services.extend(capacity_provider_services(m, cp));
    }
    relate(&mut related, m, &services);
    let before = c.before();
    let what = instances(&before, "desired_capacity", "its");
    let message = if before.bool(&["force_delete"]) == Some(true) {
        format!(
            "the Auto Scaling group {}{}: with `force_delete`, the provider deletes it without waiting and {what} are terminated with it; the GPU tasks on them stop",
            destroy_phrase(c),
            reason(c)
        )
    } else {
        let timeout = match before.get(&["timeouts", "delete"]) {
            v @ Val::Known(_) => format!("`timeouts.delete` ({})", v.show()),
            _ => "the delete timeout (10 minutes by default)".to_string(),
        };
        format!(
            "the Auto Scaling group {}{}: the provider first sets its desired, min and max size to 0 and removes the scale-in protection of its instances, so neither `protect_from_scale_in` nor managed termination protection keeps them; {what} are terminated and the GPU tasks on them stop, and the provider waits up to {timeout} for them to be gone before it deletes the group",
            destroy_phrase(c),
            reason(c)
        )
    };
    // Services that keep placing through the group's capacity providers after this apply.
    let staying: Vec<&str> = services
        .iter()
        .filter(|&&s| {
            m.resources[s]
                .change
                .as_ref()
                .is_none_or(|sc| !sc.has("delete"))
        })
        .map(|&s| m.resources[s].address.as_str())
        .collect();
    let help = (!staying.is_empty()).then(|| {
        format!(
            "{} still place their GPU tasks through this capacity: move them to other capacity (or scale them to 0) in an earlier apply, so their tasks are replaced elsewhere before the instances go",
            super::list(staying)
        )
    });
    out.push(Effect {
        kind: EffectKind::CapacityDestroyed,
        address: r.address.clone(),
        related,
        message,
        help,
    });
}

/// A desired capacity set in the code or set back after drift. A higher one launches GPU
/// instances (`scale-out`); a lower one terminates them (`scale-in`), unless the instances are
/// protected from scale-in: then Auto Scaling terminates none, and the provider, which waits for
/// the group to reach its desired capacity after an update (`wait_for_capacity_timeout`), fails
/// when the wait runs out (group.go, resourceGroupUpdate).
fn capacity_change(
    m: &Model,
    i: usize,
    c: &Change,
    cps: &[usize],
    related: &[String],
    out: &mut Vec<Effect>,
) {
    let r = &m.resources[i];
    let path = ["desired_capacity"];
    let (b, a) = (c.before().get(&path), c.after().get(&path));
    let (Some(before), Some(after)) = (b.as_f64(), a.as_f64()) else {
        return;
    };
    if (after - before).abs() < f64::EPSILON {
        return;
    }
    // A value changed outside Terraform and set back is `drift-revert`'s to report.
    let reverted = r
        .drift
        .as_ref()
        .is_some_and(|d| d.before().raw(&path) != d.after().raw(&path));
    let diff = (after - before).abs();
    let n = format!("{diff}");
    let per_instance = super::gpus::per_instance(m, i);
    let managed: Vec<&str> = cps
        .iter()
        .filter(|&&cp| {
            m.resources[cp].current().str(&[
                "auto_scaling_group_provider",
                "0",
                "managed_scaling",
                "0",
                "status",
            ]) == Some("ENABLED")
        })
        .map(|&cp| m.resources[cp].address.as_str())
        .collect();
    if after > before {
        if reverted {
            return;
        }
        let gpus = match &per_instance {
            Some((itype, g)) => format!(
                " of {itype} ({} each, {} in all)",
                super::gpus::count(*g),
                super::gpus::count((f64::from(*g) * diff) as u32)
            ),
            None => String::new(),
        };
        let owner = if managed.is_empty() {
            String::new()
        } else {
            format!(
                "; managed scaling of {} sets the desired capacity too, and can take it back down when the tasks do not need the instances",
                super::list(managed)
            )
        };
        out.push(Effect {
            kind: EffectKind::ScaleOut,
            address: r.address.clone(),
            related: related.to_vec(),
            message: format!(
                "`desired_capacity` goes from {} to {}: the group launches {n} more GPU instance{}{gpus}{owner}",
                b.show(),
                a.show(),
                plural(diff)
            ),
            help: None,
        });
        return;
    }
    let after_side = c.after();
    let protected = after_side.bool(&["protect_from_scale_in"]) == Some(true)
        || c.before().bool(&["protect_from_scale_in"]) == Some(true);
    let terminated_by_ecs = cps.iter().any(|&cp| {
        m.resources[cp].current().str(&[
            "auto_scaling_group_provider",
            "0",
            "managed_termination_protection",
        ]) == Some("ENABLED")
    });
    let wait = after_side.get(&["wait_for_capacity_timeout"]);
    let no_wait = matches!(wait, Val::Known(v) if v.as_str() == Some("0"));
    if protected && !no_wait {
        let held = if terminated_by_ecs {
            "managed termination protection keeps every instance that runs a task protected from scale-in, so unless enough of them run no task, the group terminates none"
        } else {
            "its instances are launched protected from scale-in (`protect_from_scale_in`), so the group terminates none of them"
        };
        let timeout = match wait {
            v @ Val::Known(_) => format!("`wait_for_capacity_timeout` ({})", v.show()),
            _ => "`wait_for_capacity_timeout`".to_string(),
        };
        out.push(Effect {
            kind: EffectKind::ApplyFails,
            address: r.address.clone(),
            related: related.to_vec(),
            message: format!(
                "`desired_capacity` goes from {} to {}, but {held}: after the update the provider waits for the group to have exactly {} healthy instance{} until {timeout} runs out, and the apply fails",
                b.show(),
                a.show(),
                a.show(),
                plural(after)
            ),
            help: Some(if reverted {
                "the desired capacity was raised outside Terraform (by ECS managed scaling or a person): if something outside Terraform owns it, add `lifecycle { ignore_changes = [desired_capacity] }`; otherwise stop the tasks on the instances to remove first".to_string()
            } else {
                "remove the scale-in protection of the instances to terminate first (stop their tasks, or `aws autoscaling set-instance-protection --no-protected-from-scale-in`), or lower the count through ECS (the services' desired counts) and let managed scaling shrink the group".to_string()
            }),
        });
        return;
    }
    if reverted {
        return;
    }
    out.push(Effect {
        kind: EffectKind::ScaleIn,
        address: r.address.clone(),
        related: related.to_vec(),
        message: format!(
            "`desired_capacity` goes from {} to {}: the group terminates {n} GPU instance{}, and the GPU tasks on them stop",
            b.show(),
            a.show(),
            plural(diff)
        ),
        help: None,
    });
}

/// "its 4 GPU instances", from the group's desired capacity.
pub(super) fn instances(side: &Side<'_>, attr: &str, owner: &str) -> String {
    match side.get(&[attr]) {
        v @ Val::Known(_) => match v.as_f64() {
            // Zero in the plan is the state's count when something outside Terraform (managed
            // scaling) owns it under `ignore_changes`: no number is better than a wrong one.
            Some(n) if n.abs() < f64::EPSILON => {
                format!("{owner} GPU instances (desired capacity 0 in the plan)")
            }
            Some(n) => format!("{owner} {} GPU instance{}", v.show(), plural(n)),
            None => format!("{owner} GPU instances"),
        },
        v @ (Val::Unknown | Val::Sensitive) => {
            format!("{owner} GPU instances (desired capacity {})", v.show())
        }
        Val::Absent => format!("{owner} GPU instances"),
    }
}
