//! What runs on a capacity provider: the services ECS places on it, with their task definitions,
//! and the task definitions that no service runs (a `RunTask` call or a schedule may place them on
//! any capacity).

use ecs_gpu_model::{Model, Resource, TaskDefinition, TaskDefinitionOrigin};

use super::graph::{service_task, service_task_definition, Groups, SERVICE_TASK};
use super::placement::{
    provider_clusters, service_capacity_with, service_cluster_name, Placement, SERVICE_CAPACITY,
};
use crate::task::is_checked;
use crate::{reads, Reads};

/// What [`tenants_with`] reads.
pub const TENANTS: Reads = reads! { analyses: [SERVICE_TASK, SERVICE_CAPACITY] };

/// The tasks that run on a capacity provider, as far as its root module says.
#[derive(Debug, Clone, Default)]
pub struct Tenants<'m> {
    /// The services placed on it, each with its task definition.
    pub services: Vec<(&'m Resource, &'m TaskDefinition)>,
    /// The task definitions of its root module that no service runs, and those of task-definition
    /// JSON files (in no root module): they may be placed on it too.
    pub unplaced: Vec<&'m TaskDefinition>,
}

/// What runs on `provider`, or `None` when that is not known in full: a service of its root module
/// that may be placed on it without being known to be (an unknown strategy, cluster or launch type,
/// a service that may not exist), a service on it whose task definition is not known, or a task
/// definition that may not exist. Another root module is another configuration: its services are
/// placed on its own capacity providers.
pub fn tenants_with<'m>(
    model: &'m Model,
    groups: Groups<'m>,
    provider: &'m Resource,
) -> Option<Tenants<'m>> {
    let mut out = Tenants::default();
    let mut clusters = None;
    let mut run_by_services = std::collections::HashSet::new();
    let root = model.root_of(provider.module);
    for svc in model.resources_in(root, "aws_ecs_service") {
        let cap = service_capacity_with(model, groups, svc);
        let named = cap.providers.iter().any(|p| p.provider.id == provider.id);
        let launch_type = svc.body.attr("launch_type").and_then(|n| n.as_str());
        let on = match cap.placement {
            _ if named => true,
            Placement::Strategy | Placement::ClusterDefault if cap.providers_complete => false,
            // `launch_type = "FARGATE"`; a strategy that names Fargate may name others not known.
            Placement::Fargate if launch_type.as_deref() == Some("FARGATE") => false,
            // Any container instance of its cluster: the provider's when it is associated with it.
            Placement::LaunchTypeEc2 => {
                let ours = clusters.get_or_insert_with(|| provider_clusters(model, provider));
                let ours = ours.as_ref()?;
                let cluster = service_cluster_name(model, svc)?;
                let mut on = false;
                for (_, name) in ours {
                    match name {
                        Some(n) if n == cluster => on = true,
                        Some(_) => {}
                        None => return None,
                    }
                }
                on
            }
            Placement::Other if launch_type.as_deref() == Some("EXTERNAL") => false,
            _ => return None,
        };
        match service_task_definition(model, svc) {
            Some(id) => {
                run_by_services.insert(id);
            }
            None if on => return None,
            None => {}
        }
        if !on {
            continue;
        }
        if svc.instances_unknown {
            return None;
        }
        let td = service_task(model, svc)?;
        if !is_checked(model, td) {
            return None;
        }
        out.services.push((svc, td));
    }
    let own = model
        .resources_in(root, "aws_ecs_task_definition")
        .filter_map(|r| model.task_definition_of(r.id));
    for td in own.chain(model.json_task_definitions()) {
        if !is_checked(model, td) {
            return None;
        }
        let run = match td.origin {
            TaskDefinitionOrigin::Resource(id) => run_by_services.contains(&id),
            TaskDefinitionOrigin::JsonFile(_) => false,
        };
        if !run {
            out.unplaced.push(td);
        }
    }
    Some(out)
}
