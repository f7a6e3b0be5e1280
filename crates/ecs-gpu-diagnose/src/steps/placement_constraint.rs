//! The `placement-constraint` step: some instance with free GPUs satisfies the `memberOf` expressions.

use super::*;

impl Diagnosis<'_> {
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
            match Expression::parse(text) {
                Ok(e) => exprs.push((*from, text, e)),
                // Deeper than the parser reads: not known to be wrong, so not judged.
                Err(err) if err.too_deep => {
                    ev.push(format!(
                        "{from} constraint nested deeper than {} levels: not read",
                        ecs_gpu_query::MAX_NESTING
                    ));
                    return unknown(id, ev);
                }
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
        let tasks: Result<&[Task], String> = match &self.inputs.tasks {
            Some(t) => Ok(&t.tasks),
            None => Err(self.missing(Call::DescribeTasks)),
        };
        let facts: Vec<InstanceFacts<'_>> = pool
            .iter()
            .map(|i| InstanceFacts::new(i, tasks.clone()))
            .collect();
        // Per instance: every constraint holds so far (`ok`), none is known to fail (`maybe`).
        let mut ok = vec![true; pool.len()];
        let mut maybe = vec![true; pool.len()];
        let mut undecided_why: Vec<String> = Vec::new();
        let mut first_blocking: Option<(&str, &str, &Expression)> = None;
        for (from, text, e) in &exprs {
            let results: Vec<Truth> = facts.iter().map(|f| satisfies(e, f)).collect();
            let matching = results.iter().filter(|r| **r == Truth::True).count();
            let undecided = results.iter().filter(|r| **r == Truth::Unknown).count();
            let mut line = format!(
                "{from} constraint `memberOf {text}` matches {matching} of {}",
                plural(pool.len(), "instance", "instances")
            );
            if undecided > 0 {
                line.push_str(&format!(" ({undecided} undecided)"));
                for c in e.conditions() {
                    for f in &facts {
                        if eval_condition(c, f) == Truth::Unknown {
                            let why = undecided_reason(c, f);
                            if !undecided_why.contains(&why) {
                                undecided_why.push(why);
                            }
                        }
                    }
                }
            }
            ev.push(line);
            for (k, r) in results.iter().enumerate() {
                ok[k] &= *r == Truth::True;
                maybe[k] &= *r != Truth::False;
            }
            if matching == 0 && undecided == 0 && first_blocking.is_none() {
                first_blocking = Some((from, text, e));
            }
        }
        let mut ok: Vec<&ContainerInstance> = pool
            .iter()
            .zip(&ok)
            .filter(|(_, k)| **k)
            .map(|(i, _)| *i)
            .collect();
        let mut maybe: Vec<&ContainerInstance> = pool
            .iter()
            .zip(&maybe)
            .filter(|(_, k)| **k)
            .map(|(i, _)| *i)
            .collect();
        if distinct {
            match &self.inputs.tasks {
                Some(t) => {
                    let busy: Vec<&str> = self
                        .group_tasks(&t.tasks)
                        .filter(|t| t.last_status.as_deref() == Some("RUNNING"))
                        .filter_map(|t| t.container_instance_arn.as_deref())
                        .collect();
                    let free = |i: &&ContainerInstance| {
                        !i.container_instance_arn
                            .as_deref()
                            .is_some_and(|a| busy.contains(&a))
                    };
                    ok.retain(free);
                    maybe.retain(free);
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
        if !maybe.is_empty() {
            // Only an instance that is fully described makes a condition true or false; a condition
            // left unknown (the groups of tasks the input does not list, a Java-only regular
            // expression, values ECS documents no order for) may go either way in ECS, so the step
            // is undecided rather than failed.
            ev.extend(undecided_why.into_iter().map(|w| format!("undecided: {w}")));
            ev.push(format!(
                "the constraints may hold on {}; the input does not decide it",
                labels(&maybe)
            ));
            self.placeable = Some(maybe);
            return unknown(id, ev);
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
        let hints = typo_hints(e, &facts);
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

/// Whether an instance satisfies a `memberOf` expression. `&&` binds tighter than `||` (Java's
/// precedence, which the ECS guide does not contradict; docs/diagnose.md states it), so
/// an expression that mixes them without parentheses has one meaning here. The result is true or
/// false on a fully described instance; it is unknown only when a condition is (see
/// [`undecided_reason`]).
fn satisfies(e: &Expression, f: &InstanceFacts<'_>) -> Truth {
    e.evaluate_with(Precedence::AndFirst, f)
}

/// Why a condition is neither true nor false on an instance.
fn undecided_reason(c: &Condition, f: &InstanceFacts<'_>) -> String {
    if let Some(why) = f.unknown_reason(&c.subject) {
        return why;
    }
    let args = c.argument.values();
    match c.operator {
        Operator::Matches | Operator::NotMatches => {
            if let Some(p) = args.iter().find(|a| whole_match_regex(&a.text).is_none()) {
                return format!(
                    "`{c}`: the pattern `{}` is Java-only syntax or not a regular expression, which this tool cannot evaluate",
                    p.text
                );
            }
        }
        Operator::Gt | Operator::Ge | Operator::Lt | Operator::Le => {
            return format!(
                "`{c}`: the values do not compare as numbers, versions or dates, and ECS documents no other order"
            );
        }
        _ => {}
    }
    format!("`{c}` cannot be decided on {}", f.instance.label())
}

/// For each attribute comparison that matches no instance, what the instances have instead, with a
/// "did you mean" when a value or attribute name is one typo away.
fn typo_hints(e: &Expression, facts: &[InstanceFacts<'_>]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for c in e.conditions() {
        // Hints only for a condition known to fail on every instance.
        let fails_everywhere = facts.iter().all(|f| eval_condition(c, f) == Truth::False);
        if !fails_everywhere {
            continue;
        }
        let Subject::Attribute(name) = &c.subject else {
            let seen: Vec<String> = facts
                .iter()
                .flat_map(|f| match f.fact(&c.subject) {
                    Fact::Values(v) => v.into_iter().map(|s| s.into_owned()).collect(),
                    Fact::Absent | Fact::Unknown => Vec::new(),
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
        let mut values: Vec<&str> = facts
            .iter()
            .filter_map(|f| f.instance.attribute(name))
            .collect();
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            let mut names: Vec<&str> = facts
                .iter()
                .flat_map(|f| f.instance.attributes.iter().map(|a| a.name.as_str()))
                .collect();
            names.sort_unstable();
            names.dedup();
            match nearest(name, &names) {
                Some(n) if c.operator != Operator::NotExists => out.push((
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
        if matches!(c.operator, Operator::Eq | Operator::In) {
            if let Some((a, n)) = c
                .argument
                .values()
                .iter()
                .filter(|a| !is_real_value(name, &a.text))
                .find_map(|a| nearest(&a.text, &values).map(|n| (&a.text, n)))
            {
                line.push_str(&format!(": did you mean `{n}` for `{a}`?"));
                suggestion = Some(format!("`{n}` for `{a}`"));
            }
        }
        out.push((line, suggestion));
    }
    out
}

/// Whether `value` is a real value of the attribute `name`, so no "did you mean" may replace it:
/// an instance type the catalog knows (a GPU type or an EC2 type without GPUs). `g5.xlarge` in a
/// constraint on a cluster of `g5.12xlarge` is a choice, not a typo, and following a hint to the
/// bigger type would multiply the cost.
fn is_real_value(name: &str, value: &str) -> bool {
    name == ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE
        && !matches!(catalog().lookup(value), Lookup::Unknown { .. })
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

/// The longest attribute name or value a "did you mean" is looked for, in characters: ECS takes
/// attribute names and values of at most 128 characters (PutAttributes), and the comparison costs
/// the product of the two lengths, so a longer text is no typo of an attribute and is not compared.
pub(crate) const NEAREST_MAX_CHARS: usize = 128;

/// The closest of `options` to `s` when it is close enough to be a typo (and not `s` itself).
fn nearest<'o>(s: &str, options: &[&'o str]) -> Option<&'o str> {
    let short =
        |t: &str| t.len() <= 4 * NEAREST_MAX_CHARS && t.chars().count() <= NEAREST_MAX_CHARS;
    if !short(s) {
        return None;
    }
    options
        .iter()
        .filter(|o| **o != s && short(o))
        .map(|o| (strsim::jaro_winkler(s, o), *o))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, o)| o)
}
