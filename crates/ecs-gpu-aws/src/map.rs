//! SDK output types -> the AWS CLI shapes of `ecs_gpu_diagnose::api`.

use aws_sdk_autoscaling::types as asg;
use aws_sdk_ecs::types as ecs;
use aws_smithy_types::date_time::Format;
use aws_smithy_types::DateTime;
use ecs_gpu_diagnose::api as cli;

fn ts(t: Option<&DateTime>) -> Option<cli::Timestamp> {
    t.and_then(|t| t.fmt(Format::DateTime).ok())
        .map(cli::Timestamp::Text)
}

/// An owned copy of an optional string field of an AWS SDK type.
fn owned(v: Option<&str>) -> Option<String> {
    v.map(str::to_string)
}

pub(crate) fn failure(f: &ecs::Failure) -> cli::Failure {
    cli::Failure {
        arn: owned(f.arn()),
        reason: owned(f.reason()),
        detail: owned(f.detail()),
    }
}

fn constraint(c: &ecs::PlacementConstraint) -> cli::PlacementConstraint {
    cli::PlacementConstraint {
        type_: c.r#type().map(|t| t.as_str().to_string()),
        expression: owned(c.expression()),
    }
}

fn td_constraint(c: &ecs::TaskDefinitionPlacementConstraint) -> cli::PlacementConstraint {
    cli::PlacementConstraint {
        type_: c.r#type().map(|t| t.as_str().to_string()),
        expression: owned(c.expression()),
    }
}

fn strategy(c: &ecs::CapacityProviderStrategyItem) -> cli::CapacityProviderStrategyItem {
    cli::CapacityProviderStrategyItem {
        capacity_provider: c.capacity_provider().to_string(),
        weight: i64::from(c.weight()),
        base: i64::from(c.base()),
    }
}

pub(crate) fn service(v: &ecs::Service) -> cli::Service {
    cli::Service {
        service_arn: owned(v.service_arn()),
        service_name: v.service_name().unwrap_or_default().to_string(),
        cluster_arn: owned(v.cluster_arn()),
        status: owned(v.status()),
        desired_count: i64::from(v.desired_count()),
        running_count: i64::from(v.running_count()),
        pending_count: i64::from(v.pending_count()),
        launch_type: v.launch_type().map(|l| l.as_str().to_string()),
        capacity_provider_strategy: v
            .capacity_provider_strategy()
            .iter()
            .map(strategy)
            .collect(),
        task_definition: owned(v.task_definition()),
        deployment_configuration: v.deployment_configuration().map(|c| {
            cli::DeploymentConfiguration {
                maximum_percent: c.maximum_percent().map(i64::from),
                minimum_healthy_percent: c.minimum_healthy_percent().map(i64::from),
            }
        }),
        deployments: v
            .deployments()
            .iter()
            .map(|d| cli::Deployment {
                id: owned(d.id()),
                status: owned(d.status()),
                task_definition: owned(d.task_definition()),
                desired_count: i64::from(d.desired_count()),
                running_count: i64::from(d.running_count()),
                pending_count: i64::from(d.pending_count()),
                rollout_state: d.rollout_state().map(|r| r.as_str().to_string()),
                rollout_state_reason: owned(d.rollout_state_reason()),
            })
            .collect(),
        events: v
            .events()
            .iter()
            .map(|e| cli::ServiceEvent {
                id: owned(e.id()),
                created_at: ts(e.created_at()),
                message: e.message().unwrap_or_default().to_string(),
            })
            .collect(),
        placement_constraints: v.placement_constraints().iter().map(constraint).collect(),
    }
}

fn requirement(r: &ecs::ResourceRequirement) -> cli::ResourceRequirement {
    cli::ResourceRequirement {
        type_: r.r#type().as_str().to_string(),
        value: r.value().to_string(),
    }
}

pub(crate) fn task_definition(t: &ecs::TaskDefinition) -> cli::TaskDefinition {
    cli::TaskDefinition {
        task_definition_arn: owned(t.task_definition_arn()),
        family: t.family().unwrap_or_default().to_string(),
        revision: Some(i64::from(t.revision())),
        status: t.status().map(|x| x.as_str().to_string()),
        network_mode: t.network_mode().map(|x| x.as_str().to_string()),
        requires_compatibilities: t
            .requires_compatibilities()
            .iter()
            .map(|c| c.as_str().to_string())
            .collect(),
        compatibilities: t
            .compatibilities()
            .iter()
            .map(|c| c.as_str().to_string())
            .collect(),
        cpu: owned(t.cpu()),
        memory: owned(t.memory()),
        runtime_platform: t.runtime_platform().map(|p| cli::RuntimePlatform {
            operating_system_family: p.operating_system_family().map(|x| x.as_str().to_string()),
            cpu_architecture: p.cpu_architecture().map(|x| x.as_str().to_string()),
        }),
        placement_constraints: t
            .placement_constraints()
            .iter()
            .map(td_constraint)
            .collect(),
        container_definitions: t
            .container_definitions()
            .iter()
            .map(|c| cli::ContainerDefinition {
                name: c.name().unwrap_or_default().to_string(),
                cpu: Some(i64::from(c.cpu())),
                memory: c.memory().map(i64::from),
                memory_reservation: c.memory_reservation().map(i64::from),
                resource_requirements: c.resource_requirements().iter().map(requirement).collect(),
            })
            .collect(),
        resource_requirements: Vec::new(),
    }
}

fn resource(r: &ecs::Resource) -> cli::Resource {
    cli::Resource {
        name: r.name().unwrap_or_default().to_string(),
        type_: owned(r.r#type()),
        double_value: Some(r.double_value()),
        long_value: Some(r.long_value()),
        integer_value: Some(i64::from(r.integer_value())),
        string_set_value: r.string_set_value.clone(),
    }
}

pub(crate) fn container_instance(c: &ecs::ContainerInstance) -> cli::ContainerInstance {
    cli::ContainerInstance {
        container_instance_arn: owned(c.container_instance_arn()),
        ec2_instance_id: owned(c.ec2_instance_id()),
        capacity_provider_name: owned(c.capacity_provider_name()),
        version_info: c.version_info().map(|v| cli::VersionInfo {
            agent_version: owned(v.agent_version()),
            agent_hash: owned(v.agent_hash()),
            docker_version: owned(v.docker_version()),
        }),
        remaining_resources: c.remaining_resources().iter().map(resource).collect(),
        registered_resources: c.registered_resources().iter().map(resource).collect(),
        status: owned(c.status()),
        status_reason: owned(c.status_reason()),
        agent_connected: c.agent_connected(),
        running_tasks_count: i64::from(c.running_tasks_count()),
        pending_tasks_count: i64::from(c.pending_tasks_count()),
        attributes: c
            .attributes()
            .iter()
            .map(|a| cli::Attribute {
                name: a.name().to_string(),
                value: owned(a.value()),
            })
            .collect(),
        registered_at: ts(c.registered_at()),
    }
}

pub(crate) fn task(t: &ecs::Task) -> cli::Task {
    cli::Task {
        task_arn: owned(t.task_arn()),
        task_definition_arn: owned(t.task_definition_arn()),
        container_instance_arn: owned(t.container_instance_arn()),
        group: owned(t.group()),
        last_status: owned(t.last_status()),
        desired_status: owned(t.desired_status()),
        stop_code: t.stop_code().map(|x| x.as_str().to_string()),
        stopped_reason: owned(t.stopped_reason()),
        containers: t
            .containers()
            .iter()
            .map(|c| cli::Container {
                name: c.name().unwrap_or_default().to_string(),
                last_status: owned(c.last_status()),
                exit_code: c.exit_code().map(i64::from),
                reason: owned(c.reason()),
                gpu_ids: c.gpu_ids().to_vec(),
            })
            .collect(),
    }
}

pub(crate) fn capacity_provider(c: &ecs::CapacityProvider) -> cli::CapacityProvider {
    cli::CapacityProvider {
        capacity_provider_arn: owned(c.capacity_provider_arn()),
        name: c.name().unwrap_or_default().to_string(),
        status: c.status().map(|x| x.as_str().to_string()),
        auto_scaling_group_provider: c.auto_scaling_group_provider().map(|p| {
            cli::AutoScalingGroupProvider {
                auto_scaling_group_arn: p.auto_scaling_group_arn().to_string(),
                managed_scaling: p.managed_scaling().map(|m| cli::ManagedScaling {
                    status: m.status().map(|x| x.as_str().to_string()),
                    target_capacity: m.target_capacity().map(i64::from),
                }),
                managed_termination_protection: p
                    .managed_termination_protection()
                    .map(|x| x.as_str().to_string()),
            }
        }),
    }
}

pub(crate) fn auto_scaling_group(g: &asg::AutoScalingGroup) -> cli::AutoScalingGroup {
    cli::AutoScalingGroup {
        auto_scaling_group_name: g.auto_scaling_group_name().unwrap_or_default().to_string(),
        auto_scaling_group_arn: owned(g.auto_scaling_group_arn()),
        min_size: g.min_size().map_or(0, i64::from),
        max_size: g.max_size().map_or(0, i64::from),
        desired_capacity: g.desired_capacity().map_or(0, i64::from),
        availability_zones: g.availability_zones().to_vec(),
        instances: g
            .instances()
            .iter()
            .map(|i| cli::AsgInstance {
                instance_id: i.instance_id().unwrap_or_default().to_string(),
                instance_type: owned(i.instance_type()),
                availability_zone: owned(i.availability_zone()),
                lifecycle_state: i.lifecycle_state().map(|x| x.as_str().to_string()),
                health_status: owned(i.health_status()),
            })
            .collect(),
        launch_template: g.launch_template().map(|l| cli::LaunchTemplateSpec {
            launch_template_id: owned(l.launch_template_id()),
            launch_template_name: owned(l.launch_template_name()),
            version: owned(l.version()),
        }),
        status: owned(g.status()),
    }
}

pub(crate) fn activity(a: &asg::Activity) -> cli::Activity {
    cli::Activity {
        activity_id: owned(a.activity_id()),
        auto_scaling_group_name: a.auto_scaling_group_name().unwrap_or_default().to_string(),
        description: owned(a.description()),
        cause: owned(a.cause()),
        start_time: ts(a.start_time()),
        status_code: a.status_code().map(|x| x.as_str().to_string()),
        status_message: owned(a.status_message()),
    }
}

/// The fields of a service that only the simulation reads, in the AWS CLI's shape
/// (`ecs_gpu_diagnose::aws_json::Extras`): the deployment strategy and controller, the bake time,
/// the placement strategy.
pub(crate) fn service_extras(v: &ecs::Service) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "serviceName".into(),
        v.service_name().unwrap_or_default().into(),
    );
    if let Some(dc) = v.deployment_configuration() {
        let mut d = serde_json::Map::new();
        if let Some(s) = dc.strategy() {
            d.insert("strategy".into(), s.as_str().into());
        }
        if let Some(b) = dc.bake_time_in_minutes() {
            d.insert("bakeTimeInMinutes".into(), b.into());
        }
        out.insert("deploymentConfiguration".into(), d.into());
    }
    if let Some(t) = v.deployment_controller().map(|c| c.r#type()) {
        out.insert(
            "deploymentController".into(),
            serde_json::json!({"type": t.as_str()}),
        );
    }
    let strategy: Vec<serde_json::Value> = v
        .placement_strategy()
        .iter()
        .map(|s| {
            let mut m = serde_json::Map::new();
            if let Some(t) = s.r#type() {
                m.insert("type".into(), t.as_str().into());
            }
            if let Some(f) = s.field() {
                m.insert("field".into(), f.into());
            }
            m.into()
        })
        .collect();
    out.insert("placementStrategy".into(), strategy.into());
    out.into()
}

/// A capacity provider's managed scaling step sizes and warmup, in the AWS CLI's shape.
pub(crate) fn capacity_provider_extras(c: &ecs::CapacityProvider) -> serde_json::Value {
    let ms = c
        .auto_scaling_group_provider()
        .and_then(|p| p.managed_scaling());
    let mut m = serde_json::Map::new();
    if let Some(ms) = ms {
        for (k, v) in [
            ("minimumScalingStepSize", ms.minimum_scaling_step_size()),
            ("maximumScalingStepSize", ms.maximum_scaling_step_size()),
            ("instanceWarmupPeriod", ms.instance_warmup_period()),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), v.into());
            }
        }
    }
    serde_json::json!({
        "name": c.name().unwrap_or_default(),
        "autoScalingGroupProvider": {"managedScaling": m},
    })
}

/// A group's mixed instances policy (instance types, weights, On-Demand share) and warm pool, in
/// the AWS CLI's shape.
pub(crate) fn auto_scaling_group_extras(g: &asg::AutoScalingGroup) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "AutoScalingGroupName".into(),
        g.auto_scaling_group_name().unwrap_or_default().into(),
    );
    if let Some(p) = g.mixed_instances_policy() {
        let overrides: Vec<serde_json::Value> = p
            .launch_template()
            .map(|l| l.overrides())
            .unwrap_or_default()
            .iter()
            .map(|o| {
                let mut m = serde_json::Map::new();
                if let Some(t) = o.instance_type() {
                    m.insert("InstanceType".into(), t.into());
                }
                if let Some(w) = o.weighted_capacity() {
                    m.insert("WeightedCapacity".into(), w.into());
                }
                m.into()
            })
            .collect();
        let mut dist = serde_json::Map::new();
        if let Some(d) = p.instances_distribution() {
            if let Some(b) = d.on_demand_base_capacity() {
                dist.insert("OnDemandBaseCapacity".into(), b.into());
            }
            if let Some(a) = d.on_demand_percentage_above_base_capacity() {
                dist.insert("OnDemandPercentageAboveBaseCapacity".into(), a.into());
            }
        }
        out.insert(
            "MixedInstancesPolicy".into(),
            serde_json::json!({
                "LaunchTemplate": {"Overrides": overrides},
                "InstancesDistribution": dist,
            }),
        );
    }
    if let Some(w) = g.warm_pool_configuration() {
        let mut m = serde_json::Map::new();
        if let Some(s) = w.pool_state() {
            m.insert("PoolState".into(), s.as_str().into());
        }
        if let Some(n) = w.min_size() {
            m.insert("MinSize".into(), n.into());
        }
        if let Some(n) = w.max_group_prepared_capacity() {
            m.insert("MaxGroupPreparedCapacity".into(), n.into());
        }
        out.insert("WarmPoolConfiguration".into(), m.into());
    }
    out.into()
}
