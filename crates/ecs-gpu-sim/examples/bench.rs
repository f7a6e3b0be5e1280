//! The benchmark of `bench/simulate/run.sh`: one deployment on a fleet of `INSTANCES` running
//! `TASKS` tasks, simulated with the model.
//!
//! `uniform`: p4d.24xlarge instances, the tasks of ten services (eight of one-GPU tasks, two of
//! CPU-only tasks) placed by the model itself from Terraform-like inputs (the steady state of code),
//! beside the same placement done one instance record at a time (the straightforward way). Every
//! instance runs the same tasks: the grouping's best case.
//!
//! `varied`: a cluster as `describe-container-instances` gives it: instances of four GPU types,
//! each filled part-way with tasks of ten services of different sizes (1, 2 and 4 GPUs; some
//! CPU-only; one with `distinctInstance`, one with a `memberOf`; half binpack, half spread), so
//! that thousands of instances differ, in a group that launches either of two types (so the
//! model simulates both). The deployment of the largest GPU service is simulated from what runs,
//! with a maximum of `MAX_PERCENT` (default 101: about a hundred batches, the most a rolling
//! deployment takes).
//!
//! `stepwise`: a group of two one-GPU types (g6.xlarge, g6.2xlarge) with `max_size` `INSTANCES`
//! scales a service of one-GPU tasks from a tenth of `INSTANCES` to `INSTANCES`: with several types
//! managed scaling adds exactly its minimum step, one instance, per round, so the scale-out takes
//! a step per instance.
//!
//! `refresh`: the `varied` cluster refreshed with a minimum healthy percentage of `MIN_HEALTHY`
//! (default 90: ten batches; 100 replaces one instance at a time).
//!
//! Usage: `bench uniform|varied|stepwise|refresh [INSTANCES] [TASKS] [MAX_PERCENT|MIN_HEALTHY]
//! [TYPES]` (`TYPES`: the varied group launches 1 or 2 types, default 2).

use std::time::{Duration, Instant};

use ecs_gpu_sim::*;

/// A deterministic generator (SplitMix64), so every run builds the same fleet.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A fleet to simulate, and the event that is timed.
struct Case {
    sc: Scenario,
    event: Event,
    /// The steady state placed one instance record at a time, for comparison.
    straightforward: Option<Duration>,
    /// Distinct instance states (type and tasks) before the deployment, when the case builds them.
    distinct: Option<usize>,
}

fn managed(max: u64) -> Group {
    let mut g = Group::new("gpu");
    g.provider = Some("gpu-cp".into());
    g.min_size = Known::Known(0);
    g.max_size = Known::Known(u32::try_from(max).expect("max"));
    g.managed_scaling = Known::Known(Some(ManagedScaling {
        target_capacity: 100,
        min_step: 1,
        max_step: 10_000,
        warmup: 300,
    }));
    g.zones = Known::Known(1);
    g.on_demand = Known::Known(OnDemandShare::ALL);
    g.warm_pool = Known::Known(None);
    g
}

fn uniform(instances: u64, tasks: u64) -> Case {
    let services = 10;
    let mut g = managed(instances * 2);
    g.launches = InstanceShape::from_catalog_all(&["p4d.24xlarge"]);
    let mut sc = Scenario {
        groups: vec![g],
        services: Vec::new(),
    };
    for i in 0..services {
        let mut s = Service::new(format!("svc{i}"));
        s.group = Known::Known("gpu".into());
        s.desired = Known::Known(u32::try_from(tasks / services).expect("tasks"));
        s.task = Known::Known(TaskShape {
            family: format!("svc{i}"),
            gpus: u32::from(i < services * 8 / 10),
            cpu: 1024,
            memory: 4096,
            host_ports: vec![],
        });
        sc.services.push(s);
    }
    // The straightforward way: one record per instance, each task placed by a scan of the fleet.
    let start = Instant::now();
    let mut free: Vec<(u32, u32)> = Vec::new();
    for t in 0..tasks {
        let gpus = u32::from(t < tasks * 8 / 10);
        match free.iter_mut().find(|f| f.0 >= gpus && f.1 >= 1024) {
            Some(f) => {
                f.0 -= gpus;
                f.1 -= 1024;
            }
            None => free.push((8 - gpus, 96 * 1024 - 1024)),
        }
    }
    let naive = start.elapsed();
    Case {
        sc,
        event: deploy("svc0"),
        straightforward: Some(naive),
        distinct: None,
    }
}

fn varied(instances: u64, tasks: u64, maximum_percent: u32, launch_types: usize) -> Case {
    let mut rng = Rng(42);
    let types = ["g5.2xlarge", "g5.12xlarge", "g6e.12xlarge", "p4d.24xlarge"];
    let shapes: Vec<InstanceShape> = types
        .iter()
        .map(|t| {
            let mut s = InstanceShape::from_catalog(t)
                .known()
                .cloned()
                .expect("catalog");
            // Registered memory, as `describe-container-instances` gives it.
            s.memory = Memory::Registered(s.memory.mib() * 95 / 100);
            s
        })
        .collect();
    // (gpus, cpu, memory, distinct, memberOf)
    let sizes: [(u32, u32, u64, bool, Option<&str>); 10] = [
        (1, 4096, 16_384, false, None),
        (1, 2048, 8192, false, None),
        (2, 8192, 32_768, false, None),
        (4, 16_384, 65_536, false, None),
        (1, 1024, 4096, true, None),
        (
            2,
            4096,
            24_576,
            false,
            Some("attribute:ecs.instance-type =~ g6e.*"),
        ),
        (0, 1024, 2048, false, None),
        (0, 512, 1024, false, None),
        (1, 8192, 30_000, false, None),
        (1, 3072, 12_288, false, None),
    ];
    let mut g = managed(instances + instances / 10);
    // New instances: either of two 4-GPU types, so the model answers for both.
    g.launches = Known::Known(shapes[1..=launch_types.clamp(1, 2)].to_vec());
    let mut counts = [0u32; 10];
    let mut list = Vec::new();
    let mut placed = 0u64;
    for i in 0..instances {
        let shape = shapes[usize::try_from(rng.below(4)).expect("type")].clone();
        let (mut gpus, mut cpu, mut mem) = (shape.gpus, shape.cpu, shape.memory.mib());
        let mut on: Vec<(usize, u32)> = Vec::new();
        // Fill part-way: a random number of tasks, each of a random service that fits.
        let left = instances - i;
        let want = (tasks - placed).div_ceil(left);
        let target = rng.below(want * 2 + 1);
        let mut here = 0;
        for _ in 0..target * 4 {
            if here == target {
                break;
            }
            let s = usize::try_from(rng.below(10)).expect("service");
            let (g_, c, m, distinct, member) = sizes[s];
            if g_ > gpus || c > cpu || m > mem || placed >= tasks {
                continue;
            }
            if member.is_some() && !shape.instance_type.starts_with("g6e") {
                continue;
            }
            if distinct && on.iter().any(|(o, _)| *o == s) {
                continue;
            }
            gpus -= g_;
            cpu -= c;
            mem -= m;
            match on.iter_mut().find(|(o, _)| *o == s) {
                Some(e) => e.1 += 1,
                None => on.push((s, 1)),
            }
            counts[s] += 1;
            placed += 1;
            here += 1;
        }
        list.push(Instance {
            id: format!("i-{i:08x}"),
            shape,
            tasks: on,
            protected: Known::unknown("not read"),
        });
    }
    let mut states: Vec<(String, Vec<(usize, u32)>)> = list
        .iter()
        .map(|i| {
            let mut t = i.tasks.clone();
            t.sort_unstable();
            (i.shape.instance_type.clone(), t)
        })
        .collect();
    states.sort_unstable();
    states.dedup();
    g.instances = Known::Known(list);
    let mut sc = Scenario {
        groups: vec![g],
        services: Vec::new(),
    };
    for (i, (gpus, cpu, memory, distinct, member)) in sizes.iter().enumerate() {
        let mut s = Service::new(format!("svc{i}"));
        s.group = Known::Known("gpu-cp".into());
        s.desired = Known::Known(counts[i]);
        s.task = Known::Known(TaskShape {
            family: format!("svc{i}"),
            gpus: *gpus,
            cpu: *cpu,
            memory: *memory,
            host_ports: vec![],
        });
        let mut c = Vec::new();
        if *distinct {
            c.push(Constraint::DistinctInstance);
        }
        if let Some(e) = member {
            c.push(Constraint::MemberOf((*e).to_string()));
        }
        s.constraints = Known::Known(c);
        s.deployment = Known::Known(Deployment::Rolling {
            minimum_healthy_percent: 100,
            maximum_percent,
        });
        if i % 2 == 1 {
            s.strategy = Known::Known(Strategy::Binpack);
        }
        sc.services.push(s);
    }
    let largest = (0..10)
        .filter(|&i| sizes[i].0 > 0)
        .max_by_key(|&i| counts[i])
        .expect("services");
    Case {
        sc,
        event: deploy(&format!("svc{largest}")),
        straightforward: None,
        distinct: Some(states.len()),
    }
}

fn deploy(service: &str) -> Event {
    Event::Deploy {
        service: service.into(),
        task: None,
    }
}

fn stepwise(instances: u64) -> Case {
    let mut g = managed(instances);
    g.launches = InstanceShape::from_catalog_all(&["g6.xlarge", "g6.2xlarge"]);
    let mut s = Service::new("embed");
    s.group = Known::Known("gpu".into());
    s.desired = Known::Known(u32::try_from(instances / 10).expect("instances"));
    s.task = Known::Known(TaskShape {
        family: "embed".into(),
        gpus: 1,
        cpu: 2048,
        memory: 8192,
        host_ports: vec![],
    });
    Case {
        sc: Scenario {
            groups: vec![g],
            services: vec![s],
        },
        event: Event::Scale {
            service: "embed".into(),
            to: u32::try_from(instances).expect("instances").into(),
        },
        straightforward: None,
        distinct: None,
    }
}

// A benchmark prints its figures.
#[allow(clippy::print_stdout)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let case = args.first().map_or("uniform", String::as_str);
    let num = |i: usize, d: u64| args.get(i).map_or(d, |a| a.parse().expect("a number"));
    let (instances, tasks) = (num(1, 10_000), num(2, 100_000));
    let Case {
        sc,
        event,
        straightforward,
        distinct,
    } = match case {
        "uniform" => uniform(instances, tasks),
        "varied" => varied(
            instances,
            tasks,
            u32::try_from(num(3, 101)).expect("a percentage"),
            usize::try_from(num(4, 2)).expect("1 or 2"),
        ),
        "stepwise" => stepwise(instances),
        "refresh" => {
            // One launch type: with two, a refresh whose answers differ by type is unknown.
            let mut c = varied(instances, tasks, 100, 1);
            let g = &mut c.sc.groups[0];
            g.protected = Known::Known(false);
            g.refresh = Refresh {
                min_healthy: Known::Known(u32::try_from(num(3, 90)).expect("a percentage")),
                max_healthy: Known::Known(100),
                warmup: Known::Known(300),
                skip_matching: Known::Known(false),
                protected_instances: Known::Known(ProtectedInstances::Refresh),
            };
            c.event = Event::Refresh {
                group: "gpu".into(),
            };
            c
        }
        other => panic!("unknown case `{other}`: uniform, varied, stepwise or refresh"),
    };
    // The best of five runs: the machine is shared, and the model is pure.
    let mut model = Duration::MAX;
    let mut report = None;
    for _ in 0..5 {
        let start = Instant::now();
        let r = simulate(&sc, std::slice::from_ref(&event), None);
        model = model.min(start.elapsed());
        report = Some(r);
    }
    let report = report.expect("five runs");
    let a = &report.answers[0];
    let g = &a.groups[0];
    let mut line = format!(
        "{case}: instances {}{} tasks {} {} {} in {} steps, model {:.2} ms (best of 5)",
        g.instances_before,
        distinct.map_or(String::new(), |d| format!(" ({d} distinct)")),
        sc.services
            .iter()
            .filter_map(|s| s.desired.known())
            .map(|&d| u64::from(d))
            .sum::<u64>(),
        event.title(),
        a.verdict.as_str(),
        a.timeline.iter().map(|s| s.times).sum::<u32>(),
        model.as_secs_f64() * 1e3,
    );
    if let Some(t) = straightforward {
        line.push_str(&format!(
            ", straightforward placement alone {:.1} ms",
            t.as_secs_f64() * 1e3
        ));
    }
    if let Some(r) = a.verdict.reason() {
        line.push_str(&format!(" ({r})"));
    }
    println!("{line}");
}
