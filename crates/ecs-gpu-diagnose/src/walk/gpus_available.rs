//! The `gpus-available` step: an instance has as many free GPUs as one task needs (ECS pins whole GPUs).

use super::*;

impl Walk<'_> {
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
            lines.push((
                *i,
                format!(
                    "{free} of {registered} GPUs free, {} running",
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
        let at_max: Vec<(&str, i64)> = self
            .inputs
            .auto_scaling_groups
            .iter()
            .flat_map(|g| &g.auto_scaling_groups)
            .filter(|g| g.max_size > 0 && g.desired_capacity >= g.max_size)
            .map(|g| (g.auto_scaling_group_name.as_str(), g.max_size))
            .collect();
        for (g, max) in &at_max {
            ev.push(format!(
                "Auto Scaling group `{g}` is at its max size ({max}), so it cannot add an instance"
            ));
        }
        let mut fix = match at_max.as_slice() {
            [] => "add GPU instances (raise the capacity provider's target capacity or the Auto Scaling group's desired capacity), stop tasks that hold GPUs, or use an instance type with more GPUs".to_string(),
            groups => format!(
                "raise the max size of Auto Scaling group {} so the capacity provider can add an instance, stop tasks that hold GPUs, or use an instance type with more GPUs",
                groups
                    .iter()
                    .map(|(g, max)| format!("`{g}` (now {max})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if deploying {
            fix.push_str("; during this deployment the old tasks hold the GPUs: lower the service's `minimumHealthyPercent` (or raise the max size) so ECS can stop one before it starts its replacement");
        }
        fail(
            id,
            ev,
            format!(
                "every GPU is taken: no instance has {} free; ECS pins whole GPUs to a task, so free CPU and memory on the instance do not help",
                need.describe()
            ),
            fix,
        )
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

impl<'a> Walk<'a> {
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
