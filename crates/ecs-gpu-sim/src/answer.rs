//! What the model answers for one event: whether it completes, the peak it needs against the
//! group's maximum, the time line, the GPUs left stranded and the cost per hour.

use serde::Serialize;

use crate::facts::RuleId;
use crate::scenario::{Known, TaskShape};

/// Something that happens to the capacity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Event {
    /// The service deploys a new revision: of the same size, or of `task` when the revision
    /// changes what a task reserves.
    Deploy {
        service: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        task: Option<TaskShape>,
    },
    /// The service's desired count becomes `to`.
    Scale { service: String, to: u32 },
    /// The group replaces every instance (a new launch template version, a new AMI).
    Refresh { group: String },
}

impl Event {
    /// "deploy `train`", "scale `train` to 8", "refresh `gpu`".
    pub fn title(&self) -> String {
        match self {
            Event::Deploy { service, .. } => format!("deploy `{service}`"),
            Event::Scale { service, to } => format!("scale `{service}` to {to}"),
            Event::Refresh { group } => format!("refresh `{group}`"),
        }
    }
}

/// Whether the event completes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Verdict {
    /// It completes. `assumptions` are the conditions it needs that the inputs cannot show (the
    /// memory an instance registers).
    Completes { assumptions: Vec<String> },
    /// It never completes, for a reason other than the group's maximum.
    Stuck { reason: String },
    /// It never completes: it needs more instances than the group's `max_size`.
    OverMax { reason: String },
    /// Not known, with the input that is missing.
    Unknown { reason: String },
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Completes { .. } => "completes",
            Verdict::Stuck { .. } => "stuck",
            Verdict::OverMax { .. } => "over-max",
            Verdict::Unknown { .. } => "unknown",
        }
    }

    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::Completes { .. } => None,
            Verdict::Stuck { reason }
            | Verdict::OverMax { reason }
            | Verdict::Unknown { reason } => Some(reason),
        }
    }
}

/// The answer for one event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer {
    pub event: Event,
    pub verdict: Verdict,
    /// Per group the event touches.
    pub groups: Vec<GroupPeak>,
    /// What launches, waits and stops, in order.
    pub timeline: Vec<Step>,
    /// After the event (or where it stops): free GPUs that no task of the group's services can use.
    pub stranded: Vec<Stranded>,
    /// Cost per hour, when prices are given for every instance type involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// What the answer does not model, where it could matter.
    pub notes: Vec<String>,
}

/// A group's use at the start and at the peak of the event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupPeak {
    pub group: String,
    /// The instance type it launches, when known.
    pub instance_type: Option<String>,
    /// Instances before the event (the steady state).
    pub instances_before: u32,
    /// The most instances at once (running and launching).
    pub peak_instances: u32,
    /// The most GPUs tasks reserve at once.
    pub peak_gpus_reserved: u32,
    /// The GPUs of the instances at the peak.
    pub peak_gpus: u32,
    /// GPUs the event would need at its peak to complete (tasks of every revision placed), when
    /// they could all be counted.
    pub gpus_needed: u32,
    pub max_instances: Known<u32>,
    /// `max_instances` × GPUs per instance.
    pub max_gpus: Option<u32>,
    /// Instances after the event.
    pub instances_after: u32,
}

/// One step of the time line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// Lowercase sentences: what launches, what waits, what stops.
    pub actions: Vec<String>,
    /// The rules of the model the step applies.
    pub rules: Vec<RuleId>,
}

/// Free GPUs no task can use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stranded {
    pub group: String,
    pub instance_type: String,
    pub instances: u32,
    /// Free GPUs on each of them.
    pub gpus_each: u32,
    /// Why no task can use them (the tasks need more GPUs, or the CPU or memory is taken).
    pub why: String,
}

/// Dollars per hour, as a range when the On-Demand share makes the split between On-Demand and
/// Spot instances uncertain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cost {
    pub steady: (f64, f64),
    pub peak: (f64, f64),
}

/// The answers for a scenario, and what could not be read from its inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub answers: Vec<Answer>,
}

impl Report {
    /// Whether an answer has this status.
    pub fn any(&self, status: &str) -> bool {
        self.answers.iter().any(|a| a.verdict.as_str() == status)
    }
}
