//! The `placement-constraint` step: some instance with free GPUs satisfies the `memberOf` expressions.

use super::*;

impl Walk<'_> {
    pub(super) fn placement_constraint(&mut self) -> Step {
        let id = StepId::PlacementConstraint;
        if self.task_def.is_none() {
            return unknown(id, vec![self.missing(Call::DescribeTaskDefinition)]);
        }
        let mut constraints: Vec<(&str, &PlacementConstraint)> = Vec::new();
        if let Some(s) = self.service {
            constraints.extend(s.placement_constraints.iter().map(|c| ("service", c)));
        }
        if let Some(td) = self.task_def {
            constraints.extend(
                td.placement_constraints
                    .iter()
                    .map(|c| ("task definition", c)),
            );
        }
        let mut ev = Vec::new();
        if self.service.is_none() {
            if let Some(e) = self.inputs.error(Call::DescribeServices) {
                ev.push(format!("service constraints not checked: {e}"));
            }
        }
        let distinct = constraints
            .iter()
            .any(|(_, c)| c.type_.as_deref() == Some("distinctInstance"));
        let mut exprs = Vec::new();
        for (from, c) in &constraints {
            if c.type_.as_deref() != Some("memberOf") {
                continue;
            }
            let text = c.expression.as_deref().unwrap_or("");
            match Expr::parse(text) {
                Ok(e) => exprs.push((*from, text, e)),
                Err(err) => {
                    ev.push(format!("{from} constraint `{text}`"));
                    return fail(
                        id,
                        ev,
                        format!("the {from}'s placement constraint `{text}` does not parse: {err}"),
                        "fix the expression; the cluster query language is `subject operator argument`, for example `attribute:ecs.instance-type == g5.xlarge`".to_string(),
                    );
                }
            }
        }
        if exprs.is_empty() && !distinct {
            ev.push("no placement constraint".to_string());
            self.placeable = Some(self.free_gpu_instances.clone());
            return pass(id, ev);
        }
        if self.instances().is_none() {
            ev.extend(
                exprs
                    .iter()
                    .map(|(from, t, _)| format!("{from} constraint `memberOf {t}`")),
            );
            ev.push(self.missing(Call::DescribeContainerInstances));
            return unknown(id, ev);
        }
        // The instances that matter: those with free GPUs; if none, those with GPUs; if none, all
        // candidates, so a typo still shows even while an earlier step fails.
        let (pool, which): (Vec<&ContainerInstance>, &str) = [
            (&self.free_gpu_instances, "instance with a free GPU"),
            (&self.gpu_instances, "instance with GPUs"),
            (&self.candidates, "instance"),
        ]
        .into_iter()
        .find(|(p, _)| !p.is_empty())
        .map(|(p, w)| (p.clone(), w))
        .unwrap_or_default();
        if pool.is_empty() {
            ev.extend(
                exprs
                    .iter()
                    .map(|(from, t, _)| format!("{from} constraint `memberOf {t}`")),
            );
            ev.push("no instance to evaluate them against (see capacity)".to_string());
            return unknown(id, ev);
        }
        let group = self.task_group();
        let mut ok: Vec<&ContainerInstance> = pool.clone();
        let mut first_blocking: Option<(&str, &str, &Expr)> = None;
        for (from, text, e) in &exprs {
            let matching: Vec<&ContainerInstance> = pool
                .iter()
                .copied()
                .filter(|i| {
                    e.eval(&Context {
                        instance: i,
                        task_group: group.as_deref(),
                    })
                })
                .collect();
            ev.push(format!(
                "{from} constraint `memberOf {text}` matches {} of {}",
                matching.len(),
                plural(pool.len(), "instance", "instances")
            ));
            ok.retain(|i| matching.iter().any(|m| std::ptr::eq(*m, *i)));
            if matching.is_empty() && first_blocking.is_none() {
                first_blocking = Some((from, text, e));
            }
        }
        if distinct {
            match &self.inputs.tasks {
                Some(t) => {
                    let busy: Vec<&str> = self
                        .group_tasks(&t.tasks)
                        .filter(|t| t.last_status.as_deref() == Some("RUNNING"))
                        .filter_map(|t| t.container_instance_arn.as_deref())
                        .collect();
                    ok.retain(|i| {
                        !i.container_instance_arn
                            .as_deref()
                            .is_some_and(|a| busy.contains(&a))
                    });
                    ev.push(format!(
                        "distinctInstance: {} already run a task of this group",
                        plural(busy.len(), "instance", "instances")
                    ));
                }
                None => ev.push(format!(
                    "distinctInstance not checked: {}",
                    self.missing(Call::DescribeTasks)
                )),
            }
        }
        if !ok.is_empty() {
            ev.push(format!("every constraint holds on {}", labels(&ok)));
            self.placeable = Some(ok);
            return pass(id, ev);
        }
        if let Some(e) = self.event(&["attribute", "constraint"]) {
            ev.push(e);
        }
        let Some((from, text, e)) = first_blocking else {
            let message = if distinct {
                "every instance that could take the task already runs one of its group, and `distinctInstance` allows one per instance".to_string()
            } else {
                "no instance satisfies all the placement constraints together".to_string()
            };
            self.placeable = Some(Vec::new());
            return fail(
                id,
                ev,
                message,
                "add instances, or loosen the constraints so one instance satisfies them all"
                    .to_string(),
            );
        };
        let hints = typo_hints(e, &pool, group.as_deref());
        ev.extend(hints.iter().map(|(h, _)| h.clone()));
        self.placeable = Some(Vec::new());
        let mut fix = format!("correct the {from}'s `placementConstraints` expression");
        if let Some(s) = hints.iter().find_map(|(_, s)| s.as_deref()) {
            fix.push_str(&format!(" (did you mean {s}?)"));
        }
        fix.push_str(if from == "service" {
            " with `aws ecs update-service --placement-constraints`; until then ECS leaves the task PENDING with no GPU-specific error"
        } else {
            " in a new task definition revision; until then ECS leaves the task PENDING with no GPU-specific error"
        });
        fail(
            id,
            ev,
            format!("no {which} satisfies the {from}'s placement constraint `{text}`"),
            fix,
        )
    }

    pub(super) fn group_tasks<'t>(&self, tasks: &'t [Task]) -> impl Iterator<Item = &'t Task> {
        let group = self.task_group();
        tasks
            .iter()
            .filter(move |t| group.is_none() || t.group == group)
    }
}

/// For each attribute comparison that matches no instance, what the instances have instead, with a
/// "did you mean" when a value or attribute name is one typo away.
fn typo_hints(
    e: &Expr,
    pool: &[&ContainerInstance],
    group: Option<&str>,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for c in e.comparisons() {
        let matches_any = pool.iter().any(|i| {
            c.eval(&Context {
                instance: i,
                task_group: group,
            })
        });
        if matches_any {
            continue;
        }
        let Subject::Attribute(name) = &c.subject else {
            let seen: Vec<String> = pool
                .iter()
                .filter_map(|i| {
                    c.value(&Context {
                        instance: i,
                        task_group: group,
                    })
                })
                .collect();
            out.push((
                format!(
                    "`{c}` holds on no instance; {} is {}",
                    c.subject,
                    join_seen(&seen)
                ),
                None,
            ));
            continue;
        };
        let mut values: Vec<&str> = pool.iter().filter_map(|i| i.attribute(name)).collect();
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            let mut names: Vec<&str> = pool
                .iter()
                .flat_map(|i| i.attributes.iter().map(|a| a.name.as_str()))
                .collect();
            names.sort_unstable();
            names.dedup();
            match nearest(name, &names) {
                Some(n) if !matches!(c.op, Op::NotExists) => out.push((
                    format!("no instance has the attribute `{name}`: did you mean `{n}`?"),
                    Some(format!("`attribute:{n}` for `attribute:{name}`")),
                )),
                _ => out.push((format!("no instance has the attribute `{name}`"), None)),
            }
            continue;
        }
        let shown: Vec<String> = values
            .iter()
            .take(LIST_MAX)
            .map(|v| format!("`{v}`"))
            .collect();
        let mut line = format!(
            "`{c}` holds on no instance; their `{name}` is {}",
            shown.join(", ")
        );
        let mut suggestion = None;
        if matches!(c.op, Op::Eq | Op::In) {
            if let Some((a, n)) = c
                .args
                .iter()
                .find_map(|a| nearest(a, &values).map(|n| (a, n)))
            {
                line.push_str(&format!(": did you mean `{n}` for `{a}`?"));
                suggestion = Some(format!("`{n}` for `{a}`"));
            }
        }
        out.push((line, suggestion));
    }
    out
}

fn join_seen(seen: &[String]) -> String {
    let mut v: Vec<&str> = seen.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        "not reported".to_string()
    } else {
        v.iter()
            .take(LIST_MAX)
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The closest of `options` to `s` when it is close enough to be a typo (and not `s` itself).
fn nearest<'o>(s: &str, options: &[&'o str]) -> Option<&'o str> {
    options
        .iter()
        .filter(|o| **o != s)
        .map(|o| (strsim::jaro_winkler(s, o), *o))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, o)| o)
}
