//! The benchmark of `bench/simulate/run.sh`: one rolling deployment on a fleet of `INSTANCES`
//! p4d.24xlarge running `TASKS` tasks of ten services (eight of one-GPU tasks, two of CPU-only
//! tasks), simulated with the model, beside the same steady-state placement done one instance
//! record at a time (the straightforward way).

use std::time::Instant;

use ecs_gpu_sim::*;

// A benchmark prints its figures.
#[allow(clippy::print_stdout)]
fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers"))
        .collect();
    let (instances, tasks, services) = (args[0], args[1], args.get(2).copied().unwrap_or(10));
    let mut g = Group::new("gpu");
    g.launches = InstanceShape::from_catalog("p4d.24xlarge");
    g.min_size = Known::Known(0);
    g.max_size = Known::Known(u32::try_from(instances * 2).unwrap());
    g.managed_scaling = Known::Known(Some(ManagedScaling {
        target_capacity: 100,
        min_step: 1,
        max_step: 10_000,
        warmup: 300,
    }));
    let mut sc = Scenario {
        groups: vec![g],
        services: Vec::new(),
    };
    for i in 0..services {
        let mut s = Service::new(format!("svc{i}"));
        s.group = Known::Known("gpu".into());
        s.desired = Known::Known(u32::try_from(tasks / services).unwrap());
        s.task = Known::Known(TaskShape {
            family: format!("svc{i}"),
            gpus: u32::from(i < services * 8 / 10),
            cpu: 1024,
            memory: 4096,
            host_ports: vec![],
        });
        sc.services.push(s);
    }
    let start = Instant::now();
    let report = simulate(
        &sc,
        &[Event::Deploy {
            service: "svc0".into(),
            task: None,
        }],
        None,
    );
    let model = start.elapsed();
    // The straightforward way: one record per instance, each task placed by a scan of the fleet.
    let start = Instant::now();
    let mut free: Vec<(u32, u32)> = Vec::new();
    let mut placed = 0u64;
    for t in 0..tasks {
        let gpus = u32::from(t < tasks * 8 / 10);
        match free.iter_mut().find(|f| f.0 >= gpus && f.1 >= 1024) {
            Some(f) => {
                f.0 -= gpus;
                f.1 -= 1024;
            }
            None => free.push((8 - gpus, 96 * 1024 - 1024)),
        }
        placed += 1;
    }
    let naive = start.elapsed();
    println!(
        "instances {} tasks {placed} verdict {} model {:.3} ms, straightforward placement only {:.1} ms",
        report.answers[0].groups[0].instances_before,
        report.answers[0].verdict.as_str(),
        model.as_secs_f64() * 1e3,
        naive.as_secs_f64() * 1e3
    );
}
