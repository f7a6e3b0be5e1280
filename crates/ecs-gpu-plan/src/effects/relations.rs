//! Which GPU-stack resources use which: through the configuration's references first, else by
//! matching values (a reference passed through a module variable leaves no trace in the
//! configuration of the resource that uses it, but the ARN or name it carries is in the values).

use crate::model::Model;
use crate::value::Side;

/// The string values at `path` on both sides of a resource (before and after), for matching.
fn strings<'a>(sides: [Side<'a>; 2], path: &[&str]) -> Vec<&'a str> {
    let mut out: Vec<&str> = sides.iter().filter_map(|s| s.str(path)).collect();
    out.dedup();
    out
}

fn sides(m: &Model, i: usize) -> [Side<'_>; 2] {
    let r = &m.resources[i];
    [r.before(), r.after()]
}

/// The string values at `path` in every element of the list at `list` (both sides).
fn list_strings<'a>(sides: [Side<'a>; 2], list: &str, path: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for s in sides {
        if let Some(items) = s.raw(&[list]).and_then(|v| v.as_array()) {
            for item in items {
                if let Some(v) = crate::value::lookup(item, path).and_then(|v| v.as_str()) {
                    out.push(v);
                }
            }
        }
    }
    out
}

fn by_reference_or_value(
    m: &Model,
    from: usize,
    to_type: &str,
    matches: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let found = m.referenced(from, to_type);
    if !found.is_empty() {
        return found;
    }
    m.of_type(to_type).filter(|&t| matches(t)).collect()
}

/// The task definitions a service runs.
pub(crate) fn service_task_definitions(m: &Model, svc: usize) -> Vec<usize> {
    let names = strings(sides(m, svc), &["task_definition"]);
    by_reference_or_value(m, svc, "aws_ecs_task_definition", |td| {
        let s = sides(m, td);
        let families = strings(s, &["family"]);
        let revisions: Vec<String> = s
            .iter()
            .filter_map(|s| s.raw(&["revision"]).map(ToString::to_string))
            .collect();
        let arns: Vec<&str> = strings(s, &["arn"])
            .into_iter()
            .chain(strings(s, &["arn_without_revision"]))
            .collect();
        names.iter().any(|n| {
            arns.contains(n)
                || families.iter().any(|f| {
                    n == f
                        || revisions
                            .iter()
                            .any(|r| *n == format!("{f}:{r}") || n.ends_with(&format!("/{f}:{r}")))
                })
        })
    })
}

/// Whether a service names its task definition by family only (the latest ACTIVE revision).
pub(crate) fn names_family_only(m: &Model, svc: usize, td: usize) -> bool {
    if let Some(attr) = m.referenced_attribute(svc, td) {
        return attr == "family";
    }
    let families = strings(sides(m, td), &["family"]);
    strings(sides(m, svc), &["task_definition"])
        .iter()
        .any(|n| families.contains(n))
}

/// The services that run a task definition.
pub(crate) fn task_definition_services(m: &Model, td: usize) -> Vec<usize> {
    m.of_type("aws_ecs_service")
        .filter(|&s| service_task_definitions(m, s).contains(&td))
        .collect()
}

/// The launch templates and launch configurations an Auto Scaling group launches from.
pub(crate) fn group_templates(m: &Model, asg: usize) -> Vec<usize> {
    let s = sides(m, asg);
    let mut ids = list_strings(s, "launch_template", &["id"]);
    ids.extend(list_strings(s, "launch_template", &["name"]));
    for key in ["launch_template_id", "launch_template_name"] {
        ids.extend(list_strings(
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
    let mut out = by_reference_or_value(m, asg, "aws_launch_template", |lt| {
        let t = sides(m, lt);
        strings(t, &["id"])
            .into_iter()
            .chain(strings(t, &["name"]))
            .any(|v| ids.contains(&v))
    });
    let lc_names = strings(s, &["launch_configuration"]);
    out.extend(by_reference_or_value(
        m,
        asg,
        "aws_launch_configuration",
        |lc| {
            strings(sides(m, lc), &["name"])
                .iter()
                .any(|n| lc_names.contains(n))
        },
    ));
    out
}

/// The Auto Scaling groups that launch from a launch template or configuration.
pub(crate) fn template_groups(m: &Model, template: usize) -> Vec<usize> {
    m.of_type("aws_autoscaling_group")
        .filter(|&g| group_templates(m, g).contains(&template))
        .collect()
}

/// The capacity providers over an Auto Scaling group.
pub(crate) fn group_capacity_providers(m: &Model, asg: usize) -> Vec<usize> {
    let arns = strings(sides(m, asg), &["arn"]);
    m.of_type("aws_ecs_capacity_provider")
        .filter(|&cp| {
            m.uses(cp, asg, || {
                list_strings(
                    sides(m, cp),
                    "auto_scaling_group_provider",
                    &["auto_scaling_group_arn"],
                )
                .iter()
                .any(|a| arns.contains(a))
            })
        })
        .collect()
}

/// The Auto Scaling groups under a capacity provider.
pub(crate) fn capacity_provider_groups(m: &Model, cp: usize) -> Vec<usize> {
    m.of_type("aws_autoscaling_group")
        .filter(|&g| group_capacity_providers(m, g).contains(&cp))
        .collect()
}

/// The services whose capacity provider strategy names a capacity provider.
pub(crate) fn capacity_provider_services(m: &Model, cp: usize) -> Vec<usize> {
    let names = strings(sides(m, cp), &["name"]);
    m.of_type("aws_ecs_service")
        .filter(|&svc| {
            m.uses(svc, cp, || {
                list_strings(
                    sides(m, svc),
                    "capacity_provider_strategy",
                    &["capacity_provider"],
                )
                .iter()
                .any(|n| names.contains(n))
            })
        })
        .collect()
}

/// The services in a cluster.
pub(crate) fn cluster_services(m: &Model, cluster: usize) -> Vec<usize> {
    let s = sides(m, cluster);
    let ids: Vec<&str> = strings(s, &["arn"])
        .into_iter()
        .chain(strings(s, &["name"]))
        .chain(strings(s, &["id"]))
        .collect();
    m.of_type("aws_ecs_service")
        .filter(|&svc| {
            m.uses(svc, cluster, || {
                strings(sides(m, svc), &["cluster"])
                    .iter()
                    .any(|c| ids.contains(c))
            })
        })
        .collect()
}

/// The Application Auto Scaling targets that scale a service's desired count.
pub(crate) fn service_scaling_targets(m: &Model, svc: usize) -> Vec<usize> {
    let s = sides(m, svc);
    let names = strings(s, &["name"]);
    let clusters: Vec<&str> = strings(s, &["cluster"])
        .into_iter()
        .map(|c| c.rsplit('/').next().unwrap_or(c))
        .collect();
    m.of_type("aws_appautoscaling_target")
        .filter(|&t| {
            m.uses(t, svc, || {
                strings(sides(m, t), &["resource_id"]).iter().any(|id| {
                    let parts: Vec<&str> = id.split('/').collect();
                    matches!(parts.as_slice(), ["service", c, n]
                        if names.contains(n) && (clusters.is_empty() || clusters.contains(c)))
                })
            })
        })
        .collect()
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
