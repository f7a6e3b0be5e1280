//! Scenarios for the simulator target, built from any bytes: groups of catalog instance types
//! (and running instances with tasks), services with any sizes, counts, deployments, constraints
//! and strategies, and events on them. Sizes come from the whole `u32` range as well as small
//! ones: the engine aggregates what it can and must stay bounded on the rest.

use arbitrary::{Result, Unstructured};
use ecs_gpu_sim::{
    Constraint, Deployment, Event, Group, Instance, InstanceShape, Known, ManagedScaling, Memory,
    OnDemandShare, PoolState, ProtectedInstances, Scenario, Service, Strategy, TaskShape, WarmPool,
};

const TYPES: &[&str] = &[
    "g4dn.xlarge",
    "g4dn.12xlarge",
    "g5.xlarge",
    "g5.12xlarge",
    "g5.48xlarge",
    "g6.xlarge",
    "g6e.12xlarge",
    "p4d.24xlarge",
    "p5.48xlarge",
    "g6f.large",
    "c5.xlarge",
];

const EXPRESSIONS: &[&str] = &[
    "attribute:ecs.instance-type == g5.xlarge",
    "attribute:ecs.instance-type =~ g5.*",
    "attribute:ecs.instance-type in [g5.12xlarge, g6.12xlarge]",
    "attribute:ecs.availability-zone != us-east-1a",
    "not(attribute:ecs.instance-type == p5.48xlarge)",
    "attribute:ecs.instance-type ==",
];

/// A number: mostly small, sometimes anything.
fn number(u: &mut Unstructured<'_>, small: u32) -> Result<u32> {
    Ok(if u.ratio(7, 8)? {
        u.int_in_range(0..=small)?
    } else {
        u.arbitrary()?
    })
}

fn known<T>(value: T, u: &mut Unstructured<'_>) -> Result<Known<T>> {
    Ok(if u.ratio(1, 10)? {
        Known::unknown("fuzzed unknown")
    } else {
        Known::Known(value)
    })
}

fn shape(u: &mut Unstructured<'_>) -> Result<InstanceShape> {
    let name = *u.choose(TYPES)?;
    Ok(match InstanceShape::from_catalog_all(&[name]) {
        Known::Known(mut v) if !v.is_empty() => {
            let mut s = v.remove(0);
            if u.ratio(1, 4)? {
                s.memory = Memory::Registered(u64::from(number(u, 800_000)?));
            }
            s
        }
        _ => InstanceShape {
            instance_type: name.to_string(),
            gpus: number(u, 8)?,
            cpu: number(u, 196_608)?,
            memory: Memory::AtMost(u64::from(number(u, 2_000_000)?)),
        },
    })
}

fn group(u: &mut Unstructured<'_>, index: usize, services: usize) -> Result<Group> {
    let mut g = Group::new(format!("g{index}"));
    g.provider = Some(format!("cp{index}"));
    let kinds = u.int_in_range(1..=3)?;
    let mut launches = Vec::new();
    for _ in 0..kinds {
        launches.push(shape(u)?);
    }
    g.launches = known(launches.clone(), u)?;
    g.min_size = known(number(u, 4)?, u)?;
    g.max_size = known(number(u, 16)?, u)?;
    g.zones = known(u.int_in_range(0..=4)?, u)?;
    g.protected = known(u.arbitrary()?, u)?;
    g.on_demand = known(
        OnDemandShare {
            base: number(u, 4)?,
            percent_above_base: number(u, 100)?,
        },
        u,
    )?;
    g.managed_scaling = known(
        if u.ratio(3, 4)? {
            Some(ManagedScaling {
                target_capacity: number(u, 100)?,
                min_step: number(u, 4)?,
                max_step: number(u, 10_000)?,
                warmup: number(u, 600)?,
            })
        } else {
            None
        },
        u,
    )?;
    g.warm_pool = known(
        if u.ratio(1, 4)? {
            Some(WarmPool {
                state: *u.choose(&[
                    PoolState::Stopped,
                    PoolState::Running,
                    PoolState::Hibernated,
                ])?,
                min_size: number(u, 4)?,
                max_prepared: if u.arbitrary()? {
                    Some(number(u, 8)?)
                } else {
                    None
                },
                warm_pools_check: known(u.arbitrary()?, u)?,
            })
        } else {
            None
        },
        u,
    )?;
    g.refresh.min_healthy = known(number(u, 100)?, u)?;
    g.refresh.max_healthy = known(number(u, 200)?, u)?;
    g.refresh.warmup = known(number(u, 600)?, u)?;
    g.refresh.skip_matching = known(u.arbitrary()?, u)?;
    g.refresh.protected_instances = known(
        *u.choose(&[
            ProtectedInstances::Refresh,
            ProtectedInstances::Ignore,
            ProtectedInstances::Wait,
        ])?,
        u,
    )?;
    if u.arbitrary()? {
        let n = u.int_in_range(0..=6)?;
        let mut list = Vec::new();
        for i in 0..n {
            let shape = if launches.is_empty() || u.ratio(1, 5)? {
                shape(u)?
            } else {
                u.choose(&launches)?.clone()
            };
            let mut tasks = Vec::new();
            if services > 0 && u.arbitrary()? {
                tasks.push((u.int_in_range(0..=services - 1)?, number(u, 8)?));
            }
            list.push(Instance {
                id: format!("i-{index}-{i}"),
                shape,
                tasks,
                protected: known(u.arbitrary()?, u)?,
            });
        }
        g.instances = Known::Known(list);
    }
    Ok(g)
}

fn deployment(u: &mut Unstructured<'_>) -> Result<Deployment> {
    let bake = |u: &mut Unstructured<'_>| -> Result<Option<u32>> {
        Ok(if u.arbitrary()? {
            Some(number(u, 60)?)
        } else {
            None
        })
    };
    Ok(match u.int_in_range(0..=3)? {
        0 => Deployment::Rolling {
            minimum_healthy_percent: number(u, 100)?,
            maximum_percent: number(u, 200)?,
        },
        1 => Deployment::BlueGreen {
            bake_minutes: bake(u)?,
        },
        2 => Deployment::Linear {
            step_percent: bake(u)?,
            bake_minutes: bake(u)?,
        },
        _ => Deployment::Canary {
            canary_percent: bake(u)?,
            bake_minutes: bake(u)?,
        },
    })
}

fn task(u: &mut Unstructured<'_>) -> Result<TaskShape> {
    let ports = u.int_in_range(0..=2)?;
    let mut host_ports = Vec::new();
    for _ in 0..ports {
        host_ports.push(*u.choose(&[0u16, 80, 8000, 8080])?);
    }
    Ok(TaskShape {
        family: "f".into(),
        gpus: number(u, 8)?,
        cpu: number(u, 8192)?,
        memory: u64::from(number(u, 200_000)?),
        host_ports,
    })
}

fn service(u: &mut Unstructured<'_>, index: usize, groups: usize) -> Result<Service> {
    let mut s = Service::new(format!("s{index}"));
    s.group = if groups > 0 {
        known(format!("g{}", u.int_in_range(0..=groups - 1)?), u)?
    } else {
        Known::unknown("no group")
    };
    s.desired = known(number(u, 16)?, u)?;
    s.task = known(task(u)?, u)?;
    s.gpu = s.task.known().is_some_and(|t| t.gpus > 0);
    s.deployment = known(deployment(u)?, u)?;
    let mut constraints = Vec::new();
    if u.arbitrary()? {
        constraints.push(Constraint::DistinctInstance);
    }
    if u.arbitrary()? {
        constraints.push(Constraint::MemberOf((*u.choose(EXPRESSIONS)?).into()));
    }
    s.constraints = known(constraints, u)?;
    s.strategy = known(
        *u.choose(&[Strategy::Binpack, Strategy::Spread, Strategy::Random])?,
        u,
    )?;
    Ok(s)
}

/// A scenario of up to 3 groups and 4 services, and up to 4 events on them.
pub fn scenario(u: &mut Unstructured<'_>) -> Result<(Scenario, Vec<Event>)> {
    let groups = u.int_in_range(0..=3)?;
    let services = u.int_in_range(0..=4)?;
    let mut sc = Scenario::default();
    for i in 0..groups {
        sc.groups.push(group(u, i, services)?);
    }
    for i in 0..services {
        sc.services.push(service(u, i, groups)?);
    }
    let mut events = Vec::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let service = format!("s{}", u.int_in_range(0..=services.max(1))?);
        events.push(match u.int_in_range(0..=2)? {
            0 => Event::Deploy {
                service,
                task: if u.arbitrary()? { Some(task(u)?) } else { None },
            },
            1 => Event::Scale {
                service,
                to: number(u, 32)?.into(),
            },
            _ => Event::Refresh {
                group: format!("g{}", u.int_in_range(0..=groups.max(1))?),
            },
        });
    }
    Ok((sc, events))
}
