//! The simulation: the steady state of a scenario, then one event at a time from it, in steps.
//! Each step applies the model's rules ([`crate::facts`]) in the order ECS and Auto Scaling do:
//! instances launched by the last step join, the scheduler stops what the deployment bounds allow,
//! starts and places what they allow, and managed scaling launches instances for what waits.

use std::collections::{BTreeMap, HashMap};

use ecs_gpu_query::{Expression, Truth};

use crate::answer::{Answer, Cost, DeploymentGpus, Event, GroupPeak, Step, Stranded, Verdict};
use crate::facts::{self, RuleId};
use crate::fleet::{fits, free, Cap, Fleet, Kind, Slot};
use crate::scenario::{
    Bound, Constraint, Deployment, InstanceShape, Known, Memory, PoolState, ProtectedInstances,
    Scenario, Strategy, TaskShape,
};
use crate::Prices;
use ecs_gpu_report::plural;

/// Steps after which a simulation gives up and answers unknown (docs/limits.md). Each step makes
/// progress; the most a real event takes is one per instance, when a group of several instance
/// types scales out by its minimum step.
const MAX_STEPS: usize = 1_000_000;

/// Why a simulation cannot answer.
#[derive(Debug)]
struct Unknown(String);

/// The state of every group during one event.
#[derive(Debug, Clone, Default)]
struct World {
    caps: Vec<Cap>,
    kinds: Vec<Kind>,
    /// The index in `kinds` of each (service, new revision).
    kind_of: HashMap<(usize, bool), usize>,
    fleets: Vec<Fleet>,
    /// The cap new instances of each group get (None: unknown): with several instance types, the
    /// bound this simulation assumes.
    launch_cap: Vec<Option<usize>>,
    /// The caps of every instance type each group may launch.
    launch_all: Vec<Vec<usize>>,
    /// Instances in each group's warm pool.
    pool: Vec<u32>,
    /// Instances of each group that drain before they terminate: out of the fleet, still counted
    /// against `max_size`.
    draining: Vec<u32>,
    /// Tasks started and not placed (PROVISIONING), by kind.
    pending: BTreeMap<usize, u64>,
}

pub(crate) struct Sim<'a> {
    sc: &'a Scenario,
    prices: Option<&'a Prices>,
    /// Which instance type a group with several launches.
    bound: Bound,
    /// The steady state, or why it is not known, per group.
    base: Result<World, String>,
    /// Per group: why its steady state is over its maximum.
    over_max: Vec<Option<String>>,
    /// Port numbers, by bit.
    ports: Vec<u16>,
    /// `memberOf` results per (cap, service).
    allowed: BTreeMap<(usize, usize), Truth>,
    /// The services whose group is named so, by name: [`Sim::services_on`] and the look-ups of an
    /// event by name take no time that grows with the scenario.
    services_by_group: HashMap<&'a str, Vec<usize>>,
    services: HashMap<&'a str, usize>,
    groups: HashMap<&'a str, usize>,
    /// Services whose capacity is not known (they may use any group).
    without_group: usize,
}

/// What an event may change of the steady state, kept to be put back once it is answered: an
/// event changes one group (its fleet, warm pool, draining instances and the tasks its services
/// wait with) and adds caps and kinds of its own. Putting back what it changed, instead of copying
/// the whole steady state for each event, keeps a plan of thousands of events linear.
struct Undo {
    group: usize,
    fleet: Fleet,
    launch_cap: Option<usize>,
    launch_all: Vec<usize>,
    pool: u32,
    draining: u32,
    pending: Vec<(usize, Option<u64>)>,
    caps: usize,
    kinds: usize,
}

fn div_ceil(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else {
        a.div_ceil(b)
    }
}

fn percent_up(d: u64, p: u32) -> u64 {
    div_ceil(d * u64::from(p), 100)
}

fn percent_down(d: u64, p: u32) -> u64 {
    d * u64::from(p) / 100
}

impl<'a> Sim<'a> {
    pub fn new(sc: &'a Scenario, prices: Option<&'a Prices>, bound: Bound) -> Sim<'a> {
        let mut services_by_group: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, s) in sc.services.iter().enumerate() {
            if let Some(g) = s.group.known() {
                services_by_group.entry(g.as_str()).or_default().push(i);
            }
        }
        let mut sim = Sim {
            sc,
            prices,
            bound,
            base: Err(String::new()),
            over_max: vec![None; sc.groups.len()],
            ports: Vec::new(),
            allowed: BTreeMap::new(),
            services_by_group,
            services: sc.service_index(),
            groups: sc.group_index(),
            without_group: sc
                .services
                .iter()
                .filter(|s| s.group.known().is_none())
                .count(),
        };
        sim.base = sim.steady();
        sim
    }

    fn port_bits(&mut self, ports: &[u16]) -> Result<u64, String> {
        let mut bits = 0u64;
        for p in ports {
            let i = match self.ports.iter().position(|q| q == p) {
                Some(i) => i,
                None => {
                    if self.ports.len() == 64 {
                        return Err("more than 64 distinct static host ports".to_string());
                    }
                    self.ports.push(*p);
                    self.ports.len() - 1
                }
            };
            bits |= 1 << i;
        }
        Ok(bits)
    }

    fn kind(
        &mut self,
        w: &mut World,
        service: usize,
        new: bool,
        task: &TaskShape,
    ) -> Result<usize, String> {
        if let Some(&i) = w.kind_of.get(&(service, new)) {
            return Ok(i);
        }
        let s = &self.sc.services[service];
        let distinct = s
            .constraints
            .known()
            .is_some_and(|c| c.contains(&Constraint::DistinctInstance));
        let ports = self.port_bits(&task.host_ports)?;
        w.kind_of.insert((service, new), w.kinds.len());
        w.kinds.push(Kind {
            service,
            new,
            gpus: task.gpus,
            cpu: task.cpu,
            memory: task.memory,
            ports,
            distinct,
        });
        Ok(w.kinds.len() - 1)
    }

    fn cap(w: &mut World, shape: &InstanceShape, new_config: bool) -> usize {
        Self::cap_of(
            w,
            shape,
            std::slice::from_ref(&shape.instance_type),
            new_config,
        )
    }

    /// The cap of `shape`, which stands for the instance types `of` (several for a bound of a group
    /// with several types that is none of them).
    fn cap_of(w: &mut World, shape: &InstanceShape, of: &[String], new_config: bool) -> usize {
        let (memory, exact) = match shape.memory {
            Memory::Registered(m) => (m, true),
            Memory::AtMost(m) => (m, false),
        };
        let cap = Cap {
            instance_type: shape.instance_type.clone(),
            refreshed: new_config,
            gpus: shape.gpus,
            cpu: shape.cpu,
            memory,
            memory_exact: exact,
            of: of.to_vec(),
        };
        match w.caps.iter().position(|c| *c == cap) {
            Some(i) => i,
            None => {
                w.caps.push(cap);
                w.caps.len() - 1
            }
        }
    }

    /// Whether a service's `memberOf` constraints allow an instance shape.
    fn allowed(&mut self, w: &World, service: usize, cap: usize) -> Truth {
        if let Some(t) = self.allowed.get(&(cap, service)) {
            return *t;
        }
        // A cap that stands for several types is allowed when the constraint allows each of
        // them, and not when it allows none.
        let mut all: Option<Truth> = None;
        for name in &w.caps[cap].of {
            let mut t = Truth::True;
            for c in self.sc.services[service]
                .constraints
                .known()
                .into_iter()
                .flatten()
            {
                if let Constraint::MemberOf(e) = c {
                    t = t.and(match Expression::parse(e) {
                        Ok(expr) => ecs_gpu_query::matching_instance_types(&expr, &[name.as_str()])
                            .first()
                            .map_or(Truth::Unknown, |m| m.result),
                        Err(_) => Truth::Unknown,
                    });
                }
            }
            all = Some(match all {
                None => t,
                Some(a) if a == t => a,
                Some(_) => Truth::Unknown,
            });
        }
        let t = all.unwrap_or(Truth::Unknown);
        self.allowed.insert((cap, service), t);
        t
    }

    /// The GPUs the tasks of the services on group `g` wait for (PROVISIONING).
    fn pending_gpus(&self, w: &World, g: usize) -> u64 {
        self.services_on(g)
            .into_iter()
            .flat_map(|s| [(s, false), (s, true)])
            .filter_map(|key| w.kind_of.get(&key))
            .map(|&k| {
                u64::from(w.kinds[k].gpus).saturating_mul(w.pending.get(&k).copied().unwrap_or(0))
            })
            .fold(0, u64::saturating_add)
    }

    /// The services on a group, with known tasks and desired counts.
    fn services_on(&self, g: usize) -> Vec<usize> {
        let group = &self.sc.groups[g];
        let by = |name: &str| {
            self.services_by_group
                .get(name)
                .map_or(&[][..], Vec::as_slice)
        };
        let mut out = by(&group.name).to_vec();
        if let Some(p) = group.provider.as_deref().filter(|p| *p != group.name) {
            out.extend_from_slice(by(p));
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    /// The steady state: what runs now, or for code the services' tasks placed on as few
    /// instances as hold them.
    fn steady(&mut self) -> Result<World, String> {
        let mut w = World {
            caps: Vec::new(),
            kinds: Vec::new(),
            kind_of: HashMap::new(),
            fleets: vec![Fleet::default(); self.sc.groups.len()],
            launch_cap: vec![None; self.sc.groups.len()],
            launch_all: vec![Vec::new(); self.sc.groups.len()],
            pool: vec![0; self.sc.groups.len()],
            draining: vec![0; self.sc.groups.len()],
            pending: BTreeMap::new(),
        };
        for g in 0..self.sc.groups.len() {
            let group = &self.sc.groups[g];
            if let Known::Known(shapes) = &group.launches {
                for shape in shapes {
                    let c = Self::cap(&mut w, shape, false);
                    w.launch_all[g].push(c);
                }
                if let Some((shape, of)) = crate::scenario::bound_shape(shapes, self.bound) {
                    w.launch_cap[g] = Some(Self::cap_of(&mut w, &shape, &of, false));
                }
            }
            let services = self.services_on(g);
            let mut olds = Vec::new();
            for &s in &services {
                let svc = &self.sc.services[s];
                if let (Known::Known(task), Known::Known(d)) = (&svc.task, &svc.desired) {
                    let k = self.kind(&mut w, s, false, task)?;
                    olds.push((s, k, u64::from(*d)));
                }
            }
            match &group.instances {
                Known::Known(list) => {
                    for inst in list {
                        let cap = Self::cap(&mut w, &inst.shape, false);
                        let mut comp = Vec::new();
                        for &(s, n) in &inst.tasks {
                            if let Some(&(_, k, _)) = olds.iter().find(|(o, _, _)| *o == s) {
                                comp = crate::fleet::with(&comp, k, i64::from(n));
                            }
                        }
                        w.fleets[g].add(Slot { cap, comp }, 1);
                    }
                    // Tasks of the desired count that run nowhere wait, as they do now.
                    for &(_, k, d) in &olds {
                        let running = w.fleets[g].tasks(k);
                        if d > running {
                            *w.pending.entry(k).or_default() += d - running;
                        }
                    }
                }
                Known::Unknown { .. } | Known::Hidden { .. } => {
                    let Some(cap) = w.launch_cap[g] else { continue };
                    let start = match (&group.managed_scaling, &group.min_size) {
                        (Known::Known(Some(_)), Known::Known(min)) => *min,
                        (Known::Known(Some(_)), Known::Unknown { .. } | Known::Hidden { .. }) => 0,
                        _ => continue,
                    };
                    w.fleets[g].add(
                        Slot {
                            cap,
                            comp: Vec::new(),
                        },
                        start,
                    );
                    for &(s, k, d) in &olds {
                        let binpack =
                            self.sc.services[s].strategy.known() == Some(&Strategy::Binpack);
                        let mut left = d;
                        loop {
                            let allowed = |c: usize| c == cap;
                            left -=
                                w.fleets[g].place(&w.caps, &w.kinds, k, left, binpack, &allowed);
                            if left == 0 {
                                break;
                            }
                            let per = u64::from(fits(
                                &w.caps,
                                &w.kinds,
                                &Slot {
                                    cap,
                                    comp: Vec::new(),
                                },
                                k,
                            ));
                            let max = group.max_size.known().copied().map_or(u64::MAX, u64::from);
                            let have = u64::from(w.fleets[g].instances());
                            let need = div_ceil(left, per.max(1));
                            let add = need.min(max.saturating_sub(have));
                            if per == 0 || add == 0 {
                                self.over_max[g] = Some(if per == 0 {
                                    format!(
                                        "a task of `{}` fits no `{}`",
                                        self.sc.services[s].name, w.caps[cap].instance_type
                                    )
                                } else {
                                    format!(
                                        "the services' desired counts already need more than the {} instances `max_size` allows",
                                        max
                                    )
                                });
                                *w.pending.entry(k).or_default() += left;
                                break;
                            }
                            w.fleets[g].add(
                                Slot {
                                    cap,
                                    comp: Vec::new(),
                                },
                                u32::try_from(add).unwrap_or(u32::MAX),
                            );
                        }
                    }
                    // A target capacity below 100 keeps instances without tasks.
                    if let Known::Known(Some(ms)) = &group.managed_scaling {
                        if ms.target_capacity < 100 && ms.target_capacity > 0 {
                            let busy = w.fleets[g]
                                .slots
                                .iter()
                                .filter(|(s, _)| !s.comp.is_empty())
                                .map(|(_, n)| u64::from(*n))
                                .sum::<u64>();
                            let want = div_ceil(busy * 100, u64::from(ms.target_capacity));
                            let max = group.max_size.known().copied().map_or(u64::MAX, u64::from);
                            let have = u64::from(w.fleets[g].instances());
                            let add = want.min(max).saturating_sub(have);
                            w.fleets[g].add(
                                Slot {
                                    cap,
                                    comp: Vec::new(),
                                },
                                u32::try_from(add).unwrap_or(0),
                            );
                        }
                    }
                }
            }
            if let (Known::Known(Some(pool)), Known::Known(max)) =
                (&group.warm_pool, &group.max_size)
            {
                w.pool[g] = pool.size(w.fleets[g].instances(), *max);
            }
            // Every event starts from a clone of this state, which need not carry the indexes
            // its placements built.
            w.fleets[g].forget_indexes();
        }
        Ok(w)
    }

    /// Answers one event.
    pub fn answer(&mut self, event: &Event) -> Answer {
        let mut run = Run::default();
        let verdict = match self.run(event, &mut run) {
            Ok(v) => v,
            Err(Unknown(reason)) => Verdict::Unknown { reason },
        };
        let mut verdict = verdict;
        if let Verdict::Completes { assumptions } = &mut verdict {
            assumptions.extend(run.assumptions.iter().cloned());
        }
        Answer {
            event: event.clone(),
            verdict,
            groups: run.peaks,
            timeline: run.steps,
            stranded: run.stranded,
            deployment: run.deployment,
            cost: run.cost,
            notes: run.notes,
        }
    }

    /// Answers an event on the steady state itself, then puts back what the event changed
    /// ([`Undo`]): the next event starts from the same steady state.
    fn run(&mut self, event: &Event, run: &mut Run) -> Result<Verdict, Unknown> {
        let group = match event {
            Event::Deploy { service, .. } | Event::Scale { service, .. } => {
                self.service(service).and_then(|s| self.group_of(s)).ok()
            }
            Event::Refresh { group } => self.groups.get(group.as_str()).copied(),
        };
        let mut w = match &mut self.base {
            Ok(w) => std::mem::take(w),
            Err(e) => return Err(Unknown(e.clone())),
        };
        let undo = group.map(|g| self.undo_of(&w, g));
        let verdict = self.run_on(&mut w, event, run);
        if let Some(undo) = undo {
            self.put_back(&mut w, undo);
        }
        self.base = Ok(w);
        verdict
    }

    /// What an event on group `g` may change, as it is before the event.
    fn undo_of(&self, w: &World, g: usize) -> Undo {
        let pending = self
            .services_on(g)
            .into_iter()
            .filter_map(|s| w.kind_of.get(&(s, false)))
            .map(|&k| (k, w.pending.get(&k).copied()))
            .collect();
        Undo {
            group: g,
            fleet: w.fleets[g].clone(),
            launch_cap: w.launch_cap[g],
            launch_all: w.launch_all[g].clone(),
            pool: w.pool[g],
            draining: w.draining[g],
            pending,
            caps: w.caps.len(),
            kinds: w.kinds.len(),
        }
    }

    /// Puts back what an event changed ([`Sim::undo_of`]).
    fn put_back(&mut self, w: &mut World, undo: Undo) {
        let g = undo.group;
        w.fleets[g] = undo.fleet;
        w.launch_cap[g] = undo.launch_cap;
        w.launch_all[g] = undo.launch_all;
        w.pool[g] = undo.pool;
        w.draining[g] = undo.draining;
        for (k, n) in undo.pending {
            match n {
                Some(n) => w.pending.insert(k, n),
                None => w.pending.remove(&k),
            };
        }
        // The event's own kinds and caps, and what was learnt of its caps.
        let _ = w.pending.split_off(&undo.kinds);
        for k in w.kinds.drain(undo.kinds..) {
            w.kind_of.remove(&(k.service, k.new));
        }
        w.caps.truncate(undo.caps);
        let _ = self.allowed.split_off(&(undo.caps, 0));
    }

    fn run_on(&mut self, w: &mut World, event: &Event, run: &mut Run) -> Result<Verdict, Unknown> {
        match event {
            Event::Deploy { service, task } => {
                let s = self.service(service)?;
                let g = self.group_of(s)?;
                self.steady_ok(g)?;
                let svc = &self.sc.services[s];
                let old_task = svc
                    .task
                    .get()
                    .map_err(|r| self.unknown_input(s, "task", r))?
                    .clone();
                let d = u64::from(
                    *svc.desired
                        .get()
                        .map_err(|r| self.unknown_input(s, "desired count", r))?,
                );
                let deployment = *svc
                    .deployment
                    .get()
                    .map_err(|r| self.unknown_input(s, "deployment configuration", r))?;
                let new_task = task.clone().unwrap_or(old_task.clone());
                let old = self.kind(w, s, false, &old_task).map_err(Unknown)?;
                let new = self.kind(w, s, true, &new_task).map_err(Unknown)?;
                self.check_inputs(s, g, w)?;
                run.start(self, w, g);
                let (lower, upper, all_first) = match deployment {
                    Deployment::Rolling {
                        minimum_healthy_percent,
                        maximum_percent,
                    } => (
                        percent_up(d, minimum_healthy_percent),
                        percent_down(d, maximum_percent),
                        false,
                    ),
                    _ => (d, 2 * d, true),
                };
                let reserved = w.fleets[g].gpus(&w.caps, &w.kinds).0;
                let mine = w.fleets[g].tasks(old) * u64::from(old_task.gpus);
                if let Some(bounds) =
                    crate::deployment_tasks(u32::try_from(d).unwrap_or(u32::MAX), deployment)
                {
                    let (least_gpus, most_gpus) = crate::deployment_gpus(
                        u32::try_from(d).unwrap_or(u32::MAX),
                        bounds,
                        old_task.gpus,
                        new_task.gpus,
                    );
                    run.deployment = Some(DeploymentGpus {
                        desired: u32::try_from(d).unwrap_or(u32::MAX),
                        deployment,
                        least_tasks: bounds.0,
                        least_gpus,
                        most_tasks: bounds.1,
                        most_gpus,
                        other_gpus: reserved.saturating_sub(mine),
                    });
                }
                if d > 0 && upper < lower + 1 {
                    return Ok(Verdict::Stuck {
                        reason: format!(
                            "the deployment bounds leave no room: {d} desired, at least {lower} must keep running and at most {upper} may run, so no new task can start before an old one stops and none may stop"
                        ),
                    });
                }
                self.deploy(w, run, g, old, new, d, lower, upper, all_first, deployment)
            }
            Event::Scale { service, to } => {
                let s = self.service(service)?;
                let to = *to.get().map_err(|r| {
                    Unknown(format!(
                        "the count `{}` scales to is not known: {r}",
                        self.sc.services[s].name
                    ))
                })?;
                let g = self.group_of(s)?;
                self.steady_ok(g)?;
                let svc = &self.sc.services[s];
                let task = svc
                    .task
                    .get()
                    .map_err(|r| self.unknown_input(s, "task", r))?
                    .clone();
                let k = self.kind(w, s, false, &task).map_err(Unknown)?;
                self.check_inputs(s, g, w)?;
                run.start(self, w, g);
                let now = w.fleets[g].tasks(k) + w.pending.get(&k).copied().unwrap_or(0);
                let to = u64::from(to);
                if to < now {
                    let stopped = w.fleets[g].stop(k, now - to);
                    run.step(
                        vec![format!(
                            "stop {} of `{}`",
                            plural(stopped, "task", "tasks"),
                            self.sc.services[s].name
                        )],
                        vec![],
                    );
                    run.notes.push("instances left without tasks are released by managed scaling scale-in, which is not timed here".to_string());
                    run.record(self, w, g);
                    run.finish(self, w, g);
                    return Ok(Verdict::Completes {
                        assumptions: Vec::new(),
                    });
                }
                *w.pending.entry(k).or_default() += to - now;
                run.step(
                    vec![format!(
                        "start {} of `{}`",
                        plural(to - now, "task", "tasks"),
                        self.sc.services[s].name
                    )],
                    vec![],
                );
                let v = self.settle(w, run, g, &[k])?;
                run.finish(self, w, g);
                Ok(v)
            }
            Event::Refresh { group } => {
                let g = self
                    .sc
                    .group(group)
                    .ok_or_else(|| Unknown(format!("no group or capacity provider `{group}`")))?;
                self.steady_ok(g)?;
                run.start(self, w, g);
                let v = self.refresh(w, run, g)?;
                run.finish(self, w, g);
                Ok(v)
            }
        }
    }

    fn service(&self, name: &str) -> Result<usize, Unknown> {
        self.services
            .get(name)
            .copied()
            .ok_or_else(|| Unknown(format!("no service `{name}` in the inputs")))
    }

    fn unknown_input(&self, s: usize, what: &str, reason: &str) -> Unknown {
        Unknown(format!(
            "the {what} of `{}` is not known: {reason}",
            self.sc.services[s].name
        ))
    }

    fn group_of(&self, s: usize) -> Result<usize, Unknown> {
        let svc = &self.sc.services[s];
        let name = svc
            .group
            .get()
            .map_err(|r| self.unknown_input(s, "capacity", r))?;
        self.groups.get(name.as_str()).copied().ok_or_else(|| {
            Unknown(format!(
                "the capacity of `{}` (`{name}`) is not in the inputs",
                svc.name
            ))
        })
    }

    fn steady_ok(&self, g: usize) -> Result<(), Unknown> {
        let group = &self.sc.groups[g];
        // A service on the group whose count or task is hidden holds capacity no answer may
        // count without computing from the hidden value, nor leave out without being wrong.
        for s in self.services_on(g) {
            let svc = &self.sc.services[s];
            if let Known::Hidden { hidden } = svc.desired {
                return Err(self.unknown_input(s, "desired count", hidden.reason()));
            }
            if let Known::Hidden { hidden } = svc.task {
                return Err(self.unknown_input(s, "task", hidden.reason()));
            }
        }
        if let Err(unknown) = group.launches.get() {
            if group.instances.known().is_none() {
                return Err(Unknown(format!(
                    "what `{}` launches is not known: {unknown}",
                    group.name
                )));
            }
        }
        if group.instances.known().is_none() {
            match &group.managed_scaling {
                Known::Unknown { .. } | Known::Hidden { .. } => {
                    let unknown = group.managed_scaling.get().err().unwrap_or_default();
                    return Err(Unknown(format!("whether `{}` scales is not known: {unknown}", group.name)))
                }
                Known::Known(None) => {
                    return Err(Unknown(format!(
                        "`{}` has no managed scaling and what it runs is not in the inputs: its instances are whatever its desired capacity is set to",
                        group.name
                    )))
                }
                Known::Known(Some(_)) => {}
            }
        }
        Ok(())
    }

    /// Every input the placement of service `s` on group `g` needs.
    fn check_inputs(&mut self, s: usize, g: usize, w: &World) -> Result<(), Unknown> {
        let svc = &self.sc.services[s];
        if let Err(unknown) = svc.constraints.get() {
            return Err(self.unknown_input(s, "placement constraints", unknown));
        }
        if let Err(unknown) = svc.strategy.get() {
            return Err(self.unknown_input(s, "placement strategy", unknown));
        }
        let caps: Vec<usize> = w.fleets[g]
            .slots
            .keys()
            .map(|k| k.cap)
            .chain(w.launch_cap[g])
            .collect();
        for cap in caps {
            if self.allowed(w, s, cap) == Truth::Unknown {
                return Err(Unknown(format!(
                    "whether the `memberOf` constraint of `{}` allows `{}` depends on attributes that are not known",
                    self.sc.services[s].name, w.caps[cap].instance_type
                )));
            }
        }
        Ok(())
    }

    fn binpack(&self, s: usize) -> bool {
        self.sc.services[s].strategy.known() == Some(&Strategy::Binpack)
    }

    /// Places pending tasks of `kinds` on group `g`.
    fn place_pending(&mut self, w: &mut World, g: usize, kinds: &[usize]) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        for &k in kinds {
            let want = w.pending.get(&k).copied().unwrap_or(0);
            if want == 0 {
                continue;
            }
            let s = w.kinds[k].service;
            let binpack = self.binpack(s);
            let caps: Vec<usize> = (0..w.caps.len()).collect();
            let allow: Vec<bool> = caps
                .iter()
                .map(|&c| self.allowed(w, s, c) == Truth::True)
                .collect();
            let allowed = |c: usize| allow.get(c).copied().unwrap_or(false);
            let placed = w.fleets[g].place(&w.caps, &w.kinds, k, want, binpack, &allowed);
            if placed > 0 {
                *w.pending.get_mut(&k).expect("pending") -= placed;
                out.push((k, placed));
            }
        }
        out
    }

    /// Managed scaling for the pending tasks of `kinds`: instances launched, or why none.
    fn scale_out(&mut self, w: &mut World, g: usize, kinds: &[usize]) -> Result<Launch, Unknown> {
        let group = &self.sc.groups[g];
        let pending: Vec<(usize, u64)> = kinds
            .iter()
            .filter_map(|&k| w.pending.get(&k).filter(|&&n| n > 0).map(|&n| (k, n)))
            .collect();
        if pending.is_empty() {
            return Ok(Launch::default());
        }
        let blocked = |why: String, rules: Vec<RuleId>| Launch {
            blocked: Some(why),
            rules,
            ..Launch::default()
        };
        let ms = match &group.managed_scaling {
            Known::Known(Some(ms)) if ms.refused().is_some() => {
                return Err(Unknown(format!(
                    "the managed scaling of `{}` has {}",
                    group.name,
                    ms.refused().unwrap_or_default()
                )))
            }
            Known::Known(Some(ms)) => *ms,
            Known::Known(None) => {
                return Ok(blocked(format!("managed scaling is off on `{}`: nothing launches instances for the waiting tasks", group.name), vec![]))
            }
            Known::Unknown { .. } | Known::Hidden { .. } => {
                let unknown = group.managed_scaling.get().err().unwrap_or_default();
                return Err(Unknown(format!("whether `{}` scales out is not known: {unknown}", group.name)))
            }
        };
        let Some(cap) = w.launch_cap[g] else {
            return Err(Unknown(format!(
                "what `{}` launches is not known",
                group.name
            )));
        };
        let empty = |cap: usize| Slot {
            cap,
            comp: Vec::new(),
        };
        let several = w.launch_all[g].len() > 1;
        let mut needed = 0u64;
        for &(k, n) in &pending {
            let s = w.kinds[k].service;
            let describe = |k: &Kind| {
                format!(
                    "a task of `{}` ({}, {} CPU units, {} MiB)",
                    self.sc.services[s].name,
                    plural(u64::from(k.gpus), "GPU", "GPUs"),
                    k.cpu,
                    k.memory
                )
            };
            if several {
                // ECS sizes a scale-out against the smallest of the group's types in each resource:
                // a task that one of the types cannot hold is left out of the count.
                if let Some(&c) = w.launch_all[g]
                    .iter()
                    .find(|&&c| fits(&w.caps, &w.kinds, &empty(c), k) == 0)
                {
                    let t = &w.caps[c];
                    return Ok(blocked(
                        format!(
                            "{} does not fit an empty `{}` ({}, {} CPU units, {} MiB), one of the instance types of `{}`: with several types, the capacity provider scales out only for tasks that fit the smallest of them in each resource",
                            describe(&w.kinds[k]),
                            t.instance_type,
                            plural(u64::from(t.gpus), "GPU", "GPUs"),
                            t.cpu,
                            t.memory,
                            group.name
                        ),
                        vec![RuleId::ManagedScalingSmallestType],
                    ));
                }
            }
            let per = u64::from(fits(&w.caps, &w.kinds, &empty(cap), k));
            if per == 0 || self.allowed(w, s, cap) != Truth::True {
                let why = if per == 0 {
                    let c = &w.caps[cap];
                    format!(
                        "{} does not fit an empty `{}` ({}, {} CPU units, {} MiB): the capacity provider never scales out for it",
                        describe(&w.kinds[k]),
                        c.instance_type,
                        plural(u64::from(c.gpus), "GPU", "GPUs"),
                        c.cpu,
                        c.memory
                    )
                } else {
                    format!(
                        "the `memberOf` constraint of `{}` excludes `{}`",
                        self.sc.services[s].name, w.caps[cap].instance_type
                    )
                };
                return Ok(blocked(why, vec![RuleId::ManagedScalingSmallestType]));
            }
            needed = needed.max(div_ceil(n, per));
        }
        let have = u64::from(w.fleets[g].instances() + w.fleets[g].launching + w.draining[g]);
        let mut rules = vec![RuleId::ManagedScalingStep];
        let mut step = if have == 0 {
            rules.push(RuleId::ScaleFromZero);
            if ms.min_step > facts::SCALE_FROM_ZERO_INSTANCES {
                return Err(Unknown(format!(
                    "how many instances `{}` launches from zero with a minimum scaling step of {} is not documented",
                    group.name, ms.min_step
                )));
            }
            u64::from(facts::SCALE_FROM_ZERO_INSTANCES)
        } else if needed < u64::from(ms.min_step) {
            u64::from(ms.min_step)
        } else {
            needed.min(u64::from(ms.max_step))
        };
        if have > 0 && (several || group.zones.known().is_some_and(|z| *z > 1)) {
            step = u64::from(ms.min_step);
        }
        let max = match group.max_size.get() {
            Ok(m) => u64::from(*m),
            Err(unknown) => {
                return Err(Unknown(format!(
                    "the `max_size` of `{}` is not known: {unknown}",
                    group.name
                )))
            }
        };
        let room = max.saturating_sub(have);
        if room == 0 {
            rules.push(RuleId::GroupMax);
            return Ok(blocked(
                format!("`{}` is at its `max_size` of {max}", group.name),
                rules,
            ));
        }
        let launch = step.min(room);
        w.fleets[g].launching += u32::try_from(launch).unwrap_or(0);
        // Instances leave the warm pool first; the pool then keeps the size its settings give it
        // for the new desired capacity.
        let mut from_pool = 0;
        let mut refill = 0;
        if let Known::Known(Some(pool)) = &group.warm_pool {
            from_pool = launch.min(u64::from(w.pool[g]));
            w.pool[g] -= u32::try_from(from_pool).unwrap_or(0);
            let target = pool.size(
                u32::try_from(have + launch).unwrap_or(u32::MAX),
                u32::try_from(max).unwrap_or(u32::MAX),
            );
            refill = u64::from(target.saturating_sub(w.pool[g]));
            w.pool[g] = w.pool[g].max(target);
            rules.push(RuleId::WarmPool);
        }
        Ok(Launch {
            n: launch,
            from_pool,
            refill,
            blocked: None,
            rules,
        })
    }

    /// Lets instances join, places and scales until nothing waits or nothing moves.
    fn settle(
        &mut self,
        w: &mut World,
        run: &mut Run,
        g: usize,
        kinds: &[usize],
    ) -> Result<Verdict, Unknown> {
        for _ in 0..MAX_STEPS {
            let mut actions = Vec::new();
            let mut rules = Vec::new();
            let arrived = self.arrive(w, g, &mut actions, &mut rules);
            let placed = self.place_pending(w, g, kinds);
            self.describe_placed(w, &placed, &mut actions);
            let launch = self.scale_out(w, g, kinds)?;
            let (launched, blocked) = (launch.n, launch.blocked.clone());
            rules.extend(launch.rules.iter().copied());
            self.describe_launch(g, &launch, &mut actions);
            let waiting: u64 = kinds
                .iter()
                .map(|k| w.pending.get(k).copied().unwrap_or(0))
                .sum();
            if waiting > 0 && launched == 0 {
                actions.push(format!(
                    "{} in PROVISIONING",
                    plural(waiting, "task waits", "tasks wait")
                ));
            }
            if !actions.is_empty() {
                run.step(actions, rules);
            }
            run.record(self, w, g);
            if waiting == 0 {
                return Ok(Verdict::Completes {
                    assumptions: Vec::new(),
                });
            }
            if arrived == 0 && placed.is_empty() && launched == 0 {
                return Ok(self.blocked(w, g, blocked, waiting));
            }
        }
        Err(Unknown(format!("no answer after {MAX_STEPS} steps")))
    }

    fn blocked(&self, w: &World, g: usize, blocked: Option<String>, waiting: u64) -> Verdict {
        let group = &self.sc.groups[g];
        let at_max = group
            .max_size
            .known()
            .is_some_and(|m| w.fleets[g].instances() + w.fleets[g].launching >= *m);
        let reason = format!(
            "{} {} never placed: {}",
            plural(waiting, "task", "tasks"),
            if waiting == 1 { "is" } else { "are" },
            blocked.unwrap_or_else(|| "no instance has room".to_string())
        );
        if at_max {
            Verdict::OverMax { reason }
        } else {
            Verdict::Stuck { reason }
        }
    }

    fn arrive(
        &self,
        w: &mut World,
        g: usize,
        actions: &mut Vec<String>,
        rules: &mut Vec<RuleId>,
    ) -> u32 {
        let n = std::mem::take(&mut w.fleets[g].launching);
        if n > 0 {
            if let Some(cap) = w.launch_cap[g] {
                w.fleets[g].add(
                    Slot {
                        cap,
                        comp: Vec::new(),
                    },
                    n,
                );
            }
            actions.push(self.joins(g, u64::from(n)));
            rules.push(RuleId::InstanceWarmup);
        }
        n
    }

    /// "2 instances join `gpu` after the instance warmup (300 s)".
    fn joins(&self, g: usize, n: u64) -> String {
        let warmup = match self.sc.groups[g].managed_scaling.known() {
            Some(Some(ms)) => format!(" after the instance warmup ({} s)", ms.warmup),
            _ => String::new(),
        };
        format!(
            "{} `{}`{warmup}",
            plural(n, "instance joins", "instances join"),
            self.sc.groups[g].name
        )
    }

    fn describe_placed(&self, w: &World, placed: &[(usize, u64)], actions: &mut Vec<String>) {
        for &(k, n) in placed {
            let kind = &w.kinds[k];
            actions.push(format!(
                "place {} of `{}`{}",
                plural(n, "task", "tasks"),
                self.sc.services[kind.service].name,
                if kind.new { " (new revision)" } else { "" }
            ));
        }
    }

    fn describe_launch(&self, g: usize, launch: &Launch, actions: &mut Vec<String>) {
        if launch.n == 0 {
            return;
        }
        let group = &self.sc.groups[g];
        let mut line = format!(
            "managed scaling launches {} in `{}`",
            plural(launch.n, "instance", "instances"),
            group.name
        );
        if let Known::Known(Some(pool)) = &group.warm_pool {
            let state = match pool.state {
                PoolState::Stopped => "started",
                PoolState::Running => "already running",
                PoolState::Hibernated => "resumed",
            };
            line.push_str(&match (launch.from_pool, launch.n - launch.from_pool) {
                (0, _) => " (its warm pool is empty: new instances)".to_string(),
                (_, 0) => format!(" from its warm pool ({state})"),
                (p, new) => format!(" ({} from its warm pool, {state}; {} new)", p, new),
            });
        }
        actions.push(line);
        if launch.refill > 0 {
            actions.push(format!(
                "{} into the warm pool of `{}` to keep its `min_size`",
                plural(launch.refill, "instance launches", "instances launch"),
                group.name
            ));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn deploy(
        &mut self,
        w: &mut World,
        run: &mut Run,
        g: usize,
        old: usize,
        new: usize,
        d: u64,
        lower: u64,
        upper: u64,
        all_first: bool,
        deployment: Deployment,
    ) -> Result<Verdict, Unknown> {
        let s = w.kinds[old].service;
        let name = self.sc.services[s].name.clone();
        let mut baked = false;
        for _ in 0..MAX_STEPS {
            let mut actions = Vec::new();
            let mut rules = Vec::new();
            let arrived = self.arrive(w, g, &mut actions, &mut rules);
            let old_n = w.fleets[g].tasks(old);
            // New tasks placed by earlier steps are running and healthy now.
            let new_n = w.fleets[g].tasks(new);
            let pending = w.pending.get(&new).copied().unwrap_or(0);
            // Stop old tasks as far as the lower bound allows (blue/green and its kin: only once the
            // whole new revision runs, and after the bake time).
            let mut baking = false;
            let stop = if all_first {
                if new_n >= d && !baked {
                    baked = true;
                    baking = true;
                    actions.push(bake(deployment));
                    rules.push(if matches!(deployment, Deployment::BlueGreen { .. }) {
                        RuleId::BlueGreen
                    } else {
                        RuleId::LinearCanary
                    });
                    0
                } else if new_n >= d {
                    old_n
                } else {
                    0
                }
            } else {
                (old_n + new_n).saturating_sub(lower).min(old_n)
            };
            let stopped = if stop > 0 {
                w.fleets[g].stop(old, stop)
            } else {
                0
            };
            if stopped > 0 {
                actions.push(format!(
                    "stop {} of `{name}` (old revision)",
                    plural(stopped, "task", "tasks")
                ));
                rules.push(if all_first {
                    RuleId::BlueGreen
                } else {
                    RuleId::RollingBounds
                });
            }
            let old_n = old_n - stopped;
            let start = upper
                .saturating_sub(old_n + new_n + pending)
                .min(d.saturating_sub(new_n + pending));
            if start > 0 {
                *w.pending.entry(new).or_default() += start;
                actions.push(format!(
                    "start {} of `{name}` (new revision)",
                    plural(start, "task", "tasks")
                ));
                rules.push(if all_first {
                    RuleId::BlueGreen
                } else {
                    RuleId::RollingBounds
                });
            }
            let placed = self.place_pending(w, g, &[new]);
            self.describe_placed(w, &placed, &mut actions);
            let launch = self.scale_out(w, g, &[new])?;
            let (launched, blocked) = (launch.n, launch.blocked.clone());
            rules.extend(launch.rules.iter().copied());
            self.describe_launch(g, &launch, &mut actions);
            let waiting = w.pending.get(&new).copied().unwrap_or(0);
            if waiting > 0 && launched == 0 {
                actions.push(format!(
                    "{} of `{name}` {} in PROVISIONING",
                    plural(waiting, "task", "tasks"),
                    if waiting == 1 { "waits" } else { "wait" }
                ));
            }
            rules.sort();
            rules.dedup();
            if !actions.is_empty() {
                run.step(actions, rules);
            }
            run.record(self, w, g);
            if w.fleets[g].tasks(old) == 0 && w.fleets[g].tasks(new) == d && waiting == 0 {
                run.finish(self, w, g);
                return Ok(Verdict::Completes {
                    assumptions: Vec::new(),
                });
            }
            let progress = arrived > 0
                || stopped > 0
                || start > 0
                || !placed.is_empty()
                || launched > 0
                || baking;
            if !progress {
                run.finish(self, w, g);
                return Ok(self.blocked(w, g, blocked, waiting));
            }
        }
        Err(Unknown(format!("no answer after {MAX_STEPS} steps")))
    }

    /// Why draining cannot stop the tasks of a terminated batch yet: a service whose running
    /// tasks, with its displaced ones not yet placed elsewhere, fall below its minimum healthy
    /// count.
    fn draining_stuck(
        &self,
        moved: &World,
        g: usize,
        displaced: &[(usize, u64)],
    ) -> Option<String> {
        for &(k, n) in displaced {
            if moved.pending.get(&k).copied().unwrap_or(0) == 0 {
                continue;
            }
            let s = moved.kinds[k].service;
            let svc = &self.sc.services[s];
            let d = u64::from(*svc.desired.known().unwrap_or(&0));
            let lower = match svc.deployment.known() {
                Some(Deployment::Rolling {
                    minimum_healthy_percent,
                    ..
                }) => percent_up(d, *minimum_healthy_percent),
                _ => d,
            };
            // A service's tasks run on its group's instances only.
            let running: u64 = [false, true]
                .iter()
                .filter_map(|new| moved.kind_of.get(&(s, *new)))
                .map(|&i| moved.fleets[g].tasks(i))
                .sum();
            if running < lower {
                return Some(format!(
                    "draining cannot stop the {} of `{}` on the instances it terminates: the service must keep {lower} running (minimum healthy) and no free GPU is left for their replacements, so the termination waits and the refresh cannot keep going",
                    plural(n, "task", "tasks"),
                    svc.name
                ));
            }
        }
        None
    }

    fn refresh(&mut self, w: &mut World, run: &mut Run, g: usize) -> Result<Verdict, Unknown> {
        let group = &self.sc.groups[g];
        let name = group.name.clone();
        let r = &group.refresh;
        let p = *r.min_healthy.get().map_err(|e| {
            Unknown(format!(
                "the minimum healthy percentage of the refresh of `{name}` is not known: {e}"
            ))
        })?;
        let q = *r.max_healthy.get().map_err(|e| {
            Unknown(format!(
                "the maximum healthy percentage of the refresh of `{name}` is not known: {e}"
            ))
        })?;
        let total = u64::from(w.fleets[g].instances());
        if total == 0 {
            run.step(
                vec![format!("`{name}` runs no instance: nothing to replace")],
                vec![],
            );
            return Ok(Verdict::Completes {
                assumptions: Vec::new(),
            });
        }
        // Protected instances: managed termination protection protects every instance with tasks.
        let protected = match group.protected.get() {
            Ok(p) => *p,
            Err(unknown) => {
                return Err(Unknown(format!("whether the instances of `{name}` are protected from scale-in is not known: {unknown}")))
            }
        };
        if protected {
            match r.protected_instances.get() {
                Ok(ProtectedInstances::Refresh) => {}
                Ok(ProtectedInstances::Wait) => {
                    run.step(vec![format!("the refresh waits for the {} protected from scale-in", plural(total, "instance", "instances"))], vec![RuleId::RefreshProtected]);
                    return Ok(Verdict::Stuck {
                        reason: format!("the instances of `{name}` are protected from scale-in and the refresh waits for protected instances (`Wait`, the API's default when no preference is sent): it replaces none and fails after an hour"),
                    });
                }
                Ok(ProtectedInstances::Ignore) => {
                    run.step(vec![format!("the refresh skips the {} protected from scale-in", plural(total, "instance", "instances"))], vec![RuleId::RefreshProtected]);
                    return Ok(Verdict::Stuck {
                        reason: format!("the instances of `{name}` are protected from scale-in and the refresh skips protected instances (`Ignore`, hashicorp/aws's default in a `preferences` block): none gets the new configuration"),
                    });
                }
                Err(e) => {
                    return Err(Unknown(format!("what the refresh of `{name}` does with instances protected from scale-in is not known: {e}")))
                }
            }
        }
        if r.skip_matching.known() == Some(&true) {
            run.notes.push("skip matching: every instance is taken to differ from the new configuration (a refresh with nothing changed replaces none)".to_string());
        }
        let Some(launch) = w.launch_cap[g] else {
            return Err(Unknown(format!("what `{name}` launches is not known")));
        };
        let new_cap = {
            let c = w.caps[launch].clone();
            let shape = InstanceShape {
                instance_type: c.instance_type.clone(),
                gpus: c.gpus,
                cpu: c.cpu,
                memory: if c.memory_exact {
                    Memory::Registered(c.memory)
                } else {
                    Memory::AtMost(c.memory)
                },
            };
            Self::cap_of(w, &shape, &c.of, true)
        };
        w.launch_cap[g] = Some(new_cap);
        let keep = percent_up(total, p);
        let extra = percent_down(total, q).saturating_sub(total);
        let batch = if extra > 0 {
            extra
        } else {
            total.saturating_sub(keep).max(1)
        };
        run.notes.push(format!(
            "instance refresh of {}: at least {keep} in service (minimum healthy {p}%), batches of {batch}{}",
            plural(total, "instance", "instances"),
            if extra > 0 { ", launched before the old ones terminate" } else { ", terminated before their replacements launch" }
        ));
        let mut kinds: Vec<usize> = self
            .services_on(g)
            .into_iter()
            .flat_map(|s| [(s, false), (s, true)])
            .filter_map(|key| w.kind_of.get(&key).copied())
            .collect();
        kinds.sort_unstable();
        let mut replaced = 0u64;
        for _ in 0..MAX_STEPS {
            if replaced >= total {
                break;
            }
            let b = batch.min(total - replaced);
            let b32 = u32::try_from(b).unwrap_or(u32::MAX);
            if extra > 0 {
                w.fleets[g].launching += b32;
                run.step(
                    vec![format!(
                        "launch {} with the new configuration",
                        plural(b, "instance", "instances")
                    )],
                    vec![RuleId::RefreshHealthy],
                );
                let mut actions = Vec::new();
                let mut rules = vec![RuleId::RefreshHealthy];
                self.arrive(w, g, &mut actions, &mut rules);
                run.step(actions, rules);
                run.record(self, w, g);
            }
            // Terminate a batch: draining moves their tasks first, as far as the services allow.
            // A trial, undone if draining cannot: the batch then keeps running.
            let saved_launching = w.fleets[g].launching;
            w.fleets[g].begin();
            let displaced = w.fleets[g].terminate(b32, new_cap);
            // The waiting tasks of the group's services, as they are: only they can change.
            let mut saved_pending: Vec<(usize, Option<u64>)> = kinds
                .iter()
                .chain(displaced.iter().map(|(k, _)| k))
                .map(|&k| (k, w.pending.get(&k).copied()))
                .collect();
            saved_pending.sort_unstable();
            saved_pending.dedup();
            for &(k, n) in &displaced {
                *w.pending.entry(k).or_default() += n;
            }
            let _ = self.place_pending(w, g, &kinds);
            let mut stuck = self.draining_stuck(w, g, &displaced);
            if stuck.is_some() {
                // Draining starts the replacements while the batch still runs: managed scaling
                // launches for them round after round (one minimum step a round with several
                // instance types) until the services keep their minimum healthy or nothing more
                // launches.
                let (mut launched, mut rounds, mut rules) = (0u64, 0u32, Vec::new());
                let mut blocked = None;
                w.draining[g] = b32;
                while stuck.is_some() && (rounds as usize) < MAX_STEPS {
                    let launch = self.scale_out(w, g, &kinds)?;
                    if launch.n == 0 {
                        blocked = launch.blocked;
                        if rules.is_empty() {
                            rules = launch.rules;
                        }
                        break;
                    }
                    launched += launch.n;
                    rounds += 1;
                    rules = launch.rules;
                    self.arrive(w, g, &mut Vec::new(), &mut Vec::new());
                    self.place_pending(w, g, &kinds);
                    stuck = self.draining_stuck(w, g, &displaced);
                }
                if launched > 0 {
                    let rounds = if rounds > 1 {
                        format!(" ({rounds} rounds)")
                    } else {
                        String::new()
                    };
                    let mut r = rules.clone();
                    r.push(RuleId::Draining);
                    run.step(
                        vec![format!(
                            "draining starts replacement tasks first; managed scaling launches {} in `{name}` for them{rounds}",
                            plural(launched, "instance", "instances")
                        )],
                        r,
                    );
                }
                if let Some(reason) = stuck {
                    // The batch keeps running; the instances launched for it wait to join.
                    w.draining[g] = 0;
                    w.fleets[g].rollback();
                    for (k, n) in saved_pending {
                        match n {
                            Some(n) => w.pending.insert(k, n),
                            None => w.pending.remove(&k),
                        };
                    }
                    w.fleets[g].launching =
                        saved_launching + u32::try_from(launched).unwrap_or(u32::MAX);
                    run.record(self, w, g);
                    run.step(
                        vec![format!(
                            "terminating {} waits on draining",
                            plural(b, "instance", "instances")
                        )],
                        vec![RuleId::Draining, RuleId::RefreshHealthy],
                    );
                    run.finish(self, w, g);
                    let reason = match blocked {
                        Some(why) => format!("{reason}; {why}"),
                        None => reason,
                    };
                    let at_max = self.sc.groups[g]
                        .max_size
                        .known()
                        .is_some_and(|m| w.fleets[g].instances() + w.fleets[g].launching >= *m);
                    return Ok(if at_max {
                        Verdict::OverMax { reason }
                    } else {
                        Verdict::Stuck { reason }
                    });
                }
                // The batch ran until its tasks were replaced: the group peaked with both.
                run.record(self, w, g);
                w.draining[g] = 0;
                run.step(vec![self.joins(g, launched)], vec![RuleId::InstanceWarmup]);
            }
            w.fleets[g].commit();
            let mut actions = vec![format!(
                "terminate {} ({} tasks drain to other instances or wait)",
                plural(b, "instance", "instances"),
                if b == 1 { "its" } else { "their" }
            )];
            let waiting: u64 = kinds
                .iter()
                .map(|k| w.pending.get(k).copied().unwrap_or(0))
                .sum();
            if waiting > 0 {
                actions.push(format!(
                    "{} wait for the replacements",
                    plural(waiting, "task", "tasks")
                ));
            }
            run.step(actions, vec![RuleId::Draining, RuleId::RefreshHealthy]);
            if extra == 0 {
                w.fleets[g].launching += b32;
                run.step(
                    vec![format!(
                        "launch {} with the new configuration",
                        plural(b, "instance", "instances")
                    )],
                    vec![RuleId::RefreshHealthy],
                );
            }
            replaced += b;
            match self.settle(w, run, g, &kinds)? {
                Verdict::Completes { .. } => {}
                other => return Ok(other),
            }
        }
        if replaced < total {
            return Err(Unknown(format!(
                "no answer after {MAX_STEPS} batches of the refresh"
            )));
        }
        Ok(Verdict::Completes {
            assumptions: Vec::new(),
        })
    }
}

fn bake(d: Deployment) -> String {
    let m = match d {
        Deployment::BlueGreen { bake_minutes }
        | Deployment::Linear { bake_minutes, .. }
        | Deployment::Canary { bake_minutes, .. } => bake_minutes,
        Deployment::Rolling { .. } => None,
    };
    let traffic = match d {
        Deployment::Linear {
            step_percent: Some(p),
            ..
        } => format!(", traffic shifts in steps of {p}%"),
        Deployment::Canary {
            canary_percent: Some(p),
            ..
        } => format!(", {p}% of traffic first"),
        _ => String::new(),
    };
    match m {
        Some(m) => {
            format!("both revisions run at full size through the bake time ({m} min){traffic}")
        }
        None => format!("both revisions run at full size through the bake time{traffic}"),
    }
}

/// What one round of managed scaling does.
#[derive(Debug, Default)]
struct Launch {
    /// Instances it launches, from the warm pool and new.
    n: u64,
    /// Of them, instances that leave the warm pool.
    from_pool: u64,
    /// Instances launched into the warm pool to keep its minimum size.
    refill: u64,
    /// Why nothing launches, when tasks wait.
    blocked: Option<String>,
    rules: Vec<RuleId>,
}

/// What one event's simulation gathers.
#[derive(Debug, Default)]
struct Run {
    steps: Vec<Step>,
    peaks: Vec<GroupPeak>,
    stranded: Vec<crate::answer::Stranded>,
    cost: Option<Cost>,
    deployment: Option<DeploymentGpus>,
    notes: Vec<String>,
    assumptions: Vec<String>,
    /// Most memory reserved on one instance, per instance type whose memory is an upper bound.
    memory: BTreeMap<String, (u64, u64)>,
    steady_instances: u32,
    steady_by_type: BTreeMap<String, u32>,
    peak_by_type: BTreeMap<String, u32>,
    /// The warm pool at the start and when the group is at its peak.
    steady_pool: u32,
    peak_pool: u32,
}

impl Run {
    /// Adds a step, or counts it once more when it repeats the last one.
    fn step(&mut self, actions: Vec<String>, rules: Vec<RuleId>) {
        if let Some(last) = self.steps.last_mut() {
            if last.actions == actions && last.rules == rules {
                last.times += 1;
                return;
            }
        }
        self.steps.push(Step {
            actions,
            rules,
            times: 1,
        });
    }

    fn start(&mut self, sim: &Sim<'_>, w: &World, g: usize) {
        let group = &sim.sc.groups[g];
        let cap = w.launch_cap[g].map(|c| &w.caps[c]);
        let max_gpus = match (group.max_size.known(), cap) {
            (Some(m), Some(c)) => Some(m.saturating_mul(c.gpus)),
            _ => None,
        };
        let f = &w.fleets[g];
        let (reserved, gpus) = f.gpus(&w.caps, &w.kinds);
        self.steady_instances = f.instances();
        let pending = sim.pending_gpus(w, g);
        self.peaks.push(GroupPeak {
            group: group.name.clone(),
            instance_type: cap.map(|c| c.instance_type.clone()),
            assuming: (w.launch_all[g].len() > 1).then_some(sim.bound),
            instances_before: f.instances(),
            peak_instances: f.instances(),
            peak_gpus_reserved: u32::try_from(reserved).unwrap_or(u32::MAX),
            peak_gpus: u32::try_from(gpus).unwrap_or(u32::MAX),
            gpus_asked: u32::try_from(reserved.saturating_add(pending)).unwrap_or(u32::MAX),
            max_instances: group.max_size.clone(),
            max_gpus,
            instances_after: f.instances(),
        });
        if let Some(reason) = &sim.over_max[g] {
            self.notes.push(format!("before the event: {reason}"));
        }
        let others = sim.without_group;
        if others > 0 {
            self.assumptions.push(format!(
                "no other task uses `{}` ({} whose capacity is not known)",
                group.name,
                plural(others as u64, "service", "services")
            ));
        }
        if let Known::Known(Some(pool)) = &group.warm_pool {
            if pool.warm_pools_check == Known::Known(false) {
                self.notes.push(format!(
                    "`{}` has a warm pool and its agent configuration does not set `ECS_WARM_POOLS_CHECK=true`, which ECS asks for: its instances register with the cluster while they are prepared, which is not modelled",
                    group.name
                ));
            }
        }
        self.steady_pool = w.pool[g];
        self.record(sim, w, g);
        self.steady_by_type = self.peak_by_type.clone();
    }

    fn record(&mut self, sim: &Sim<'_>, w: &World, g: usize) {
        let f = &w.fleets[g];
        let (reserved, _) = f.gpus(&w.caps, &w.kinds);
        let instances = f.instances() + f.launching + w.draining[g];
        let launching_gpus =
            w.launch_cap[g].map_or(0, |c| u64::from(w.caps[c].gpus) * u64::from(f.launching));
        let pending = sim.pending_gpus(w, g);
        if let Some(p) = self.peaks.last_mut() {
            if instances >= p.peak_instances {
                p.peak_instances = instances;
                let (_, gpus) = f.gpus(&w.caps, &w.kinds);
                p.peak_gpus = u32::try_from(gpus + launching_gpus).unwrap_or(u32::MAX);
            }
            p.peak_gpus_reserved = p
                .peak_gpus_reserved
                .max(u32::try_from(reserved).unwrap_or(u32::MAX));
            p.gpus_asked = p
                .gpus_asked
                .max(u32::try_from(reserved + pending).unwrap_or(u32::MAX));
            p.instances_after = instances;
        }
        let name = |c: usize| w.caps[c].instance_type.clone();
        let mut by_type: BTreeMap<String, u32> = BTreeMap::new();
        for (c, n) in f.by_cap() {
            if n > 0 {
                *by_type.entry(name(c)).or_default() += n;
            }
        }
        if w.caps.iter().any(|c| !c.memory_exact) {
            let mut most: BTreeMap<usize, u64> = BTreeMap::new();
            for s in f.slots.keys() {
                if w.caps[s.cap].memory_exact || s.comp.is_empty() {
                    continue;
                }
                let used: u64 = s
                    .comp
                    .iter()
                    .map(|&(k, n)| w.kinds[k].memory * u64::from(n))
                    .sum();
                let e = most.entry(s.cap).or_default();
                *e = (*e).max(used);
            }
            for (c, used) in most {
                let e = self.memory.entry(name(c)).or_insert((0, w.caps[c].memory));
                e.0 = e.0.max(used);
            }
        }
        if let Some(c) = w.launch_cap[g] {
            *by_type.entry(name(c)).or_default() += f.launching;
        }
        let total: u32 = by_type.values().sum();
        if total >= self.peak_by_type.values().sum::<u32>() {
            self.peak_by_type = by_type;
            self.peak_pool = w.pool[g];
        }
    }

    fn finish(&mut self, sim: &Sim<'_>, w: &World, g: usize) {
        self.record(sim, w, g);
        for (t, (used, at_most)) in std::mem::take(&mut self.memory) {
            if used > 0 {
                self.assumptions.push(format!(
                    "each `{t}` registers at least {used} MiB for tasks (at most {at_most}: the AWS documentation does not say how much the kernel keeps; `describe-container-instances` shows it)"
                ));
            }
        }
        let idle: u32 = w.fleets[g]
            .slots
            .iter()
            .filter(|(s, _)| s.comp.is_empty())
            .map(|(_, n)| *n)
            .sum();
        if idle > 0 {
            self.notes.push(format!(
                "{} of `{}` {} no task at the end (managed scaling scale-in releases what is beyond its target capacity)",
                plural(u64::from(idle), "instance", "instances"),
                sim.sc.groups[g].name,
                if idle == 1 { "runs" } else { "run" }
            ));
        }
        // Stranded GPUs: free on an instance, and no task kind of the group fits there.
        // The kinds of the group's services, found through the index: a scan of every kind made
        // each event cost the size of the scenario.
        let mut group_kinds: Vec<usize> = sim
            .services_on(g)
            .into_iter()
            .flat_map(|s| [(s, false), (s, true)])
            .filter_map(|key| w.kind_of.get(&key).copied())
            .collect();
        group_kinds.sort_unstable();
        // While tasks wait, stranded GPUs are those the waiting tasks cannot use.
        let waiting: Vec<usize> = group_kinds
            .iter()
            .copied()
            .filter(|k| w.pending.get(k).is_some_and(|&n| n > 0))
            .collect();
        let group_kinds = if waiting.is_empty() {
            group_kinds
        } else {
            waiting
        };
        let mut stranded: BTreeMap<(String, u32, String), u32> = BTreeMap::new();
        for (slot, n) in &w.fleets[g].slots {
            let f = free(&w.caps, &w.kinds, slot);
            if f.gpus <= 0 || group_kinds.is_empty() {
                continue;
            }
            if group_kinds
                .iter()
                .any(|&k| fits(&w.caps, &w.kinds, slot, k) > 0)
            {
                continue;
            }
            let gpus = u32::try_from(f.gpus).unwrap_or(0);
            let need = group_kinds
                .iter()
                .map(|&k| w.kinds[k].gpus)
                .filter(|&x| x > 0)
                .min()
                .unwrap_or(0);
            let why = if need > gpus || need == 0 {
                format!(
                    "the smallest task needs {}",
                    plural(u64::from(need), "GPU", "GPUs")
                )
            } else if group_kinds
                .iter()
                .all(|&k| i64::from(w.kinds[k].cpu) > f.cpu)
            {
                format!(
                    "{} CPU units left, fewer than a task reserves",
                    f.cpu.max(0)
                )
            } else {
                format!("{} MiB of memory left, less than a task reserves, or a port or placement constraint", f.memory.max(0))
            };
            let t = w.caps[slot.cap].instance_type.clone();
            *stranded.entry((t, gpus, why)).or_default() += n;
        }
        self.stranded = stranded
            .into_iter()
            .map(|((instance_type, gpus_each, why), instances)| Stranded {
                group: sim.sc.groups[g].name.clone(),
                instance_type,
                instances,
                gpus_each,
                why,
            })
            .collect();
        let group = &sim.sc.groups[g];
        // Spot capacity is not known before launch: an answer that launches Spot Instances holds
        // only if EC2 has them.
        if let Some(p) = self.peaks.last() {
            let launched = p.peak_instances.saturating_sub(p.instances_before);
            match group.on_demand.known() {
                _ if launched == 0 => {}
                Some(share) => {
                    let spot = share
                        .spot(p.peak_instances)
                        .1
                        .saturating_sub(share.spot(p.instances_before).0)
                        .min(launched);
                    if spot > 0 {
                        let which = match (spot == launched, launched) {
                            (true, 1) => "the instance".to_string(),
                            (true, n) => format!("each of the {n} instances"),
                            (false, n) => format!("up to {spot} of the {n} instances"),
                        };
                        self.assumptions.push(format!(
                            "EC2 has Spot capacity for {which} it launches in `{}` (On-Demand: the first {}, then {}% of the rest; Spot capacity is not known before launch)",
                            group.name,
                            share.base,
                            share.percent_above_base
                        ));
                    }
                }
                None => {
                    if let Err(unknown) = group.on_demand.get() {
                        self.assumptions.push(format!(
                            "the {} it launches in `{}` can be had ({unknown}; Spot capacity is not known before launch)",
                            plural(u64::from(launched), "instance", "instances"),
                            group.name
                        ));
                    }
                }
            }
        }
        if let Known::Known(Some(pool)) = &group.warm_pool {
            if pool.state != PoolState::Running && self.steady_pool.max(self.peak_pool) > 0 {
                self.notes.push(format!(
                    "the warm pool of `{}` keeps {} {} (billed for their volumes, which prices do not cover)",
                    group.name,
                    plural(u64::from(self.steady_pool), "instance", "instances"),
                    pool.state.as_str()
                ));
            }
        }
        // Cost: the steady state's instances and the peak's, when every type has a price.
        if let Some(prices) = sim.prices {
            let share = group.on_demand.known().copied();
            let per = |types: &BTreeMap<String, u32>| -> Option<(f64, f64)> {
                let mut lo = 0.0;
                let mut hi = 0.0;
                for (t, &n) in types {
                    let p = prices.get(t)?;
                    let (a, b) = crate::cost_range(n, share?, p)?;
                    lo += a;
                    hi += b;
                }
                Some((lo, hi))
            };
            // A Running warm pool is billed as running On-Demand instances (a warm pool refuses
            // Spot), of the type the group launches.
            let pool = |n: u32| -> Option<f64> {
                match group.warm_pool.known()? {
                    Some(p) if p.state == PoolState::Running && n > 0 => {
                        let c = w.launch_cap[g]?;
                        let t = w.caps[c].instance_type.as_str();
                        Some(prices.get(t)?.on_demand * f64::from(n))
                    }
                    _ => Some(0.0),
                }
            };
            let with_pool = |c: Option<(f64, f64)>, n: u32| -> Option<(f64, f64)> {
                let (lo, hi) = c?;
                let p = pool(n)?;
                Some((lo + p, hi + p))
            };
            let steady = with_pool(per(&self.steady_by_type), self.steady_pool);
            let peak = with_pool(per(&self.peak_by_type), self.peak_pool);
            if let (Some(s), Some(p)) = (steady, peak) {
                self.cost = Some(Cost { steady: s, peak: p });
            } else {
                self.notes.push("no cost: a price is missing for an instance type, or the On-Demand share or the warm pool is not known".to_string());
            }
        }
    }
}
