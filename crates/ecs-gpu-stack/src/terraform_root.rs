//! A Terraform root as the simulation's input: the capacity trace (service → capacity provider →
//! Auto Scaling group → launch template → instance type) and the task definitions, read into an
//! [`ecs_gpu_sim::Scenario`]. What the code does not say, or says only after apply, is unknown in
//! the scenario, with the reason; values the AWS documentation gives a default for take it.

use std::collections::BTreeMap;

use ecs_gpu_catalog::{catalog, GpuValue};
use ecs_gpu_model::{Model, ModuleId, Node, Resource, ResourceId, TaskDefinition, Value};
use ecs_gpu_sim::{
    Constraint, Deployment, Group, InstanceShape, Known, ManagedScaling, OnDemandShare, PoolState,
    ProtectedInstances, Refresh, Scenario, Service, Strategy, TaskShape, WarmPool,
};

use crate::capacity::{
    ami_source, config_value, fetches_config, placement_constraints, provider_groups,
    service_capacity, service_task, string, template_market_type, user_data, GroupCapacity, AMI,
    GROUPS, PLACEMENT_CONSTRAINTS, SERVICE_CAPACITY, SERVICE_TASK, SPOT, USER_DATA,
};
use crate::task::{containers, number, TASK_DEFINITIONS};
use crate::{reads, Reads};

/// What [`scenarios`] reads.
pub const SCENARIO: Reads = reads! {
    arguments: {
        "aws_autoscaling_group": [
            "availability_zones",
            "desired_capacity",
            "instance_maintenance_policy",
            "instance_refresh",
            "max_size",
            "min_size",
            "mixed_instances_policy",
            "protect_from_scale_in",
            "warm_pool",
        ],
        "aws_ecs_capacity_provider": ["auto_scaling_group_provider", "name"],
        "aws_ecs_service": [
            "deployment_configuration",
            "deployment_controller",
            "deployment_maximum_percent",
            "deployment_minimum_healthy_percent",
            "desired_count",
            "name",
            "ordered_placement_strategy",
        ],
    },
    analyses: [
        GROUPS,
        SERVICE_CAPACITY,
        SERVICE_TASK,
        PLACEMENT_CONSTRAINTS,
        TASK_DEFINITIONS,
        SPOT,
        USER_DATA,
        AMI,
    ],
};

/// The scenario of one root module (with the modules it calls), and the resource of each of its
/// groups and services (in the scenario's order).
#[derive(Debug, Clone)]
pub struct RootScenario {
    /// The root module.
    pub root: ModuleId,
    /// Its Auto Scaling groups behind a capacity provider, and its services.
    pub scenario: Scenario,
    /// The `aws_autoscaling_group` of each of `scenario.groups`.
    pub groups: Vec<ResourceId>,
    /// The `aws_ecs_service` of each of `scenario.services`.
    pub services: Vec<ResourceId>,
}

/// The scenario of each root module that has a group behind a capacity provider or a service, in
/// the order of the root modules. Each root module is a Terraform configuration of its own: its
/// services are placed on its groups, never on another root's, whatever their names.
pub fn scenarios(model: &Model) -> Vec<RootScenario> {
    fn of(by_root: &mut BTreeMap<ModuleId, RootScenario>, root: ModuleId) -> &mut RootScenario {
        by_root.entry(root).or_insert_with(|| RootScenario {
            root,
            scenario: Scenario::default(),
            groups: Vec::new(),
            services: Vec::new(),
        })
    }
    let mut by_root = BTreeMap::new();
    for (provider, cap) in provider_groups(model) {
        let own = of(&mut by_root, model.root_of(cap.group.module));
        own.scenario.groups.push(group(model, provider, &cap));
        own.groups.push(cap.group.id);
    }
    for svc in model.resources_of("aws_ecs_service") {
        if svc.instances_unknown {
            continue;
        }
        let own = of(&mut by_root, model.root_of(svc.module));
        let s = service(model, svc, &own.scenario);
        own.scenario.services.push(s);
        own.services.push(svc.id);
    }
    by_root.into_values().collect()
}

/// [`scenarios`] as `simulate` shows them: with several root modules, each name (of a group, its
/// capacity provider, a service) starts with its root module's folder
/// (`envs/a:aws_ecs_service.infer`), so that a name says which configuration it is in and the
/// same address in two roots names two things.
pub fn named_scenarios(model: &Model) -> Vec<Scenario> {
    let all = scenarios(model);
    let several = all.len() > 1;
    all.into_iter()
        .map(|r| {
            let mut sc = r.scenario;
            if several {
                let dir = model
                    .module(r.root)
                    .dir
                    .to_string_lossy()
                    .replace('\\', "/");
                let named = |n: &str| format!("{dir}:{n}");
                for g in &mut sc.groups {
                    g.name = named(&g.name);
                    g.provider = g.provider.as_deref().map(named);
                }
                for s in &mut sc.services {
                    s.name = named(&s.name);
                    if let Known::Known(g) = &mut s.group {
                        *g = named(g);
                    }
                }
            }
            sc
        })
        .collect()
}

/// A resource's address with its module path (`module.gpu.aws_ecs_service.this[0]`).
pub fn address(model: &Model, r: &Resource) -> String {
    let local = model.local_address(r);
    match model.module_address(r) {
        Some(m) if !m.is_empty() => format!("{m}.{local}"),
        _ => local,
    }
}

fn whole(node: Option<&Node>) -> Option<u32> {
    let n = number(node?)?;
    (n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX)).then_some(n as u32)
}

fn known_u32(node: Option<&Node>, what: &str, default: Option<u32>) -> Known<u32> {
    match node {
        None => match default {
            Some(d) => Known::Known(d),
            None => Known::unknown(format!("`{what}` is not set")),
        },
        Some(n) => match whole(Some(n)) {
            Some(v) => Known::Known(v),
            None => Known::unknown(format!(
                "`{what}` is known only after apply or is not a number"
            )),
        },
    }
}

fn group(model: &Model, provider: &Resource, cap: &GroupCapacity<'_>) -> Group {
    let asg = cap.group;
    let mut g = Group::new(address(model, asg));
    g.provider = Some(
        string(provider.body.attr("name")).map_or_else(|| address(model, provider), str::to_string),
    );
    g.launches = launches(cap);
    let body = &asg.body;
    g.min_size = known_u32(body.attr("min_size"), "min_size", None);
    g.max_size = known_u32(body.attr("max_size"), "max_size", None);
    g.zones = match body.attr("availability_zones").and_then(Node::as_list) {
        Some(list) if list.iter().all(|n| !n.is_unknown()) => {
            Known::Known(u32::try_from(list.len()).unwrap_or(u32::MAX))
        }
        _ => Known::unknown("the Availability Zones are not known"),
    };
    g.protected = match body.attr("protect_from_scale_in") {
        None => Known::Known(catalog().autoscaling.protect_from_scale_in_provider_default),
        Some(n) => match n.value {
            Value::Bool(b) => Known::Known(b),
            _ => Known::unknown("`protect_from_scale_in` is not known"),
        },
    };
    g.on_demand = on_demand(cap);
    g.warm_pool = warm_pool(model, cap);
    g.managed_scaling = managed_scaling(provider);
    g.refresh = refresh(asg);
    g
}

/// The instance types a group launches, each once, in the order written (a mixed instances
/// policy's overrides, else its launch template's type).
fn launches(cap: &GroupCapacity<'_>) -> Known<Vec<InstanceShape>> {
    let Some(types) = &cap.instance_types else {
        return Known::unknown("its instance types are not known in full");
    };
    // Weights make `max_size` and the desired capacity count capacity units, not instances.
    let weighted = cap
        .overrides
        .iter()
        .flatten()
        .any(|o| o.body.attr("weighted_capacity").is_some());
    if weighted {
        return Known::unknown(
            "its overrides set `weighted_capacity`, so its sizes count capacity units: not modelled",
        );
    }
    let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
    InstanceShape::from_catalog_all(&names)
}

fn on_demand(cap: &GroupCapacity<'_>) -> Known<OnDemandShare> {
    // A launch template that buys Spot Instances makes every instance Spot.
    if cap.mixed.is_none() {
        let spot = cap
            .known_templates
            .iter()
            .filter_map(|t| template_market_type(t.template))
            .any(|(kind, _)| kind == catalog().market.spot_market_type);
        if spot {
            return Known::Known(OnDemandShare::NONE);
        }
        if cap.templates.is_none() {
            return Known::unknown("its launch templates are not known in full");
        }
    }
    let Some(mixed) = cap.mixed else {
        return Known::Known(OnDemandShare::ALL);
    };
    if mixed.body.may_have_unknown("instances_distribution") {
        return Known::unknown("the instances distribution is not known");
    }
    let Some(d) = mixed.body.block("instances_distribution") else {
        return Known::Known(OnDemandShare {
            base: 0,
            percent_above_base: catalog().market.on_demand_percentage_default,
        });
    };
    let base = known_u32(
        d.body.attr("on_demand_base_capacity"),
        "on_demand_base_capacity",
        Some(0),
    );
    let pct = known_u32(
        d.body.attr("on_demand_percentage_above_base_capacity"),
        "on_demand_percentage_above_base_capacity",
        Some(catalog().market.on_demand_percentage_default),
    );
    match (base, pct) {
        (Known::Known(base), Known::Known(percent_above_base)) => Known::Known(OnDemandShare {
            base,
            percent_above_base,
        }),
        (Known::Unknown { unknown }, _) | (_, Known::Unknown { unknown }) => {
            Known::Unknown { unknown }
        }
    }
}

/// The warm pool: the `warm_pool` block with the API's defaults (`Stopped`, no minimum, the
/// group's `max_size` for the prepared capacity; the provider's -1 is that default), and whether
/// the user data of every template sets `ECS_WARM_POOLS_CHECK=true`.
fn warm_pool(model: &Model, cap: &GroupCapacity<'_>) -> Known<Option<WarmPool>> {
    let body = &cap.group.body;
    if body.may_have_unknown("warm_pool") {
        return Known::unknown("its `warm_pool` is not known");
    }
    let Some(pool) = body.block("warm_pool") else {
        return Known::Known(None);
    };
    let state = match pool.body.attr("pool_state") {
        None => PoolState::Stopped,
        Some(n) => match n.as_str().as_deref().and_then(PoolState::parse) {
            Some(s) => s,
            None => return Known::unknown("the `pool_state` of its warm pool is not known"),
        },
    };
    let min_size = match known_u32(pool.body.attr("min_size"), "warm_pool.min_size", Some(0)) {
        Known::Known(v) => v,
        Known::Unknown { unknown } => return Known::Unknown { unknown },
    };
    let max_prepared = match pool.body.attr("max_group_prepared_capacity") {
        None => None,
        Some(n) => match number(n) {
            Some(v) if v < 0.0 => None,
            Some(v) if v.fract() == 0.0 && v <= f64::from(u32::MAX) => Some(v as u32),
            _ => {
                return Known::unknown(
                    "the `max_group_prepared_capacity` of its warm pool is not known",
                )
            }
        },
    };
    Known::Known(Some(WarmPool {
        state,
        min_size,
        max_prepared,
        warm_pools_check: warm_pools_check(model, cap),
    }))
}

/// Whether every launch template of the group sets `ECS_WARM_POOLS_CHECK=true` in its user data:
/// unknown where the text is not known in full, fetches its configuration at boot, or leaves it to
/// an image that is not known to be ECS-optimized (which may set it in its own `ecs.config`).
fn warm_pools_check(model: &Model, cap: &GroupCapacity<'_>) -> Known<bool> {
    let var = &catalog().agent.warm_pools_check_variable;
    let unknown = || Known::unknown(format!("whether the user data sets `{var}` is not known"));
    let Some(templates) = &cap.templates else {
        return unknown();
    };
    if templates.is_empty() {
        return unknown();
    }
    for t in templates {
        let (data, _) = user_data(t.template);
        let Some(text) = data.full() else {
            return unknown();
        };
        if fetches_config(text) {
            return unknown();
        }
        match config_value(text, var) {
            Some(v) if v.eq_ignore_ascii_case("true") => {}
            Some(v) if v.contains('$') => return unknown(),
            Some(_) => return Known::Known(false),
            None if !ami_source(model, t.template).is_ecs_optimized() => return unknown(),
            None => return Known::Known(false),
        }
    }
    Known::Known(true)
}

/// Managed scaling, with the API's documented defaults for what is not set.
fn managed_scaling(provider: &Resource) -> Known<Option<ManagedScaling>> {
    let Some(asgp) = provider.body.block("auto_scaling_group_provider") else {
        return Known::unknown("the capacity provider has no `auto_scaling_group_provider`");
    };
    if asgp.body.may_have_unknown("managed_scaling") {
        return Known::unknown("`managed_scaling` is not known");
    }
    let Some(ms) = asgp.body.block("managed_scaling") else {
        return Known::unknown("`managed_scaling` is not set");
    };
    match ms.body.attr("status").and_then(|n| n.as_str()).as_deref() {
        Some("ENABLED") => {}
        Some("DISABLED") => return Known::Known(None),
        _ => return Known::unknown("the `status` of `managed_scaling` is not known"),
    }
    let target = known_u32(
        ms.body.attr("target_capacity"),
        "target_capacity",
        Some(100),
    );
    let min = known_u32(
        ms.body.attr("minimum_scaling_step_size"),
        "minimum_scaling_step_size",
        Some(ecs_gpu_sim::facts::DEFAULT_MIN_STEP),
    );
    let max = known_u32(
        ms.body.attr("maximum_scaling_step_size"),
        "maximum_scaling_step_size",
        Some(ecs_gpu_sim::facts::DEFAULT_MAX_STEP),
    );
    let warmup = known_u32(
        ms.body.attr("instance_warmup_period"),
        "instance_warmup_period",
        Some(ecs_gpu_sim::facts::DEFAULT_INSTANCE_WARMUP),
    );
    match (target, min, max, warmup) {
        (Known::Known(t), Known::Known(mi), Known::Known(ma), Known::Known(w)) => {
            Known::Known(Some(ManagedScaling {
                target_capacity: t,
                min_step: mi,
                max_step: ma,
                warmup: w,
            }))
        }
        (Known::Unknown { unknown }, ..)
        | (_, Known::Unknown { unknown }, ..)
        | (_, _, Known::Unknown { unknown }, _)
        | (.., Known::Unknown { unknown }) => Known::Unknown { unknown },
    }
}

/// The preferences of an instance refresh. hashicorp/aws sends a `preferences` block with its
/// schema's defaults filled in (minimum healthy 90, maximum 100, `scale_in_protected_instances`
/// `Ignore`); an `instance_refresh` without one, or a refresh started by hand, takes the API's
/// defaults (the group's instance maintenance policy, else 90 and 100; `Wait` for protected
/// instances: the API reference and the user guide's table for the AWS CLI and SDKs).
fn refresh(asg: &Resource) -> Refresh {
    let facts = &catalog().autoscaling;
    let block = asg.body.block("instance_refresh");
    if asg.body.may_have_unknown("instance_refresh")
        || block.is_some_and(|b| b.body.may_have_unknown("preferences"))
    {
        let why = "its `instance_refresh` is not known";
        return Refresh {
            min_healthy: Known::unknown(why),
            max_healthy: Known::unknown(why),
            warmup: Known::unknown(why),
            skip_matching: Known::unknown(why),
            protected_instances: Known::unknown(why),
        };
    }
    let prefs = block.and_then(|r| r.body.block("preferences"));
    let attr = |name: &str| prefs.and_then(|p| p.body.attr(name));
    // Without preferences the API falls back on the group's instance maintenance policy.
    let policy = if prefs.is_none() {
        asg.body.block("instance_maintenance_policy")
    } else {
        None
    };
    let healthy = |name: &str, default: u32| match (prefs, policy) {
        (Some(_), _) => known_u32(attr(name), name, Some(default)),
        (None, Some(p)) => known_u32(p.body.attr(name), name, None),
        (None, None) => Known::Known(default),
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
        warmup: match attr("instance_warmup") {
            None => Known::unknown("`instance_warmup` is not set"),
            Some(n) => known_u32(Some(n), "instance_warmup", None),
        },
        skip_matching: match attr("skip_matching").map(|n| &n.value) {
            None => Known::Known(false),
            Some(Value::Bool(b)) => Known::Known(*b),
            Some(_) => Known::unknown("`skip_matching` is not known"),
        },
        protected_instances: match (prefs, attr("scale_in_protected_instances")) {
            (None, _) => Known::Known(ecs_gpu_sim::facts::API_SCALE_IN_PROTECTED_DEFAULT),
            (Some(_), None) => {
                Known::Known(ecs_gpu_sim::facts::PROVIDER_SCALE_IN_PROTECTED_DEFAULT)
            }
            (Some(_), Some(n)) => match n.as_str().as_deref().and_then(ProtectedInstances::parse) {
                Some(p) => Known::Known(p),
                None => Known::unknown("`scale_in_protected_instances` is not known"),
            },
        },
    }
}

fn service(model: &Model, svc: &Resource, sc: &Scenario) -> Service {
    let mut s = Service::new(address(model, svc));
    let cap = service_capacity(model, svc);
    s.group = if !cap.complete {
        Known::unknown("its capacity providers are not known in full")
    } else {
        match cap.providers.as_slice() {
            [one] => match &one.group {
                Some(g) => {
                    let name = address(model, g.group);
                    if sc.group(&name).is_some() {
                        Known::Known(name)
                    } else {
                        Known::unknown("its Auto Scaling group is not known")
                    }
                }
                None => Known::unknown("its Auto Scaling group is not known"),
            },
            [] => Known::unknown("it names no capacity provider"),
            _ => Known::unknown(
                "it spreads over several capacity providers: the split is not modelled",
            ),
        }
    };
    let body = &svc.body;
    // The AWS provider's default desired count is 0.
    s.desired = known_u32(body.attr("desired_count"), "desired_count", Some(0));
    s.task = match service_task(model, svc) {
        Some(td) => {
            s.gpu = crate::task::is_gpu_task(td);
            task_shape(td)
        }
        None => Known::unknown("its task definition is not known"),
    };
    s.deployment = deployment(svc);
    let (list, complete) = placement_constraints(model, svc);
    s.constraints = if !complete {
        Known::unknown("its placement constraints are not known in full")
    } else {
        let mut out = Vec::new();
        let mut unknown = None;
        for (t, e) in list {
            match t.and_then(|t| t.as_str()).as_deref() {
                Some("distinctInstance") => out.push(Constraint::DistinctInstance),
                Some("memberOf") => match e.and_then(|e| e.as_str()) {
                    Some(e) => out.push(Constraint::MemberOf(e.into_owned())),
                    None => unknown = Some("a `memberOf` expression is not known"),
                },
                _ => unknown = Some("a placement constraint's type is not known"),
            }
        }
        match unknown {
            Some(u) => Known::unknown(u),
            None => Known::Known(out),
        }
    };
    s.strategy = if body.may_have_unknown("ordered_placement_strategy") {
        Known::unknown("its placement strategy is not known")
    } else {
        match body.block("ordered_placement_strategy").map(|b| {
            b.body
                .attr("type")
                .and_then(|n| n.as_str())
                .map(|s| s.into_owned())
        }) {
            None => Known::Known(Strategy::Spread),
            Some(Some(t)) if t == "binpack" => Known::Known(Strategy::Binpack),
            Some(Some(t)) if t == "spread" => Known::Known(Strategy::Spread),
            Some(Some(t)) if t == "random" => Known::Known(Strategy::Random),
            Some(_) => Known::unknown("its placement strategy is not known"),
        }
    };
    s
}

fn deployment(svc: &Resource) -> Known<Deployment> {
    let body = &svc.body;
    if body.may_have_unknown("deployment_controller") {
        return Known::unknown("the deployment controller is not known");
    }
    if let Some(c) = body.block("deployment_controller") {
        match c.body.attr("type").and_then(|n| n.as_str()).as_deref() {
            None | Some("ECS") => {}
            Some(other) => {
                return Known::unknown(format!(
                    "the `{other}` deployment controller is not modelled"
                ))
            }
        }
    }
    if body.may_have_unknown("deployment_configuration") {
        return Known::unknown("`deployment_configuration` is not known");
    }
    let config = body.block("deployment_configuration");
    let bake = config.and_then(|c| whole(c.body.attr("bake_time_in_minutes")));
    let strategy = match config.and_then(|c| c.body.attr("strategy")) {
        None => Some("ROLLING".to_string()),
        Some(n) => n.as_str().map(|s| s.into_owned()),
    };
    match strategy.as_deref() {
        Some("ROLLING") => {
            let min = known_u32(
                body.attr("deployment_minimum_healthy_percent"),
                "deployment_minimum_healthy_percent",
                Some(ecs_gpu_sim::facts::DEFAULT_MIN_HEALTHY),
            );
            let max = known_u32(
                body.attr("deployment_maximum_percent"),
                "deployment_maximum_percent",
                Some(ecs_gpu_sim::facts::DEFAULT_MAX_PERCENT),
            );
            match (min, max) {
                (Known::Known(minimum_healthy_percent), Known::Known(maximum_percent)) => {
                    Known::Known(Deployment::Rolling {
                        minimum_healthy_percent,
                        maximum_percent,
                    })
                }
                (Known::Unknown { unknown }, _) | (_, Known::Unknown { unknown }) => {
                    Known::Unknown { unknown }
                }
            }
        }
        Some("BLUE_GREEN") => Known::Known(Deployment::BlueGreen { bake_minutes: bake }),
        Some("LINEAR") => Known::Known(Deployment::Linear {
            step_percent: None,
            bake_minutes: bake,
        }),
        Some("CANARY") => Known::Known(Deployment::Canary {
            canary_percent: None,
            bake_minutes: bake,
        }),
        Some(other) => Known::unknown(format!("the deployment strategy `{other}` is not modelled")),
        None => Known::unknown("the deployment strategy is not known"),
    }
}

/// What one task reserves: whole GPUs summed over its containers, the task-level CPU and memory (or
/// the containers' sums), and its static host ports.
pub fn task_shape(td: &TaskDefinition) -> Known<TaskShape> {
    let cs = containers(td);
    if !cs.complete {
        return Known::unknown("its container definitions are not known in full");
    }
    let mut gpus = 0u32;
    let (mut cpu_sum, mut mem_sum) = (0u64, Some(0u64));
    let mut ports = Vec::new();
    let network = td
        .network_mode
        .as_ref()
        .map(|n| n.as_str().map(|s| s.into_owned()));
    let network = match network {
        None => Some("bridge".to_string()),
        Some(n) => n,
    };
    for c in &cs.known {
        for entry in c.gpu_requirements() {
            if entry.get("sharingStrategy").is_some() {
                return Known::unknown(ecs_gpu_sim::MPS_UNKNOWN);
            }
            match entry
                .get("value")
                .and_then(|v| v.as_str())
                .map(|s| GpuValue::parse(&s))
            {
                Some(Ok(GpuValue::Whole(n))) => gpus += n,
                Some(Ok(GpuValue::Fraction(_))) => {
                    return Known::unknown("it asks for a GPU fraction: fractions are not modelled")
                }
                _ => return Known::unknown("a GPU value is not known or is `ALL`"),
            }
        }
        let n = |k: &str| c.get(k).and_then(number);
        cpu_sum += n("cpu").map_or(0, |x| x.max(0.0) as u64);
        let mem = n("memoryReservation").or_else(|| n("memory"));
        mem_sum = match (mem_sum, mem) {
            (Some(a), Some(m)) => Some(a + m.max(0.0) as u64),
            _ => None,
        };
        if let Some(list) = c.get("portMappings").and_then(Node::as_list) {
            for pm in list {
                let port = match network.as_deref() {
                    Some("host") => pm.get("containerPort").and_then(number),
                    Some("bridge") => pm.get("hostPort").and_then(number),
                    Some(_) => None,
                    None => return Known::unknown("the network mode is not known"),
                };
                if let Some(p) = port.filter(|p| *p > 0.0 && *p <= 65535.0) {
                    ports.push(p as u16);
                }
            }
        }
    }
    let task_cpu = td.cpu.as_ref().map(|n| {
        n.as_str()
            .and_then(|s| ecs_gpu_catalog::task_cpu_units(&s))
            .or_else(|| number(n))
    });
    let cpu = match task_cpu {
        None => cpu_sum,
        Some(Some(c)) => c as u64,
        Some(None) => return Known::unknown("the task's `cpu` is not known"),
    };
    let task_mem = td.memory.as_ref().map(|n| {
        n.as_str()
            .and_then(|s| ecs_gpu_catalog::task_memory_mib(&s))
            .or_else(|| number(n))
    });
    let memory = match (task_mem, mem_sum) {
        (Some(Some(m)), _) => m as u64,
        (Some(None), _) => return Known::unknown("the task's `memory` is not known"),
        (None, Some(m)) => m,
        (None, None) => return Known::unknown("a container's memory is not known"),
    };
    ports.sort_unstable();
    ports.dedup();
    let family = td
        .family
        .as_ref()
        .and_then(|f| f.as_str().map(|s| s.into_owned()))
        .unwrap_or_default();
    Known::Known(TaskShape {
        family,
        gpus,
        cpu: u32::try_from(cpu).unwrap_or(u32::MAX),
        memory,
        host_ports: ports,
    })
}
