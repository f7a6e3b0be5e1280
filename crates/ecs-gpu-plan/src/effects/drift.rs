//! `drift-revert`: a count that something outside Terraform changed (in `resource_drift`) and that
//! the plan sets back.

use super::relate;
use super::relations::{group_capacity_providers, service_scaling_targets};
use crate::model::Model;
use crate::{Effect, EffectKind};

const TARGET_CAPACITY: &[&str] = &[
    "auto_scaling_group_provider",
    "0",
    "managed_scaling",
    "0",
    "target_capacity",
];

pub(super) fn effects(m: &Model, out: &mut Vec<Effect>) {
    for (i, r) in m.resources.iter().enumerate() {
        let (Some(d), Some(c)) = (&r.drift, &r.change) else {
            continue;
        };
        if !c.is_update() {
            continue;
        }
        let paths: &[&[&str]] = match r.type_.as_str() {
            "aws_ecs_service" => &[&["desired_count"]],
            "aws_autoscaling_group" => &[&["desired_capacity"], &["min_size"], &["max_size"]],
            "aws_ecs_capacity_provider" => &[TARGET_CAPACITY],
            _ => continue,
        };
        let mut reverted = Vec::new();
        let mut attrs = Vec::new();
        for &path in paths {
            let (was, now) = (d.before().raw(path), d.after().raw(path));
            if was == now {
                continue;
            }
            let name = path.last().copied().unwrap_or_default();
            let (plan, sets) = if c.after().is_unknown(path) {
                (
                    c.after().get(path),
                    "may set it back, to a value known only after apply",
                )
            } else if c.after().raw(path) == now {
                continue;
            } else {
                (c.after().get(path), "")
            };
            let back = if sets.is_empty() {
                format!("the apply sets it back to {}", plan.show())
            } else {
                format!("the apply {sets}")
            };
            // Instances protected from scale-in are not terminated when the desired capacity
            // goes down: the group stays above its new desired capacity until protection ends.
            let protected = r.type_ == "aws_autoscaling_group"
                && r.current().raw(&["protect_from_scale_in"])
                    == Some(&crate::json_tree::Value::Bool(true));
            let effect = if protected && name == "desired_capacity" {
                match (d.after().get(path).as_f64(), plan.as_f64()) {
                    // The group cannot shrink while its instances are protected: the
                    // `apply-fails` entry of the group says what the apply does then.
                    (Some(now), Some(planned)) if planned < now => ", but the group's instances are protected from scale-in, so Auto Scaling terminates none of those that are protected".to_string(),
                    (now, planned) => consequence(r.type_.as_str(), name, now, planned),
                }
            } else {
                consequence(
                    r.type_.as_str(),
                    name,
                    d.after().get(path).as_f64(),
                    plan.as_f64(),
                )
            };
            reverted.push(format!(
                "`{name}` was changed outside Terraform from {} to {}; {back}{effect}",
                d.before().get(path).show(),
                d.after().get(path).show(),
            ));
            attrs.push(name);
        }
        if reverted.is_empty() {
            continue;
        }
        let mut related = Vec::new();
        let help = match r.type_.as_str() {
            "aws_ecs_service" => {
                let targets = service_scaling_targets(m, i);
                relate(&mut related, m, &targets);
                if targets.is_empty() {
                    "another actor (a person during an incident, a script) scaled the service: if the new count is right, write it in the code; `lifecycle { ignore_changes = [desired_count] }` is the fix only when something outside Terraform owns the count".to_string()
                } else {
                    "the count belongs to Application Auto Scaling: add `lifecycle { ignore_changes = [desired_count] }` to the service so applies stop resetting it".to_string()
                }
            }
            "aws_autoscaling_group" => {
                let managed: Vec<usize> = group_capacity_providers(m, i)
                    .into_iter()
                    .filter(|&cp| {
                        m.resources[cp].current().str(&[
                                "auto_scaling_group_provider",
                                "0",
                                "managed_scaling",
                                "0",
                                "status",
                            ]) == Some("ENABLED")
                    })
                    .collect();
                relate(&mut related, m, &managed);
                if !managed.is_empty() && attrs.contains(&"desired_capacity") {
                    "the desired capacity belongs to ECS managed scaling: add `lifecycle { ignore_changes = [desired_capacity] }` to the group so applies stop resetting it".to_string()
                } else {
                    "another actor (a person during an incident, a scaling policy) changed the group: if the new value is right, write it in the code; `ignore_changes` is the fix only when something outside Terraform owns the value".to_string()
                }
            }
            _ => "another actor changed the target capacity: if the new value is right, write it in the code".to_string(),
        };
        out.push(Effect {
            kind: EffectKind::DriftRevert,
            address: r.address.clone(),
            related,
            message: reverted.join("; "),
            help: Some(help),
        });
    }
}

/// What setting a count back does, when both numbers are known.
fn consequence(type_: &str, attr: &str, now: Option<f64>, planned: Option<f64>) -> String {
    let (Some(now), Some(planned)) = (now, planned) else {
        return String::new();
    };
    let diff = (now - planned).abs();
    let what = match (type_, attr) {
        ("aws_ecs_service", "desired_count") => "running GPU task",
        ("aws_autoscaling_group", "desired_capacity") => "GPU instance",
        _ => return String::new(),
    };
    let s = if (diff - 1.0).abs() < f64::EPSILON {
        ""
    } else {
        "s"
    };
    if planned < now {
        let verb = if what == "GPU instance" {
            "terminating"
        } else {
            "stopping"
        };
        format!(", {verb} {diff} {what}{s}")
    } else {
        let verb = if what == "GPU instance" {
            "launching"
        } else {
            "starting"
        };
        format!(", {verb} {diff} {}{s}", what.trim_start_matches("running "))
    }
}
