//! The steps: each link of the chain in order, with the evidence it used.

use ecs_gpu_catalog::{catalog, GpuValue, Gpus, Lookup};
use ecs_gpu_query::{
    eval_condition, whole_match_regex, Condition, Expression, Fact, Facts, Operator, Precedence,
    Subject, Truth,
};

use crate::api::{Call, ContainerInstance, PlacementConstraint, Service, Task, TaskDefinition};
use crate::report::{Report, Status, Step, StepId, Verdict};
use crate::Inputs;
use ecs_gpu_report::plural;
use facts::InstanceFacts;

mod capacity;
mod cpu_memory;
mod facts;
mod gpu_registration;
mod gpus_available;
mod placement_constraint;
mod task_definition;
mod verdict;

pub use cpu_memory::task_size;

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
    /// `describe-services` answered with no service and a failure: the name it was asked for does
    /// not exist in the cluster (a misspelt service), the same case live mode reports.
    #[error("service `{name}` not found in the cluster (DescribeServices: {reason})")]
    ServiceMissing { name: String, reason: String },
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        escape(&v.join(", "))
    }
}

/// An input value for a message that ends up on one line: the report crate's escaper.
fn escape(s: &str) -> String {
    ecs_gpu_report::escape_control(s).into_owned()
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

/// Runs the steps in order.
pub fn diagnose(inputs: &Inputs, target: &Target) -> Result<Report, DiagnoseError> {
    if inputs.is_empty() {
        return Err(DiagnoseError::NoInput);
    }
    let service = pick_service(inputs, target)?;
    let mut w = Diagnosis::new(inputs, service);
    let steps = vec![
        w.task_definition(),
        w.capacity(),
        w.gpu_registration(),
        w.gpus_available(),
        w.placement_constraint(),
        w.cpu_memory(),
    ];
    let verdict = w.verdict(&steps);
    Ok(Report { verdict, steps })
}

fn pick_service<'a>(
    inputs: &'a Inputs,
    target: &Target,
) -> Result<Option<&'a Service>, DiagnoseError> {
    let Some(out) = &inputs.services else {
        return Ok(None);
    };
    if out.services.is_empty() {
        if let Some(f) = out.failures.first() {
            let name = f
                .arn
                .as_deref()
                .map(|a| a.rsplit('/').next().unwrap_or(a).to_string())
                .or_else(|| target.service.clone())
                .unwrap_or_else(|| "?".to_string());
            return Err(DiagnoseError::ServiceMissing {
                name: escape(&name),
                reason: escape(f.reason.as_deref().unwrap_or("MISSING")),
            });
        }
    }
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
                name: escape(want),
                available: names,
            }),
        None => match out.services.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            _ => Err(DiagnoseError::AmbiguousService { available: names }),
        },
    }
}

struct Diagnosis<'a> {
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
    /// The service runs its desired count, nothing pending, its one deployment done: a step that
    /// finds no room for one more task finds a full cluster, not a fault.
    steady: bool,
    /// The service is steady and no instance has room for one more task (every GPU held).
    packed: bool,
    /// Notes for the verdict (headroom of a packed service).
    notes: Vec<String>,
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

/// Whether a service runs its desired count with nothing pending and its deployment done: a steady
/// or completed rollout (`COMPLETED`), or, when the input lists no deployment, a steady-state event
/// as the newest event.
fn is_steady(s: &Service) -> bool {
    let settled = match s.deployments.as_slice() {
        [] => s
            .events
            .first()
            .is_some_and(|e| e.message.contains("has reached a steady state")),
        [d] => matches!(d.rollout_state.as_deref(), None | Some("COMPLETED")),
        _ => false,
    };
    s.desired_count > 0 && s.running_count >= s.desired_count && s.pending_count == 0 && settled
}

/// The name of the agent's GPU driver attribute (catalog; a catalog test pins that it is there).
fn driver_attribute() -> String {
    catalog()
        .agent
        .gpu_driver_version_attribute()
        .unwrap_or_default()
        .to_string()
}

impl<'a> Diagnosis<'a> {
    fn new(inputs: &'a Inputs, service: Option<&'a Service>) -> Self {
        Diagnosis {
            inputs,
            service,
            task_def: inputs.task_definition.as_ref().map(|d| &d.task_definition),
            need: None,
            candidates: Vec::new(),
            gpu_instances: Vec::new(),
            free_gpu_instances: Vec::new(),
            placeable: None,
            steady: service.is_some_and(is_steady),
            packed: false,
            notes: Vec::new(),
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
            None => {
                if call == Call::DescribeContainerInstances {
                    if let Some(n) = self
                        .inputs
                        .container_instance_arns
                        .as_ref()
                        .map(|l| l.container_instance_arns.len())
                        .filter(|n| *n > 0)
                    {
                        return format!(
                            "`list-container-instances.json` lists {}, but no `describe-container-instances.json` describes them",
                            plural(n, "container instance", "container instances")
                        );
                    }
                    return "no DescribeContainerInstances output (`describe-container-instances.json`; for a cluster with no instance, `list-container-instances.json` says so)".to_string();
                }
                match call.file_name() {
                    Some(f) => format!("no {call} output (`{f}`)"),
                    None => format!("no {call} output"),
                }
            }
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
}
