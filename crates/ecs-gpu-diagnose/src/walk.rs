//! The walk: each link of the chain in order, with the evidence it used.

use ecs_gpu_catalog::{catalog, GpuValue, Gpus, Lookup};

use crate::input::{Call, ContainerInstance, PlacementConstraint, Service, Task, TaskDefinition};
use crate::query::{Context, Expr, Op, Subject};
use crate::report::{Report, Status, Step, StepId, Verdict};
use crate::Inputs;

/// What to diagnose within the inputs.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// The service, by name or ARN. Needed when `describe-services.json` holds several.
    pub service: Option<String>,
}

/// Why no diagnosis could be made at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiagnoseError {
    #[error("no input: give AWS access or a directory of saved outputs")]
    NoInput,
    #[error("service `{name}` is not in the input; services there: {}", list(.available))]
    ServiceNotFound {
        name: String,
        available: Vec<String>,
    },
    #[error("the input holds {} services ({}); pick one with --service", .available.len(), list(.available))]
    AmbiguousService { available: Vec<String> },
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// How many GPUs one task needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GpuNeed {
    /// N whole GPUs (the sum over containers).
    Whole(u32),
    /// `ALL`: every GPU of the instance, at least one.
    All,
    /// A partition of one g6f/gr6f GPU.
    Fraction(ecs_gpu_catalog::GpuFraction),
}

impl GpuNeed {
    fn describe(self) -> String {
        match self {
            GpuNeed::Whole(1) => "1 GPU".to_string(),
            GpuNeed::Whole(n) => format!("{n} GPUs"),
            GpuNeed::All => "all GPUs of an instance (`ALL`)".to_string(),
            GpuNeed::Fraction(f) => format!("a {f} GPU partition"),
        }
    }

    /// Whether an instance with `registered` GPUs of which `free` are free can take the task.
    fn fits(self, registered: i64, free: i64) -> bool {
        match self {
            GpuNeed::Whole(n) => free >= i64::from(n),
            GpuNeed::All => registered >= 1 && free == registered,
            GpuNeed::Fraction(_) => free >= 1,
        }
    }

    fn at_least(self) -> i64 {
        match self {
            GpuNeed::Whole(n) => i64::from(n),
            GpuNeed::All | GpuNeed::Fraction(_) => 1,
        }
    }
}

/// How many instances a list names before it says "and N more".
const LIST_MAX: usize = 5;

/// Runs the walk.
pub fn diagnose(inputs: &Inputs, target: &Target) -> Result<Report, DiagnoseError> {
    if inputs.is_empty() {
        return Err(DiagnoseError::NoInput);
    }
    let service = pick_service(inputs, target)?;
    let mut w = Walk::new(inputs, service);
    let steps = vec![
        w.task_definition(),
        w.capacity(),
        w.gpu_registration(),
        w.gpus_available(),
        w.placement_constraint(),
        w.cpu_memory(),
    ];
    let verdict = w.verdict(&steps);
    Ok(Report {
        version: 1,
        verdict,
        steps,
    })
}

fn pick_service<'a>(
    inputs: &'a Inputs,
    target: &Target,
) -> Result<Option<&'a Service>, DiagnoseError> {
    let Some(out) = &inputs.services else {
        return Ok(None);
    };
    let names: Vec<String> = out
        .services
        .iter()
        .map(|s| s.service_name.clone())
        .collect();
    match &target.service {
        Some(want) => out
            .services
            .iter()
            .find(|s| {
                s.service_name == *want
                    || s.service_arn.as_deref() == Some(want.as_str())
                    || s.service_arn
                        .as_deref()
                        .is_some_and(|a| a.rsplit('/').next() == Some(want.as_str()))
            })
            .map(Some)
            .ok_or_else(|| DiagnoseError::ServiceNotFound {
                name: want.clone(),
                available: names,
            }),
        None => match out.services.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            _ => Err(DiagnoseError::AmbiguousService { available: names }),
        },
    }
}

struct Walk<'a> {
    inputs: &'a Inputs,
    service: Option<&'a Service>,
    task_def: Option<&'a TaskDefinition>,
    need: Option<GpuNeed>,
    /// ACTIVE, agent connected, and in the service's capacity providers.
    candidates: Vec<&'a ContainerInstance>,
    /// Candidates that register GPUs.
    gpu_instances: Vec<&'a ContainerInstance>,
    /// GPU instances with enough free GPUs for one task.
    free_gpu_instances: Vec<&'a ContainerInstance>,
    /// Free-GPU instances that satisfy the placement constraints (`None`: not evaluated).
    placeable: Option<Vec<&'a ContainerInstance>>,
}

fn unknown(id: StepId, evidence: Vec<String>) -> Step {
    Step {
        id,
        status: Status::Unknown,
        evidence,
        message: None,
        fix: None,
    }
}

fn pass(id: StepId, evidence: Vec<String>) -> Step {
    Step {
        id,
        status: Status::Pass,
        evidence,
        message: None,
        fix: None,
    }
}

fn fail(id: StepId, evidence: Vec<String>, message: String, fix: String) -> Step {
    Step {
        id,
        status: Status::Fail,
        evidence,
        message: Some(message),
        fix: Some(fix),
    }
}

fn labels(instances: &[&ContainerInstance]) -> String {
    let mut s: Vec<String> = instances
        .iter()
        .take(LIST_MAX)
        .map(|i| i.label_with_type())
        .collect();
    if instances.len() > LIST_MAX {
        s.push(format!("and {} more", instances.len() - LIST_MAX));
    }
    s.join(", ")
}

/// Per-instance facts, with the instances that share a fact on one line (`i-1, i-2: fact`), at most
/// [`LIST_MAX`] lines.
fn grouped(lines: Vec<(&ContainerInstance, String)>) -> Vec<String> {
    let mut groups: Vec<(String, Vec<&ContainerInstance>)> = Vec::new();
    for (i, fact) in lines {
        match groups.iter_mut().find(|(f, _)| *f == fact) {
            Some((_, v)) => v.push(i),
            None => groups.push((fact, vec![i])),
        }
    }
    let mut out: Vec<String> = groups
        .iter()
        .take(LIST_MAX)
        .map(|(fact, v)| format!("{}: {fact}", labels(v)))
        .collect();
    if groups.len() > LIST_MAX {
        let rest: usize = groups[LIST_MAX..].iter().map(|(_, v)| v.len()).sum();
        out.push(format!(
            "and {} with other figures",
            plural(rest, "more instance", "more instances")
        ));
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The name of the agent's GPU driver attribute, from the catalog's `name = <version>` entry.
fn driver_attribute() -> String {
    catalog()
        .agent
        .gpu_attributes
        .iter()
        .filter_map(|a| a.split_once(" = ").map(|(n, _)| n.trim().to_string()))
        .next()
        .unwrap_or_else(|| "ecs.capability.gpu-driver-version".to_string())
}

impl<'a> Walk<'a> {
    fn new(inputs: &'a Inputs, service: Option<&'a Service>) -> Self {
        Walk {
            inputs,
            service,
            task_def: inputs.task_definition.as_ref().map(|d| &d.task_definition),
            need: None,
            candidates: Vec::new(),
            gpu_instances: Vec::new(),
            free_gpu_instances: Vec::new(),
            placeable: None,
        }
    }

    /// Why an input is missing: the call's error in live mode, or the file that was not given.
    fn missing(&self, call: Call) -> String {
        // A Describe call that never ran because its List call failed: the List call's error.
        let list = match call {
            Call::DescribeContainerInstances => Some(Call::ListContainerInstances),
            Call::DescribeTasks => Some(Call::ListTasks),
            _ => None,
        };
        match self
            .inputs
            .error(call)
            .or_else(|| list.and_then(|l| self.inputs.error(l)))
        {
            Some(e) => e.to_string(),
            None => match call.file_name() {
                Some(f) => format!("no {call} output (`{f}`)"),
                None => format!("no {call} output"),
            },
        }
    }

    fn instances(&self) -> Option<&'a [ContainerInstance]> {
        self.inputs
            .container_instances
            .as_ref()
            .map(|c| c.container_instances.as_slice())
    }

    fn task_group(&self) -> Option<String> {
        match (self.service, self.task_def) {
            (Some(s), _) => Some(format!("service:{}", s.service_name)),
            (None, Some(td)) => Some(format!("family:{}", td.family)),
            (None, None) => None,
        }
    }

    /// The newest service event whose message contains one of `words` (case-insensitive).
    fn event(&self, words: &[&str]) -> Option<String> {
        let s = self.service?;
        s.events
            .iter()
            .find(|e| {
                let m = e.message.to_ascii_lowercase();
                words.iter().any(|w| m.contains(w))
            })
            .map(|e| format!("service event: {}", e.message))
    }

    // ------------------------------------------------------------ 1. task-definition

    fn task_definition(&mut self) -> Step {
        let id = StepId::TaskDefinition;
        let Some(td) = self.task_def else {
            return unknown(id, vec![self.missing(Call::DescribeTaskDefinition)]);
        };
        let mut ev = Vec::new();
        let name = match td.revision {
            Some(r) => format!("{}:{r}", td.family),
            None => td.family.clone(),
        };
        ev.push(format!("task definition `{name}`"));
        if let (Some(s), Some(arn)) = (self.service, &td.task_definition_arn) {
            if let Some(used) = &s.task_definition {
                if used != arn {
                    ev.push(format!(
                        "note: the service uses `{used}`, the input describes `{arn}`"
                    ));
                }
            }
        }
        let gpu_type = &catalog().gpu_requirement.type_;

        // A GPU requirement at task level is not an ECS field: it must be inside a container.
        if td
            .resource_requirements
            .iter()
            .any(|r| r.type_.eq_ignore_ascii_case(gpu_type))
        {
            return fail(
                id,
                ev,
                "the GPU requirement is at task level, outside every container".to_string(),
                format!("move `{{\"type\": \"{gpu_type}\", \"value\": \"1\"}}` into the `resourceRequirements` of the container that uses the GPU"),
            );
        }

        let mut values: Vec<(&str, GpuValue)> = Vec::new();
        for c in &td.container_definitions {
            for r in &c.resource_requirements {
                if r.type_ == *gpu_type {
                    match GpuValue::parse(&r.value) {
                        Ok(v) => {
                            ev.push(format!("container `{}` asks for GPU `{v}`", c.name));
                            values.push((&c.name, v));
                        }
                        Err(e) => {
                            ev.push(format!(
                                "container `{}` has GPU value `{}`",
                                c.name, r.value
                            ));
                            return fail(
                                id,
                                ev,
                                format!("the GPU requirement of container `{}` is malformed: {e}", c.name),
                                "give a whole number of GPUs (`\"1\"`), `ALL`, or on g6f/gr6f one of 0.125, 0.25, 0.5".to_string(),
                            );
                        }
                    }
                } else if r.type_.eq_ignore_ascii_case(gpu_type) {
                    return fail(
                        id,
                        ev,
                        format!(
                            "container `{}` has resource type `{}`, which ECS does not read as a GPU",
                            c.name, r.type_
                        ),
                        format!("write the type as `{gpu_type}`, in capitals"),
                    );
                }
            }
        }
        if values.is_empty() {
            return fail(
                id,
                ev,
                "no container asks for a GPU, so ECS gives the task none".to_string(),
                format!("add `{{\"type\": \"{gpu_type}\", \"value\": \"1\"}}` to the `resourceRequirements` of the container that uses the GPU"),
            );
        }
        let fractions = values
            .iter()
            .filter(|(_, v)| matches!(v, GpuValue::Fraction(_)))
            .count();
        if fractions > 0 && values.len() > 1 {
            return fail(
                id,
                ev,
                "a container asks for a GPU fraction while another container also asks for GPUs".to_string(),
                "only one container per task may ask for a fraction, and then no other container may have a GPU requirement".to_string(),
            );
        }
        let all = values.iter().any(|(_, v)| *v == GpuValue::All);
        let need = if let Some((_, GpuValue::Fraction(f))) = values.first() {
            GpuNeed::Fraction(*f)
        } else if all {
            GpuNeed::All
        } else {
            GpuNeed::Whole(
                values
                    .iter()
                    .map(|(_, v)| match v {
                        GpuValue::Whole(n) => *n,
                        _ => 0,
                    })
                    .sum(),
            )
        };

        // Where a GPU task may run: not Fargate (catalog `fargate.gpu` is false; source keys ECS-GPU,
        // ECS-2023). The compatibility names are the ECS API's (source key BOTO, `Compatibility`).
        const GPU_CAPABLE: [&str; 3] = ["EC2", "EXTERNAL", "MANAGED_INSTANCES"];
        let fargate_gpu = catalog().fargate.gpu;
        let usable =
            |list: &[String]| fargate_gpu || list.iter().any(|c| GPU_CAPABLE.contains(&c.as_str()));
        if !td.requires_compatibilities.is_empty() && !usable(&td.requires_compatibilities) {
            ev.push(format!(
                "requiresCompatibilities: {}",
                td.requires_compatibilities.join(", ")
            ));
            return fail(
                id,
                ev,
                "the task definition is for Fargate only, and Fargate has no GPUs".to_string(),
                "set `requiresCompatibilities` to `[\"EC2\"]` (or `MANAGED_INSTANCES`) and run it on GPU container instances".to_string(),
            );
        }
        if !td.compatibilities.is_empty() && !usable(&td.compatibilities) {
            ev.push(format!(
                "compatibilities: {}",
                td.compatibilities.join(", ")
            ));
            return fail(
                id,
                ev,
                "ECS found the task definition compatible with Fargate only, and Fargate has no GPUs".to_string(),
                "register it with `requiresCompatibilities: [\"EC2\"]` and a network mode and sizes EC2 accepts".to_string(),
            );
        }
        if let Some(s) = self.service {
            let fargate_lt = s.launch_type.as_deref() == Some("FARGATE");
            let fargate_cp = !s.capacity_provider_strategy.is_empty()
                && s.capacity_provider_strategy
                    .iter()
                    .all(|c| c.capacity_provider.starts_with("FARGATE"));
            if (fargate_lt || fargate_cp) && !fargate_gpu {
                ev.push(format!(
                    "service `{}` runs on Fargate ({})",
                    s.service_name,
                    if fargate_lt {
                        "launch type FARGATE".to_string()
                    } else {
                        "capacity provider strategy FARGATE".to_string()
                    }
                ));
                return fail(
                    id,
                    ev,
                    "the service runs its tasks on Fargate, which has no GPUs".to_string(),
                    "recreate the service with launch type EC2 or a capacity provider backed by GPU instances".to_string(),
                );
            }
        }
        if let Some(os) = td
            .runtime_platform
            .as_ref()
            .and_then(|p| p.operating_system_family.as_deref())
        {
            if os.to_ascii_uppercase().starts_with("WINDOWS") {
                ev.push(format!("runtimePlatform.operatingSystemFamily: {os}"));
                return fail(
                    id,
                    ev,
                    "the task is a Windows task, and ECS supports GPUs only for Linux containers"
                        .to_string(),
                    "use a Linux image and `operatingSystemFamily: LINUX`".to_string(),
                );
            }
        }
        let compat = if td.requires_compatibilities.is_empty() {
            td.compatibilities.join(", ")
        } else {
            td.requires_compatibilities.join(", ")
        };
        if !compat.is_empty() {
            ev.push(format!("compatible with {compat}"));
        }
        if let Some(m) = &td.network_mode {
            ev.push(format!("network mode {m}"));
        }
        ev.push(format!("one task needs {}", need.describe()));
        self.need = Some(need);
        pass(id, ev)
    }

    // ------------------------------------------------------------ 2. capacity

    fn capacity(&mut self) -> Step {
        let id = StepId::Capacity;
        let Some(all) = self.instances() else {
            let mut ev = vec![self.missing(Call::DescribeContainerInstances)];
            ev.extend(self.asg_evidence().0);
            return unknown(id, ev);
        };
        let strategy: Vec<&str> = self
            .service
            .map(|s| {
                s.capacity_provider_strategy
                    .iter()
                    .map(|c| c.capacity_provider.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let mut ev = Vec::new();
        let mut left_out = Vec::new();
        for i in all {
            let status = i.status.as_deref().unwrap_or("ACTIVE");
            if status != "ACTIVE" {
                left_out.push(format!("{}: status {status}", i.label_with_type()));
            } else if !i.agent_connected {
                left_out.push(format!(
                    "{}: ACTIVE but its agent is disconnected",
                    i.label_with_type()
                ));
            } else if let Some(cp) = i
                .capacity_provider_name
                .as_deref()
                .filter(|cp| !strategy.is_empty() && !strategy.contains(cp))
            {
                left_out.push(format!(
                    "{}: in capacity provider `{cp}`, not in the service's strategy ({})",
                    i.label_with_type(),
                    strategy.join(", ")
                ));
            } else {
                self.candidates.push(i);
            }
        }
        if !self.candidates.is_empty() {
            ev.push(format!(
                "ACTIVE with a connected agent: {} of {}: {}",
                self.candidates.len(),
                plural(all.len(), "container instance", "container instances"),
                labels(&self.candidates)
            ));
            ev.extend(left_out.into_iter().take(LIST_MAX));
            return pass(id, ev);
        }
        if all.is_empty() {
            ev.push("no container instance is registered in the cluster".to_string());
        } else {
            ev.push(format!(
                "no container instance can take tasks ({} registered)",
                all.len()
            ));
            ev.extend(left_out.iter().take(LIST_MAX).cloned());
        }
        if let Some(e) = self.event(&["no container instances were found"]) {
            ev.push(e);
        }
        let (asg_ev, activity_cause, group_cause) = self.asg_evidence();
        ev.extend(asg_ev);
        let disconnected = all
            .iter()
            .any(|i| i.status.as_deref().unwrap_or("ACTIVE") == "ACTIVE" && !i.agent_connected);
        // A failed launch explains everything; a group that launched instances that never joined only
        // matters when no instance joined at all.
        let cause = activity_cause.or(match group_cause {
            Some((c, joined)) if !joined || all.is_empty() => Some(c),
            _ => None,
        });
        let (message, fix) = match cause {
            Some(c) => c,
            None if disconnected => (
                "the container instances are registered, but their ECS agents are disconnected".to_string(),
                "on the instance, check the agent (`systemctl status ecs`, /var/log/ecs/ecs-agent.log) and that it can reach the ECS endpoint (a NAT gateway or VPC endpoints for ecs, ecs-agent and ecs-telemetry)".to_string(),
            ),
            None if !all.is_empty() && !left_out.iter().any(|l| l.contains("status")) => (
                "no container instance is in the capacity providers of the service's strategy".to_string(),
                "put the service on the capacity provider whose Auto Scaling group launches the GPU instances".to_string(),
            ),
            None if !all.is_empty() => (
                "no container instance is ACTIVE".to_string(),
                "start new GPU instances for the cluster; DRAINING instances take no new tasks (set them ACTIVE with `aws ecs update-container-instances-state` if that was a mistake)".to_string(),
            ),
            None => (
                "no container instance is registered in the cluster, so there is nowhere to place the task".to_string(),
                format!(
                    "start GPU instances that join this cluster (`{}=<cluster>` in /etc/ecs/ecs.config; without it they join `{}`); to see why an Auto Scaling group starts none, add describe-auto-scaling-groups.json and describe-scaling-activities.json",
                    catalog().agent.cluster_variable,
                    catalog().agent.cluster_default
                ),
            ),
        };
        fail(id, ev, message, fix)
    }

    /// Evidence from the Auto Scaling groups and their scaling activities, and the cause when it is
    /// clear (stock-out, vCPU quota, launch template, nothing wanted, instances that never joined).
    #[allow(clippy::type_complexity)]
    fn asg_evidence(
        &self,
    ) -> (
        Vec<String>,
        Option<(String, String)>,
        Option<((String, String), bool)>,
    ) {
        let mut ev = Vec::new();
        let mut cause = None;
        let Some(groups) = &self.inputs.auto_scaling_groups else {
            if self.inputs.error(Call::DescribeAutoScalingGroups).is_some() {
                ev.push(self.missing(Call::DescribeAutoScalingGroups));
            }
            return (ev, None, None);
        };
        // The groups behind the service's capacity providers, when that link is known.
        let strategy: Vec<&str> = self
            .service
            .map(|s| {
                s.capacity_provider_strategy
                    .iter()
                    .map(|c| c.capacity_provider.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let linked: Vec<&str> = self
            .inputs
            .capacity_providers
            .iter()
            .flat_map(|c| &c.capacity_providers)
            .filter(|cp| strategy.is_empty() || strategy.contains(&cp.name.as_str()))
            .filter_map(|cp| cp.auto_scaling_group_provider.as_ref())
            .map(|p| p.auto_scaling_group_arn.as_str())
            .collect();
        let relevant: Vec<_> = groups
            .auto_scaling_groups
            .iter()
            .filter(|g| {
                linked.is_empty()
                    || linked.iter().any(|l| {
                        Some(*l) == g.auto_scaling_group_arn.as_deref()
                            || *l == g.auto_scaling_group_name
                            || l.ends_with(&format!(
                                "autoScalingGroupName/{}",
                                g.auto_scaling_group_name
                            ))
                    })
            })
            .collect();
        for g in &relevant {
            let in_service = g
                .instances
                .iter()
                .filter(|i| i.lifecycle_state.as_deref() == Some("InService"))
                .count();
            ev.push(format!(
                "Auto Scaling group `{}`: desired {}, min {}, max {}, {} in service",
                g.auto_scaling_group_name,
                g.desired_capacity,
                g.min_size,
                g.max_size,
                plural(in_service, "instance", "instances")
            ));
        }
        let activities: Vec<_> = self
            .inputs
            .scaling_activities
            .iter()
            .flat_map(|a| &a.activities)
            .filter(|a| {
                relevant.is_empty()
                    || relevant
                        .iter()
                        .any(|g| g.auto_scaling_group_name == a.auto_scaling_group_name)
            })
            .collect();
        if self.inputs.scaling_activities.is_none() {
            ev.push(self.missing(Call::DescribeScalingActivities));
        }
        // The AWS CLI lists the newest activity first.
        for a in activities.iter().filter(|a| {
            !matches!(
                a.status_code.as_deref(),
                Some("Successful" | "InProgress" | "PreInService" | "WaitingForSpotInstanceId")
            )
        }) {
            let text = [
                a.status_message.as_deref(),
                a.description.as_deref(),
                a.cause.as_deref(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
            let when = a
                .start_time
                .as_ref()
                .map(|t| format!(" at {t}"))
                .unwrap_or_default();
            ev.push(format!(
                "scaling activity {}{when}: {}",
                a.status_code.as_deref().unwrap_or("?"),
                a.status_message
                    .as_deref()
                    .or(a.description.as_deref())
                    .unwrap_or("")
            ));
            if cause.is_none() {
                cause = classify_activity(&text, &a.auto_scaling_group_name);
            }
            if ev.len() > 2 * LIST_MAX {
                break;
            }
        }
        let mut group_cause = None;
        {
            for g in &relevant {
                let in_service = g
                    .instances
                    .iter()
                    .filter(|i| i.lifecycle_state.as_deref() == Some("InService"))
                    .count();
                if g.max_size == 0 {
                    group_cause = Some(((
                        format!("the Auto Scaling group `{}` has max size 0, so it can never launch an instance", g.auto_scaling_group_name),
                        "raise its max size (and let the capacity provider's managed scaling set the desired capacity)".to_string(),
                    ), false));
                } else if g.desired_capacity == 0 {
                    group_cause = Some(((
                        format!("the Auto Scaling group `{}` wants no instances (desired capacity 0)", g.auto_scaling_group_name),
                        "raise its desired capacity, or turn on managed scaling in the capacity provider and put the service on that capacity provider so ECS scales it out".to_string(),
                    ), false));
                } else if in_service > 0 {
                    group_cause = Some(((
                        format!("the Auto Scaling group `{}` has {} in service, but none joined the cluster", g.auto_scaling_group_name, plural(in_service, "instance", "instances")),
                        format!(
                            "check the user data writes `{}=<cluster>` to /etc/ecs/ecs.config (without it the agent joins `{}`), that the instance role has the AmazonEC2ContainerServiceforEC2Role policy, and that the instances reach the ECS endpoint",
                            catalog().agent.cluster_variable,
                            catalog().agent.cluster_default
                        ),
                    ), true));
                }
                if group_cause.is_some() {
                    break;
                }
            }
        }
        (ev, cause, group_cause)
    }

    // ------------------------------------------------------------ 3. gpu-registration

    fn gpu_registration(&mut self) -> Step {
        let id = StepId::GpuRegistration;
        if self.instances().is_none() {
            return unknown(id, vec![self.missing(Call::DescribeContainerInstances)]);
        }
        if self.candidates.is_empty() {
            return unknown(
                id,
                vec![
                    "no ACTIVE instance with a connected agent to look at (see capacity)"
                        .to_string(),
                ],
            );
        }
        let driver_attr = driver_attribute();
        let gpu = catalog().gpu_requirement.type_.as_str();
        let mut ev = Vec::new();
        let mut lines = Vec::new();
        let mut no_gpu_type = Vec::new();
        for i in &self.candidates {
            let registered = i.registered(gpu).map_or(0, |r| r.amount());
            let itype = i.attribute("ecs.instance-type").unwrap_or("");
            let expected = match catalog().lookup(itype) {
                Lookup::Known(t) => match t.gpus {
                    Gpus::Whole(n) => {
                        Some(format!("{itype} has {}", plural(n as usize, "GPU", "GPUs")))
                    }
                    Gpus::Fraction(f) => Some(format!("{itype} has a {f} GPU partition")),
                    Gpus::Unknown => None,
                },
                Lookup::NoGpu => {
                    no_gpu_type.push(*i);
                    Some(format!("{itype} has no GPU"))
                }
                Lookup::Unknown { .. } => None,
            };
            let driver = i
                .attribute(&driver_attr)
                .map(|v| format!("`{driver_attr}` = {v}"))
                .unwrap_or_else(|| format!("no `{driver_attr}` attribute"));
            let ami = i
                .attribute("ecs.ami-id")
                .map(|a| format!("AMI {a}"))
                .unwrap_or_else(|| "AMI unknown".to_string());
            if registered > 0 {
                self.gpu_instances.push(i);
                let mut line = format!(
                    "{} registered",
                    plural(usize::try_from(registered).unwrap_or(0), "GPU", "GPUs")
                );
                if let Some(e) = &expected {
                    line.push_str(&format!(" ({e})"));
                }
                line.push_str(&format!(", {driver}"));
                lines.push((*i, line));
            } else {
                let mut line = "no GPU registered".to_string();
                if let Some(e) = &expected {
                    line.push_str(&format!(" ({e})"));
                }
                line.push_str(&format!("; {driver}; {ami}"));
                lines.push((*i, line));
            }
        }
        ev.extend(grouped(lines));
        if !self.gpu_instances.is_empty() {
            return pass(id, ev);
        }
        let agent = &catalog().agent;
        let ami = &catalog().ami;
        if no_gpu_type.len() == self.candidates.len() {
            let mut types: Vec<&str> = no_gpu_type
                .iter()
                .filter_map(|i| i.attribute("ecs.instance-type"))
                .collect();
            types.sort_unstable();
            types.dedup();
            return fail(
                id,
                ev,
                format!(
                    "the cluster's instances have no GPU: {}",
                    types.join(", ")
                ),
                "launch a GPU instance type (`ecs-gpu types --supported` lists them) with the ECS GPU-optimized AMI in the launch template or capacity provider".to_string(),
            );
        }
        fail(
            id,
            ev,
            format!(
                "the instances register no GPU with ECS: either the AMI is not the ECS GPU-optimized AMI, or `{}` is off (the agent's default is `{}`); the two look the same from ECS",
                agent.gpu_support_variable, agent.gpu_support_default
            ),
            format!(
                "tell them apart by the AMI: `aws ec2 describe-images --image-ids <ecs.ami-id> --query 'Images[0].Name'`; a GPU AMI's name starts with {} (the current one is `aws ssm get-parameters --names {}`). Not a GPU AMI: put the GPU AMI in the launch template. A GPU AMI: GPU support was turned off, so remove `{}=false` from the user data that writes /etc/ecs/ecs.config. An agent running with GPU support reports the `{}` attribute",
                ami.gpu_ami_name_prefixes
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                ami.recommended_parameter,
                agent.gpu_support_variable,
                driver_attribute()
            ),
        )
    }

    // ------------------------------------------------------------ 4. gpus-available

    fn gpus_available(&mut self) -> Step {
        let id = StepId::GpusAvailable;
        let Some(need) = self.need else {
            return unknown(
                id,
                vec!["the GPUs one task needs are not known (see task-definition)".to_string()],
            );
        };
        if self.instances().is_none() {
            return unknown(id, vec![self.missing(Call::DescribeContainerInstances)]);
        }
        if self.gpu_instances.is_empty() {
            return unknown(
                id,
                vec!["no instance registers GPUs (see gpu-registration)".to_string()],
            );
        }
        let gpu = catalog().gpu_requirement.type_.as_str();
        let mut ev = Vec::new();
        let mut lines = Vec::new();
        let mut largest: Option<&ContainerInstance> = None;
        let mut largest_n = 0;
        let mut wrong_kind = Vec::new();
        for i in &self.gpu_instances {
            let registered = i.registered(gpu).map_or(0, |r| r.amount());
            // Whole GPUs place only on full-GPU types, a fraction only on the g6f/gr6f size with that
            // partition (catalog gpu_requirement rules; source keys ECS-GPU-SPEC, BOTO).
            let itype = i.attribute("ecs.instance-type").unwrap_or("");
            if let Lookup::Known(t) = catalog().lookup(itype) {
                let fits_kind = match need {
                    GpuNeed::Fraction(f) => t.gpus == Gpus::Fraction(f),
                    GpuNeed::Whole(_) | GpuNeed::All => t.gpus.fraction().is_none(),
                };
                if !fits_kind {
                    let offers = match t.gpus {
                        Gpus::Fraction(f) => format!("a {f} GPU partition"),
                        _ => "whole GPUs".to_string(),
                    };
                    lines.push((*i, format!("offers {offers}, not {}", need.describe())));
                    wrong_kind.push(*i);
                    continue;
                }
            }
            let Some(free) = i.remaining(gpu).map(|r| r.amount()) else {
                ev.push(format!(
                    "{}: remaining GPUs not reported",
                    i.label_with_type()
                ));
                continue;
            };
            if registered > largest_n {
                largest_n = registered;
                largest = Some(i);
            }
            lines.push((
                *i,
                format!(
                    "{free} of {registered} GPUs free, {} running",
                    plural(
                        usize::try_from(i.running_tasks_count).unwrap_or(0),
                        "task",
                        "tasks"
                    )
                ),
            ));
            if need.fits(registered, free) {
                self.free_gpu_instances.push(i);
            }
        }
        ev.extend(grouped(lines));
        ev.push(format!("one task needs {}", need.describe()));
        if !self.free_gpu_instances.is_empty() {
            ev.insert(
                0,
                format!("enough free GPUs on {}", labels(&self.free_gpu_instances)),
            );
            return pass(id, ev);
        }
        if let Some(e) = self.event(&["gpu"]) {
            ev.push(e);
        }
        if wrong_kind.len() == self.gpu_instances.len() {
            return fail(
                id,
                ev,
                format!(
                    "no instance offers the kind of GPU the task asks for ({}): ECS places whole GPUs only on full-GPU instance types and a fraction only on the g6f/gr6f size with that partition",
                    need.describe()
                ),
                "match the GPU value to the instance type (`ecs-gpu types g6f.large` shows a type's GPU value), or launch the instance type the value is for".to_string(),
            );
        }
        if largest_n < need.at_least() {
            let itype = largest
                .and_then(|i| i.attribute("ecs.instance-type"))
                .unwrap_or("the largest instance");
            let bigger = bigger_type(itype, need.at_least());
            return fail(
                id,
                ev,
                format!(
                    "no instance has {} at all: the largest, {itype}, registers {largest_n}",
                    need.describe()
                ),
                match bigger {
                    Some(b) => format!("use an instance type with at least {} GPUs, such as {b}, or ask for fewer GPUs per task", need.at_least()),
                    None => format!("use an instance type with at least {} GPUs, or ask for fewer GPUs per task", need.at_least()),
                },
            );
        }
        let deploying = self.service.is_some_and(|s| s.deployments.len() > 1);
        let at_max: Vec<(&str, i64)> = self
            .inputs
            .auto_scaling_groups
            .iter()
            .flat_map(|g| &g.auto_scaling_groups)
            .filter(|g| g.max_size > 0 && g.desired_capacity >= g.max_size)
            .map(|g| (g.auto_scaling_group_name.as_str(), g.max_size))
            .collect();
        for (g, max) in &at_max {
            ev.push(format!(
                "Auto Scaling group `{g}` is at its max size ({max}), so it cannot add an instance"
            ));
        }
        let mut fix = match at_max.as_slice() {
            [] => "add GPU instances (raise the capacity provider's target capacity or the Auto Scaling group's desired capacity), stop tasks that hold GPUs, or use an instance type with more GPUs".to_string(),
            groups => format!(
                "raise the max size of Auto Scaling group {} so the capacity provider can add an instance, stop tasks that hold GPUs, or use an instance type with more GPUs",
                groups
                    .iter()
                    .map(|(g, max)| format!("`{g}` (now {max})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if deploying {
            fix.push_str("; during this deployment the old tasks hold the GPUs: lower the service's `minimumHealthyPercent` (or raise the max size) so ECS can stop one before it starts its replacement");
        }
        fail(
            id,
            ev,
            format!(
                "every GPU is taken: no instance has {} free; ECS pins whole GPUs to a task, so free CPU and memory on the instance do not help",
                need.describe()
            ),
            fix,
        )
    }

    // ------------------------------------------------------------ 5. placement-constraint

    fn placement_constraint(&mut self) -> Step {
        let id = StepId::PlacementConstraint;
        if self.task_def.is_none() {
            return unknown(id, vec![self.missing(Call::DescribeTaskDefinition)]);
        }
        let mut constraints: Vec<(&str, &PlacementConstraint)> = Vec::new();
        if let Some(s) = self.service {
            constraints.extend(s.placement_constraints.iter().map(|c| ("service", c)));
        }
        if let Some(td) = self.task_def {
            constraints.extend(
                td.placement_constraints
                    .iter()
                    .map(|c| ("task definition", c)),
            );
        }
        let mut ev = Vec::new();
        if self.service.is_none() {
            if let Some(e) = self.inputs.error(Call::DescribeServices) {
                ev.push(format!("service constraints not checked: {e}"));
            }
        }
        let distinct = constraints
            .iter()
            .any(|(_, c)| c.type_.as_deref() == Some("distinctInstance"));
        let mut exprs = Vec::new();
        for (from, c) in &constraints {
            if c.type_.as_deref() != Some("memberOf") {
                continue;
            }
            let text = c.expression.as_deref().unwrap_or("");
            match Expr::parse(text) {
                Ok(e) => exprs.push((*from, text, e)),
                Err(err) => {
                    ev.push(format!("{from} constraint `{text}`"));
                    return fail(
                        id,
                        ev,
                        format!("the {from}'s placement constraint `{text}` does not parse: {err}"),
                        "fix the expression; the cluster query language is `subject operator argument`, for example `attribute:ecs.instance-type == g5.xlarge`".to_string(),
                    );
                }
            }
        }
        if exprs.is_empty() && !distinct {
            ev.push("no placement constraint".to_string());
            self.placeable = Some(self.free_gpu_instances.clone());
            return pass(id, ev);
        }
        if self.instances().is_none() {
            ev.extend(
                exprs
                    .iter()
                    .map(|(from, t, _)| format!("{from} constraint `memberOf {t}`")),
            );
            ev.push(self.missing(Call::DescribeContainerInstances));
            return unknown(id, ev);
        }
        // The instances that matter: those with free GPUs; if none, those with GPUs; if none, all
        // candidates, so a typo still shows even while an earlier step fails.
        let pool: Vec<&ContainerInstance> = [
            &self.free_gpu_instances,
            &self.gpu_instances,
            &self.candidates,
        ]
        .into_iter()
        .find(|p| !p.is_empty())
        .cloned()
        .unwrap_or_default();
        if pool.is_empty() {
            ev.extend(
                exprs
                    .iter()
                    .map(|(from, t, _)| format!("{from} constraint `memberOf {t}`")),
            );
            ev.push("no instance to evaluate them against (see capacity)".to_string());
            return unknown(id, ev);
        }
        let group = self.task_group();
        let mut ok: Vec<&ContainerInstance> = pool.clone();
        let mut first_blocking: Option<(&str, &str, &Expr)> = None;
        for (from, text, e) in &exprs {
            let matching: Vec<&ContainerInstance> = pool
                .iter()
                .copied()
                .filter(|i| {
                    e.eval(&Context {
                        instance: i,
                        task_group: group.as_deref(),
                    })
                })
                .collect();
            ev.push(format!(
                "{from} constraint `memberOf {text}` matches {} of {}",
                matching.len(),
                plural(pool.len(), "instance", "instances")
            ));
            ok.retain(|i| matching.iter().any(|m| std::ptr::eq(*m, *i)));
            if matching.is_empty() && first_blocking.is_none() {
                first_blocking = Some((from, text, e));
            }
        }
        if distinct {
            match &self.inputs.tasks {
                Some(t) => {
                    let busy: Vec<&str> = self
                        .group_tasks(&t.tasks)
                        .filter(|t| t.last_status.as_deref() == Some("RUNNING"))
                        .filter_map(|t| t.container_instance_arn.as_deref())
                        .collect();
                    ok.retain(|i| {
                        !i.container_instance_arn
                            .as_deref()
                            .is_some_and(|a| busy.contains(&a))
                    });
                    ev.push(format!(
                        "distinctInstance: {} already run a task of this group",
                        plural(busy.len(), "instance", "instances")
                    ));
                }
                None => ev.push(format!(
                    "distinctInstance not checked: {}",
                    self.missing(Call::DescribeTasks)
                )),
            }
        }
        if !ok.is_empty() {
            ev.push(format!("every constraint holds on {}", labels(&ok)));
            self.placeable = Some(ok);
            return pass(id, ev);
        }
        if let Some(e) = self.event(&["attribute", "constraint"]) {
            ev.push(e);
        }
        let Some((from, text, e)) = first_blocking else {
            let message = if distinct {
                "every instance that could take the task already runs one of its group, and `distinctInstance` allows one per instance".to_string()
            } else {
                "no instance satisfies all the placement constraints together".to_string()
            };
            self.placeable = Some(Vec::new());
            return fail(
                id,
                ev,
                message,
                "add instances, or loosen the constraints so one instance satisfies them all"
                    .to_string(),
            );
        };
        let hints = typo_hints(e, &pool, group.as_deref());
        ev.extend(hints.iter().map(|(h, _)| h.clone()));
        self.placeable = Some(Vec::new());
        let mut fix = format!("correct the {from}'s `placementConstraints` expression");
        if let Some(s) = hints.iter().find_map(|(_, s)| s.as_deref()) {
            fix.push_str(&format!(" (did you mean {s}?)"));
        }
        fix.push_str(if from == "service" {
            " with `aws ecs update-service --placement-constraints`; until then ECS leaves the task PENDING with no GPU-specific error"
        } else {
            " in a new task definition revision; until then ECS leaves the task PENDING with no GPU-specific error"
        });
        fail(
            id,
            ev,
            format!(
                "no instance with a free GPU satisfies the {from}'s placement constraint `{text}`"
            ),
            fix,
        )
    }

    fn group_tasks<'t>(&self, tasks: &'t [Task]) -> impl Iterator<Item = &'t Task> {
        let group = self.task_group();
        tasks
            .iter()
            .filter(move |t| group.is_none() || t.group == group)
    }

    // ------------------------------------------------------------ 6. cpu-memory

    fn cpu_memory(&mut self) -> Step {
        let id = StepId::CpuMemory;
        let Some(td) = self.task_def else {
            return unknown(id, vec![self.missing(Call::DescribeTaskDefinition)]);
        };
        if self.instances().is_none() {
            return unknown(id, vec![self.missing(Call::DescribeContainerInstances)]);
        }
        let pool: Vec<&ContainerInstance> = match &self.placeable {
            Some(p) if !p.is_empty() => p.clone(),
            _ => self.free_gpu_instances.clone(),
        };
        if pool.is_empty() {
            return unknown(
                id,
                vec![
                    "no instance with enough free GPUs to check (see the steps above)".to_string(),
                ],
            );
        }
        let (cpu, memory) = task_size(td);
        let mut ev = vec![format!(
            "one task needs {cpu} CPU units and {memory} MiB of memory"
        )];
        let mut fits = Vec::new();
        let mut lines = Vec::new();
        let mut never = true;
        for i in &pool {
            let free_cpu = i.remaining("CPU").map_or(0, |r| r.amount());
            let free_mem = i.remaining("MEMORY").map_or(0, |r| r.amount());
            let reg_cpu = i.registered("CPU").map_or(0, |r| r.amount());
            let reg_mem = i.registered("MEMORY").map_or(0, |r| r.amount());
            if reg_cpu >= cpu && reg_mem >= memory {
                never = false;
            }
            lines.push((
                *i,
                format!("{free_cpu} of {reg_cpu} CPU units and {free_mem} of {reg_mem} MiB free"),
            ));
            if free_cpu >= cpu && free_mem >= memory {
                fits.push(*i);
            }
        }
        ev.extend(grouped(lines));
        let awsvpc = td.network_mode.as_deref() == Some("awsvpc");
        let eni_event = if awsvpc {
            self.event(&["resource:eni", " eni"])
        } else {
            None
        };
        if !fits.is_empty() {
            if let Some(e) = eni_event {
                ev.push(e);
                return fail(
                    id,
                    ev,
                    "the instances have no free network interface (ENI) for another awsvpc task".to_string(),
                    "turn on ENI trunking (`aws ecs put-account-setting --name awsvpcTrunking --value enabled`, then replace the instances), use an instance type with more ENIs, or use the `bridge` or `host` network mode".to_string(),
                );
            }
            if awsvpc {
                ev.push("network mode awsvpc: each task takes an ENI; the ECS API does not show free ENIs, and no service event reports a shortage".to_string());
            }
            ev.insert(
                1,
                format!("enough free GPUs, CPU and memory on {}", labels(&fits)),
            );
            return pass(id, ev);
        }
        if let Some(e) = self.event(&["cpu", "memory"]) {
            ev.push(e);
        }
        if never {
            // The largest registered figures: what the agent reports, below the EC2 memory.
            let biggest = pool
                .iter()
                .max_by_key(|i| i.registered("MEMORY").map_or(0, |r| r.amount()))
                .copied();
            let (reg_cpu, reg_mem, who) = biggest.map_or((0, 0, String::new()), |i| {
                (
                    i.registered("CPU").map_or(0, |r| r.amount()),
                    i.registered("MEMORY").map_or(0, |r| r.amount()),
                    i.label_with_type(),
                )
            });
            return fail(
                id,
                ev,
                format!("the task asks for {cpu} CPU units and {memory} MiB, more than any instance with free GPUs registers at all ({who} registers {reg_cpu} CPU units and {reg_mem} MiB)"),
                format!("lower the task's `cpu` to at most {reg_cpu} and `memory` to at most {reg_mem} MiB (the agent registers less memory than the instance type's EC2 memory), or use a larger instance type"),
            );
        }
        fail(
            id,
            ev,
            "the instances with free GPUs lack the free CPU or memory for the task: other tasks hold it".to_string(),
            "lower the task's `cpu` or `memory`, move CPU-only tasks off the GPU instances (a placement constraint or a separate capacity provider), or add instances".to_string(),
        )
    }

    // ------------------------------------------------------------ verdict

    fn verdict(&self, steps: &[Step]) -> Verdict {
        if let Some(s) = steps.iter().find(|s| s.status == Status::Fail) {
            return Verdict {
                step: s.id.as_str().to_string(),
                status: Status::Fail,
                message: s.message.clone().unwrap_or_default(),
                fix: s.fix.clone(),
            };
        }
        let unknown: Vec<&str> = steps
            .iter()
            .filter(|s| s.status == Status::Unknown)
            .map(|s| s.id.as_str())
            .collect();
        if let Some(s) = self.service {
            if s.running_count >= s.desired_count {
                return Verdict {
                    step: "healthy".to_string(),
                    status: Status::Pass,
                    message: format!(
                        "service `{}` runs {} of {} desired tasks and no step fails",
                        s.service_name, s.running_count, s.desired_count
                    ),
                    fix: None,
                };
            }
            let stopped = self
                .inputs
                .tasks
                .as_ref()
                .and_then(|t| {
                    self.group_tasks(&t.tasks)
                        .find(|t| t.last_status.as_deref() == Some("STOPPED"))
                })
                .and_then(|t| {
                    t.stopped_reason
                        .clone()
                        .or_else(|| t.containers.iter().find_map(|c| c.reason.clone()))
                });
            let mut message = format!(
                "no step fails, yet service `{}` runs {} of {} desired tasks",
                s.service_name, s.running_count, s.desired_count
            );
            let fix = if let Some(r) = stopped {
                message.push_str(&format!("; a task was placed and stopped: {r}"));
                Some(
                    "the tasks are placed but stop: read the stopped reason and the container logs"
                        .to_string(),
                )
            } else if !unknown.is_empty() {
                Some(format!(
                    "give the inputs of the unknown steps ({})",
                    unknown.join(", ")
                ))
            } else {
                Some("tasks may still be starting: run the diagnosis again in a minute".to_string())
            };
            return Verdict {
                step: "unknown".to_string(),
                status: Status::Unknown,
                message,
                fix,
            };
        }
        if unknown.is_empty() {
            return Verdict {
                step: "healthy".to_string(),
                status: Status::Pass,
                message: "a task of this task definition can be placed now: no step fails"
                    .to_string(),
                fix: None,
            };
        }
        Verdict {
            step: "unknown".to_string(),
            status: Status::Unknown,
            message: format!(
                "no step fails, but {} could not be checked",
                unknown.join(", ")
            ),
            fix: Some(format!(
                "give the inputs of the unknown steps ({})",
                unknown.join(", ")
            )),
        }
    }
}

/// Task CPU units and memory MiB: the task-level values if set, else the sums over containers
/// (memory: each container's `memoryReservation`, else its `memory`; source key ECS-MEM).
pub fn task_size(td: &TaskDefinition) -> (i64, i64) {
    let cpu = td
        .cpu
        .as_deref()
        .and_then(|c| parse_size(c, "vcpu"))
        .unwrap_or_else(|| {
            td.container_definitions
                .iter()
                .map(|c| c.cpu.unwrap_or(0))
                .sum()
        });
    let memory = td
        .memory
        .as_deref()
        .and_then(|m| parse_size(m, "gb"))
        .unwrap_or_else(|| {
            td.container_definitions
                .iter()
                .map(|c| c.memory_reservation.or(c.memory).unwrap_or(0))
                .sum()
        });
    (cpu, memory)
}

/// `"4096"` → 4096; `"4 vCPU"` / `"16 GB"` → × 1024.
fn parse_size(s: &str, unit: &str) -> Option<i64> {
    let t = s.trim();
    if let Ok(n) = t.parse::<i64>() {
        return Some(n);
    }
    let lower = t.to_ascii_lowercase();
    let number = lower.strip_suffix(unit)?.trim();
    let x: f64 = number.parse().ok()?;
    // Sizes are small whole numbers of units; the product is far inside i64.
    #[allow(clippy::cast_possible_truncation)]
    Some((x * 1024.0).round() as i64)
}

/// The smallest supported instance type of the same family with at least `n` GPUs.
fn bigger_type(itype: &str, n: i64) -> Option<String> {
    let family = ecs_gpu_catalog::family_of(itype);
    catalog()
        .instance_types()
        .iter()
        .filter(|t| t.family == family && t.is_supported())
        .filter(|t| t.gpus.whole().is_some_and(|g| i64::from(g) >= n))
        .min_by_key(|t| (t.gpus.whole(), t.vcpus))
        .map(|t| t.name.clone())
}

/// For each attribute comparison that matches no instance, what the instances have instead, with a
/// "did you mean" when a value or attribute name is one typo away.
fn typo_hints(
    e: &Expr,
    pool: &[&ContainerInstance],
    group: Option<&str>,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for c in e.comparisons() {
        let matches_any = pool.iter().any(|i| {
            c.eval(&Context {
                instance: i,
                task_group: group,
            })
        });
        if matches_any {
            continue;
        }
        let Subject::Attribute(name) = &c.subject else {
            let seen: Vec<String> = pool
                .iter()
                .filter_map(|i| {
                    c.value(&Context {
                        instance: i,
                        task_group: group,
                    })
                })
                .collect();
            out.push((
                format!(
                    "`{c}` holds on no instance; {} is {}",
                    c.subject,
                    join_seen(&seen)
                ),
                None,
            ));
            continue;
        };
        let mut values: Vec<&str> = pool.iter().filter_map(|i| i.attribute(name)).collect();
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            let mut names: Vec<&str> = pool
                .iter()
                .flat_map(|i| i.attributes.iter().map(|a| a.name.as_str()))
                .collect();
            names.sort_unstable();
            names.dedup();
            match nearest(name, &names) {
                Some(n) if !matches!(c.op, Op::NotExists) => out.push((
                    format!("no instance has the attribute `{name}`: did you mean `{n}`?"),
                    Some(format!("`attribute:{n}` for `attribute:{name}`")),
                )),
                _ => out.push((format!("no instance has the attribute `{name}`"), None)),
            }
            continue;
        }
        let shown: Vec<String> = values
            .iter()
            .take(LIST_MAX)
            .map(|v| format!("`{v}`"))
            .collect();
        let mut line = format!(
            "`{c}` holds on no instance; their `{name}` is {}",
            shown.join(", ")
        );
        let mut suggestion = None;
        if matches!(c.op, Op::Eq | Op::In) {
            if let Some((a, n)) = c
                .args
                .iter()
                .find_map(|a| nearest(a, &values).map(|n| (a, n)))
            {
                line.push_str(&format!(": did you mean `{n}` for `{a}`?"));
                suggestion = Some(format!("`{n}` for `{a}`"));
            }
        }
        out.push((line, suggestion));
    }
    out
}

fn join_seen(seen: &[String]) -> String {
    let mut v: Vec<&str> = seen.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        "not reported".to_string()
    } else {
        v.iter()
            .take(LIST_MAX)
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The closest of `options` to `s` when it is close enough to be a typo (and not `s` itself).
fn nearest<'o>(s: &str, options: &[&'o str]) -> Option<&'o str> {
    options
        .iter()
        .filter(|o| **o != s)
        .map(|o| (strsim::jaro_winkler(s, o), *o))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, o)| o)
}

/// The cause a failed scaling activity names, with its fix: a stock-out, a vCPU quota, or a launch
/// template error. `None` for anything else (its message is still evidence).
fn classify_activity(text: &str, group: &str) -> Option<(String, String)> {
    let t = text.to_ascii_lowercase();
    if t.contains("insufficientinstancecapacity")
        || (t.contains("sufficient") && t.contains("capacity") && !t.contains("vcpu"))
    {
        return Some((
            format!("EC2 has no capacity for the GPU instance type in the Availability Zone (a stock-out): the Auto Scaling group `{group}` cannot launch instances"),
            "let the group use more Availability Zones (subnets) and more GPU instance types (a mixed instances policy), or reserve the capacity with an On-Demand Capacity Reservation or EC2 Capacity Blocks for ML".to_string(),
        ));
    }
    if t.contains("vcpulimitexceeded") || (t.contains("vcpu") && t.contains("limit")) {
        return Some((
            format!("the account's vCPU quota for this instance family is used up: the Auto Scaling group `{group}` cannot launch instances"),
            "request a higher quota in Service Quotas: \"Running On-Demand G and VT instances\" for g types, \"Running On-Demand P instances\" for p types (Spot has its own quotas); the quota counts vCPUs, not instances".to_string(),
        ));
    }
    if t.contains("launch template")
        || t.contains("launchtemplate")
        || t.contains("image id")
        || t.contains("invalidami")
        || t.contains("iaminstanceprofile")
        || t.contains("instance profile")
    {
        return Some((
            format!("the Auto Scaling group `{group}` cannot launch instances from its launch template"),
            "fix the launch template the group uses (the version it points at, its AMI ID, instance profile, security groups and subnets) as the scaling activity's message says, then let the group launch again".to_string(),
        ));
    }
    None
}
