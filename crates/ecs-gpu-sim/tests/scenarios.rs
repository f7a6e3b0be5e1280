//! The scenarios the model exists for, on hand-built inputs, and the AWS documentation's worked
//! examples. Each pins the human rendering (a reader's view) and asserts the verdict.

use ecs_gpu_sim::*;

fn group(name: &str, instance_type: &str, min: u32, max: u32) -> Group {
    let mut g = Group::new(name);
    g.provider = Some(format!("{name}-cp"));
    g.launches = InstanceShape::from_catalog_all(&[instance_type]);
    g.min_size = Known::Known(min);
    g.max_size = Known::Known(max);
    g.managed_scaling = Known::Known(Some(ManagedScaling {
        target_capacity: 100,
        min_step: 1,
        max_step: 10_000,
        warmup: 300,
    }));
    g.zones = Known::Known(1);
    g.on_demand = Known::Known(OnDemandShare::ALL);
    g.warm_pool = Known::Known(None);
    g.protected = Known::Known(true);
    g.refresh = Refresh {
        min_healthy: Known::Known(90),
        max_healthy: Known::Known(100),
        warmup: Known::Known(300),
        skip_matching: Known::Known(false),
        protected_instances: Known::Known(ProtectedInstances::Refresh),
    };
    g
}

fn service(name: &str, group: &str, desired: u32, gpus: u32, cpu: u32, memory: u64) -> Service {
    let mut s = Service::new(name);
    s.group = Known::Known(group.to_string());
    s.desired = Known::Known(desired);
    s.task = Known::Known(TaskShape {
        family: name.to_string(),
        gpus,
        cpu,
        memory,
        host_ports: Vec::new(),
    });
    s
}

fn rolling(min: u32, max: u32) -> Known<Deployment> {
    Known::Known(Deployment::Rolling {
        minimum_healthy_percent: min,
        maximum_percent: max,
    })
}

fn run(sc: &Scenario, events: &[Event]) -> (Report, String) {
    let report = simulate(sc, events, None);
    let mut out = Vec::new();
    render::human(&mut out, &report).unwrap();
    (report, String::from_utf8(out).unwrap())
}

fn deploy(s: &str) -> Event {
    Event::Deploy {
        service: s.into(),
        task: None,
    }
}

#[test]
fn rolling_deployment_waits_forever_for_a_free_gpu() {
    // Two 4-GPU tasks fill the two g5.12xlarge `max_size` allows; 100% minimum healthy keeps both
    // running, so the first new task needs a fifth GPU that never comes.
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 2)],
        services: vec![service("train", "gpu", 2, 4, 4096, 32768)],
    };
    let (report, text) = run(&sc, &[deploy("train")]);
    assert_eq!(report.answers[0].verdict.as_str(), "over-max", "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn rolling_deployment_with_minimum_healthy_below_100_fits_the_same_fleet() {
    let mut svc = service("train", "gpu", 2, 4, 4096, 32768);
    svc.deployment = rolling(50, 100);
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 2)],
        services: vec![svc],
    };
    let (report, text) = run(&sc, &[deploy("train")]);
    assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
    assert_eq!(report.answers[0].groups[0].peak_instances, 2);
    insta::assert_snapshot!(text);
}

#[test]
fn blue_green_needs_twice_the_fleet() {
    let mut svc = service("infer", "gpu", 4, 1, 2048, 8192);
    svc.deployment = Known::Known(Deployment::BlueGreen {
        bake_minutes: Some(10),
    });
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 6)],
        services: vec![svc],
    };
    let (report, text) = run(&sc, &[deploy("infer")]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "over-max", "{text}");
    assert_eq!(a.groups[0].gpus_asked, 8);
    insta::assert_snapshot!(text);
}

#[test]
fn blue_green_completes_with_room_for_both_environments() {
    let mut svc = service("infer", "gpu", 4, 1, 2048, 8192);
    svc.deployment = Known::Known(Deployment::Canary {
        canary_percent: Some(10),
        bake_minutes: Some(15),
    });
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 8)],
        services: vec![svc],
    };
    let (report, text) = run(&sc, &[deploy("infer")]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert_eq!(a.groups[0].peak_instances, 8, "{text}");
    assert_eq!(a.groups[0].instances_after, 8, "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn scale_from_zero_launches_two_instances() {
    let sc = Scenario {
        groups: vec![group("gpu", "p4d.24xlarge", 0, 4)],
        services: vec![service("train", "gpu", 0, 8, 8192, 65536)],
    };
    let (report, text) = run(
        &sc,
        &[Event::Scale {
            service: "train".into(),
            to: 1.into(),
        }],
    );
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert_eq!(a.groups[0].instances_before, 0);
    assert_eq!(a.groups[0].peak_instances, 2, "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn two_services_starve_each_other_on_one_capacity_provider() {
    // `embed` (1 GPU a task, spread) lands first on the three g5.12xlarge; `train` needs a whole
    // instance's 4 GPUs, and none has them any more, though 8 GPUs are free in all.
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 3, 3)],
        services: vec![
            service("embed", "gpu", 4, 1, 1024, 4096),
            service("train", "gpu", 0, 4, 4096, 32768),
        ],
    };
    let (report, text) = run(
        &sc,
        &[Event::Scale {
            service: "train".into(),
            to: 1.into(),
        }],
    );
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "over-max", "{text}");
    assert!(!a.stranded.is_empty(), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn instance_refresh_cannot_keep_minimum_healthy_when_every_gpu_is_pinned() {
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 2)],
        services: vec![service("infer", "gpu", 2, 1, 2048, 8192)],
    };
    let (report, text) = run(
        &sc,
        &[Event::Refresh {
            group: "gpu".into(),
        }],
    );
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "over-max", "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn instance_refresh_with_a_spare_instance_completes() {
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 3)],
        services: vec![service("infer", "gpu", 2, 1, 2048, 8192)],
    };
    let (report, text) = run(
        &sc,
        &[Event::Refresh {
            group: "gpu".into(),
        }],
    );
    assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn gpus_stranded_on_an_eight_gpu_instance() {
    // 3-GPU tasks: two fill 6 of a p4d.24xlarge's 8 GPUs; the other 2 can never be used.
    let sc = Scenario {
        groups: vec![group("gpu", "p4d.24xlarge", 0, 4)],
        services: vec![service("train", "gpu", 2, 3, 8192, 65536)],
    };
    let (report, text) = run(
        &sc,
        &[Event::Scale {
            service: "train".into(),
            to: 4.into(),
        }],
    );
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert_eq!(a.stranded.len(), 1, "{text}");
    assert_eq!(a.stranded[0].gpus_each, 2);
    assert_eq!(a.stranded[0].instances, 2);
    insta::assert_snapshot!(text);
}

// The AWS documentation's worked examples.

#[test]
fn documented_example_minimum_healthy_50_of_four_stops_two_before_starting_two() {
    let mut svc = service("web", "gpu", 4, 1, 1024, 2048);
    svc.deployment = rolling(50, 100);
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 4)],
        services: vec![svc],
    };
    let (report, text) = run(&sc, &[deploy("web")]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert_eq!(
        a.timeline[0].actions[0], "stop 2 tasks of `web` (old revision)",
        "{text}"
    );
    assert_eq!(a.groups[0].peak_instances, 4, "{text}");
}

#[test]
fn documented_example_maximum_200_of_four_starts_four_before_stopping() {
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 8)],
        services: vec![service("web", "gpu", 4, 1, 1024, 2048)],
    };
    let (report, text) = run(&sc, &[deploy("web")]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert_eq!(
        a.timeline[0].actions[0],
        "start 4 tasks of `web` (new revision)"
    );
    assert_eq!(a.groups[0].peak_gpus_reserved, 8, "{text}");
}

#[test]
fn documented_example_minimum_healthy_75_of_two_cannot_stop_any() {
    // 75% of 2 rounds up to 2: with a maximum of 100% nothing can start or stop.
    let mut svc = service("web", "gpu", 2, 1, 1024, 2048);
    svc.deployment = rolling(75, 100);
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 4)],
        services: vec![svc],
    };
    let (report, text) = run(&sc, &[deploy("web")]);
    assert_eq!(report.answers[0].verdict.as_str(), "stuck", "{text}");
}

#[test]
fn managed_scaling_step_sizes_bound_each_scale_out() {
    let mut g = group("gpu", "g5.xlarge", 0, 20);
    g.managed_scaling = Known::Known(Some(ManagedScaling {
        target_capacity: 100,
        min_step: 1,
        max_step: 3,
        warmup: 120,
    }));
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("web", "gpu", 2, 1, 1024, 2048)],
    };
    let (report, text) = run(
        &sc,
        &[Event::Scale {
            service: "web".into(),
            to: 10.into(),
        }],
    );
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    let launches: Vec<&String> = a
        .timeline
        .iter()
        .flat_map(|s| &s.actions)
        .filter(|x| x.starts_with("managed scaling launches"))
        .collect();
    assert_eq!(
        launches,
        [
            "managed scaling launches 3 instances in `gpu`",
            "managed scaling launches 3 instances in `gpu`",
            "managed scaling launches 2 instances in `gpu`"
        ],
        "{text}"
    );
}

#[test]
fn unknown_inputs_make_unknown_answers() {
    let mut g = group("gpu", "g5.xlarge", 0, 2);
    g.max_size = Known::unknown("`var.max` has no value");
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("web", "gpu", 2, 1, 1024, 2048)],
    };
    let (report, text) = run(&sc, &[deploy("web")]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "unknown", "{text}");
    assert!(a.verdict.reason().unwrap().contains("var.max"), "{text}");
}

#[test]
fn deployment_need_gives_the_arithmetic() {
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 2)],
        services: vec![service("train", "gpu", 2, 4, 4096, 32768)],
    };
    let need = deployment_need(&sc, "train").unwrap();
    assert!(!need.holds());
    assert_eq!(need.tasks_at_once, 3);
    assert_eq!(need.instances_needed, 3);
    insta::assert_snapshot!(need.arithmetic());
}

#[test]
fn json_rendering_has_a_summary() {
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 2)],
        services: vec![service("train", "gpu", 2, 4, 4096, 32768)],
    };
    let report = simulate(&sc, &[deploy("train")], None);
    let mut out = Vec::new();
    render::json(&mut out, &report).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["summary"]["over-max"], 1);
    insta::assert_snapshot!(String::from_utf8(out).unwrap());
}

#[test]
fn prices_give_cost_per_hour() {
    let sc = Scenario {
        groups: vec![group("gpu", "g5.xlarge", 0, 4)],
        services: vec![service("web", "gpu", 2, 1, 1024, 2048)],
    };
    let prices = parse_prices(r#"{"g5.xlarge": {"on_demand": 1.0}}"#).unwrap();
    let report = simulate(&sc, &[deploy("web")], Some(&prices));
    let c = report.answers[0].cost.as_ref().unwrap();
    assert_eq!(c.steady, (2.0, 2.0));
    assert_eq!(c.peak, (4.0, 4.0));
    assert!(parse_prices(r#"{"g5.xlarge": {"on_demand": -1}}"#).is_err());
    assert!(parse_prices(r#"{"g5.xlarge": 1}"#).is_err());
}

// Warm pools, Spot share and groups of several instance types.

fn scale(s: &str, to: u32) -> Event {
    Event::Scale {
        service: s.into(),
        to: to.into(),
    }
}

fn pool(state: PoolState, min_size: u32, max_prepared: Option<u32>) -> Known<Option<WarmPool>> {
    Known::Known(Some(WarmPool {
        state,
        min_size,
        max_prepared,
        warm_pools_check: Known::Known(true),
    }))
}

#[test]
fn warm_pool_instances_join_first_and_the_rest_launch_new() {
    // max_size 6, one instance in service: the pool holds max_prepared 3 - 1 = 2; a scale-out of
    // three instances takes both and launches one.
    let mut g = group("gpu", "g5.xlarge", 1, 6);
    g.warm_pool = pool(PoolState::Stopped, 0, Some(3));
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 1, 1, 2048, 8192)],
    };
    let (report, text) = run(&sc, &[scale("infer", 4)]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert!(
        text.contains(
            "managed scaling launches 3 instances in `gpu` (2 from its warm pool, started; 1 new)"
        ),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn warm_pool_counts_against_nothing_beyond_max_size() {
    // A pool never lets the group run more than max_size in service.
    let mut g = group("gpu", "g5.xlarge", 0, 2);
    g.warm_pool = pool(PoolState::Running, 4, None);
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 2, 1, 2048, 8192)],
    };
    let (report, text) = run(&sc, &[scale("infer", 3)]);
    assert_eq!(report.answers[0].verdict.as_str(), "over-max", "{text}");
}

#[test]
fn warm_pool_keeps_its_minimum_size_by_launching_into_it() {
    let mut g = group("gpu", "g5.xlarge", 0, 10);
    g.warm_pool = pool(PoolState::Running, 2, Some(2));
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 1, 1, 2048, 8192)],
    };
    let prices = parse_prices(r#"{"g5.xlarge": {"on_demand": 1.0}}"#).unwrap();
    let report = simulate(&sc, &[scale("infer", 2)], Some(&prices));
    let a = &report.answers[0];
    let text = {
        let mut out = Vec::new();
        render::human(&mut out, &report).unwrap();
        String::from_utf8(out).unwrap()
    };
    assert!(
        text.contains("1 instance launches into the warm pool of `gpu` to keep its `min_size`"),
        "{text}"
    );
    // A Running pool is billed as running instances: 1 in service + 2 in the pool, then 2 + 2.
    let c = a.cost.as_ref().unwrap();
    assert_eq!(c.steady, (3.0, 3.0), "{text}");
    assert_eq!(c.peak, (4.0, 4.0), "{text}");
}

#[test]
fn warm_pool_without_warm_pools_check_says_so() {
    let mut g = group("gpu", "g5.xlarge", 0, 4);
    g.warm_pool = Known::Known(Some(WarmPool {
        state: PoolState::Stopped,
        min_size: 0,
        max_prepared: None,
        warm_pools_check: Known::Known(false),
    }));
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 1, 1, 2048, 8192)],
    };
    let (_, text) = run(&sc, &[scale("infer", 2)]);
    assert!(
        text.contains("does not set `ECS_WARM_POOLS_CHECK=true`"),
        "{text}"
    );
}

#[test]
fn spot_share_makes_launches_depend_on_spot_capacity() {
    // One On-Demand instance as a floor, everything above it Spot: scaling from 1 to 3 instances
    // launches two Spot Instances, which EC2 may not have.
    let mut g = group("gpu", "g5.xlarge", 0, 4);
    g.on_demand = Known::Known(OnDemandShare {
        base: 1,
        percent_above_base: 0,
    });
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 1, 1, 2048, 8192)],
    };
    let (report, text) = run(&sc, &[scale("infer", 3)]);
    let Verdict::Completes { assumptions } = &report.answers[0].verdict else {
        panic!("{text}")
    };
    assert!(
        assumptions
            .iter()
            .any(|a| a.starts_with("EC2 has Spot capacity for each of the 2 instances it launches")),
        "{text}"
    );
    // With a base that covers every instance, nothing depends on Spot.
    let mut g = group("gpu", "g5.xlarge", 0, 4);
    g.on_demand = Known::Known(OnDemandShare {
        base: 4,
        percent_above_base: 0,
    });
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 1, 1, 2048, 8192)],
    };
    let (_, text) = run(&sc, &[scale("infer", 3)]);
    assert!(!text.contains("Spot capacity"), "{text}");
}

fn mixed(name: &str, types: &[&str], min: u32, max: u32) -> Group {
    let mut g = group(name, types[0], min, max);
    g.launches = InstanceShape::from_catalog_all(types);
    g
}

#[test]
fn several_types_with_the_same_answer_give_figures_for_both() {
    // One L4 each: g6.xlarge (4 vCPU) and g6.2xlarge (8 vCPU); 1-GPU tasks fit either, and four
    // of them fit max_size 6 whichever launches.
    let sc = Scenario {
        groups: vec![mixed("gpu", &["g6.xlarge", "g6.2xlarge"], 0, 6)],
        services: vec![service("embed", "gpu", 2, 1, 2048, 8192)],
    };
    let (report, text) = run(&sc, &[scale("embed", 4)]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "completes", "{text}");
    assert_eq!(a.groups.len(), 2, "{text}");
    assert_eq!(a.groups[0].assuming, Some(Bound::Smallest));
    assert_eq!(a.groups[1].assuming, Some(Bound::Largest));
    // Several types: each scale-out is exactly the minimum step, whatever the demand.
    assert!(
        a.timeline
            .iter()
            .flat_map(|s| &s.actions)
            .filter(|x| x.starts_with("managed scaling launches"))
            .all(|x| x == "managed scaling launches 1 instance in `gpu`"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn several_types_with_different_answers_are_unknown_with_both() {
    // g5.12xlarge (4 GPUs) and g5.48xlarge (8 GPUs): a 4-GPU task fits both; scaling to 4 tasks
    // with max_size 2 fits only if the larger type launches.
    let sc = Scenario {
        groups: vec![mixed("gpu", &["g5.12xlarge", "g5.48xlarge"], 0, 2)],
        services: vec![service("train", "gpu", 1, 4, 8192, 32768)],
    };
    let (report, text) = run(&sc, &[scale("train", 4)]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "unknown", "{text}");
    let reason = a.verdict.reason().unwrap();
    assert!(
        reason.contains("with only `g5.12xlarge` it needs more than `max_size`"),
        "{reason}"
    );
    assert!(
        reason.contains("with only `g5.48xlarge` it completes"),
        "{reason}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn several_types_scale_out_only_for_tasks_that_fit_the_smallest() {
    // A 4-GPU task does not fit g5.2xlarge (1 GPU): with g5.2xlarge among the types, managed
    // scaling never scales out for it, even though g5.12xlarge would hold it.
    let sc = Scenario {
        groups: vec![mixed("gpu", &["g5.2xlarge", "g5.12xlarge"], 0, 4)],
        services: vec![service("train", "gpu", 0, 4, 8192, 32768)],
    };
    let (report, text) = run(&sc, &[scale("train", 1)]);
    let a = &report.answers[0];
    assert_eq!(a.verdict.as_str(), "stuck", "{text}");
    assert!(
        a.verdict
            .reason()
            .unwrap()
            .contains("scales out only for tasks that fit the smallest of them in each resource"),
        "{text}"
    );
}

#[test]
fn several_types_deployment_need_counts_the_largest() {
    let sc = Scenario {
        groups: vec![mixed("gpu", &["g5.12xlarge", "g5.48xlarge"], 0, 2)],
        services: vec![service("train", "gpu", 4, 4, 8192, 32768)],
    };
    let need = deployment_need(&sc, "train").unwrap();
    assert_eq!(need.instance_type, "g5.48xlarge");
    assert_eq!(need.tasks_per_instance, 2);
    assert_eq!(need.instances_needed, 3);
    assert!(!need.holds());
    insta::assert_snapshot!(need.arithmetic());
}

#[test]
fn deployment_tasks_least_to_finish_and_most_allowed() {
    let rolling = |min, max| Deployment::Rolling {
        minimum_healthy_percent: min,
        maximum_percent: max,
    };
    // Minimum healthy 100%: one task more than desired to finish; the maximum allows more.
    assert_eq!(deployment_tasks(2, rolling(100, 200)), Some((3, 4)));
    assert_eq!(deployment_tasks(10, rolling(100, 110)), Some((11, 11)));
    // Below 100%, old tasks stop first: the desired count suffices.
    assert_eq!(deployment_tasks(4, rolling(50, 100)), Some((4, 4)));
    assert_eq!(deployment_tasks(4, rolling(50, 200)), Some((4, 8)));
    // No room between the bounds.
    assert_eq!(deployment_tasks(2, rolling(75, 100)), None);
    // Both revisions at full size.
    assert_eq!(
        deployment_tasks(3, Deployment::BlueGreen { bake_minutes: None }),
        Some((6, 6))
    );
}

#[test]
fn a_deployment_that_changes_the_task_size_counts_the_larger_size() {
    // 2 tasks of 1 GPU become 2 tasks of 2 GPUs, minimum healthy 100%: the last old task keeps
    // running beside two new ones, 2 + 2 + 1 = 5 GPUs.
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 4)],
        services: vec![service("infer", "gpu", 2, 1, 2048, 8192)],
    };
    let report = simulate(
        &sc,
        &[Event::Deploy {
            service: "infer".into(),
            task: Some(TaskShape {
                family: "infer".into(),
                gpus: 2,
                cpu: 2048,
                memory: 8192,
                host_ports: vec![],
            }),
        }],
        None,
    );
    let d = report.answers[0].deployment.as_ref().unwrap();
    assert_eq!((d.least_tasks, d.least_gpus), (3, 5));
    assert_eq!((d.most_tasks, d.most_gpus), (4, 6));
}

#[test]
fn refresh_waits_for_protected_instances_by_the_api_default() {
    let mut g = group("gpu", "g5.xlarge", 0, 4);
    g.refresh.protected_instances = Known::Known(facts::API_SCALE_IN_PROTECTED_DEFAULT);
    let sc = Scenario {
        groups: vec![g],
        services: vec![service("infer", "gpu", 2, 1, 2048, 8192)],
    };
    let (report, text) = run(
        &sc,
        &[Event::Refresh {
            group: "gpu".into(),
        }],
    );
    assert_eq!(report.answers[0].verdict.as_str(), "stuck", "{text}");
    assert!(text.contains("`Wait`"), "{text}");
}

/// A service or group name from the input cannot forge a line, reorder one or send a terminal
/// sequence: the human format escapes it as every other command's output does, the JSON format
/// writes the unsafe characters as `\u` escapes and keeps the exact name for a JSON reader.
#[test]
fn hostile_names_are_escaped_in_human_and_json() {
    let name = "train\nFORGED: completes\u{1b}[31m\u{202e}\u{2028}\u{85}\u{7f}x";
    let group_name = "gpu\u{202e}\r";
    let sc = Scenario {
        groups: vec![group(group_name, "g5.12xlarge", 0, 2)],
        services: vec![service(name, group_name, 2, 4, 4096, 32768)],
    };
    let (report, text) = run(&sc, &[deploy(name)]);
    assert_eq!(report.answers[0].verdict.as_str(), "over-max", "{text}");
    for c in ['\u{1b}', '\u{202e}', '\u{2028}', '\u{85}', '\u{7f}', '\r'] {
        assert!(!text.contains(c), "raw {c:?} in {text:?}");
    }
    assert!(text.lines().all(|l| !l.starts_with("FORGED")), "{text}");
    assert!(
        text.contains("train\\nFORGED: completes\\u{1b}[31m\\u{202e}\\u{2028}\\u{85}\\u{7f}x"),
        "{text}"
    );

    let mut out = Vec::new();
    render::json(&mut out, &report).unwrap();
    let json = String::from_utf8(out).unwrap();
    for c in ['\u{1b}', '\u{202e}', '\u{2028}', '\u{85}', '\u{7f}', '\r'] {
        assert!(!json.contains(c), "raw {c:?} in {json:?}");
    }
    assert!(json.lines().all(|l| !l.starts_with("FORGED")), "{json}");
    assert!(json.contains("\\u202e\\u2028\\u0085\\u007fx"), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["answers"][0]["event"]["service"], name, "{json}");
}

/// A container that shares a GPU with NVIDIA MPS asks for a GPU (so its service is simulated),
/// but what it reserves is unknown, with the reason.
#[test]
fn an_mps_task_asks_for_a_gpu_and_its_shape_is_unknown() {
    let containers = serde_json::json!([{
        "name": "app", "memory": 4096,
        "resourceRequirements": [{"type": "GPU", "sharingStrategy": {"nvidiaMps": {"memory": 11264}}}]
    }]);
    assert!(TaskShape::asks_for_gpus(&containers));
    let shape = TaskShape::from_ecs_json("embed", &containers, Some("1024"), None, None);
    assert_eq!(shape.get().err(), Some(MPS_UNKNOWN));
    let plain = serde_json::json!([{"name": "web", "memory": 512}]);
    assert!(!TaskShape::asks_for_gpus(&plain));
}

fn with_constraints(mut s: Service, c: Vec<Constraint>) -> Service {
    s.constraints = Known::Known(c);
    s
}

/// A `memberOf` expression (the cluster query language, through the query crate) that excludes the
/// group's only instance type leaves every task unplaced, and says which constraint; one that
/// matches it places them.
#[test]
fn member_of_decides_which_instance_types_take_the_tasks() {
    let sc = |expr: &str| Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 4)],
        services: vec![with_constraints(
            service("train", "gpu", 2, 1, 1024, 4096),
            vec![Constraint::MemberOf(expr.into())],
        )],
    };
    let (report, text) = run(
        &sc("attribute:ecs.instance-type == g5.xlarge"),
        &[deploy("train")],
    );
    assert_eq!(report.answers[0].verdict.as_str(), "stuck", "{text}");
    assert!(
        text.contains("the `memberOf` constraint of `train` excludes `g5.12xlarge`"),
        "{text}"
    );
    let (report, text) = run(
        &sc("attribute:ecs.instance-type =~ g5.*"),
        &[deploy("train")],
    );
    assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
}

/// `distinctInstance`: three 1-GPU tasks need three instances even where one g5.12xlarge has four
/// GPUs, so a `max_size` of 2 is too small; without the constraint they share one instance.
#[test]
fn distinct_instance_needs_one_instance_per_task() {
    let sc = |c: Vec<Constraint>| Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 2)],
        services: vec![with_constraints(
            service("infer", "gpu", 1, 1, 1024, 4096),
            c,
        )],
    };
    let (report, text) = run(
        &sc(vec![Constraint::DistinctInstance]),
        &[scale("infer", 3)],
    );
    assert_eq!(report.answers[0].verdict.as_str(), "over-max", "{text}");
    assert!(text.contains("1 task is never placed"), "{text}");
    let (report, text) = run(&sc(vec![]), &[scale("infer", 3)]);
    assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
    let g = &report.answers[0].groups[0];
    assert_eq!(g.peak_instances, 1, "{text}");
}

/// binpack fills one instance before the next; spread (and random, modelled as spread: the
/// emptiest instance first, the best case for placement) spreads the tasks. On two empty
/// g5.12xlarge, four 1-GPU tasks of 4096 MiB: binpack puts all four on one instance (which must
/// register 16384 MiB for them) and leaves the other idle; spread puts two on each.
#[test]
fn binpack_fills_one_instance_spread_and_random_spread_the_tasks() {
    let run_with = |strategy: Strategy| {
        let mut s = service("infer", "gpu", 2, 1, 1024, 4096);
        s.strategy = Known::Known(strategy);
        let mut g = group("gpu", "g5.12xlarge", 0, 4);
        let shape = InstanceShape::from_catalog_all(&["g5.12xlarge"])
            .known()
            .unwrap()[0]
            .clone();
        g.instances = Known::Known(
            (0..2)
                .map(|i| Instance {
                    id: format!("i-{i}"),
                    shape: shape.clone(),
                    tasks: vec![],
                    protected: Known::Known(false),
                })
                .collect(),
        );
        let sc = Scenario {
            groups: vec![g],
            services: vec![s],
        };
        run(&sc, &[scale("infer", 4)])
    };
    let (report, text) = run_with(Strategy::Binpack);
    assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
    assert!(text.contains("registers at least 16384 MiB"), "{text}");
    assert!(
        text.contains("1 instance of `gpu` runs no task at the end"),
        "{text}"
    );
    for strategy in [Strategy::Spread, Strategy::Random] {
        let (report, text) = run_with(strategy);
        assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
        assert!(text.contains("registers at least 8192 MiB"), "{text}");
        assert!(!text.contains("runs no task at the end"), "{text}");
    }
}

/// A linear deployment runs both revisions at full size through the bake time, as blue/green does:
/// two 4-GPU tasks need 16 GPUs at once, four g5.12xlarge; with three it is over the maximum.
#[test]
fn linear_deployment_runs_both_revisions_through_the_bake_time() {
    let sc = |max: u32| {
        let mut s = service("train", "gpu", 2, 4, 4096, 32768);
        s.deployment = Known::Known(Deployment::Linear {
            step_percent: Some(50),
            bake_minutes: Some(10),
        });
        Scenario {
            groups: vec![group("gpu", "g5.12xlarge", 0, max)],
            services: vec![s],
        }
    };
    let (report, text) = run(&sc(3), &[deploy("train")]);
    assert_eq!(report.answers[0].verdict.as_str(), "over-max", "{text}");
    let (report, text) = run(&sc(4), &[deploy("train")]);
    assert_eq!(report.answers[0].verdict.as_str(), "completes", "{text}");
    assert_eq!(report.answers[0].groups[0].peak_instances, 4, "{text}");
    assert!(
        text.contains("the linear deployment needs 16 GPUs at once"),
        "{text}"
    );
    assert!(text.contains("through the bake time (10 min)"), "{text}");
    insta::assert_snapshot!(text);
}

/// A capacity provider's managed scaling that the ECS API refuses (a target capacity of 0 or above
/// 100, a step size outside 1 to 10,000) never exists: no answer is given for it. The fuzz target
/// found that a target capacity in the billions made a scale-out step a million times (8.7 s).
#[test]
fn managed_scaling_the_api_refuses_gives_no_answer() {
    for (target, min_step, max_step, says) in [
        (
            0,
            1,
            10_000,
            "a target capacity of 0 (the API accepts 1 to 100)",
        ),
        (3_481_426_613, 1, 10_000, "a target capacity of 3481426613"),
        (100, 0, 10_000, "scaling step sizes of 0 and 10000"),
        (
            100,
            1,
            1_014_250_145,
            "scaling step sizes of 1 and 1014250145",
        ),
    ] {
        let mut g = group("gpu", "g5.xlarge", 0, 4);
        g.managed_scaling = Known::Known(Some(ManagedScaling {
            target_capacity: target,
            min_step,
            max_step,
            warmup: 300,
        }));
        let sc = Scenario {
            groups: vec![g],
            services: vec![service("infer", "gpu", 1, 1, 1024, 4096)],
        };
        let event = Event::Scale {
            service: "infer".into(),
            to: 3.into(),
        };
        let (report, out) = run(&sc, &[event]);
        assert_eq!(report.answers[0].verdict.as_str(), "unknown", "{out}");
        assert!(out.contains(says), "{out}");
    }
}

/// Sizes far past any real cluster (a `max_size` of two billion g5.12xlarge, tasks of four billion
/// GPUs, four billion of them waiting) overflowed the simulator's arithmetic (found by the fuzz
/// target: a debug build panicked, a release build printed wrapped numbers). Past the bounds it
/// documents, every answer is unknown and names the input.
#[test]
fn sizes_past_the_simulators_bounds_give_unknown_answers() {
    let cases = [
        (
            Scenario {
                groups: vec![group("gpu", "g5.12xlarge", 0, 2_000_000_000)],
                services: vec![service("train", "gpu", 1, 4, 1024, 4096)],
            },
            "the max_size of `gpu` is 2000000000, more than the simulator takes (1000000)",
        ),
        (
            Scenario {
                groups: vec![group("gpu", "g5.12xlarge", 0, 4)],
                services: vec![
                    service("train", "gpu", 0, u32::MAX, 1024, 4096),
                    service("tune", "gpu", 3, 1, 1024, 4096),
                ],
            },
            "a task of `train` has 4294967295 GPUs, more than the simulator takes (1024)",
        ),
    ];
    for (sc, says) in cases {
        let events = [
            Event::Scale {
                service: "tune".into(),
                to: 4.into(),
            },
            deploy("train"),
        ];
        let (report, out) = run(&sc, &events);
        for a in &report.answers {
            assert_eq!(a.verdict.as_str(), "unknown", "{out}");
        }
        assert!(out.contains(says), "{out}");
    }
    let sc = Scenario {
        groups: vec![group("gpu", "g5.12xlarge", 0, 4)],
        services: vec![service("tune", "gpu", 1, 1, 1024, 4096)],
    };
    let (report, out) = run(
        &sc,
        &[Event::Scale {
            service: "tune".into(),
            to: u32::MAX.into(),
        }],
    );
    assert_eq!(report.answers[0].verdict.as_str(), "unknown", "{out}");
    assert!(
        out.contains("the scale-out of `tune` is 4294967295, more than the simulator takes"),
        "{out}"
    );
}
