//! The simulation: the steady state of a scenario, then one event at a time from it, in steps.
//! Each step applies the model's rules ([`crate::facts`]) in the order ECS and Auto Scaling do:
//! instances launched by the last step join, the scheduler stops what the deployment bounds allow,
//! starts and places what they allow, and managed scaling launches instances for what waits.

use std::collections::BTreeMap;

use ecs_gpu_query::{Expression, Truth};

use crate::answer::{Answer, Cost, Event, GroupPeak, Step, Stranded, Verdict};
use crate::facts::{self, RuleId};
use crate::fleet::{fits, free, Cap, Fleet, Kind, Slot};
use crate::scenario::{
    Constraint, Deployment, InstanceShape, Known, Memory, ProtectedInstances, Scenario, Strategy,
    TaskShape,
};
use crate::Prices;

/// Steps after which a simulation gives up (each step makes progress, so this is far beyond any
/// real event).
const MAX_STEPS: usize = 10_000;

/// Why a simulation cannot answer.
#[derive(Debug)]
struct Unknown(String);

/// The state of every group during one event.
#[derive(Debug, Clone)]
struct World {
    caps: Vec<Cap>,
    kinds: Vec<Kind>,
    fleets: Vec<Fleet>,
    /// The cap new instances of each group get (None: unknown).
    launch_cap: Vec<Option<usize>>,
    /// Tasks started and not placed (PROVISIONING), by kind.
    pending: BTreeMap<usize, u64>,
}

pub(crate) struct Sim<'a> {
    sc: &'a Scenario,
    prices: Option<&'a Prices>,
    /// The steady state, or why it is not known, per group.
    base: Result<World, String>,
    /// Per group: why its steady state is over its maximum.
    over_max: Vec<Option<String>>,
    /// Port numbers, by bit.
    ports: Vec<u16>,
    /// `memberOf` results per (service, cap).
    allowed: BTreeMap<(usize, usize), Truth>,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    pub fn new(sc: &'a Scenario, prices: Option<&'a Prices>) -> Sim<'a> {
        let mut sim = Sim {
            sc,
            prices,
            base: Err(String::new()),
            over_max: vec![None; sc.groups.len()],
            ports: Vec::new(),
            allowed: BTreeMap::new(),
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
        if let Some(i) = w
            .kinds
            .iter()
            .position(|k| k.service == service && k.new == new)
        {
            return Ok(i);
        }
        let s = &self.sc.services[service];
        let distinct = s
            .constraints
            .known()
            .is_some_and(|c| c.contains(&Constraint::DistinctInstance));
        let ports = self.port_bits(&task.host_ports)?;
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
        let (memory, exact) = match shape.memory {
            Memory::Registered(m) => (m, true),
            Memory::AtMost(m) => (m, false),
        };
        let cap = Cap {
            instance_type: if new_config {
                format!("{} (new)", shape.instance_type)
            } else {
                shape.instance_type.clone()
            },
            gpus: shape.gpus,
            cpu: shape.cpu,
            memory,
            memory_exact: exact,
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
        if let Some(t) = self.allowed.get(&(service, cap)) {
            return *t;
        }
        let mut t = Truth::True;
        if let Some(cs) = self.sc.services[service].constraints.known() {
            let name = w.caps[cap]
                .instance_type
                .trim_end_matches(" (new)")
                .to_string();
            for c in cs {
                if let Constraint::MemberOf(e) = c {
                    t = t.and(match Expression::parse(e) {
                        Ok(expr) => ecs_gpu_query::matching_instance_types(&expr, &[name.as_str()])
                            .first()
                            .map_or(Truth::Unknown, |m| m.result),
                        Err(_) => Truth::Unknown,
                    });
                }
            }
        }
        self.allowed.insert((service, cap), t);
        t
    }

    /// The services on a group, with known tasks and desired counts.
    fn services_on(&self, g: usize) -> Vec<usize> {
        let group = &self.sc.groups[g];
        self.sc
            .services
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.group
                    .known()
                    .is_some_and(|n| *n == group.name || group.provider.as_deref() == Some(n))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The steady state: what runs now, or for code the services' tasks placed on as few
    /// instances as hold them.
    fn steady(&mut self) -> Result<World, String> {
        let mut w = World {
            caps: Vec::new(),
            kinds: Vec::new(),
            fleets: vec![Fleet::default(); self.sc.groups.len()],
            launch_cap: vec![None; self.sc.groups.len()],
            pending: BTreeMap::new(),
        };
        for g in 0..self.sc.groups.len() {
            let group = &self.sc.groups[g];
            if let Known::Known(shape) = &group.launches {
                w.launch_cap[g] = Some(Self::cap(&mut w, shape, false));
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
                Known::Unknown { .. } => {
                    let Some(cap) = w.launch_cap[g] else { continue };
                    let start = match (&group.managed_scaling, &group.min_size) {
                        (Known::Known(Some(_)), Known::Known(min)) => *min,
                        (Known::Known(Some(_)), Known::Unknown { .. }) => 0,
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
            cost: run.cost,
            notes: run.notes,
        }
    }

    fn run(&mut self, event: &Event, run: &mut Run) -> Result<Verdict, Unknown> {
        let mut w = self.base.clone().map_err(Unknown)?;
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
                let old = self.kind(&mut w, s, false, &old_task).map_err(Unknown)?;
                let new = self.kind(&mut w, s, true, &new_task).map_err(Unknown)?;
                self.check_inputs(s, g, &w)?;
                run.start(self, &w, g);
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
                run.notes.push(match deployment {
                    Deployment::Rolling { minimum_healthy_percent, maximum_percent } => format!(
                        "rolling deployment of {}: at least {lower} running (minimum healthy {minimum_healthy_percent}%), at most {upper} (maximum {maximum_percent}%)",
                        plural(d, "task", "tasks")
                    ),
                    other => format!(
                        "{} deployment: {} of the new revision start beside the {d} old ones, which stop after the bake time",
                        other.name(),
                        plural(d, "task", "tasks")
                    ),
                });
                if d > 0 && upper < lower + 1 {
                    return Ok(Verdict::Stuck {
                        reason: format!(
                            "the deployment bounds leave no room: {d} desired, at least {lower} must keep running and at most {upper} may run, so no new task can start before an old one stops and none may stop"
                        ),
                    });
                }
                self.deploy(
                    &mut w, run, g, old, new, d, lower, upper, all_first, deployment,
                )
            }
            Event::Scale { service, to } => {
                let s = self.service(service)?;
                let g = self.group_of(s)?;
                self.steady_ok(g)?;
                let svc = &self.sc.services[s];
                let task = svc
                    .task
                    .get()
                    .map_err(|r| self.unknown_input(s, "task", r))?
                    .clone();
                let k = self.kind(&mut w, s, false, &task).map_err(Unknown)?;
                self.check_inputs(s, g, &w)?;
                run.start(self, &w, g);
                let now = w.fleets[g].tasks(k) + w.pending.get(&k).copied().unwrap_or(0);
                let to = u64::from(*to);
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
                    run.record(self, &w, g);
                    run.finish(self, &w, g);
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
                let v = self.settle(&mut w, run, g, &[k])?;
                run.finish(self, &w, g);
                Ok(v)
            }
            Event::Refresh { group } => {
                let g = self
                    .sc
                    .group(group)
                    .ok_or_else(|| Unknown(format!("no group or capacity provider `{group}`")))?;
                self.steady_ok(g)?;
                run.start(self, &w, g);
                let v = self.refresh(&mut w, run, g)?;
                run.finish(self, &w, g);
                Ok(v)
            }
        }
    }

    fn service(&self, name: &str) -> Result<usize, Unknown> {
        self.sc
            .service(name)
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
        self.sc.group(name).ok_or_else(|| {
            Unknown(format!(
                "the capacity of `{}` (`{name}`) is not in the inputs",
                svc.name
            ))
        })
    }

    fn steady_ok(&self, g: usize) -> Result<(), Unknown> {
        let group = &self.sc.groups[g];
        if let Known::Unknown { unknown } = &group.launches {
            if group.instances.known().is_none() {
                return Err(Unknown(format!(
                    "what `{}` launches is not known: {unknown}",
                    group.name
                )));
            }
        }
        if group.instances.known().is_none() {
            match &group.managed_scaling {
                Known::Unknown { unknown } => {
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
        if let Known::Unknown { unknown } = &svc.constraints {
            return Err(self.unknown_input(s, "placement constraints", &unknown.clone()));
        }
        if let Known::Unknown { unknown } = &svc.strategy {
            return Err(self.unknown_input(s, "placement strategy", &unknown.clone()));
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
    fn scale_out(
        &mut self,
        w: &mut World,
        g: usize,
        kinds: &[usize],
    ) -> Result<(u64, Option<String>, Vec<RuleId>), Unknown> {
        let group = &self.sc.groups[g];
        let pending: Vec<(usize, u64)> = kinds
            .iter()
            .filter_map(|&k| w.pending.get(&k).filter(|&&n| n > 0).map(|&n| (k, n)))
            .collect();
        if pending.is_empty() {
            return Ok((0, None, vec![]));
        }
        let ms = match &group.managed_scaling {
            Known::Known(Some(ms)) => *ms,
            Known::Known(None) => {
                return Ok((0, Some(format!("managed scaling is off on `{}`: nothing launches instances for the waiting tasks", group.name)), vec![]))
            }
            Known::Unknown { unknown } => {
                return Err(Unknown(format!("whether `{}` scales out is not known: {unknown}", group.name)))
            }
        };
        let Some(cap) = w.launch_cap[g] else {
            return Err(Unknown(format!(
                "what `{}` launches is not known",
                group.name
            )));
        };
        let empty = Slot {
            cap,
            comp: Vec::new(),
        };
        let mut needed = 0u64;
        for &(k, n) in &pending {
            let s = w.kinds[k].service;
            let per = u64::from(fits(&w.caps, &w.kinds, &empty, k));
            if per == 0 || self.allowed(w, s, cap) != Truth::True {
                let why = if per == 0 {
                    let k = &w.kinds[k];
                    let c = &w.caps[cap];
                    format!(
                        "a task of `{}` ({} GPUs, {} CPU units, {} MiB) does not fit an empty `{}` ({} GPUs, {} CPU units, {} MiB): the capacity provider never scales out for it",
                        self.sc.services[s].name, k.gpus, k.cpu, k.memory, c.instance_type, c.gpus, c.cpu, c.memory
                    )
                } else {
                    format!(
                        "the `memberOf` constraint of `{}` excludes `{}`",
                        self.sc.services[s].name, w.caps[cap].instance_type
                    )
                };
                return Ok((0, Some(why), vec![RuleId::ManagedScalingSmallestType]));
            }
            needed = needed.max(div_ceil(n, per));
        }
        let have = u64::from(w.fleets[g].instances() + w.fleets[g].launching);
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
        if have > 0 && group.zones.known().is_some_and(|z| *z > 1) {
            step = u64::from(ms.min_step);
        }
        let max = match &group.max_size {
            Known::Known(m) => u64::from(*m),
            Known::Unknown { unknown } => {
                return Err(Unknown(format!(
                    "the `max_size` of `{}` is not known: {unknown}",
                    group.name
                )))
            }
        };
        let room = max.saturating_sub(have);
        if room == 0 {
            rules.push(RuleId::GroupMax);
            return Ok((
                0,
                Some(format!("`{}` is at its `max_size` of {max}", group.name)),
                rules,
            ));
        }
        let launch = step.min(room);
        w.fleets[g].launching += u32::try_from(launch).unwrap_or(0);
        Ok((launch, None, rules))
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
            let (launched, blocked, r) = self.scale_out(w, g, kinds)?;
            rules.extend(r);
            self.describe_launch(g, launched, &mut actions);
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
            let warmup = match self.sc.groups[g].managed_scaling.known() {
                Some(Some(ms)) => format!(" after the instance warmup ({} s)", ms.warmup),
                _ => String::new(),
            };
            actions.push(format!(
                "{} `{}`{warmup}",
                plural(u64::from(n), "instance joins", "instances join"),
                self.sc.groups[g].name
            ));
            rules.push(RuleId::InstanceWarmup);
        }
        n
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

    fn describe_launch(&self, g: usize, launched: u64, actions: &mut Vec<String>) {
        if launched > 0 {
            actions.push(format!(
                "managed scaling launches {} in `{}`",
                plural(launched, "instance", "instances"),
                self.sc.groups[g].name
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
            let (launched, blocked, r) = self.scale_out(w, g, &[new])?;
            rules.extend(r);
            self.describe_launch(g, launched, &mut actions);
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
        let protected = match &group.protected {
            Known::Known(p) => *p,
            Known::Unknown { unknown } => {
                return Err(Unknown(format!("whether the instances of `{name}` are protected from scale-in is not known: {unknown}")))
            }
        };
        if protected {
            match r.protected_instances.get() {
                Ok(ProtectedInstances::Refresh) => {}
                Ok(ProtectedInstances::Wait) => {
                    run.step(vec![format!("the refresh waits for the {} protected from scale-in", plural(total, "instance", "instances"))], vec![RuleId::RefreshProtected]);
                    return Ok(Verdict::Stuck {
                        reason: format!("the instances of `{name}` are protected from scale-in and the refresh waits for protected instances (`Wait`): it replaces none"),
                    });
                }
                Ok(ProtectedInstances::Ignore) => {
                    run.step(vec![format!("the refresh skips the {} protected from scale-in", plural(total, "instance", "instances"))], vec![RuleId::RefreshProtected]);
                    return Ok(Verdict::Stuck {
                        reason: format!("the instances of `{name}` are protected from scale-in and the refresh skips protected instances (`Ignore`): none gets the new configuration"),
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
            Self::cap(w, &shape, true)
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
        let services: Vec<usize> = self.services_on(g);
        let kinds: Vec<usize> = (0..w.kinds.len())
            .filter(|&k| services.contains(&w.kinds[k].service))
            .collect();
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
            let mut trial = w.fleets[g].clone();
            let displaced = trial.terminate(b32, &|s| s.cap == new_cap);
            let mut moved = w.clone();
            moved.fleets[g] = trial;
            for &(k, n) in &displaced {
                *moved.pending.entry(k).or_default() += n;
            }
            let _ = self.place_pending(&mut moved, g, &kinds);
            let mut stuck = None;
            for &(k, n) in &displaced {
                let left = moved.pending.get(&k).copied().unwrap_or(0);
                if left == 0 {
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
                let running: u64 = moved
                    .kinds
                    .iter()
                    .enumerate()
                    .filter(|(_, kk)| kk.service == s)
                    .map(|(i, _)| moved.fleets[g].tasks(i))
                    .sum();
                if running < lower {
                    stuck = Some(format!(
                        "draining cannot stop the {} of `{}` on the instances it terminates: the service must keep {lower} running (minimum healthy) and no free GPU is left for their replacements, so the termination waits and the refresh cannot keep going",
                        plural(n, "task", "tasks"),
                        svc.name
                    ));
                    break;
                }
            }
            if let Some(reason) = stuck {
                // Draining starts the replacements first, while the instance still runs: managed
                // scaling may launch instances for them, within `max_size`.
                let mut starved = w.clone();
                for (&k, &n) in &moved.pending {
                    if n > 0 {
                        *starved.pending.entry(k).or_default() += n;
                    }
                }
                let (launched, blocked, rules) = self.scale_out(&mut starved, g, &kinds)?;
                if launched > 0 {
                    w.fleets[g].launching += u32::try_from(launched).unwrap_or(0);
                    let mut actions = vec![format!(
                        "draining starts replacement tasks first; managed scaling launches {} in `{name}` for them",
                        plural(launched, "instance", "instances")
                    )];
                    let mut r = rules;
                    r.push(RuleId::Draining);
                    run.step(std::mem::take(&mut actions), r);
                    let mut r = Vec::new();
                    self.arrive(w, g, &mut actions, &mut r);
                    run.step(actions, r);
                    run.record(self, w, g);
                    continue;
                }
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
            *w = moved;
            let mut actions = vec![format!(
                "terminate {} (their tasks drain to other instances or wait)",
                plural(b, "instance", "instances")
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

/// What one event's simulation gathers.
#[derive(Debug, Default)]
struct Run {
    steps: Vec<Step>,
    peaks: Vec<GroupPeak>,
    stranded: Vec<crate::answer::Stranded>,
    cost: Option<Cost>,
    notes: Vec<String>,
    assumptions: Vec<String>,
    /// Most memory reserved on one instance, per instance type whose memory is an upper bound.
    memory: BTreeMap<String, (u64, u64)>,
    steady_instances: u32,
    peak_by_type: BTreeMap<String, u32>,
}

impl Run {
    fn step(&mut self, actions: Vec<String>, rules: Vec<RuleId>) {
        self.steps.push(Step { actions, rules });
    }

    fn start(&mut self, sim: &Sim<'_>, w: &World, g: usize) {
        let group = &sim.sc.groups[g];
        let cap = w.launch_cap[g].map(|c| &w.caps[c]);
        let max_gpus = match (group.max_size.known(), cap) {
            (Some(m), Some(c)) => Some(m * c.gpus),
            _ => None,
        };
        let f = &w.fleets[g];
        let (reserved, gpus) = f.gpus(&w.caps, &w.kinds);
        self.steady_instances = f.instances();
        let pending: u64 = w
            .pending
            .iter()
            .map(|(k, n)| u64::from(w.kinds[*k].gpus) * n)
            .sum();
        self.peaks.push(GroupPeak {
            group: group.name.clone(),
            instance_type: cap.map(|c| c.instance_type.clone()),
            instances_before: f.instances(),
            peak_instances: f.instances(),
            peak_gpus_reserved: u32::try_from(reserved).unwrap_or(u32::MAX),
            peak_gpus: u32::try_from(gpus).unwrap_or(u32::MAX),
            gpus_needed: u32::try_from(reserved + pending).unwrap_or(u32::MAX),
            max_instances: group.max_size.clone(),
            max_gpus,
            instances_after: f.instances(),
        });
        if let Some(reason) = &sim.over_max[g] {
            self.notes.push(format!("before the event: {reason}"));
        }
        let others = sim
            .sc
            .services
            .iter()
            .filter(|s| s.group.known().is_none())
            .count();
        if others > 0 {
            self.assumptions.push(format!(
                "no other task uses `{}` ({} whose capacity is not known)",
                group.name,
                plural(others as u64, "service", "services")
            ));
        }
        self.record(sim, w, g);
    }

    fn record(&mut self, _sim: &Sim<'_>, w: &World, g: usize) {
        let f = &w.fleets[g];
        let (reserved, _) = f.gpus(&w.caps, &w.kinds);
        let instances = f.instances() + f.launching;
        let launching_gpus =
            w.launch_cap[g].map_or(0, |c| u64::from(w.caps[c].gpus) * u64::from(f.launching));
        let pending: u64 = w
            .pending
            .iter()
            .map(|(k, n)| u64::from(w.kinds[*k].gpus) * n)
            .sum();
        if let Some(p) = self.peaks.last_mut() {
            if instances >= p.peak_instances {
                p.peak_instances = instances;
                let (_, gpus) = f.gpus(&w.caps, &w.kinds);
                p.peak_gpus = u32::try_from(gpus + launching_gpus).unwrap_or(u32::MAX);
            }
            p.peak_gpus_reserved = p
                .peak_gpus_reserved
                .max(u32::try_from(reserved).unwrap_or(u32::MAX));
            p.gpus_needed = p
                .gpus_needed
                .max(u32::try_from(reserved + pending).unwrap_or(u32::MAX));
            p.instances_after = instances;
        }
        let name = |c: usize| {
            w.caps[c]
                .instance_type
                .trim_end_matches(" (new)")
                .to_string()
        };
        let mut by_type: BTreeMap<String, u32> = BTreeMap::new();
        for (c, &n) in f.by_cap().iter().enumerate() {
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
        let group_kinds: Vec<usize> = (0..w.kinds.len())
            .filter(|&k| {
                let s = &sim.sc.services[w.kinds[k].service];
                s.group.known().is_some_and(|n| {
                    *n == sim.sc.groups[g].name || sim.sc.groups[g].provider.as_deref() == Some(n)
                })
            })
            .collect();
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
            let t = w.caps[slot.cap]
                .instance_type
                .trim_end_matches(" (new)")
                .to_string();
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
        // Cost: the steady state's instances and the peak's, when every type has a price.
        if let Some(prices) = sim.prices {
            let group = &sim.sc.groups[g];
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
            let mut steady = BTreeMap::new();
            if let Some(c) = w.launch_cap[g] {
                steady.insert(
                    w.caps[c]
                        .instance_type
                        .trim_end_matches(" (new)")
                        .to_string(),
                    self.steady_instances,
                );
            }
            if let (Some(s), Some(p)) = (per(&steady), per(&self.peak_by_type)) {
                self.cost = Some(Cost { steady: s, peak: p });
            } else {
                self.notes.push("no cost: a price is missing for an instance type, or the On-Demand share is not known".to_string());
            }
        }
    }
}
