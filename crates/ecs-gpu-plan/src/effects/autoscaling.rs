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
        // The services placed through its capacity providers lose their tasks too.
        for &cp in &cps {
            relate(&mut related, m, &capacity_provider_services(m, cp));
        }
        let before = c.before();
        let mut message = format!(
            "the Auto Scaling group {}{}: {} are terminated and the GPU tasks on them stop",
            destroy_phrase(c),
            reason(c),
            instances(&before, "desired_capacity", "its")
        );
        let protected: Vec<&str> = cps
            .iter()
            .filter(|&&cp| {
                m.resources[cp].before().str(&[
                    "auto_scaling_group_provider",
                    "0",
                    "managed_termination_protection",
                ]) == Some("ENABLED")
            })
            .map(|&cp| m.resources[cp].address.as_str())
            .collect();
        let mut help = None;
        if !protected.is_empty() || before.bool(&["protect_from_scale_in"]) == Some(true) {
            message.push_str("; with managed termination protection, instances that run tasks are protected from scale-in, so the destroy can hang while tasks run");
            help = Some("scale the GPU services on it to zero (or move them) before the apply, or expect the destroy to wait for their tasks".to_string());
        }
        out.push(Effect {
            kind: EffectKind::CapacityDestroyed,
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
            helps.push("while instances are replaced, the remaining ones need free GPUs for the rescheduled tasks: `min_healthy_percentage = 100` with `max_healthy_percentage` above 100 launches new instances before terminating old ones".to_string());
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
            helps.push("set `scale_in_protected_instances = \"Refresh\"` in the refresh preferences so the instances that run GPU tasks are replaced too".to_string());
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

/// "its 4 GPU instances", from the group's desired capacity.
pub(super) fn instances(side: &Side<'_>, attr: &str, owner: &str) -> String {
    match side.get(&[attr]) {
        v @ Val::Known(_) => match v.as_f64() {
            Some(n) => format!("{owner} {} GPU instance{}", v.show(), plural(n)),
            None => format!("{owner} GPU instances"),
        },
        v @ (Val::Unknown | Val::Sensitive) => {
            format!("{owner} GPU instances (desired capacity {})", v.show())
        }
        Val::Absent => format!("{owner} GPU instances"),
    }
}
