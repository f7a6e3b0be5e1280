//! The result of a diagnosis, as data: the steps with their evidence, and the verdict.

use std::fmt;

use serde::Serialize;

/// The links of the chain, in the order they are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepId {
    TaskDefinition,
    Capacity,
    GpuRegistration,
    GpusAvailable,
    PlacementConstraint,
    CpuMemory,
}

impl StepId {
    pub const ALL: [StepId; 6] = [
        StepId::TaskDefinition,
        StepId::Capacity,
        StepId::GpuRegistration,
        StepId::GpusAvailable,
        StepId::PlacementConstraint,
        StepId::CpuMemory,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StepId::TaskDefinition => "task-definition",
            StepId::Capacity => "capacity",
            StepId::GpuRegistration => "gpu-registration",
            StepId::GpusAvailable => "gpus-available",
            StepId::PlacementConstraint => "placement-constraint",
            StepId::CpuMemory => "cpu-memory",
        }
    }

    /// What the step checks, in a few words, for the checklist.
    pub fn title(self) -> &'static str {
        match self {
            StepId::TaskDefinition => "the task definition asks for GPUs correctly",
            StepId::Capacity => "container instances are running and connected",
            StepId::GpuRegistration => "the instances register their GPUs with ECS",
            StepId::GpusAvailable => "an instance has enough free GPUs",
            StepId::PlacementConstraint => "an instance satisfies the placement constraints",
            StepId::CpuMemory => "that instance has the free CPU and memory",
        }
    }
}

impl fmt::Display for StepId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of the diagnosis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub id: StepId,
    pub status: Status,
    /// What the step looked at, one fact a line.
    pub evidence: Vec<String>,
    /// For a failing step: what is wrong, in plain words.
    #[serde(skip)]
    pub message: Option<String>,
    /// For a failing step: what to do about it.
    #[serde(skip)]
    pub fix: Option<String>,
}

/// The first failing step, `healthy`, or `unknown` when nothing fails but health is not shown either.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// A step ID, `healthy` or `unknown`.
    pub step: String,
    pub status: Status,
    pub message: String,
    pub fix: Option<String>,
    /// Worth knowing but not wrong: for a healthy, fully packed service, the room (or lack of it) for
    /// the next deployment or scale-out.
    pub notes: Vec<String>,
}

/// What the diagnosis means for the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The service runs its desired count (or the task can be placed) and no step fails.
    Healthy,
    /// A step fails: the verdict names it.
    Failing,
    /// Nothing fails, but the inputs do not show the service healthy.
    Inconclusive,
}

/// The whole diagnosis ([`crate::render`] writes it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub verdict: Verdict,
    pub steps: Vec<Step>,
}

impl Report {
    pub fn outcome(&self) -> Outcome {
        match (self.verdict.step.as_str(), self.verdict.status) {
            (_, Status::Fail) => Outcome::Failing,
            ("healthy", Status::Pass) => Outcome::Healthy,
            _ => Outcome::Inconclusive,
        }
    }

    pub fn step(&self, id: StepId) -> Option<&Step> {
        self.steps.iter().find(|s| s.id == id)
    }
}
