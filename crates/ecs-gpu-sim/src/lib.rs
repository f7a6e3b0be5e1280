//! The model of Amazon ECS GPU placement and scaling: will the GPUs be there for this deployment,
//! this scale-out, this instance refresh?
//!
//! Pure: no I/O. The input is a [`Scenario`] (Auto Scaling groups behind capacity providers, and
//! services with what their tasks reserve and how they deploy) that adapters build from a Terraform
//! root (`ecs-gpu-stack`), a plan (`ecs-gpu-plan`) or a cluster's AWS CLI output
//! (`ecs-gpu-diagnose`). [`simulate`] answers each [`Event`] from the steady state: whether it
//! completes, is stuck or needs more than the group's `max_size`, the peak against that maximum, the
//! time line in steps, the GPUs left stranded and, with [`Prices`], the cost per hour. Every rule of
//! the model cites the AWS documentation it comes from ([`facts::RULES`]); an input that is not
//! known makes the answers that need it unknown, with the reason.
//!
//! ```
//! use ecs_gpu_sim::*;
//!
//! let mut group = Group::new("gpu");
//! group.launches = InstanceShape::from_catalog_all(&["g5.xlarge"]);
//! group.min_size = Known::Known(0);
//! group.max_size = Known::Known(1);
//! group.managed_scaling = Known::Known(Some(ManagedScaling {
//!     target_capacity: 100, min_step: 1, max_step: 10_000, warmup: 300,
//! }));
//! let mut svc = Service::new("infer");
//! svc.group = Known::Known("gpu".into());
//! svc.desired = Known::Known(1);
//! svc.task = Known::Known(TaskShape {
//!     family: "infer".into(), gpus: 1, cpu: 1024, memory: 8192, host_ports: vec![],
//! });
//! let scenario = Scenario { groups: vec![group], services: vec![svc] };
//!
//! // Rolling, 100% minimum healthy: the new task needs a second GPU, and `max_size` is 1.
//! let report = simulate(&scenario, &[Event::Deploy { service: "infer".into(), task: None }], None);
//! assert_eq!(report.answers[0].verdict.as_str(), "over-max");
//! ```

mod answer;
mod engine;
pub mod facts;
mod fleet;
pub mod render;
mod scenario;

use std::collections::BTreeMap;

use ecs_gpu_report::plural;

pub use answer::{Answer, Cost, DeploymentGpus, Event, GroupPeak, Report, Step, Stranded, Verdict};
pub use scenario::{
    Bound, Constraint, Deployment, Group, Instance, InstanceShape, Known, ManagedScaling, Memory,
    OnDemandShare, PoolState, ProtectedInstances, Refresh, Scenario, Service, Strategy, TaskShape,
    WarmPool, MPS_UNKNOWN,
};

/// Simulates each event from the scenario's steady state.
///
/// A group with several instance types launches whichever its allocation strategy picks, which no
/// input shows: such a scenario is simulated twice, every new instance the smallest type and
/// every new instance the largest, and an answer holds when both agree (else it is unknown, with
/// both outcomes).
pub fn simulate(scenario: &Scenario, events: &[Event], prices: Option<&Prices>) -> Report {
    if let Some(reason) = out_of_bounds(scenario, events) {
        return Report {
            answers: events
                .iter()
                .map(|e| Answer {
                    event: e.clone(),
                    verdict: Verdict::Unknown {
                        reason: reason.clone(),
                    },
                    groups: Vec::new(),
                    timeline: Vec::new(),
                    stranded: Vec::new(),
                    deployment: None,
                    cost: None,
                    notes: Vec::new(),
                })
                .collect(),
        };
    }
    let several = scenario
        .groups
        .iter()
        .any(|g| g.launches.known().is_some_and(|l| l.len() > 1));
    let mut small = engine::Sim::new(scenario, prices, Bound::Smallest);
    let mut large = several.then(|| engine::Sim::new(scenario, prices, Bound::Largest));
    Report {
        answers: events
            .iter()
            .map(|e| {
                let a = small.answer(e);
                match &mut large {
                    Some(l) => answer::merge_bounds(a, l.answer(e)),
                    None => a,
                }
            })
            .collect(),
    }
}

/// The most tasks of a service, instances of a group (its sizes, its warm pool) or tasks on an
/// instance the simulator takes. ECS's own quotas are far below it (5,000 tasks per service by
/// default), and the arithmetic of every answer stays far from overflowing with it.
pub const MAX_COUNT: u32 = 1_000_000;
/// The most GPUs, CPU units (1,024 a vCPU) and MiB of memory of one task or one instance the
/// simulator takes: far above any instance type (a p5.48xlarge has 8 GPUs, 192 vCPUs, 2 TiB).
pub const MAX_GPUS: u32 = 1_024;
pub const MAX_CPU: u32 = 1 << 24;
pub const MAX_MEMORY_MIB: u64 = 1 << 32;

/// Why the scenario or an event is past what the simulator takes ([`MAX_COUNT`], [`MAX_GPUS`],
/// [`MAX_CPU`], [`MAX_MEMORY_MIB`]), or `None`: every answer is then unknown with the reason.
fn out_of_bounds(sc: &Scenario, events: &[Event]) -> Option<String> {
    let count = |what: &str, n: u32| {
        (n > MAX_COUNT)
            .then(|| format!("{what} is {n}, more than the simulator takes ({MAX_COUNT})"))
    };
    let shape = |what: &str, gpus: u32, cpu: u32, memory: u64| {
        if gpus > MAX_GPUS {
            Some(format!(
                "{what} has {gpus} GPUs, more than the simulator takes ({MAX_GPUS})"
            ))
        } else if cpu > MAX_CPU {
            Some(format!(
                "{what} has {cpu} CPU units, more than the simulator takes ({MAX_CPU})"
            ))
        } else if memory > MAX_MEMORY_MIB {
            Some(format!(
                "{what} has {memory} MiB of memory, more than the simulator takes ({MAX_MEMORY_MIB})"
            ))
        } else {
            None
        }
    };
    let memory = |m: Memory| match m {
        Memory::Registered(v) | Memory::AtMost(v) => v,
    };
    for g in &sc.groups {
        let name = &g.name;
        for (what, n) in [("min_size", &g.min_size), ("max_size", &g.max_size)] {
            if let Some(why) = n
                .known()
                .and_then(|n| count(&format!("the {what} of `{name}`"), *n))
            {
                return Some(why);
            }
        }
        if let Some(Some(pool)) = g.warm_pool.known() {
            let prepared = pool.max_prepared.unwrap_or(0);
            if let Some(why) = count(
                &format!("the warm pool of `{name}`"),
                pool.min_size.max(prepared),
            ) {
                return Some(why);
            }
        }
        for s in g.launches.known().into_iter().flatten() {
            if let Some(why) = shape(
                &format!("`{}`", s.instance_type),
                s.gpus,
                s.cpu,
                memory(s.memory),
            ) {
                return Some(why);
            }
        }
        let instances = g.instances.known().map_or(&[][..], Vec::as_slice);
        if let Some(why) = count(
            &format!("the number of running instances of `{name}`"),
            u32::try_from(instances.len()).unwrap_or(u32::MAX),
        ) {
            return Some(why);
        }
        for i in instances {
            if let Some(why) = shape(
                &format!("instance `{}`", i.id),
                i.shape.gpus,
                i.shape.cpu,
                memory(i.shape.memory),
            ) {
                return Some(why);
            }
            for (_, n) in &i.tasks {
                if let Some(why) = count(&format!("the tasks on instance `{}`", i.id), *n) {
                    return Some(why);
                }
            }
        }
    }
    for s in &sc.services {
        if let Some(why) = s
            .desired
            .known()
            .and_then(|n| count(&format!("the desired count of `{}`", s.name), *n))
        {
            return Some(why);
        }
        if let Some(t) = s.task.known() {
            if let Some(why) = shape(&format!("a task of `{}`", s.name), t.gpus, t.cpu, t.memory) {
                return Some(why);
            }
        }
    }
    for e in events {
        match e {
            Event::Scale { service, to } => {
                if let Some(why) = count(&format!("the scale-out of `{service}`"), *to) {
                    return Some(why);
                }
            }
            Event::Deploy {
                service,
                task: Some(t),
            } => {
                if let Some(why) = shape(
                    &format!("the new task of `{service}`"),
                    t.gpus,
                    t.cpu,
                    t.memory,
                ) {
                    return Some(why);
                }
            }
            _ => {}
        }
    }
    None
}

/// The tasks of a service a deployment of `desired` runs at once: the fewest it needs to finish
/// (a rolling deployment whose minimum healthy percent keeps every old task running needs one
/// more; blue/green, linear and canary run both revisions at full size) and the most its bounds
/// let it start (the maximum percent). `None` when the bounds leave no room to start or stop a
/// task.
pub fn deployment_tasks(desired: u32, deployment: Deployment) -> Option<(u32, u32)> {
    let d = u64::from(desired);
    match deployment {
        Deployment::Rolling {
            minimum_healthy_percent,
            maximum_percent,
        } => {
            let lower = (d * u64::from(minimum_healthy_percent)).div_ceil(100);
            let upper = d * u64::from(maximum_percent) / 100;
            if d > 0 && upper <= lower {
                return None;
            }
            let least = d.max(lower + u64::from(d > 0));
            let most = upper.max(least);
            Some((u32::try_from(least).ok()?, u32::try_from(most).ok()?))
        }
        _ => {
            let both = desired.checked_mul(2)?;
            Some((both, both))
        }
    }
}

/// The GPUs of [`deployment_tasks`], when an old task reserves `old` GPUs and a new one `new`:
/// the fewest at once to finish and the most the bounds let it reserve.
pub(crate) fn deployment_gpus(
    desired: u32,
    (least, most): (u32, u32),
    old: u32,
    new: u32,
) -> (u64, u64) {
    let (d, old, new) = (u64::from(desired), u64::from(old), u64::from(new));
    let (big, small) = (old.max(new), old.min(new));
    // Old tasks stop and new ones start one for one: at any time the running tasks are some old
    // and some new, the larger size counting for all but the tasks beyond `desired`.
    let at = |tasks: u64| -> u64 {
        let extra = tasks.saturating_sub(d);
        if extra >= d {
            d * (old + new)
        } else {
            d * big + extra * small
        }
    };
    (at(u64::from(least)), at(u64::from(most)))
}

/// Prices per hour, by instance type.
pub type Prices = BTreeMap<String, Price>;

/// An instance type's price per hour, in dollars.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub on_demand: f64,
    #[serde(default)]
    pub spot: Option<f64>,
}

/// Why a prices file cannot be read.
#[derive(Debug)]
pub struct PricesError(pub String);

impl std::fmt::Display for PricesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PricesError {}

/// Reads prices: `{"g5.xlarge": {"on_demand": 1.006, "spot": 0.45}, ...}`.
///
/// # Errors
/// Not that JSON shape, or a price that is negative or not finite.
pub fn parse_prices(json: &str) -> Result<Prices, PricesError> {
    let prices: Prices = serde_json::from_str(json).map_err(|e| {
        PricesError(format!(
            "line {}: {e}; expected {{\"g5.xlarge\": {{\"on_demand\": 1.006, \"spot\": 0.45}}}}",
            e.line()
        ))
    })?;
    for (t, p) in &prices {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !ok(p.on_demand) || !p.spot.is_none_or(ok) {
            return Err(PricesError(format!(
                "`{t}`: a price must be a number of dollars per hour, 0 or more"
            )));
        }
    }
    Ok(prices)
}

/// The cost per hour of `n` instances at `price` with an On-Demand share, as a range: Auto Scaling
/// rounds the split between On-Demand and Spot in a way its documentation does not give.
pub(crate) fn cost_range(n: u32, share: OnDemandShare, price: &Price) -> Option<(f64, f64)> {
    let (od_lo, od_hi) = share.on_demand(n);
    let cost = |od: u32| -> Option<f64> {
        let spot = n - od;
        let spot_cost = if spot == 0 {
            0.0
        } else {
            price.spot? * f64::from(spot)
        };
        Some(f64::from(od) * price.on_demand + spot_cost)
    };
    let (a, b) = (cost(od_lo)?, cost(od_hi)?);
    Some((a.min(b), a.max(b)))
}

/// The arithmetic of a deployment against the most its group can hold: what `check` (GPU406) and
/// `plan` say without simulating time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeploymentNeed {
    pub service: String,
    pub group: String,
    /// The instance type the arithmetic counts with: the group's, or with several types the one
    /// that holds the most tasks of the service (no mix of them needs fewer instances).
    pub instance_type: String,
    /// Whether the group launches several instance types.
    pub several_types: bool,
    pub desired: u32,
    pub deployment: Deployment,
    /// Tasks that must run at once for the deployment to finish ([`deployment_tasks`]).
    pub tasks_at_once: u32,
    /// Tasks the deployment bounds let run at once (the maximum percent).
    pub tasks_at_most: u32,
    /// GPUs of one task.
    pub gpus_per_task: u32,
    /// Tasks of this service one empty instance holds (by GPUs, CPU, memory, ports,
    /// `distinctInstance`).
    pub tasks_per_instance: u32,
    pub gpus_per_instance: u32,
    pub max_size: u32,
    /// Tasks of other known services on the same group, and the instances they fill at least.
    pub other_tasks: Vec<(String, u32)>,
    pub instances_for_others: u32,
    /// Instances the deployment needs at its peak (with the other services' tasks).
    pub instances_needed: u32,
}

impl DeploymentNeed {
    /// Whether the group can ever hold the deployment's peak.
    pub fn holds(&self) -> bool {
        self.instances_needed <= self.max_size
    }

    /// The arithmetic, in one lowercase sentence.
    pub fn arithmetic(&self) -> String {
        let kind = match self.deployment {
            Deployment::Rolling {
                minimum_healthy_percent,
                maximum_percent,
            } => format!(
                "a rolling deployment (minimum healthy {minimum_healthy_percent}%, maximum {maximum_percent}%)"
            ),
            d => format!("a {} deployment (both revisions at full size)", d.name()),
        };
        let others = if self.other_tasks.is_empty() {
            String::new()
        } else {
            format!(
                ", besides {} for {}",
                plural(self.instances_for_others, "instance", "instances"),
                self.other_tasks
                    .iter()
                    .map(|(s, n)| format!("{n} of `{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let holder = if self.several_types {
            format!(
                "of the group's instance types, a `{}` ({}) holds the most of them, {}",
                self.instance_type,
                plural(self.gpus_per_instance, "GPU", "GPUs"),
                self.tasks_per_instance
            )
        } else {
            format!(
                "a `{}` ({}) holds {} of them",
                self.instance_type,
                plural(self.gpus_per_instance, "GPU", "GPUs"),
                self.tasks_per_instance
            )
        };
        format!(
            "{kind} of {} needs at least {} at once ({}) to finish; {holder}, so at least {} are needed{others}; `max_size` is {} ({})",
            plural(self.desired, "task", "tasks"),
            plural(self.tasks_at_once, "task", "tasks"),
            plural(
                u64::from(self.tasks_at_once) * u64::from(self.gpus_per_task),
                "GPU",
                "GPUs"
            ),
            plural(self.instances_needed, "instance", "instances"),
            self.max_size,
            plural(
                u64::from(self.max_size) * u64::from(self.gpus_per_instance),
                "GPU",
                "GPUs"
            ),
        )
    }
}

use serde::Serialize;

/// The arithmetic of deploying `service`: `None` unless every input is known (the group's
/// `max_size` and instance types, the service's desired count, deployment configuration, task and
/// placement constraints, and the same for the other services on the group).
pub fn deployment_need(scenario: &Scenario, service: &str) -> Option<DeploymentNeed> {
    let s = scenario.service(service)?;
    let svc = &scenario.services[s];
    let g = scenario.group(svc.group.known()?)?;
    let group = &scenario.groups[g];
    let shapes = group.launches.known()?;
    let max_size = *group.max_size.known()?;
    let desired = *svc.desired.known()?;
    let deployment = *svc.deployment.known()?;
    let task = svc.task.known()?;
    if task.gpus == 0 || desired == 0 {
        return None;
    }
    // With several types the largest holder counts: whatever mix launches needs at least as many
    // instances as that type alone.
    let mut best: Option<(&InstanceShape, u32)> = None;
    for shape in shapes {
        let per = tasks_per_instance(shape, task, svc)?;
        // Among types that hold as many, the largest is named.
        let key = |s: &InstanceShape, per: u32| (per, s.gpus, s.cpu, s.memory.mib());
        if best.is_none_or(|(b, bp)| key(shape, per) > key(b, bp)) {
            best = Some((shape, per));
        }
    }
    let (shape, per) = best?;
    if per == 0 {
        // No instance fits one task: GPU106/GPU107's finding, not this one.
        return None;
    }
    let (tasks_at_once, tasks_at_most) = deployment_tasks(desired, deployment)?;
    let mut other_tasks = Vec::new();
    for (i, o) in scenario.services.iter().enumerate() {
        if i == s || o.group.known().and_then(|n| scenario.group(n)) != Some(g) {
            continue;
        }
        let (Some(t), Some(&d)) = (o.task.known(), o.desired.known()) else {
            continue;
        };
        if d == 0 {
            continue;
        }
        // Tasks of another shape share instances in ways this arithmetic does not count: only
        // same-size tasks of services without their own constraints are added.
        if t.gpus != task.gpus
            || t.cpu != task.cpu
            || t.memory != task.memory
            || !t.host_ports.is_empty()
            || o.constraints.known().is_none_or(|c| !c.is_empty())
        {
            continue;
        }
        other_tasks.push((o.name.clone(), d));
    }
    // Same-size tasks pack together only without constraints or ports of this service's own.
    if !(svc.constraints.known().is_some_and(|c| c.is_empty()) && task.host_ports.is_empty()) {
        other_tasks.clear();
    }
    let others: u64 = other_tasks.iter().map(|(_, n)| u64::from(*n)).sum();
    let total = u64::from(tasks_at_once) + others;
    let instances_needed = u32::try_from(total.div_ceil(u64::from(per))).ok()?;
    let instances_for_others = u32::try_from(others.div_ceil(u64::from(per))).ok()?;
    Some(DeploymentNeed {
        service: svc.name.clone(),
        group: group.name.clone(),
        instance_type: shape.instance_type.clone(),
        several_types: shapes.len() > 1,
        desired,
        deployment,
        tasks_at_once,
        tasks_at_most,
        gpus_per_task: task.gpus,
        tasks_per_instance: per,
        gpus_per_instance: shape.gpus,
        max_size,
        other_tasks,
        instances_for_others,
        instances_needed,
    })
}

/// Tasks of a service one empty instance holds, by the placement rules of the model (the same
/// arithmetic the simulation places with): 0 where a `memberOf` excludes the type, `None` where it
/// may or may not.
fn tasks_per_instance(shape: &InstanceShape, task: &TaskShape, svc: &Service) -> Option<u32> {
    let constraints = svc.constraints.known()?;
    let caps = [fleet::Cap {
        instance_type: shape.instance_type.clone(),
        refreshed: false,
        gpus: shape.gpus,
        cpu: shape.cpu,
        memory: shape.memory.mib(),
        memory_exact: matches!(shape.memory, Memory::Registered(_)),
        of: vec![shape.instance_type.clone()],
    }];
    let kinds = [fleet::Kind {
        service: 0,
        new: false,
        gpus: task.gpus,
        cpu: task.cpu,
        memory: task.memory,
        ports: u64::from(!task.host_ports.is_empty()),
        distinct: constraints.contains(&Constraint::DistinctInstance),
    }];
    for c in constraints {
        if let Constraint::MemberOf(e) = c {
            let expr = ecs_gpu_query::Expression::parse(e).ok()?;
            let m = ecs_gpu_query::matching_instance_types(&expr, &[shape.instance_type.as_str()]);
            match m.first()?.result {
                ecs_gpu_query::Truth::True => {}
                ecs_gpu_query::Truth::False => return Some(0),
                ecs_gpu_query::Truth::Unknown => return None,
            }
        }
    }
    Some(fleet::fits(
        &caps,
        &kinds,
        &fleet::Slot {
            cap: 0,
            comp: Vec::new(),
        },
        0,
    ))
}
