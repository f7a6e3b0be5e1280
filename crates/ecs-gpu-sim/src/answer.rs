//! What the model answers for one event: whether it completes, the peak it needs against the
//! group's maximum, the time line, the GPUs left stranded and the cost per hour.

use serde::Serialize;

use crate::facts::RuleId;
use crate::scenario::{Bound, Known, TaskShape};

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
    /// The service's desired count becomes `to` (hidden when a plan marks it sensitive: the
    /// answer is then unknown).
    Scale { service: String, to: Known<u32> },
    /// The group replaces every instance (a new launch template version, a new AMI).
    Refresh { group: String },
}

impl Event {
    /// "deploy `train`", "scale `train` to 8", "refresh `gpu`".
    pub fn title(&self) -> String {
        match self {
            Event::Deploy { service, .. } => format!("deploy `{service}`"),
            Event::Scale { service, to } => {
                format!("scale `{service}` to {}", to.shown(u32::to_string))
            }
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
    /// For a deployment: the GPUs its tasks need at once to finish, and the most they may reserve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployment: Option<DeploymentGpus>,
    /// Cost per hour, when prices are given for every instance type involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// What the answer does not model, where it could matter.
    pub notes: Vec<String>,
}

/// What a deployment's tasks reserve at once: the fewest to finish (a rolling deployment whose
/// minimum healthy percent keeps every old task needs one task more than the desired count;
/// blue/green, linear and canary both revisions at full size) and the most its maximum percent
/// lets it start. The same arithmetic as `check`'s GPU406 ([`crate::deployment_need`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeploymentGpus {
    pub desired: u32,
    pub deployment: crate::Deployment,
    /// Old and new tasks at once, and their GPUs, to finish.
    pub least_tasks: u32,
    pub least_gpus: u64,
    /// The most tasks at once the bounds allow, and their GPUs.
    pub most_tasks: u32,
    pub most_gpus: u64,
    /// GPUs the group's other tasks reserve meanwhile.
    pub other_gpus: u64,
}

/// A group's use at the start and at the peak of the event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupPeak {
    pub group: String,
    /// The instance type it launches, when known.
    pub instance_type: Option<String>,
    /// For a group with several instance types: which one every new instance is taken to be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assuming: Option<Bound>,
    /// Instances before the event (the steady state).
    pub instances_before: u32,
    /// The most instances at once (running and launching).
    pub peak_instances: u32,
    /// The most GPUs tasks reserve at once.
    pub peak_gpus_reserved: u32,
    /// The GPUs of the instances at the peak.
    pub peak_gpus: u32,
    /// The most GPUs the group's tasks ask for at once: those reserved and those of the tasks
    /// waiting in PROVISIONING.
    pub gpus_asked: u32,
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
    /// How many times in a row the step happens (a rolling deployment's batches, the scale-outs of
    /// a group that scales by its minimum step).
    #[serde(skip_serializing_if = "is_one")]
    pub times: u32,
}

fn is_one(n: &u32) -> bool {
    *n == 1
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

/// One answer from the two simulations of a scenario with a group of several instance types
/// (every new instance the smallest type, then the largest): the same verdict, with the figures of
/// both, or unknown with both outcomes.
pub(crate) fn merge_bounds(small: Answer, large: Answer) -> Answer {
    if !small.groups.iter().any(|g| g.assuming.is_some()) {
        return small;
    }
    let name = |a: &Answer| {
        a.groups
            .first()
            .and_then(|g| g.instance_type.clone())
            .unwrap_or_default()
    };
    let (s_type, l_type) = (name(&small), name(&large));
    let group = small
        .groups
        .first()
        .map(|g| g.group.clone())
        .unwrap_or_default();
    let mut out = small.clone();
    out.groups.extend(large.groups.iter().cloned());
    let same = small.verdict.as_str() == large.verdict.as_str();
    out.verdict = match (small.verdict, large.verdict) {
        (Verdict::Completes { assumptions: mut a }, Verdict::Completes { assumptions: b }) => {
            for x in b {
                if !a.contains(&x) {
                    a.push(x);
                }
            }
            Verdict::Completes { assumptions: a }
        }
        (a, b) if same => {
            let (ra, rb) = (
                a.reason().unwrap_or_default(),
                b.reason().unwrap_or_default(),
            );
            let reason = if ra == rb {
                ra.to_string()
            } else {
                format!("with only `{s_type}` launching, {ra}; with only `{l_type}`, {rb}")
            };
            match a {
                Verdict::Stuck { .. } => Verdict::Stuck { reason },
                Verdict::OverMax { .. } => Verdict::OverMax { reason },
                _ => Verdict::Unknown { reason },
            }
        }
        (a, b) => {
            let say = |v: &Verdict| match v {
                Verdict::Completes { .. } => "completes".to_string(),
                Verdict::Stuck { reason } => format!("is stuck ({reason})"),
                Verdict::OverMax { reason } => {
                    format!("needs more than `max_size` ({reason})")
                }
                Verdict::Unknown { reason } => format!("is unknown ({reason})"),
            };
            out.timeline.clear();
            out.stranded.clear();
            Verdict::Unknown {
                reason: format!(
                    "it depends on which instance type `{group}` launches, which its allocation strategy decides: with only `{s_type}` it {}; with only `{l_type}` it {}",
                    say(&a),
                    say(&b)
                ),
            }
        }
    };
    if same {
        for s in large.stranded {
            if !out.stranded.contains(&s) {
                out.stranded.push(s);
            }
        }
        out.notes.push(format!(
            "`{group}` launches several instance types and its allocation strategy picks among them: the figures are given for only `{s_type}` launching and for only `{l_type}`, the time line for `{s_type}`"
        ));
    }
    out.cost = match (small.cost, large.cost) {
        (Some(a), Some(b)) => Some(Cost {
            steady: (a.steady.0.min(b.steady.0), a.steady.1.max(b.steady.1)),
            peak: (a.peak.0.min(b.peak.0), a.peak.1.max(b.peak.1)),
        }),
        _ => None,
    };
    for n in large.notes {
        if !out.notes.contains(&n) {
            out.notes.push(format!("with only `{l_type}`: {n}"));
        }
    }
    out
}
