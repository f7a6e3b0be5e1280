//! The rules of the model, each with the AWS documentation it comes from. A step of a time line
//! names the rules it applies ([`RuleId`]), and `docs/simulate.md` lists them all from [`RULES`].
//!
//! Where the documentation is silent the model does not fill the gap: the answer says unknown.

use serde::Serialize;

/// One rule of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub id: RuleId,
    /// What the rule says, in one sentence.
    pub text: &'static str,
    /// Where it is written.
    pub source: &'static str,
}

/// The rules, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleId {
    WholeGpus,
    Resources,
    DistinctInstance,
    MemberOf,
    Strategy,
    RollingBounds,
    BlueGreen,
    LinearCanary,
    ManagedScalingStep,
    ManagedScalingSmallestType,
    ScaleFromZero,
    TargetCapacity,
    InstanceWarmup,
    GroupMax,
    RefreshHealthy,
    RefreshProtected,
    RefreshSkipMatching,
    Draining,
}

impl RuleId {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::WholeGpus => "whole-gpus",
            RuleId::Resources => "resources",
            RuleId::DistinctInstance => "distinct-instance",
            RuleId::MemberOf => "member-of",
            RuleId::Strategy => "strategy",
            RuleId::RollingBounds => "rolling-bounds",
            RuleId::BlueGreen => "blue-green",
            RuleId::LinearCanary => "linear-canary",
            RuleId::ManagedScalingStep => "managed-scaling-step",
            RuleId::ManagedScalingSmallestType => "managed-scaling-smallest-type",
            RuleId::ScaleFromZero => "scale-from-zero",
            RuleId::TargetCapacity => "target-capacity",
            RuleId::InstanceWarmup => "instance-warmup",
            RuleId::GroupMax => "group-max",
            RuleId::RefreshHealthy => "refresh-healthy",
            RuleId::RefreshProtected => "refresh-protected",
            RuleId::RefreshSkipMatching => "refresh-skip-matching",
            RuleId::Draining => "draining",
        }
    }

    /// The rule's text and source.
    pub fn rule(self) -> &'static Rule {
        RULES.iter().find(|r| r.id == self).unwrap_or(&RULES[0])
    }
}

const PLACEMENT: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-placement.html";
const GPU: &str = "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/ecs-gpu.html";
const STRATEGY: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_PlacementStrategy.html";
const CONSTRAINTS: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-placement-constraints.html";
const ROLLING: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/deployment-type-ecs.html";
const BLUE_GREEN: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/deployment-type-blue-green.html";
const CANARY: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/canary-deployment.html";
const MANAGED_SCALING: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/managed-scaling-behavior.html";
const MANAGED_SCALING_API: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_ManagedScaling.html";
const CLUSTER_AUTO_SCALING: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/cluster-auto-scaling.html";
const SCALE_FROM_ZERO: &str = "https://github.com/aws/containers-roadmap/issues/1716 (and the ECS team's answer in issue 961: the 200% is only for the first scale-out from zero)";
const REFRESH: &str =
    "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_RefreshPreferences.html";
const REFRESH_DEFAULTS: &str = "https://docs.aws.amazon.com/autoscaling/ec2/userguide/understand-instance-refresh-default-values.html";
const REFRESH_HOW: &str =
    "https://docs.aws.amazon.com/autoscaling/ec2/userguide/instance-refresh-overview.html";
const DRAINING: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/managed-instance-draining.html";

/// Every rule of the model.
pub static RULES: &[Rule] = &[
    Rule {
        id: RuleId::WholeGpus,
        text: "a container's GPU requirement reserves that many whole physical GPUs of one instance for the task's life; a task's GPUs are the sum over its containers and must all come from one instance",
        source: GPU,
    },
    Rule {
        id: RuleId::Resources,
        text: "a task is placed only on an instance with the CPU, memory, GPUs and static host ports it reserves still free; registered CPU is the vCPUs times 1024",
        source: PLACEMENT,
    },
    Rule {
        id: RuleId::DistinctInstance,
        text: "`distinctInstance` places each task of the service on a different container instance",
        source: CONSTRAINTS,
    },
    Rule {
        id: RuleId::MemberOf,
        text: "`memberOf` places tasks only on instances whose attributes satisfy the cluster query language expression",
        source: CONSTRAINTS,
    },
    Rule {
        id: RuleId::Strategy,
        text: "`binpack` places a task on the instance with the least of the field (cpu, memory) left that still fits it; `spread` spreads evenly over the field's values (`instanceId`: over instances); `random` picks any instance that fits",
        source: STRATEGY,
    },
    Rule {
        id: RuleId::RollingBounds,
        text: "a rolling deployment keeps at least minimumHealthyPercent of the desired count running (rounded up) and at most maximumPercent (rounded down): with 200% it may start every new task before stopping an old one, with 50% of four it may stop two before starting two",
        source: ROLLING,
    },
    Rule {
        id: RuleId::BlueGreen,
        text: "a blue/green deployment starts the whole green revision beside the blue one and stops blue only after the bake time: capacity for both environments is needed",
        source: BLUE_GREEN,
    },
    Rule {
        id: RuleId::LinearCanary,
        text: "linear and canary deployments run the new revision at full size beside the old one, shift traffic in steps with a bake time after each, and stop the old revision after the deployment bake time",
        source: CANARY,
    },
    Rule {
        id: RuleId::ManagedScalingStep,
        text: "for provisioning tasks, ECS computes the instances needed by binpacking them on the largest instance type and scales out by that number, at least minimumScalingStepSize and at most maximumScalingStepSize; a group with several instance types or Availability Zones scales by exactly minimumScalingStepSize",
        source: MANAGED_SCALING,
    },
    Rule {
        id: RuleId::ManagedScalingSmallestType,
        text: "provisioning tasks that do not fit the smallest instance type of the group never make the capacity provider scale out: they stay in PROVISIONING",
        source: MANAGED_SCALING,
    },
    Rule {
        id: RuleId::ScaleFromZero,
        text: "with no instance running and tasks provisioning, CapacityProviderReservation is 200, so the first scale-out from zero launches two instances",
        source: SCALE_FROM_ZERO,
    },
    Rule {
        id: RuleId::TargetCapacity,
        text: "managed scaling tracks CapacityProviderReservation (instances needed over instances running, in percent) at targetCapacity: below 100 it keeps instances without tasks",
        source: CLUSTER_AUTO_SCALING,
    },
    Rule {
        id: RuleId::InstanceWarmup,
        text: "a new instance counts for managed scaling after instanceWarmupPeriod seconds (default 300)",
        source: MANAGED_SCALING_API,
    },
    Rule {
        id: RuleId::GroupMax,
        text: "an Auto Scaling group never runs more than its max_size instances: tasks beyond what they hold stay in PROVISIONING",
        source: MANAGED_SCALING,
    },
    Rule {
        id: RuleId::RefreshHealthy,
        text: "an instance refresh keeps at least MinHealthyPercentage of the desired capacity in service (rounded up; default 90) and at most MaxHealthyPercentage (default 100: it terminates before it launches), waiting InstanceWarmup after each new instance",
        source: REFRESH,
    },
    Rule {
        id: RuleId::RefreshProtected,
        text: "instances protected from scale-in are replaced (`Refresh`), skipped (`Ignore`) or waited for (`Wait`) by an instance refresh",
        source: REFRESH_DEFAULTS,
    },
    Rule {
        id: RuleId::RefreshSkipMatching,
        text: "with skip matching, an instance refresh replaces only the instances whose configuration differs from the desired one",
        source: REFRESH_HOW,
    },
    Rule {
        id: RuleId::Draining,
        text: "managed instance draining stops the tasks of a terminating instance only as the services' minimumHealthyPercent allows, starting their replacements elsewhere first; the termination waits until then",
        source: DRAINING,
    },
];

/// The instance warmup of managed scaling when the capacity provider does not set it, in seconds.
pub const DEFAULT_INSTANCE_WARMUP: u32 = 300;
/// The minimum scaling step size when the capacity provider does not set it.
pub const DEFAULT_MIN_STEP: u32 = 1;
/// The maximum scaling step size when the capacity provider does not set it.
pub const DEFAULT_MAX_STEP: u32 = 10_000;
/// Instances the first scale-out from zero launches (CapacityProviderReservation 200 at a target
/// of 100).
pub const SCALE_FROM_ZERO_INSTANCES: u32 = 2;
/// An instance refresh's maximum healthy percentage when none is given (no instance maintenance
/// policy).
pub const DEFAULT_REFRESH_MAX_HEALTHY: u32 = 100;
/// A rolling deployment's bounds when the service does not set them (percent of the desired
/// count).
pub const DEFAULT_MIN_HEALTHY: u32 = 100;
pub const DEFAULT_MAX_PERCENT: u32 = 200;
