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
    AllocationStrategy,
    WarmPool,
    WarmPoolsCheck,
    SpotShare,
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
            RuleId::AllocationStrategy => "allocation-strategy",
            RuleId::WarmPool => "warm-pool",
            RuleId::WarmPoolsCheck => "warm-pools-check",
            RuleId::SpotShare => "spot-share",
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
/// The API reference's `ScaleInProtectedInstances` ("Wait (default)"), the user guide's table of
/// defaults (CLI or SDK: Wait; console: Ignore), and the provider's schema default and request.
const REFRESH_PROTECTED_SOURCES: &str = "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_RefreshPreferences.html, https://docs.aws.amazon.com/autoscaling/ec2/userguide/understand-instance-refresh-default-values.html, hashicorp/terraform-provider-aws internal/service/autoscaling/group.go (`scale_in_protected_instances` Default Ignore; `expandStartInstanceRefreshInput` sends Preferences only with a `preferences` block)";
const REFRESH_HOW: &str =
    "https://docs.aws.amazon.com/autoscaling/ec2/userguide/instance-refresh-overview.html";
const DRAINING: &str =
    "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/managed-instance-draining.html";
const DISTRIBUTION: &str =
    "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_InstancesDistribution.html";
const WARM_POOLS: &str =
    "https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-warm-pools.html";

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
        text: "provisioning tasks that do not fit the smallest instance type of the group never make the capacity provider scale out: they stay in PROVISIONING; with several instance types the smallest is taken in each resource (vCPU, memory, GPUs), so a task that one of the types cannot hold never makes it scale out",
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
        text: "an instance refresh keeps at least MinHealthyPercentage of the desired capacity in service (rounded up; default 90) and at most MaxHealthyPercentage (default 100: it terminates before it launches), waiting InstanceWarmup after each new instance; 100% replaces one instance at a time",
        source: REFRESH,
    },
    Rule {
        id: RuleId::RefreshProtected,
        text: "instances protected from scale-in are replaced (`Refresh`), skipped (`Ignore`) or waited for an hour, then the refresh fails (`Wait`); the API's default, for a refresh started from the AWS CLI or an SDK without it, is `Wait` (the console's is `Ignore`); hashicorp/aws sends `Ignore` when an `instance_refresh` has a `preferences` block without it, and no preferences (so `Wait`) without the block",
        source: REFRESH_PROTECTED_SOURCES,
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
    Rule {
        id: RuleId::AllocationStrategy,
        text: "which of several instance types a group launches is its allocation strategy's choice (On-Demand: `prioritized`, the first type first, or `lowest-price`; Spot: by price and capacity) against EC2 capacity at the time; no input shows it, so the model answers for a group launching only its smallest type and only its largest, and unknown where they differ",
        source: DISTRIBUTION,
    },
    Rule {
        id: RuleId::WarmPool,
        text: "a scale-out takes pre-initialized instances from the warm pool before it launches new ones; the pool holds MaxGroupPreparedCapacity (default: the group's max size) less the desired capacity, at least MinSize; instances that leave it count towards the desired capacity, which max_size still bounds; Stopped and Hibernated instances are billed for their volumes, Running ones as running instances",
        source: WARM_POOLS,
    },
    Rule {
        id: RuleId::WarmPoolsCheck,
        text: "ECS supports warm pools when the agent configuration of the launch template sets ECS_WARM_POOLS_CHECK=true, and not with ReuseOnScaleIn; the pool size rules are PutWarmPool's",
        source: ECS_WARM_POOL_SOURCES,
    },
    Rule {
        id: RuleId::SpotShare,
        text: "a group with a mixed instances policy launches OnDemandBaseCapacity On-Demand Instances first, then OnDemandPercentageAboveBaseCapacity percent of the rest On-Demand (default 100) and the others Spot; whether EC2 has Spot capacity when the group launches is not known before",
        source: DISTRIBUTION,
    },
];

const ECS_WARM_POOL_SOURCES: &str = "https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-warm-pool.html, https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_PutWarmPool.html";

/// The instance warmup of managed scaling when the capacity provider does not set it, in seconds.
pub const DEFAULT_INSTANCE_WARMUP: u32 = 300;
/// The minimum scaling step size when the capacity provider does not set it.
pub const DEFAULT_MIN_STEP: u32 = 1;
/// The maximum scaling step size when the capacity provider does not set it.
pub const DEFAULT_MAX_STEP: u32 = 10_000;
/// What the ECS API accepts in a capacity provider's managed scaling: a target capacity above 0
/// and at most this percent, step sizes from 1 to [`MAX_SCALING_STEP`], a warmup of at most
/// [`MAX_INSTANCE_WARMUP`] seconds
/// (<https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_ManagedScaling.html>).
pub const MAX_TARGET_CAPACITY: u32 = 100;
/// See [`MAX_TARGET_CAPACITY`].
pub const MAX_SCALING_STEP: u32 = 10_000;
/// See [`MAX_TARGET_CAPACITY`].
pub const MAX_INSTANCE_WARMUP: u32 = 10_000;
/// Instances the first scale-out from zero launches (CapacityProviderReservation 200 at a target
/// of 100).
pub const SCALE_FROM_ZERO_INSTANCES: u32 = 2;
/// An instance refresh's maximum healthy percentage when none is given (no instance maintenance
/// policy).
pub const DEFAULT_REFRESH_MAX_HEALTHY: u32 = 100;
/// What an instance refresh does with instances protected from scale-in when nothing sets it: the
/// API's default (`RefreshPreferences`: "Wait (default)"; the user guide's table of defaults for
/// the AWS CLI and SDKs), which a refresh started without preferences gets. The console's default
/// is `Ignore`.
pub const API_SCALE_IN_PROTECTED_DEFAULT: crate::ProtectedInstances =
    crate::ProtectedInstances::Wait;
/// hashicorp/aws's schema default for `scale_in_protected_instances`, which it sends whenever an
/// `instance_refresh` has a `preferences` block (internal/service/autoscaling/group.go).
pub const PROVIDER_SCALE_IN_PROTECTED_DEFAULT: crate::ProtectedInstances =
    crate::ProtectedInstances::Ignore;
/// A rolling deployment's bounds when the service does not set them (percent of the desired
/// count).
pub const DEFAULT_MIN_HEALTHY: u32 = 100;
pub const DEFAULT_MAX_PERCENT: u32 = 200;
