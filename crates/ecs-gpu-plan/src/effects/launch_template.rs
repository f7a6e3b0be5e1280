//! `aws_launch_template` and `aws_launch_configuration`: a change makes a new version (or a new
//! configuration) that only launches of new instances use, unless an instance refresh rolls it out.

use super::relations::{group_template_version, template_groups};
use super::{changed, list, metadata_only, relate, METADATA};
use crate::model::{Change, Model};
use crate::value::Val;
use crate::{Effect, EffectKind};

/// Whether a group rolls a template change out to its running instances.
pub(super) enum Rollout {
    /// The group's template reference changes and it has an `instance_refresh`: the group reports
    /// the `instance-replacement`.
    Refresh,
    /// The group is replaced or destroyed: reported as `capacity-destroyed`.
    Replaced,
    /// Nothing rolls it out; why, and what to do.
    No { why: String, help: String },
}

pub(super) fn effects(m: &Model, i: usize, c: &Change, out: &mut Vec<Effect>) {
    let r = &m.resources[i];
    let keys = changed(c);
    if c.is_update() && keys.iter().all(|k| METADATA.contains(&k.as_str())) {
        out.extend(metadata_only(m, i, c));
        return;
    }
    if !(c.is_update() || c.is_replace()) {
        return;
    }
    let what = content(m, i, c);
    let groups = template_groups(m, i);
    let noun = if r.type_ == "aws_launch_configuration" {
        "a new launch configuration"
    } else {
        "a new launch template version"
    };
    let maybe = if c.after().is_unknown(&["image_id"]) && keys.len() == 1 {
        "may make"
    } else {
        "makes"
    };
    if groups.is_empty() {
        out.push(Effect {
            kind: EffectKind::NotReachingRunningInstances,
            address: r.address.clone(),
            related: Vec::new(),
            message: format!(
                "{maybe} {noun} ({what}), but no Auto Scaling group in this plan launches from it: nothing here rolls it out to running instances"
            ),
            help: None,
        });
        return;
    }
    for g in groups {
        match rollout(m, g, i) {
            Rollout::Refresh | Rollout::Replaced => {}
            Rollout::No { why, help } => {
                let mut related = Vec::new();
                relate(&mut related, m, &[g]);
                out.push(Effect {
                    kind: EffectKind::NotReachingRunningInstances,
                    address: r.address.clone(),
                    related,
                    message: format!(
                        "{maybe} {noun} ({what}) that no running instance gets: {why}; running GPU instances of `{}` keep the old AMI and NVIDIA driver until something replaces them",
                        m.resources[g].address
                    ),
                    help: Some(help),
                });
            }
        }
    }
}

/// What changes in a template, with the AMI before and after when known and not sensitive.
pub(super) fn content(m: &Model, i: usize, c: &Change) -> String {
    let r = &m.resources[i];
    let keys: Vec<String> = changed(c)
        .into_iter()
        .filter(|k| !METADATA.contains(&k.as_str()) && k != "name" && k != "arn" && k != "id")
        .collect();
    let mut s = if keys.is_empty() {
        format!("`{}` is replaced", r.address)
    } else {
        format!(
            "{} change{}",
            list(keys.iter().map(String::as_str)),
            if keys.len() == 1 { "s" } else { "" }
        )
    };
    if c.changes(&["image_id"]) {
        let before = c.before().get(&["image_id"]);
        let after = c.after().get(&["image_id"]);
        if before != Val::Absent {
            s.push_str(&format!(", AMI `{}` -> `{}`", before.show(), after.show()));
        }
    }
    s
}

/// How a group treats a change to template `t`.
pub(super) fn rollout(m: &Model, g: usize, t: usize) -> Rollout {
    let group = &m.resources[g];
    let template = &m.resources[t];
    let ta = template.address.as_str();
    let gc = group.change.as_ref();
    if gc.is_some_and(|c| c.has("delete")) {
        return Rollout::Replaced;
    }
    let after = group.after();
    let refresh = after.has_block(&["instance_refresh"]);
    let reference_changes = gc.is_some_and(|c| {
        c.is_update()
            && (c.changes(&["launch_template"])
                || c.changes(&["mixed_instances_policy"])
                || c.changes(&["launch_configuration"]))
    });
    // The reference as written inside the group's own module.
    let local = format!(
        "{}.{}",
        template.type_,
        template
            .config_address
            .rsplit('.')
            .next()
            .unwrap_or_default()
    );
    let add_refresh = if template.type_ == "aws_launch_configuration" {
        format!(
            "add an `instance_refresh` block to `{}`: a change of its `launch_configuration` then starts a refresh",
            group.address
        )
    } else if refresh {
        format!(
            "set the launch template `version = {local}.latest_version` in `{}`: its `instance_refresh` then starts on every new version",
            group.address
        )
    } else {
        format!(
            "add an `instance_refresh` block to `{}` and set its launch template `version = {local}.latest_version`, so every new version starts a refresh",
            group.address
        )
    };
    if reference_changes {
        return if refresh {
            Rollout::Refresh
        } else {
            Rollout::No {
                why: "the group moves to it, but has no `instance_refresh` block, so only instances launched from now on use it".to_string(),
                help: add_refresh,
            }
        };
    }
    if template.type_ == "aws_launch_configuration" {
        return Rollout::No {
            why: "the group's `launch_configuration` does not change in this plan".to_string(),
            help: format!(
                "refer to `{ta}` by its `name` in the group, with an `instance_refresh` block"
            ),
        };
    }
    match group_template_version(&after) {
        Val::Known(v) if v.as_str() == Some("$Latest") => Rollout::No {
            why: "the group launches from `$Latest`, so only instances launched from now on use it; the group itself does not change, so no instance refresh starts".to_string(),
            help: add_refresh,
        },
        Val::Known(v) if v.as_str() == Some("$Default") => default_version(m, t, add_refresh),
        Val::Absent => default_version(m, t, add_refresh),
        v @ Val::Known(_) => Rollout::No {
            why: format!(
                "the group is pinned to version `{}`, so even new instances launch from the old version",
                v.show()
            ),
            help: add_refresh,
        },
        v => Rollout::No {
            why: format!("the group's launch template version is {} and does not change", v.show()),
            help: add_refresh,
        },
    }
}

fn default_version(m: &Model, t: usize, help: String) -> Rollout {
    let template = &m.resources[t];
    if template.after().bool(&["update_default_version"]) == Some(true) {
        Rollout::No {
            why: "the group launches from `$Default`, which `update_default_version` moves to the new version, so only instances launched from now on use it; no instance refresh starts".to_string(),
            help,
        }
    } else {
        Rollout::No {
            why: "the group launches from `$Default` and the new version does not become the default, so even new instances launch from the old version".to_string(),
            help,
        }
    }
}
