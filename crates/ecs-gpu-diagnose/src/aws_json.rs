//! A cluster as the simulation's input: the AWS CLI's describe-* output (saved, or filled by the
//! live client) read into an [`ecs_gpu_sim::Scenario`] with what runs now: each container
//! instance's registered and remaining resources and the tasks of each service on it.
//!
//! The typed inputs keep only what the diagnosis reads; the few fields the simulation needs
//! besides (managed scaling step sizes and warmup, the deployment strategy, placement strategies,
//! a group's mixed instances policy and warm pool) are read from the saved files as [`Extras`],
//! or filled by the live client from the same answers.

use ecs_gpu_sim::{
    Constraint, Deployment, Group, Instance, InstanceShape, Known, ManagedScaling, Memory,
    OnDemandShare, PoolState, Scenario, Service, Strategy, TaskShape, WarmPool,
};
use serde_json::Value;

use crate::api::{ContainerInstance, TaskDefinition};
pub use crate::inputs::Extras;
use crate::Inputs;

fn int(v: Option<&Value>) -> Option<u32> {
    v?.as_u64().and_then(|n| u32::try_from(n).ok())
}

/// The scenario of a cluster.
pub fn scenario(inputs: &Inputs, extras: &Extras) -> Scenario {
    let mut sc = Scenario::default();
    let services = inputs
        .services
        .as_ref()
        .map(|s| s.services.clone())
        .unwrap_or_default();
    let td = inputs.task_definition.as_ref().map(|t| &t.task_definition);
    for svc in &services {
        let mut s = Service::new(svc.service_name.clone());
        s.desired = Known::Known(u32::try_from(svc.desired_count.max(0)).unwrap_or(0));
        s.group = match svc.capacity_provider_strategy.as_slice() {
            [one] => Known::Known(one.capacity_provider.clone()),
            [] => Known::unknown("it has no capacity provider strategy"),
            _ => Known::unknown("it spreads over several capacity providers"),
        };
        s.task = match td {
            Some(td) if runs(svc.task_definition.as_deref(), td) => {
                s.gpu = td
                    .container_definitions
                    .iter()
                    .any(|c| c.resource_requirements.iter().any(|r| r.type_ == "GPU"));
                task_shape(td)
            }
            _ => Known::unknown("its task definition is not in the AWS output read"),
        };
        let extra = extras.service(&svc.service_name);
        let strategy = extra
            .and_then(|e| e.pointer("/deploymentConfiguration/strategy"))
            .and_then(Value::as_str);
        let bake = int(extra.and_then(|e| e.pointer("/deploymentConfiguration/bakeTimeInMinutes")));
        let controller = extra
            .and_then(|e| e.pointer("/deploymentController/type"))
            .and_then(Value::as_str);
        let dc = svc.deployment_configuration.clone().unwrap_or_default();
        s.deployment = match (controller, strategy) {
            (Some(c), _) if c != "ECS" => {
                Known::unknown(format!("the `{c}` deployment controller is not modelled"))
            }
            (_, Some("BLUE_GREEN")) => Known::Known(Deployment::BlueGreen { bake_minutes: bake }),
            (_, Some("LINEAR")) => Known::Known(Deployment::Linear {
                step_percent: None,
                bake_minutes: bake,
            }),
            (_, Some("CANARY")) => Known::Known(Deployment::Canary {
                canary_percent: None,
                bake_minutes: bake,
            }),
            (_, None | Some("ROLLING")) => match (dc.minimum_healthy_percent, dc.maximum_percent) {
                (Some(min), Some(max)) => Known::Known(Deployment::Rolling {
                    minimum_healthy_percent: u32::try_from(min.max(0)).unwrap_or(0),
                    maximum_percent: u32::try_from(max.max(0)).unwrap_or(0),
                }),
                _ => Known::unknown("the deployment percentages are not in the AWS output read"),
            },
            (_, Some(other)) => {
                Known::unknown(format!("the deployment strategy `{other}` is not modelled"))
            }
        };
        let mut constraints = Vec::new();
        let mut bad = false;
        for c in svc.placement_constraints.iter().chain(
            td.filter(|td| runs(svc.task_definition.as_deref(), td))
                .map_or(&[][..], |t| &t.placement_constraints),
        ) {
            match (c.type_.as_deref(), &c.expression) {
                (Some("distinctInstance"), _) => constraints.push(Constraint::DistinctInstance),
                (Some("memberOf"), Some(e)) => constraints.push(Constraint::MemberOf(e.clone())),
                _ => bad = true,
            }
        }
        s.constraints = if bad {
            Known::unknown("a placement constraint is not read")
        } else {
            Known::Known(constraints)
        };
        s.strategy = match extra {
            None => Known::unknown("the placement strategy is not in the AWS output read"),
            Some(e) => match e
                .pointer("/placementStrategy/0/type")
                .and_then(Value::as_str)
            {
                Some("binpack") => Known::Known(Strategy::Binpack),
                Some("random") => Known::Known(Strategy::Random),
                _ => Known::Known(Strategy::Spread),
            },
        };
        sc.services.push(s);
    }
    let asgs = inputs
        .auto_scaling_groups
        .as_ref()
        .map(|a| a.auto_scaling_groups.clone())
        .unwrap_or_default();
    let instances = inputs
        .container_instances
        .as_ref()
        .map(|c| c.container_instances.clone())
        .unwrap_or_default();
    for cp in inputs
        .capacity_providers
        .as_ref()
        .map(|c| c.capacity_providers.clone())
        .unwrap_or_default()
    {
        let Some(asgp) = &cp.auto_scaling_group_provider else {
            continue;
        };
        let asg = asgs.iter().find(|a| {
            asgp.auto_scaling_group_arn
                .ends_with(&format!("/{}", a.auto_scaling_group_name))
                || a.auto_scaling_group_arn.as_deref() == Some(asgp.auto_scaling_group_arn.as_str())
        });
        let mut g = Group::new(cp.name.clone());
        g.provider = Some(cp.name.clone());
        let extra = extras.provider(&cp.name);
        g.managed_scaling = match asgp
            .managed_scaling
            .as_ref()
            .and_then(|m| m.status.as_deref())
        {
            Some("ENABLED") => {
                let ms = extra.and_then(|e| e.pointer("/autoScalingGroupProvider/managedScaling"));
                let get = |k: &str| int(ms.and_then(|m| m.get(k)));
                match (
                    asgp.managed_scaling
                        .as_ref()
                        .and_then(|m| m.target_capacity),
                    get("minimumScalingStepSize"),
                    get("maximumScalingStepSize"),
                    get("instanceWarmupPeriod"),
                ) {
                    (Some(t), Some(min), Some(max), Some(w)) => {
                        Known::Known(Some(ManagedScaling {
                            target_capacity: u32::try_from(t.max(0)).unwrap_or(100),
                            min_step: min,
                            max_step: max,
                            warmup: w,
                        }))
                    }
                    _ => Known::unknown(
                        "the managed scaling step sizes and warmup are not in the output",
                    ),
                }
            }
            Some("DISABLED") => Known::Known(None),
            _ => Known::unknown("the managed scaling status is not in the output"),
        };
        g.protected =
            Known::Known(asgp.managed_termination_protection.as_deref() == Some("ENABLED"));
        let mut list = Vec::new();
        for ci in instances
            .iter()
            .filter(|ci| ci.capacity_provider_name.as_deref() == Some(cp.name.as_str()))
        {
            if let Some(i) = instance(ci, inputs, &sc) {
                list.push(i);
            }
        }
        if let Some(asg) = asg {
            g.name = asg.auto_scaling_group_name.clone();
            g.min_size = Known::Known(u32::try_from(asg.min_size.max(0)).unwrap_or(0));
            g.max_size = Known::Known(u32::try_from(asg.max_size.max(0)).unwrap_or(0));
            g.zones = Known::Known(u32::try_from(asg.availability_zones.len()).unwrap_or(0));
            let extra = extras.group(&asg.auto_scaling_group_name);
            let mixed = extra.and_then(|e| e.get("MixedInstancesPolicy"));
            g.launches = launches(mixed, &asg.instances);
            g.on_demand = on_demand(mixed);
            g.warm_pool = warm_pool(extra);
        }
        g.instances = Known::Known(list);
        let refresh = &mut g.refresh;
        refresh.min_healthy = Known::Known(
            ecs_gpu_catalog::catalog()
                .autoscaling
                .instance_refresh_min_healthy_percentage_default,
        );
        refresh.max_healthy = Known::Known(ecs_gpu_sim::facts::DEFAULT_REFRESH_MAX_HEALTHY);
        sc.groups.push(g);
    }
    sc
}

/// The instance types a group launches: its mixed instances policy's overrides, else the one type
/// its instances run (the launch template is not in the AWS output read).
fn launches(
    mixed: Option<&Value>,
    instances: &[crate::api::AsgInstance],
) -> Known<Vec<InstanceShape>> {
    if let Some(overrides) = mixed
        .and_then(|m| m.pointer("/LaunchTemplate/Overrides"))
        .and_then(Value::as_array)
        .filter(|o| !o.is_empty())
    {
        if overrides
            .iter()
            .any(|o| o.get("WeightedCapacity").is_some())
        {
            return Known::unknown(
                "its overrides set `WeightedCapacity`, so its sizes count capacity units: not modelled",
            );
        }
        let types: Option<Vec<&str>> = overrides
            .iter()
            .map(|o| o.get("InstanceType").and_then(Value::as_str))
            .collect();
        return match types {
            Some(t) => InstanceShape::from_catalog_all(&t),
            None => Known::unknown(
                "an override names no instance type (instance requirements are not modelled)",
            ),
        };
    }
    let mut types: Vec<&str> = instances
        .iter()
        .filter_map(|i| i.instance_type.as_deref())
        .collect();
    types.sort_unstable();
    types.dedup();
    match types.as_slice() {
        [one] => InstanceShape::from_catalog_all(&[*one]),
        _ => Known::unknown("the group's instance type is not known from its instances"),
    }
}

/// The On-Demand share of a mixed instances policy, with the API's defaults (base 0, 100% above
/// it). Without one, the launch template decides, and it is not in the AWS output read.
fn on_demand(mixed: Option<&Value>) -> Known<OnDemandShare> {
    let Some(m) = mixed else {
        return Known::unknown(
            "whether its launch template buys Spot Instances is not in the AWS output read",
        );
    };
    let dist = m.get("InstancesDistribution");
    let get = |k: &str| dist.and_then(|d| d.get(k));
    let num = |k: &str, default: u32| match get(k) {
        None => Some(default),
        Some(v) => int(Some(v)),
    };
    match (
        num("OnDemandBaseCapacity", 0),
        num(
            "OnDemandPercentageAboveBaseCapacity",
            ecs_gpu_catalog::catalog()
                .market
                .on_demand_percentage_default,
        ),
    ) {
        (Some(base), Some(percent_above_base)) => Known::Known(OnDemandShare {
            base,
            percent_above_base,
        }),
        _ => Known::unknown("its instances distribution is not read"),
    }
}

/// A group's warm pool (`WarmPoolConfiguration`); the user data, and so `ECS_WARM_POOLS_CHECK`, is
/// not in the AWS output read.
fn warm_pool(group: Option<&Value>) -> Known<Option<WarmPool>> {
    let Some(group) = group else {
        return Known::unknown("the group is not in `describe-auto-scaling-groups.json`");
    };
    let Some(c) = group.get("WarmPoolConfiguration") else {
        return Known::Known(None);
    };
    let state = match c.get("PoolState").and_then(Value::as_str) {
        None => PoolState::Stopped,
        Some(s) => match PoolState::parse(s) {
            Some(p) => p,
            None => return Known::unknown(format!("the warm pool state `{s}` is not read")),
        },
    };
    let max_prepared = match c.get("MaxGroupPreparedCapacity").and_then(Value::as_i64) {
        None => None,
        Some(v) if v < 0 => None,
        Some(v) => Some(u32::try_from(v).unwrap_or(u32::MAX)),
    };
    Known::Known(Some(WarmPool {
        state,
        min_size: int(c.get("MinSize")).unwrap_or(0),
        max_prepared,
        warm_pools_check: Known::unknown("the user data is not in the AWS output read"),
    }))
}

/// Whether a service's `taskDefinition` (an ARN or `family:revision`) is this task definition.
fn runs(name: Option<&str>, td: &TaskDefinition) -> bool {
    let Some(name) = name else { return false };
    if td.task_definition_arn.as_deref() == Some(name) {
        return true;
    }
    let short = name.rsplit('/').next().unwrap_or(name);
    let family = short.split(':').next().unwrap_or(short);
    family == td.family
}

fn task_shape(td: &TaskDefinition) -> Known<TaskShape> {
    let containers = serde_json::to_value(&td.container_definitions).unwrap_or(Value::Null);
    TaskShape::from_ecs_json(
        &td.family,
        &containers,
        td.cpu.as_deref(),
        td.memory.as_deref(),
        td.network_mode.as_deref(),
    )
}

/// A container instance: what modelled services could use on it (its remaining resources plus
/// what their tasks on it reserve), and those tasks.
fn instance(ci: &ContainerInstance, inputs: &Inputs, sc: &Scenario) -> Option<Instance> {
    let amount =
        |v: Option<&crate::api::Resource>| v.map(|r| u64::try_from(r.amount().max(0)).unwrap_or(0));
    let instance_type = ci
        .attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE)?
        .to_string();
    let (mut gpus, mut cpu, mut mem) = (
        amount(ci.remaining("GPU"))?,
        amount(ci.remaining("CPU"))?,
        amount(ci.remaining("MEMORY"))?,
    );
    let mut tasks: Vec<(usize, u32)> = Vec::new();
    let arn = ci.container_instance_arn.as_deref();
    for t in inputs.tasks.iter().flat_map(|t| &t.tasks) {
        if t.container_instance_arn.as_deref() != arn || arn.is_none() {
            continue;
        }
        if t.last_status.as_deref() == Some("STOPPED") {
            continue;
        }
        let Some(service) = t.group.as_deref().and_then(|g| g.strip_prefix("service:")) else {
            continue;
        };
        let Some(s) = sc.service(service) else {
            continue;
        };
        let Some(shape) = sc.services[s].task.known() else {
            continue;
        };
        gpus += u64::from(shape.gpus);
        cpu += u64::from(shape.cpu);
        mem += shape.memory;
        match tasks.iter_mut().find(|(o, _)| *o == s) {
            Some(e) => e.1 += 1,
            None => tasks.push((s, 1)),
        }
    }
    Some(Instance {
        id: ci.label(),
        shape: InstanceShape {
            instance_type,
            gpus: u32::try_from(gpus).unwrap_or(0),
            cpu: u32::try_from(cpu).unwrap_or(0),
            memory: Memory::Registered(mem),
        },
        tasks,
        protected: Known::unknown("not read"),
    })
}
