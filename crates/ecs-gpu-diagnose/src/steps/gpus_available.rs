//! The `gpus-available` step: an instance has as many free GPUs as one task needs (ECS pins whole GPUs).

use super::*;

impl Diagnosis<'_> {
    pub(super) fn gpus_available(&mut self) -> Step {
        let id = StepId::GpusAvailable;
        let Some(need) = self.need else {
            return unknown(
                id,
                vec!["the GPUs one task needs are not known (see task-definition)".to_string()],
            );
        };
        if self.instances().is_none() {
            return unknown(id, vec![self.missing(Call::DescribeContainerInstances)]);
        }
        if self.gpu_instances.is_empty() {
            return unknown(
                id,
                vec!["no instance registers GPUs (see gpu-registration)".to_string()],
            );
        }
        let gpu = catalog().gpu_requirement.type_.as_str();
        let mut ev = Vec::new();
        let mut lines = Vec::new();
        let mut largest: Option<&ContainerInstance> = None;
        let mut largest_n = 0;
        let mut wrong_kind = Vec::new();
        for i in &self.gpu_instances {
            let registered = i.registered(gpu).map_or(0, |r| r.amount());
            // Whole GPUs place only on full-GPU types, a fraction only on the g6f/gr6f size with that
            // partition (catalog gpu_requirement rules; source keys ECS-GPU-SPEC, BOTO).
            let itype = i
                .attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE)
                .unwrap_or("");
            if let Lookup::Known(t) = catalog().lookup(itype) {
                let fits_kind = match need {
                    GpuNeed::Fraction(f) => t.gpus == Gpus::Fraction(f),
                    GpuNeed::Whole(_) | GpuNeed::All => t.gpus.fraction().is_none(),
                };
                if !fits_kind {
                    let offers = match t.gpus {
                        Gpus::Fraction(f) => format!("a {f} GPU partition"),
                        _ => "whole GPUs".to_string(),
                    };
                    lines.push((*i, format!("offers {offers}, not {}", need.describe())));
                    wrong_kind.push(*i);
                    continue;
                }
            }
            let Some(free) = i.remaining(gpu).map(|r| r.amount()) else {
                ev.push(format!(
                    "{}: remaining GPUs not reported",
                    i.label_with_type()
                ));
                continue;
            };
            if registered > largest_n {
                largest_n = registered;
                largest = Some(i);
            }
            let held = if need.fits(registered, free) {
                String::new()
            } else {
                self.holders_text(&[*i])
                    .map_or(String::new(), |h| format!(", held by {h}"))
            };
            lines.push((
                *i,
                format!(
                    "{free} of {registered} GPUs free, {} running{held}",
                    plural(
                        usize::try_from(i.running_tasks_count).unwrap_or(0),
                        "task",
                        "tasks"
                    )
                ),
            ));
            if need.fits(registered, free) {
                self.free_gpu_instances.push(i);
            }
        }
        ev.extend(grouped(lines));
        ev.push(format!("one task needs {}", need.describe()));
        if !self.free_gpu_instances.is_empty() {
            ev.insert(
                0,
                format!("enough free GPUs on {}", labels(&self.free_gpu_instances)),
            );
            return pass(id, ev);
        }
        if let Some(e) = self.event(&["gpu"]) {
            ev.push(e);
        }
        if wrong_kind.len() == self.gpu_instances.len() {
            return fail(
                id,
                ev,
                format!(
                    "no instance offers the kind of GPU the task asks for ({}): ECS places whole GPUs only on full-GPU instance types and a fraction only on the g6f/gr6f size with that partition",
                    need.describe()
                ),
                "match the GPU value to the instance type (`ecs-gpu types g6f.large` shows a type's GPU value), or launch the instance type the value is for".to_string(),
            );
        }
        if largest_n < need.at_least() {
            let itype = largest
                .and_then(|i| i.attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE))
                .unwrap_or("the largest instance");
            let bigger = bigger_type(itype, need.at_least());
            return fail(
                id,
                ev,
                format!(
                    "no instance has {} at all: the largest, {itype}, registers {largest_n}",
                    need.describe()
                ),
                match bigger {
                    Some(b) => format!("use an instance type with at least {} GPUs, such as {b}, or ask for fewer GPUs per task", need.at_least()),
                    None => format!("use an instance type with at least {} GPUs, or ask for fewer GPUs per task", need.at_least()),
                },
            );
        }
        if self.steady {
            // Every GPU held by running tasks while the service runs its desired count is a well
            // packed cluster, not a fault: what is missing is room for the next task.
            self.packed = true;
            ev.insert(
                0,
                format!(
                    "no instance has {} free, and the service runs its desired count: the cluster is fully packed (see the note on headroom)",
                    need.describe()
                ),
            );
            self.notes = self.headroom(need);
            return pass(id, ev);
        }
        let deploying = self.service.is_some_and(|s| s.deployments.len() > 1);
        let groups = self.linked_groups();
        for (g, _) in &groups {
            if g.max_size > 0 && g.desired_capacity >= g.max_size {
                ev.push(format!(
                    "Auto Scaling group `{}` is at its max size ({}), so it cannot add an instance",
                    g.auto_scaling_group_name, g.max_size
                ));
            }
        }
        let mut fix = self.more_gpus_fix(&groups);
        fix.push_str("; or stop tasks that hold GPUs, or use an instance type with more GPUs");
        if deploying {
            fix.push_str("; during this deployment the old tasks hold the GPUs: lower the service's `minimumHealthyPercent` (or raise the max size) so ECS can stop one before it starts its replacement");
        }
        let held = self
            .holders_text(&self.gpu_instances)
            .map_or(String::new(), |h| format!(", held by {h}"));
        fail(
            id,
            ev,
            format!(
                "every GPU is taken{held}: no instance has {} free; ECS pins whole GPUs to a task, so free CPU and memory on the instance do not help",
                need.describe()
            ),
            fix,
        )
    }

    /// What adds an instance with free GPUs, from each Auto Scaling group behind the service's
    /// capacity providers: a group at its max size needs a higher one; managed scaling ENABLED on
    /// a capacity provider the service places through adds instances for the tasks it cannot place
    /// (they wait in PROVISIONING), so the group grows unless a scaling activity fails; a service
    /// that does not place through that capacity provider gets no instance from it; without
    /// managed scaling nothing adds one by itself. Raising `targetCapacity` never helps: 100 is its
    /// maximum (API ManagedScaling), and a lower value only keeps spare instances.
    fn more_gpus_fix(
        &self,
        groups: &[(
            &crate::api::AutoScalingGroup,
            Option<&crate::api::CapacityProvider>,
        )],
    ) -> String {
        if groups.is_empty() {
            return "add GPU instances (raise the desired capacity of the Auto Scaling group that launches them)".to_string();
        }
        let strategy: Vec<&str> = self
            .service
            .map(|s| {
                s.capacity_provider_strategy
                    .iter()
                    .map(|c| c.capacity_provider.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let launch_type = self.service.and_then(|s| s.launch_type.as_deref());
        let activity = self.asg_evidence().1;
        let mut parts = Vec::new();
        for (g, cp) in groups {
            let name = &g.auto_scaling_group_name;
            if g.max_size > 0 && g.desired_capacity >= g.max_size {
                parts.push(format!(
                    "raise the max size of Auto Scaling group `{name}` (now {}) so an instance can be added",
                    g.max_size
                ));
                continue;
            }
            let managed = cp.and_then(|c| {
                c.auto_scaling_group_provider
                    .as_ref()?
                    .managed_scaling
                    .as_ref()?
                    .status
                    .as_deref()
            });
            let room = format!("{} of at most {}", g.desired_capacity, g.max_size);
            match (cp, managed) {
                (Some(cp), Some("ENABLED")) if strategy.contains(&cp.name.as_str()) => {
                    parts.push(match &activity {
                        Some((why, what)) => format!(
                            "managed scaling of capacity provider `{}` tries to add instances for the tasks it cannot place (`{name}` runs {room}), but the group does not grow: {why}; {what}",
                            cp.name
                        ),
                        None => format!(
                            "wait for the instance that managed scaling of capacity provider `{}` adds for the tasks it cannot place (they wait in PROVISIONING; `{name}` runs {room}); if the group does not grow, read its scaling activities",
                            cp.name
                        ),
                    });
                }
                (Some(cp), Some("ENABLED")) if !strategy.is_empty() || launch_type.is_some() => {
                    parts.push(format!(
                        "the service does not place its tasks through capacity provider `{}`{}, so its managed scaling adds no instance for them: put the service on `{}` in its capacity provider strategy, or raise the desired capacity of `{name}` ({room})",
                        cp.name,
                        launch_type.map_or(String::new(), |l| format!(" (launch type {l})")),
                        cp.name
                    ));
                }
                (Some(cp), Some(status)) if status != "ENABLED" => parts.push(format!(
                    "raise the desired capacity of Auto Scaling group `{name}` ({room}): managed scaling of capacity provider `{}` is {status}, so nothing adds an instance by itself",
                    cp.name
                )),
                _ => parts.push(format!(
                    "raise the desired capacity of Auto Scaling group `{name}` ({room})"
                )),
            }
        }
        parts.join("; ")
    }

    /// Who holds the GPUs of these instances: the groups of the tasks the input lists on them
    /// (`service:other (2 tasks)`), and how many more tasks they run that the input does not list.
    pub(super) fn holders_text(&self, instances: &[&ContainerInstance]) -> Option<String> {
        let tasks = self.inputs.tasks.as_ref().map(|t| t.tasks.as_slice())?;
        let mut groups: Vec<(String, usize)> = Vec::new();
        let mut unlisted: i64 = 0;
        for i in instances {
            let on: Vec<&Task> = tasks
                .iter()
                .filter(|t| {
                    t.container_instance_arn.is_some()
                        && t.container_instance_arn == i.container_instance_arn
                        && match t.desired_status.as_deref() {
                            Some(d) => d == "RUNNING",
                            None => matches!(t.last_status.as_deref(), Some("PENDING" | "RUNNING")),
                        }
                })
                .collect();
            // The tasks that hold GPUs when the input says (`gpuIds`), else every task on it.
            let with_ids: Vec<&Task> = on
                .iter()
                .copied()
                .filter(|t| t.containers.iter().any(|c| !c.gpu_ids.is_empty()))
                .collect();
            let holding = if with_ids.is_empty() {
                on.clone()
            } else {
                with_ids
            };
            for t in holding {
                let g = t
                    .group
                    .clone()
                    .unwrap_or_else(|| "a task with no group".to_string());
                match groups.iter_mut().find(|(x, _)| *x == g) {
                    Some((_, n)) => *n += 1,
                    None => groups.push((g, 1)),
                }
            }
            unlisted +=
                (i.running_tasks_count - i64::try_from(on.len()).unwrap_or(i64::MAX)).max(0);
        }
        if groups.is_empty() {
            return None;
        }
        let mut parts: Vec<String> = groups
            .iter()
            .take(LIST_MAX)
            .map(|(g, n)| format!("`{g}` ({})", plural(*n, "task", "tasks")))
            .collect();
        if unlisted > 0 {
            parts.push(format!(
                "{} the input does not list",
                plural(
                    usize::try_from(unlisted).unwrap_or(0),
                    "more task",
                    "more tasks"
                )
            ));
        }
        Some(parts.join(", "))
    }
}

/// The smallest supported instance type of the same family with at least `n` GPUs.
fn bigger_type(itype: &str, n: i64) -> Option<String> {
    let family = ecs_gpu_catalog::family_of(itype);
    catalog()
        .instance_types()
        .iter()
        .filter(|t| t.family == family && t.is_supported())
        .filter(|t| t.gpus.whole().is_some_and(|g| i64::from(g) >= n))
        .min_by_key(|t| (t.gpus.whole(), t.vcpus))
        .map(|t| t.name.clone())
}

impl<'a> Diagnosis<'a> {
    /// For a packed service: whether the next deployment or scale-out finds room, from the capacity
    /// provider's group and the service's deployment configuration.
    pub(super) fn headroom(&self, need: GpuNeed) -> Vec<String> {
        let mut notes = vec![format!(
            "no headroom: no instance has {} free for one more task, so a scale-out or a deployment that starts new tasks before stopping old ones needs another instance",
            need.describe()
        )];
        let groups = self.linked_groups();
        if self.inputs.auto_scaling_groups.is_none() {
            notes.push(
                "whether the capacity provider can add an instance is not known: add describe-auto-scaling-groups.json and describe-capacity-providers.json".to_string(),
            );
        }
        for (g, cp) in &groups {
            let managed = cp.and_then(|c| {
                c.auto_scaling_group_provider
                    .as_ref()?
                    .managed_scaling
                    .as_ref()?
                    .status
                    .as_deref()
            });
            let who = match cp {
                Some(c) => format!("capacity provider `{}`", c.name),
                None => "the capacity provider".to_string(),
            };
            let line = if g.desired_capacity >= g.max_size {
                format!(
                    "{who} cannot add an instance: Auto Scaling group `{}` is at its max size ({}); raise the max size to leave room",
                    g.auto_scaling_group_name, g.max_size
                )
            } else if managed == Some("ENABLED") {
                format!(
                    "{who} can add an instance: Auto Scaling group `{}` runs {} of at most {} and managed scaling is ENABLED",
                    g.auto_scaling_group_name, g.desired_capacity, g.max_size
                )
            } else {
                format!(
                    "Auto Scaling group `{}` has room ({} of at most {}), but managed scaling is {}, so ECS does not add an instance by itself: raise the desired capacity before a deployment or scale-out",
                    g.auto_scaling_group_name,
                    g.desired_capacity,
                    g.max_size,
                    managed.map_or_else(|| "not known".to_string(), |m| format!("`{m}`"))
                )
            };
            notes.push(line);
        }
        if let Some(s) = self.service {
            match &s.deployment_configuration {
                Some(c) => {
                    let min = c.minimum_healthy_percent;
                    let max = c.maximum_percent;
                    let shown =
                        |v: Option<i64>| v.map_or_else(|| "not set".to_string(), |v| v.to_string());
                    if min.is_some_and(|m| m >= 100) {
                        notes.push(format!(
                            "deployment: `minimumHealthyPercent` {} and `maximumPercent` {} make ECS start each new task before it stops an old one, and the new task needs a free GPU; without an instance to add, lower `minimumHealthyPercent` below 100 so ECS may stop an old task first",
                            shown(min),
                            shown(max)
                        ));
                    } else {
                        notes.push(format!(
                            "deployment: `minimumHealthyPercent` {} lets ECS stop old tasks before it starts new ones, so a deployment frees GPUs for its new tasks (`maximumPercent` {})",
                            shown(min),
                            shown(max)
                        ));
                    }
                }
                None => notes.push(
                    "deployment: the service's `deploymentConfiguration` is not in the input"
                        .to_string(),
                ),
            }
        }
        notes
    }
}
