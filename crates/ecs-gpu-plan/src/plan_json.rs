//! A plan as the simulation's input: the planned values of the GPU stack read into an
//! [`ecs_gpu_sim::Scenario`], and what the plan does to running GPU tasks and instances as events:
//! each deployment it starts, each higher `desired_count` of a GPU service (a scale-out, from the
//! count before the plan), each instance refresh it starts. What runs now is not in a plan: the
//! simulation starts from the steady state of the planned configuration.

use ecs_gpu_sim::{
    Answer, Deployment, Event, Group, InstanceShape, Known, ManagedScaling, OnDemandShare,
    PoolState, ProtectedInstances, Refresh, Scenario, Service, TaskShape, WarmPool,
};

use crate::effects::relations::{
    capacity_provider_groups, group_capacity_providers, group_templates,
    service_capacity_providers, service_task_definitions,
};
use crate::json_tree::Value;
use crate::value::Side;
use crate::{EffectKind, Plan};

/// The scenario of a plan and the deployments it starts.
#[derive(Debug, Clone)]
pub struct PlanScenario {
    pub scenario: Scenario,
    /// One [`Event::Deploy`] per service the plan deploys, with the new revision's task; one
    /// [`Event::Scale`] per GPU service whose `desired_count` goes up without a deployment; one
    /// [`Event::Refresh`] per group whose instances the plan replaces by an instance refresh.
    pub events: Vec<Event>,
}

/// What `plan` says of one deployment: whether the capacity can hold it.
#[derive(Debug, Clone)]
pub struct DeploymentCapacity {
    /// The service's address.
    pub address: String,
    /// The simulation's answer.
    pub answer: Answer,
}

impl DeploymentCapacity {
    /// One line: "capacity: completes", "capacity: over-max: 2 tasks are never placed: ...".
    pub fn line(&self) -> String {
        match self.answer.verdict.reason() {
            None => format!("capacity: {}", self.answer.verdict.as_str()),
            Some(r) => format!("capacity: {}: {r}", self.answer.verdict.as_str()),
        }
    }
}

/// Whether the capacity can hold each deployment the plan starts, from the simulation model: the
/// line `plan` prints under each deployment.
pub fn deployment_capacity(plan: &Plan) -> Vec<DeploymentCapacity> {
    let PlanScenario {
        mut scenario,
        events,
    } = scenario(plan);
    // Each deployment against the planned counts: a service the plan scales out runs its new
    // count beside it, as after apply.
    let mut deploys = Vec::new();
    for e in events {
        match e {
            Event::Scale { service, to } => {
                if let Some(i) = scenario.service(&service) {
                    scenario.services[i].desired = Known::Known(to);
                }
            }
            e @ Event::Deploy { .. } => deploys.push(e),
            Event::Refresh { .. } => {}
        }
    }
    let report = ecs_gpu_sim::simulate(&scenario, &deploys, None);
    report
        .answers
        .into_iter()
        .map(|answer| DeploymentCapacity {
            address: match &answer.event {
                Event::Deploy { service, .. } => service.clone(),
                e => e.title(),
            },
            answer,
        })
        .collect()
}

fn num(side: &Side<'_>, path: &[&str]) -> Option<u32> {
    let v = side.raw(path)?.as_f64()?;
    (v >= 0.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX)).then_some(v as u32)
}

fn known_num(side: &Side<'_>, path: &[&str], default: Option<u32>) -> Known<u32> {
    if side.is_unknown(path) {
        return Known::unknown(format!("`{}` is known only after apply", path.join(".")));
    }
    match (side.raw(path), num(side, path), default) {
        (None, _, Some(d)) => Known::Known(d),
        (_, Some(v), _) => Known::Known(v),
        _ => Known::unknown(format!("`{}` is not in the plan", path.join("."))),
    }
}

/// A group's warm pool from its planned `warm_pool` block (the provider writes -1 for a
/// `max_group_prepared_capacity` left to the group's `max_size`). The user data is not read from
/// plans, so whether it sets `ECS_WARM_POOLS_CHECK` is unknown.
fn warm_pool(after: &Side<'_>) -> Known<Option<WarmPool>> {
    if after.is_unknown(&["warm_pool"]) {
        return Known::unknown("its `warm_pool` is known only after apply");
    }
    let present = after
        .raw(&["warm_pool"])
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if !present {
        return Known::Known(None);
    }
    let at = |k: &'static str| ["warm_pool", "0", k];
    let state = match after.str(&at("pool_state")) {
        None => PoolState::Stopped,
        Some(s) => match PoolState::parse(s) {
            Some(p) => p,
            None => return Known::unknown(format!("the warm pool state `{s}` is not read")),
        },
    };
    let Known::Known(min_size) = known_num(after, &at("min_size"), Some(0)) else {
        return Known::unknown("the warm pool's `min_size` is not known");
    };
    let max_prepared = match after
        .raw(&at("max_group_prepared_capacity"))
        .and_then(Value::as_f64)
    {
        None => None,
        Some(v) if v < 0.0 => None,
        Some(v) if v.fract() == 0.0 && v <= f64::from(u32::MAX) => Some(v as u32),
        Some(_) => return Known::unknown("the warm pool's prepared capacity is not read"),
    };
    Known::Known(Some(WarmPool {
        state,
        min_size,
        max_prepared,
        warm_pools_check: Known::unknown("the user data is not read from plans"),
    }))
}

/// The preferences of an instance refresh as the plan has them: the provider fills in its
/// schema's defaults when a `preferences` block is written; without one the API's defaults apply
/// (the maintenance policy is not read from plans: only its absence gives 90 and 100).
fn refresh(after: &Side<'_>) -> Refresh {
    let prefs = ["instance_refresh", "0", "preferences", "0"];
    let p = |k: &'static str| {
        let mut v = prefs.to_vec();
        v.push(k);
        v
    };
    let facts = &ecs_gpu_catalog::catalog().autoscaling;
    let has_prefs = after
        .raw(&["instance_refresh", "0", "preferences"])
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let policy = after
        .raw(&["instance_maintenance_policy"])
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let healthy = |k: &'static str, d: u32| {
        if has_prefs {
            known_num(after, &p(k), Some(d))
        } else if policy {
            known_num(after, &["instance_maintenance_policy", "0", k], None)
        } else {
            Known::Known(d)
        }
    };
    Refresh {
        min_healthy: healthy(
            "min_healthy_percentage",
            facts.instance_refresh_min_healthy_percentage_default,
        ),
        max_healthy: healthy(
            "max_healthy_percentage",
            ecs_gpu_sim::facts::DEFAULT_REFRESH_MAX_HEALTHY,
        ),
        warmup: Known::unknown("not read from plans"),
        skip_matching: Known::Known(after.bool(&p("skip_matching")).unwrap_or(false)),
        protected_instances: if !has_prefs {
            Known::Known(ecs_gpu_sim::facts::API_SCALE_IN_PROTECTED_DEFAULT)
        } else {
            match after.str(&p("scale_in_protected_instances")) {
                None => Known::Known(ecs_gpu_sim::facts::PROVIDER_SCALE_IN_PROTECTED_DEFAULT),
                Some(s) => match ProtectedInstances::parse(s) {
                    Some(x) => Known::Known(x),
                    None => {
                        Known::unknown(format!("`scale_in_protected_instances` `{s}` is not read"))
                    }
                },
            }
        },
    }
}

/// The scenario of a plan.
pub fn scenario(plan: &Plan) -> PlanScenario {
    let m = &plan.model;
    let mut sc = Scenario::default();
    for i in m.of_type("aws_autoscaling_group") {
        let r = &m.resources[i];
        let after = r.current();
        let mut g = Group::new(r.address.clone());
        let cps = group_capacity_providers(m, i);
        if let Some(&cp) = cps.first() {
            let c = m.resources[cp].current();
            g.provider = c.str(&["name"]).map(str::to_string);
            let ms = ["auto_scaling_group_provider", "0", "managed_scaling", "0"];
            let at = |k: &'static str| {
                let mut p = ms.to_vec();
                p.push(k);
                p
            };
            g.managed_scaling = match c.str(&at("status")) {
                Some("ENABLED") => {
                    let get = |k: &'static str, d: u32| known_num(&c, &at(k), Some(d));
                    match (
                        get("target_capacity", 100),
                        get(
                            "minimum_scaling_step_size",
                            ecs_gpu_sim::facts::DEFAULT_MIN_STEP,
                        ),
                        get(
                            "maximum_scaling_step_size",
                            ecs_gpu_sim::facts::DEFAULT_MAX_STEP,
                        ),
                        get(
                            "instance_warmup_period",
                            ecs_gpu_sim::facts::DEFAULT_INSTANCE_WARMUP,
                        ),
                    ) {
                        (Known::Known(t), Known::Known(mi), Known::Known(ma), Known::Known(w)) => {
                            Known::Known(Some(ManagedScaling {
                                target_capacity: t,
                                min_step: mi,
                                max_step: ma,
                                warmup: w,
                            }))
                        }
                        _ => Known::unknown("a managed scaling setting is not known"),
                    }
                }
                Some("DISABLED") => Known::Known(None),
                _ => Known::unknown("the managed scaling status is not in the plan"),
            };
            g.protected = match after.bool(&["protect_from_scale_in"]) {
                Some(b) => Known::Known(b),
                None => Known::unknown("`protect_from_scale_in` is not in the plan"),
            };
        }
        let templates = group_templates(m, i);
        let mixed = ["mixed_instances_policy", "0"];
        let at = |rest: &[&'static str]| -> Vec<&'static str> {
            mixed.iter().chain(rest).copied().collect()
        };
        let overrides = after
            .raw(&at(&["launch_template", "0", "override"]))
            .and_then(Value::as_array)
            .filter(|o| !o.is_empty());
        g.launches = match overrides {
            // Weights make the group's sizes count capacity units, not instances.
            Some(o)
                if o.iter().any(|o| {
                    o.get("weighted_capacity")
                        .is_some_and(|w| !matches!(w, Value::Null))
                }) =>
            {
                Known::unknown("its overrides set `weighted_capacity`: not modelled")
            }
            Some(o) => {
                let types: Option<Vec<&str>> = o
                    .iter()
                    .map(|o| o.get("instance_type").and_then(Value::as_str))
                    .collect();
                match types {
                    Some(t) => InstanceShape::from_catalog_all(&t),
                    None => Known::unknown("an override's instance type is not in the plan"),
                }
            }
            None => {
                let types: Vec<&str> = templates
                    .iter()
                    .filter_map(|&t| m.resources[t].current().str(&["instance_type"]))
                    .collect();
                if types.is_empty() {
                    Known::unknown("its instance type is not in the plan")
                } else {
                    InstanceShape::from_catalog_all(&types)
                }
            }
        };
        let has_mixed = after
            .raw(&["mixed_instances_policy"])
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        let spot_template = templates.iter().any(|&t| {
            m.resources[t]
                .current()
                .str(&["instance_market_options", "0", "market_type"])
                == Some("spot")
        });
        g.on_demand = if has_mixed {
            let dist = |k: &'static str, d: u32| {
                known_num(&after, &at(&["instances_distribution", "0", k]), Some(d))
            };
            match (
                dist("on_demand_base_capacity", 0),
                dist(
                    "on_demand_percentage_above_base_capacity",
                    ecs_gpu_catalog::catalog()
                        .market
                        .on_demand_percentage_default,
                ),
            ) {
                (Known::Known(base), Known::Known(percent_above_base)) => {
                    Known::Known(OnDemandShare {
                        base,
                        percent_above_base,
                    })
                }
                _ => Known::unknown("its instances distribution is not known"),
            }
        } else if spot_template {
            Known::Known(OnDemandShare::NONE)
        } else {
            Known::Known(OnDemandShare::ALL)
        };
        g.warm_pool = warm_pool(&after);
        g.min_size = known_num(&after, &["min_size"], None);
        g.max_size = known_num(&after, &["max_size"], None);
        g.refresh = refresh(&after);
        sc.groups.push(g);
    }
    let mut events = Vec::new();
    let effects = plan.effects();
    let of_kind = |kind: EffectKind| -> Vec<&str> {
        effects
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.address.as_str())
            .collect()
    };
    let deployed = of_kind(EffectKind::Deployment);
    let scaled_out = of_kind(EffectKind::ScaleOut);
    for i in m.of_type("aws_ecs_service") {
        let r = &m.resources[i];
        let after = r.current();
        let mut s = Service::new(r.address.clone());
        let groups: Vec<String> = service_capacity_providers(m, i)
            .iter()
            .flat_map(|&cp| capacity_provider_groups(m, cp))
            .map(|g| m.resources[g].address.clone())
            .collect();
        s.group = match groups.as_slice() {
            [one] => Known::Known(one.clone()),
            [] => Known::unknown("its capacity provider's Auto Scaling group is not in the plan"),
            _ => Known::unknown("it spreads over several capacity providers"),
        };
        s.desired = known_num(&after, &["desired_count"], Some(0));
        s.deployment = match (
            known_num(
                &after,
                &["deployment_minimum_healthy_percent"],
                Some(ecs_gpu_sim::facts::DEFAULT_MIN_HEALTHY),
            ),
            known_num(
                &after,
                &["deployment_maximum_percent"],
                Some(ecs_gpu_sim::facts::DEFAULT_MAX_PERCENT),
            ),
            after.str(&["deployment_configuration", "0", "strategy"]),
        ) {
            (_, _, Some("BLUE_GREEN")) => Known::Known(Deployment::BlueGreen {
                bake_minutes: num(
                    &after,
                    &["deployment_configuration", "0", "bake_time_in_minutes"],
                ),
            }),
            (_, _, Some("LINEAR")) => Known::Known(Deployment::Linear {
                step_percent: None,
                bake_minutes: num(
                    &after,
                    &["deployment_configuration", "0", "bake_time_in_minutes"],
                ),
            }),
            (_, _, Some("CANARY")) => Known::Known(Deployment::Canary {
                canary_percent: None,
                bake_minutes: num(
                    &after,
                    &["deployment_configuration", "0", "bake_time_in_minutes"],
                ),
            }),
            (Known::Known(min), Known::Known(max), None | Some("ROLLING")) => {
                Known::Known(Deployment::Rolling {
                    minimum_healthy_percent: min,
                    maximum_percent: max,
                })
            }
            _ => Known::unknown("the deployment configuration is not known"),
        };
        let tds = service_task_definitions(m, i);
        let gpu = std::cell::Cell::new(false);
        let shape = |side: Side<'_>| -> Known<TaskShape> {
            let Some(text) = side.str(&["container_definitions"]) else {
                return Known::unknown("its container definitions are not in the plan");
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
                return Known::unknown("its container definitions are not JSON");
            };
            gpu.set(gpu.get() || TaskShape::asks_for_gpus(&json));
            TaskShape::from_ecs_json(
                side.str(&["family"]).unwrap_or_default(),
                &json,
                side.str(&["cpu"]),
                side.str(&["memory"]),
                side.str(&["network_mode"]),
            )
        };
        let (old, new) = match tds.as_slice() {
            [one] => {
                let t = &m.resources[*one];
                let before = t.before();
                let old = if before.values.is_null() {
                    shape(t.after())
                } else {
                    shape(before)
                };
                (old, shape(t.after()))
            }
            _ => (
                Known::unknown("its task definition is not in the plan"),
                Known::unknown("its task definition is not in the plan"),
            ),
        };
        s.task = old;
        s.gpu = gpu.get();
        let address = r.address.as_str();
        if deployed.contains(&address) {
            events.push(Event::Deploy {
                service: r.address.clone(),
                task: new.known().cloned(),
            });
        } else if scaled_out.contains(&address) && s.asks_for_gpus() {
            // The steady state before the plan: the count it runs now, then the scale-out.
            let before = r.before();
            if let (Known::Known(from), Known::Known(to)) = (
                known_num(&before, &["desired_count"], Some(0)),
                s.desired.clone(),
            ) {
                if to > from {
                    s.desired = Known::Known(from);
                    events.push(Event::Scale {
                        service: r.address.clone(),
                        to,
                    });
                }
            }
        }
        sc.services.push(s);
    }
    for group in of_kind(EffectKind::InstanceReplacement) {
        if sc.group(group).is_some() {
            events.push(Event::Refresh {
                group: group.to_string(),
            });
        }
    }
    PlanScenario {
        scenario: sc,
        events,
    }
}
