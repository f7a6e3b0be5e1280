//! Which GPU-stack resources use which: through the configuration's references first, else by
//! matching values (a reference passed through a module variable leaves no trace in the
//! configuration of the resource that uses it, but the ARN or name it carries is in the values).
//!
//! The edges are computed once per plan, with an index of identifying values, so a plan with
//! thousands of services costs no more than a linear pass.

use std::collections::HashMap;

use crate::model::{Model, Relations};
use crate::value::{lookup, Side};

/// What a resource of `from` type uses, and the values that identify it on each side.
struct Rule {
    from: &'static str,
    to: &'static str,
    /// The identifying strings that `from` carries.
    carried: fn(&[Side<'_>; 2]) -> Vec<String>,
    /// The identifying strings of a `to` resource.
    keys: fn(&[Side<'_>; 2]) -> Vec<String>,
}

const RULES: &[Rule] = &[
    Rule {
        from: "aws_ecs_service",
        to: "aws_ecs_task_definition",
        carried: |s| strings(s, &["task_definition"]),
        keys: |s| {
            let mut k = strings(s, &["arn"]);
            k.extend(strings(s, &["arn_without_revision"]));
            for side in s {
                if let (Some(f), Some(r)) = (side.str(&["family"]), side.raw(&["revision"])) {
                    k.push(format!("{f}:{r}"));
                }
            }
            k.extend(strings(s, &["family"]));
            k
        },
    },
    Rule {
        from: "aws_ecs_service",
        to: "aws_ecs_capacity_provider",
        carried: |s| list_strings(s, "capacity_provider_strategy", &["capacity_provider"]),
        keys: |s| strings(s, &["name"]),
    },
    Rule {
        from: "aws_ecs_service",
        to: "aws_ecs_cluster",
        carried: |s| strings(s, &["cluster"]),
        keys: |s| {
            let mut k = strings(s, &["arn"]);
            k.extend(strings(s, &["name"]));
            k
        },
    },
    Rule {
        from: "aws_autoscaling_group",
        to: "aws_launch_template",
        carried: |s| {
            let mut k = list_strings(s, "launch_template", &["id"]);
            k.extend(list_strings(s, "launch_template", &["name"]));
            for key in ["launch_template_id", "launch_template_name"] {
                k.extend(list_strings(
                    s,
                    "mixed_instances_policy",
                    &[
                        "launch_template",
                        "0",
                        "launch_template_specification",
                        "0",
                        key,
                    ],
                ));
            }
            k
        },
        keys: |s| {
            let mut k = strings(s, &["id"]);
            k.extend(strings(s, &["name"]));
            k
        },
    },
    Rule {
        from: "aws_autoscaling_group",
        to: "aws_launch_configuration",
        carried: |s| strings(s, &["launch_configuration"]),
        keys: |s| strings(s, &["name"]),
    },
    Rule {
        from: "aws_ecs_capacity_provider",
        to: "aws_autoscaling_group",
        carried: |s| {
            list_strings(
                s,
                "auto_scaling_group_provider",
                &["auto_scaling_group_arn"],
            )
        },
        keys: |s| strings(s, &["arn"]),
    },
    Rule {
        from: "aws_ecs_cluster_capacity_providers",
        to: "aws_ecs_capacity_provider",
        carried: |s| {
            let mut k = list_strings(s, "capacity_providers", &[]);
            k.extend(list_strings(
                s,
                "default_capacity_provider_strategy",
                &["capacity_provider"],
            ));
            k
        },
        keys: |s| strings(s, &["name"]),
    },
    Rule {
        from: "aws_appautoscaling_target",
        to: "aws_ecs_service",
        carried: |s| strings(s, &["resource_id"]),
        keys: |s| {
            let mut k = Vec::new();
            for side in s {
                if let (Some(c), Some(n)) = (side.str(&["cluster"]), side.str(&["name"])) {
                    let c = c.rsplit('/').next().unwrap_or(c);
                    k.push(format!("service/{c}/{n}"));
                }
            }
            k
        },
    },
];

impl Relations {
    /// The edges between the GPU-stack resources of `m` (for [`Model::build`]).
    pub(crate) fn build(m: &Model) -> Self {
        let n = m.resources.len();
        let mut rel = Relations {
            uses: vec![Vec::new(); n],
            used_by: vec![Vec::new(); n],
        };
        let sides: Vec<[Side<'_>; 2]> = m
            .resources
            .iter()
            .map(|r| [r.before(), r.after()])
            .collect();
        let mut index: HashMap<(&str, String), Vec<usize>> = HashMap::new();
        for rule in RULES {
            for t in m.of_type(rule.to) {
                for k in (rule.keys)(&sides[t]) {
                    let e = index.entry((rule.to, k)).or_default();
                    if !e.contains(&t) {
                        e.push(t);
                    }
                }
            }
        }
        for rule in RULES {
            for from in m.of_type(rule.from) {
                let mut to = m.referenced(from, rule.to);
                if to.is_empty() && !m.references_type(from, rule.to) {
                    for v in (rule.carried)(&sides[from]) {
                        if let Some(found) = index.get(&(rule.to, v)) {
                            to.extend(found);
                        }
                    }
                }
                for t in to {
                    if t != from && !rel.uses[from].contains(&t) {
                        rel.uses[from].push(t);
                        rel.used_by[t].push(from);
                    }
                }
            }
        }
        for v in rel.uses.iter_mut().chain(rel.used_by.iter_mut()) {
            v.sort_unstable();
        }
        rel
    }
}

/// The string values at `path` on both sides of a resource (before and after).
fn strings(sides: &[Side<'_>; 2], path: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = sides
        .iter()
        .filter_map(|s| s.str(path).map(str::to_string))
        .collect();
    out.dedup();
    out
}

/// The string values at `path` in every element of the list at `list` (both sides).
fn list_strings(sides: &[Side<'_>; 2], list: &str, path: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for s in sides {
        if let Some(items) = s.raw(&[list]).and_then(|v| v.as_array()) {
            for item in items {
                if let Some(v) = lookup(item, path).and_then(|v| v.as_str()) {
                    if !out.iter().any(|o| o == v) {
                        out.push(v.to_string());
                    }
                }
            }
        }
    }
    out
}

/// The task definitions a service runs.
pub(crate) fn service_task_definitions(m: &Model, svc: usize) -> Vec<usize> {
    m.relations.uses(m, svc, "aws_ecs_task_definition")
}

/// Whether a service names its task definition by family only (the latest ACTIVE revision).
pub(crate) fn names_family_only(m: &Model, svc: usize, td: usize) -> bool {
    if let Some(attr) = m.referenced_attribute(svc, td) {
        return attr == "family";
    }
    let t = &m.resources[td];
    let families = strings(&[t.before(), t.after()], &["family"]);
    let s = &m.resources[svc];
    strings(&[s.before(), s.after()], &["task_definition"])
        .iter()
        .any(|n| families.contains(n))
}

/// Whether a service's current `task_definition` is exactly the revision `td` had before the plan
/// (its ARN or `family:revision`), by value: a reference alone does not say which revision runs.
pub(crate) fn runs_this_revision(m: &Model, svc: usize, td: usize) -> bool {
    let t = m.resources[td].before();
    let mut revisions: Vec<String> = t.str(&["arn"]).map(str::to_string).into_iter().collect();
    if let (Some(f), Some(r)) = (t.str(&["family"]), t.raw(&["revision"])) {
        revisions.push(format!("{f}:{r}"));
    }
    m.resources[svc]
        .before()
        .str(&["task_definition"])
        .is_some_and(|n| revisions.iter().any(|r| r == n))
}

/// The services that run a task definition.
pub(crate) fn task_definition_services(m: &Model, td: usize) -> Vec<usize> {
    m.relations.used_by(m, td, "aws_ecs_service")
}

/// The launch templates and launch configurations an Auto Scaling group launches from.
pub(crate) fn group_templates(m: &Model, asg: usize) -> Vec<usize> {
    let mut t = m.relations.uses(m, asg, "aws_launch_template");
    t.extend(m.relations.uses(m, asg, "aws_launch_configuration"));
    t
}

/// The Auto Scaling groups that launch from a launch template or configuration.
pub(crate) fn template_groups(m: &Model, template: usize) -> Vec<usize> {
    m.relations.used_by(m, template, "aws_autoscaling_group")
}

/// The capacity providers over an Auto Scaling group.
pub(crate) fn group_capacity_providers(m: &Model, asg: usize) -> Vec<usize> {
    m.relations.used_by(m, asg, "aws_ecs_capacity_provider")
}

/// The Auto Scaling groups under a capacity provider.
pub(crate) fn capacity_provider_groups(m: &Model, cp: usize) -> Vec<usize> {
    m.relations.uses(m, cp, "aws_autoscaling_group")
}

/// The capacity providers a service's strategy names.
pub(crate) fn service_capacity_providers(m: &Model, svc: usize) -> Vec<usize> {
    m.relations.uses(m, svc, "aws_ecs_capacity_provider")
}

/// The services whose capacity provider strategy names a capacity provider.
pub(crate) fn capacity_provider_services(m: &Model, cp: usize) -> Vec<usize> {
    m.relations.used_by(m, cp, "aws_ecs_service")
}

/// The cluster associations (`aws_ecs_cluster_capacity_providers`) that list a capacity provider.
pub(crate) fn capacity_provider_associations(m: &Model, cp: usize) -> Vec<usize> {
    m.relations
        .used_by(m, cp, "aws_ecs_cluster_capacity_providers")
}

/// The services in a cluster.
pub(crate) fn cluster_services(m: &Model, cluster: usize) -> Vec<usize> {
    m.relations.used_by(m, cluster, "aws_ecs_service")
}

/// The Application Auto Scaling targets that scale a service's desired count.
pub(crate) fn service_scaling_targets(m: &Model, svc: usize) -> Vec<usize> {
    m.relations.used_by(m, svc, "aws_appautoscaling_target")
}

/// The version of its launch template a group launches from (`$Latest`, `$Default`, `3`), on the
/// given side.
pub(crate) fn group_template_version<'a>(side: &Side<'a>) -> crate::value::Val<'a> {
    let direct = side.get(&["launch_template", "0", "version"]);
    if direct != crate::value::Val::Absent || side.has_block(&["launch_template"]) {
        return direct;
    }
    side.get(&[
        "mixed_instances_policy",
        "0",
        "launch_template",
        "0",
        "launch_template_specification",
        "0",
        "version",
    ])
}
