//! What the model reads: capacity (Auto Scaling groups behind capacity providers), services with
//! their tasks, and what each knows. Every input that a source may not give is a [`Known`]; an
//! unknown carries the reason, which reaches the answer that needed it.

use serde::Serialize;

/// A value, or why it is not known, or that it is hidden.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Known<T> {
    Known(T),
    Unknown {
        unknown: String,
    },
    /// A value Terraform hides (sensitive or ephemeral): the adapter that read it keeps only how
    /// it is hidden, so no answer is computed from it and no renderer can print it. Every answer
    /// that needs it is unknown, and says which input is hidden.
    Hidden {
        hidden: Hidden,
    },
}

/// How Terraform hides a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hidden {
    /// `(sensitive)`: a `sensitive = true` variable or output, `sensitive()`, a value a plan marks
    /// sensitive, and what is computed from them.
    Sensitive,
    /// `(ephemeral)`: an `ephemeral = true` variable or output.
    Ephemeral,
}

impl Hidden {
    /// What is printed in the value's place.
    pub fn label(self) -> &'static str {
        match self {
            Hidden::Sensitive => "(sensitive)",
            Hidden::Ephemeral => "(ephemeral)",
        }
    }

    /// Why an answer that needs the value is unknown.
    pub fn reason(self) -> &'static str {
        match self {
            Hidden::Sensitive => {
                "it is sensitive, and nothing is computed from a value Terraform hides"
            }
            Hidden::Ephemeral => {
                "it is ephemeral, and nothing is computed from a value Terraform hides"
            }
        }
    }
}

impl<T> Known<T> {
    /// An unknown, with the reason.
    pub fn unknown(reason: impl Into<String>) -> Known<T> {
        Known::Unknown {
            unknown: reason.into(),
        }
    }

    /// A hidden value.
    pub fn hidden(hidden: Hidden) -> Known<T> {
        Known::Hidden { hidden }
    }

    pub fn as_ref(&self) -> Known<&T> {
        match self {
            Known::Known(v) => Known::Known(v),
            Known::Unknown { unknown } => Known::Unknown {
                unknown: unknown.clone(),
            },
            Known::Hidden { hidden } => Known::Hidden { hidden: *hidden },
        }
    }

    /// The value, or the reason it is not known (a hidden value's is [`Hidden::reason`]).
    pub fn get(&self) -> Result<&T, &str> {
        match self {
            Known::Known(v) => Ok(v),
            Known::Unknown { unknown } => Err(unknown),
            Known::Hidden { hidden } => Err(hidden.reason()),
        }
    }

    pub fn known(&self) -> Option<&T> {
        self.get().ok()
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Known<U> {
        match self {
            Known::Known(v) => Known::Known(f(v)),
            Known::Unknown { unknown } => Known::Unknown { unknown },
            Known::Hidden { hidden } => Known::Hidden { hidden },
        }
    }

    /// The value as printed: itself (by `show`), `(sensitive)`, `(ephemeral)` or `unknown`.
    pub fn shown(&self, show: impl FnOnce(&T) -> String) -> String {
        match self {
            Known::Known(v) => show(v),
            Known::Unknown { .. } => "unknown".to_string(),
            Known::Hidden { hidden } => hidden.label().to_string(),
        }
    }
}

impl<T> From<T> for Known<T> {
    fn from(v: T) -> Known<T> {
        Known::Known(v)
    }
}

/// Everything the model reads.
#[derive(Debug, Clone, Default)]
pub struct Scenario {
    pub groups: Vec<Group>,
    pub services: Vec<Service>,
}

impl Scenario {
    /// The group of this name: its own, its capacity provider's, or another it is known by
    /// ([`Group::aliases`]).
    pub fn group(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.is_named(name))
    }

    pub fn service(&self, name: &str) -> Option<usize> {
        self.services.iter().position(|s| s.name == name)
    }

    /// Every name of [`Scenario::group`], with the group it finds: for looking up many names in
    /// linear time.
    pub fn group_index(&self) -> std::collections::HashMap<&str, usize> {
        let mut index = std::collections::HashMap::with_capacity(self.groups.len());
        for (i, g) in self.groups.iter().enumerate() {
            for name in g.names() {
                index.entry(name).or_insert(i);
            }
        }
        // A name of several groups finds the first in order, as [`Scenario::group`] does.
        index
    }

    /// [`Scenario::service`] for every name at once.
    pub fn service_index(&self) -> std::collections::HashMap<&str, usize> {
        let mut index = std::collections::HashMap::with_capacity(self.services.len());
        for (i, s) in self.services.iter().enumerate() {
            index.entry(s.name.as_str()).or_insert(i);
        }
        index
    }
}

/// What one instance offers to tasks.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct InstanceShape {
    /// The instance type (`g5.12xlarge`).
    pub instance_type: String,
    /// Whole GPUs.
    pub gpus: u32,
    /// CPU units (vCPUs × 1024).
    pub cpu: u32,
    pub memory: Memory,
}

/// The memory an instance registers for tasks, MiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Memory {
    /// What the agent registered (`describe-container-instances`).
    Registered(u64),
    /// The EC2 memory less the least the kernel keeps: the agent registers less, by an amount the
    /// AWS documentation does not give.
    AtMost(u64),
}

impl Memory {
    pub fn mib(self) -> u64 {
        match self {
            Memory::Registered(m) | Memory::AtMost(m) => m,
        }
    }
}

impl InstanceShape {
    /// The shapes of the instance types a group launches, from the catalog: known when every type
    /// is (each once, in the order given).
    pub fn from_catalog_all<S: AsRef<str>>(names: &[S]) -> Known<Vec<InstanceShape>> {
        let mut out: Vec<InstanceShape> = Vec::new();
        for n in names {
            match InstanceShape::from_catalog(n.as_ref()) {
                Known::Known(s) => {
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
                Known::Unknown { unknown } => return Known::Unknown { unknown },
                Known::Hidden { hidden } => return Known::Hidden { hidden },
            }
        }
        if out.is_empty() {
            return Known::unknown("it names no instance type");
        }
        Known::Known(out)
    }

    /// Whether `self` offers at least what `other` does, in every resource.
    pub fn covers(&self, other: &InstanceShape) -> bool {
        self.gpus >= other.gpus && self.cpu >= other.cpu && self.memory.mib() >= other.memory.mib()
    }

    /// The shape of a GPU instance type from the catalog, or why there is none.
    pub fn from_catalog(name: &str) -> Known<InstanceShape> {
        use ecs_gpu_catalog::{catalog, Gpus, Lookup};
        let t = match catalog().lookup(name) {
            Lookup::Known(t) => t,
            Lookup::NoGpu => {
                return Known::unknown(format!("`{name}` has no GPU"));
            }
            Lookup::Unknown { .. } => {
                return Known::unknown(format!("`{name}` is not in the GPU catalog"));
            }
        };
        let gpus = match t.gpus {
            Gpus::Whole(n) => n,
            Gpus::Fraction(_) => {
                return Known::unknown(format!(
                    "`{name}` offers a GPU fraction: fractional GPUs are not modelled"
                ))
            }
            Gpus::Unknown => {
                return Known::unknown(format!("the GPUs of `{name}` are not verified"))
            }
        };
        let (Some(cpu), Some(memory)) = (t.cpu_units(), t.max_registrable_memory_mib()) else {
            return Known::unknown(format!("the vCPUs or memory of `{name}` are not verified"));
        };
        Known::Known(InstanceShape {
            instance_type: name.to_string(),
            gpus,
            cpu,
            memory: Memory::AtMost(memory),
        })
    }
}

/// Which of a group's instance types a simulation takes every new instance to be, when the group
/// launches several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Smallest,
    Largest,
}

impl Bound {
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Smallest => "smallest",
            Bound::Largest => "largest",
        }
    }
}

/// The smallest (or largest) of a group's instance shapes, and the types it stands for: the one
/// type that is smallest (largest) in every resource, or else a shape with the least (most) of
/// each, named after the types. `None` for no shape.
pub(crate) fn bound_shape(
    shapes: &[InstanceShape],
    bound: Bound,
) -> Option<(InstanceShape, Vec<String>)> {
    let first = shapes.first()?;
    let pick = |a: u64, b: u64| match bound {
        Bound::Smallest => a.min(b),
        Bound::Largest => a.max(b),
    };
    let (mut gpus, mut cpu, mut memory) = (first.gpus, first.cpu, first.memory);
    for s in &shapes[1..] {
        gpus = u32::try_from(pick(u64::from(gpus), u64::from(s.gpus))).unwrap_or(u32::MAX);
        cpu = u32::try_from(pick(u64::from(cpu), u64::from(s.cpu))).unwrap_or(u32::MAX);
        let m = pick(memory.mib(), s.memory.mib());
        memory = match (memory, s.memory) {
            (Memory::Registered(_), Memory::Registered(_)) => Memory::Registered(m),
            _ => Memory::AtMost(m),
        };
    }
    // Types alike in every resource are one bound; a `memberOf` must allow each of them.
    let alike: Vec<&InstanceShape> = shapes
        .iter()
        .filter(|s| s.gpus == gpus && s.cpu == cpu && s.memory.mib() == memory.mib())
        .collect();
    if let Some(first) = alike.first() {
        let of: Vec<String> = alike.iter().map(|s| s.instance_type.clone()).collect();
        let mut shape = (*first).clone();
        shape.instance_type = of.join(" or ");
        return Some((shape, of));
    }
    let names: Vec<String> = shapes.iter().map(|s| s.instance_type.clone()).collect();
    let word = match bound {
        Bound::Smallest => "least",
        Bound::Largest => "most",
    };
    Some((
        InstanceShape {
            instance_type: format!("the {word} of {} in each resource", names.join(", ")),
            gpus,
            cpu,
            memory,
        },
        names,
    ))
}

/// An Auto Scaling group behind a capacity provider.
#[derive(Debug, Clone)]
pub struct Group {
    /// The group's name or address.
    pub name: String,
    /// The capacity provider over it.
    pub provider: Option<String>,
    /// Other names it is known by: the capacity provider's Terraform address, when its name is
    /// set (`--refresh aws_ecs_capacity_provider.gpu`).
    pub aliases: Vec<String>,
    /// What a new instance of the group may be: one shape, or several with a mixed instances
    /// policy (which of them launches is the allocation strategy's choice, which no input shows:
    /// the answers then hold for the smallest and the largest, or say unknown).
    pub launches: Known<Vec<InstanceShape>>,
    pub min_size: Known<u32>,
    pub max_size: Known<u32>,
    /// The instances now, each with the tasks it runs. Unknown for code (nothing runs yet): the
    /// model then starts from the steady state, the services' tasks placed on as few instances as
    /// hold them (at least `min_size`).
    pub instances: Known<Vec<Instance>>,
    /// `None`: managed scaling is off.
    pub managed_scaling: Known<Option<ManagedScaling>>,
    /// Availability Zones it launches in (the scale-out step depends on whether there are several).
    pub zones: Known<u32>,
    /// The warm pool, `None` without one.
    pub warm_pool: Known<Option<WarmPool>>,
    /// The On-Demand share: base capacity and percentage above it (100: no Spot).
    pub on_demand: Known<OnDemandShare>,
    /// New instances are protected from scale-in (managed termination protection needs it).
    pub protected: Known<bool>,
    pub refresh: Refresh,
}

impl Group {
    /// A group with every optional input unknown, for adapters to fill.
    pub fn new(name: impl Into<String>) -> Group {
        let unknown = || "not given".to_string();
        Group {
            name: name.into(),
            provider: None,
            aliases: Vec::new(),
            launches: Known::unknown(unknown()),
            min_size: Known::unknown(unknown()),
            max_size: Known::unknown(unknown()),
            instances: Known::unknown(unknown()),
            managed_scaling: Known::unknown(unknown()),
            zones: Known::unknown(unknown()),
            warm_pool: Known::unknown(unknown()),
            on_demand: Known::unknown(unknown()),
            protected: Known::unknown(unknown()),
            refresh: Refresh::default(),
        }
    }
}

impl Group {
    /// Whether `name` names the group: its own name, its capacity provider's, an alias.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name
            || self.provider.as_deref() == Some(name)
            || self.aliases.iter().any(|a| a == name)
    }

    /// Its names: its own, its capacity provider's, its aliases.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str())
            .chain(self.provider.as_deref())
            .chain(self.aliases.iter().map(String::as_str))
    }
}

/// A running instance and what it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    pub id: String,
    /// What it offers when empty: its registered resources, less what tasks of no modelled service
    /// reserve on it.
    pub shape: InstanceShape,
    /// Tasks of modelled services: (service index, tasks).
    pub tasks: Vec<(usize, u32)>,
    /// Protected from scale-in now.
    pub protected: Known<bool>,
}

/// Capacity provider managed scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagedScaling {
    /// Percent.
    pub target_capacity: u32,
    pub min_step: u32,
    pub max_step: u32,
    /// Seconds.
    pub warmup: u32,
}

impl ManagedScaling {
    /// What the ECS API refuses in these settings ([`crate::facts::MAX_TARGET_CAPACITY`] and
    /// the ranges beside it), or `None`: a capacity provider with them never exists, so no answer
    /// is given for one.
    pub fn refused(&self) -> Option<String> {
        use crate::facts::{MAX_INSTANCE_WARMUP, MAX_SCALING_STEP, MAX_TARGET_CAPACITY};
        let steps = 1..=MAX_SCALING_STEP;
        if self.target_capacity == 0 || self.target_capacity > MAX_TARGET_CAPACITY {
            Some(format!(
                "a target capacity of {} (the API accepts 1 to {MAX_TARGET_CAPACITY})",
                self.target_capacity
            ))
        } else if !steps.contains(&self.min_step) || !steps.contains(&self.max_step) {
            Some(format!(
                "scaling step sizes of {} and {} (the API accepts 1 to {MAX_SCALING_STEP})",
                self.min_step, self.max_step
            ))
        } else if self.warmup > MAX_INSTANCE_WARMUP {
            Some(format!(
                "an instance warmup of {} s (the API accepts 0 to {MAX_INSTANCE_WARMUP})",
                self.warmup
            ))
        } else {
            None
        }
    }
}

/// A warm pool of pre-initialized instances beside the group (EC2 Auto Scaling `PutWarmPool`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WarmPool {
    /// The state instances wait in.
    pub state: PoolState,
    /// Instances kept in the pool however large the group is (`MinSize`, default 0).
    pub min_size: u32,
    /// The most instances of the group and its pool together (`MaxGroupPreparedCapacity`); `None`:
    /// the group's `max_size`.
    pub max_prepared: Option<u32>,
    /// Whether the agent configuration sets `ECS_WARM_POOLS_CHECK=true`, which the ECS guide asks
    /// for before a warm pool serves a cluster.
    pub warm_pools_check: Known<bool>,
}

impl WarmPool {
    /// Instances the pool holds while the group has `desired` in service and at most `max_size`:
    /// `max_prepared` (else `max_size`) less `desired`, at least `min_size`.
    pub fn size(&self, desired: u32, max_size: u32) -> u32 {
        self.max_prepared
            .unwrap_or(max_size)
            .saturating_sub(desired)
            .max(self.min_size)
    }
}

/// The state of an instance in a warm pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PoolState {
    /// Billed for its volumes only; it starts when it leaves the pool.
    Stopped,
    /// Billed as a running instance.
    Running,
    /// Stopped with its memory saved to its root volume; it resumes when it leaves the pool.
    Hibernated,
}

impl PoolState {
    pub fn parse(s: &str) -> Option<PoolState> {
        match s {
            "Stopped" => Some(PoolState::Stopped),
            "Running" => Some(PoolState::Running),
            "Hibernated" => Some(PoolState::Hibernated),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PoolState::Stopped => "Stopped",
            PoolState::Running => "Running",
            PoolState::Hibernated => "Hibernated",
        }
    }
}

/// The On-Demand share of a group with a mixed instances policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OnDemandShare {
    pub base: u32,
    pub percent_above_base: u32,
}

impl OnDemandShare {
    /// Every instance On-Demand.
    pub const ALL: OnDemandShare = OnDemandShare {
        base: 0,
        percent_above_base: 100,
    };

    /// Every instance Spot (a launch template that buys Spot Instances).
    pub const NONE: OnDemandShare = OnDemandShare {
        base: 0,
        percent_above_base: 0,
    };

    /// The On-Demand instances among `n`, as a range: the base first, then the percentage of the
    /// rest, rounded in a way the documentation does not give.
    pub fn on_demand(self, n: u32) -> (u32, u32) {
        let n = u64::from(n);
        let base = u64::from(self.base).min(n);
        let above = n - base;
        let pct = u64::from(self.percent_above_base.min(100));
        let lo = base + above * pct / 100;
        let hi = base + (above * pct).div_ceil(100);
        (
            u32::try_from(lo).unwrap_or(u32::MAX),
            u32::try_from(hi).unwrap_or(u32::MAX),
        )
    }

    /// The Spot Instances among `n`, as a range.
    pub fn spot(self, n: u32) -> (u32, u32) {
        let (lo, hi) = self.on_demand(n);
        (n - hi, n - lo)
    }
}

/// Instance refresh preferences.
#[derive(Debug, Clone)]
pub struct Refresh {
    /// Percent of the desired capacity.
    pub min_healthy: Known<u32>,
    pub max_healthy: Known<u32>,
    /// Seconds.
    pub warmup: Known<u32>,
    pub skip_matching: Known<bool>,
    pub protected_instances: Known<ProtectedInstances>,
}

impl Default for Refresh {
    fn default() -> Refresh {
        Refresh {
            min_healthy: Known::unknown("not given"),
            max_healthy: Known::unknown("not given"),
            warmup: Known::unknown("not given"),
            skip_matching: Known::unknown("not given"),
            protected_instances: Known::unknown("not given"),
        }
    }
}

/// What an instance refresh does with instances protected from scale-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProtectedInstances {
    Refresh,
    Ignore,
    Wait,
}

impl ProtectedInstances {
    pub fn parse(s: &str) -> Option<ProtectedInstances> {
        match s {
            "Refresh" => Some(ProtectedInstances::Refresh),
            "Ignore" => Some(ProtectedInstances::Ignore),
            "Wait" => Some(ProtectedInstances::Wait),
            _ => None,
        }
    }
}

/// A service: its tasks, where they run, how it deploys.
#[derive(Debug, Clone)]
pub struct Service {
    /// The service's name or address.
    pub name: String,
    /// The group its tasks run on (by [`Group::name`] or capacity provider name).
    pub group: Known<String>,
    pub desired: Known<u32>,
    pub task: Known<TaskShape>,
    pub deployment: Known<Deployment>,
    pub constraints: Known<Vec<Constraint>>,
    pub strategy: Known<Strategy>,
    /// Whether its tasks ask for a GPU (whole GPUs, a fraction or an MPS share), even when what
    /// they reserve is not known: such a service is simulated, with an unknown answer and its
    /// reason, never passed over as one without GPUs.
    pub gpu: bool,
}

impl Service {
    pub fn new(name: impl Into<String>) -> Service {
        let unknown = || "not given".to_string();
        Service {
            name: name.into(),
            group: Known::unknown(unknown()),
            desired: Known::unknown(unknown()),
            task: Known::unknown(unknown()),
            deployment: Known::Known(Deployment::default()),
            constraints: Known::Known(Vec::new()),
            strategy: Known::Known(Strategy::Spread),
            gpu: false,
        }
    }

    /// Whether its tasks ask for a GPU: [`Service::gpu`], or a known task with whole GPUs.
    pub fn asks_for_gpus(&self) -> bool {
        self.gpu || self.task.known().is_some_and(|t| t.gpus > 0)
    }
}

/// What one task reserves.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct TaskShape {
    /// Its family or name, for messages.
    pub family: String,
    /// Whole GPUs (the sum over its containers).
    pub gpus: u32,
    /// CPU units.
    pub cpu: u32,
    /// MiB.
    pub memory: u64,
    /// Static host ports (bridge or host network mode).
    pub host_ports: Vec<u16>,
}

/// How a service deploys a new revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Deployment {
    Rolling {
        minimum_healthy_percent: u32,
        maximum_percent: u32,
    },
    BlueGreen {
        bake_minutes: Option<u32>,
    },
    Linear {
        step_percent: Option<u32>,
        bake_minutes: Option<u32>,
    },
    Canary {
        canary_percent: Option<u32>,
        bake_minutes: Option<u32>,
    },
}

impl Default for Deployment {
    fn default() -> Deployment {
        Deployment::Rolling {
            minimum_healthy_percent: crate::facts::DEFAULT_MIN_HEALTHY,
            maximum_percent: crate::facts::DEFAULT_MAX_PERCENT,
        }
    }
}

impl Deployment {
    /// Whether both revisions run at full size before the old one stops.
    pub fn doubles(&self) -> bool {
        !matches!(self, Deployment::Rolling { .. })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Deployment::Rolling { .. } => "rolling",
            Deployment::BlueGreen { .. } => "blue/green",
            Deployment::Linear { .. } => "linear",
            Deployment::Canary { .. } => "canary",
        }
    }
}

/// A placement constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Constraint {
    DistinctInstance,
    /// A `memberOf` expression.
    MemberOf(String),
}

/// The placement strategy that decides among instances that fit (the first of the service's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// `binpack` on cpu or memory: the fullest instance that fits.
    Binpack,
    /// `spread`, on `instanceId` or an attribute: the emptiest instance that fits.
    Spread,
    /// `random`: any instance that fits.
    Random,
}

/// Why a task that shares a GPU with NVIDIA MPS has no known shape.
pub const MPS_UNKNOWN: &str = "it shares a GPU with NVIDIA MPS (`sharingStrategy`): how many MPS tasks ECS places on one GPU is not modelled";

impl TaskShape {
    /// Whether any container of an ECS task definition's JSON asks for a GPU (a `GPU` resource
    /// requirement, whatever its value or sharing strategy).
    pub fn asks_for_gpus(containers: &serde_json::Value) -> bool {
        containers.as_array().into_iter().flatten().any(|c| {
            c.get("resourceRequirements")
                .and_then(|r| r.as_array())
                .into_iter()
                .flatten()
                .any(|r| r.get("type").and_then(|t| t.as_str()) == Some("GPU"))
        })
    }

    /// What one task of an ECS task definition reserves, from its JSON as the ECS API and
    /// Terraform's `container_definitions` write it: whole GPUs summed over the containers, the
    /// task-level `cpu` and `memory` (else the containers' `cpu`, and `memoryReservation` or
    /// `memory`), and the static host ports of the network mode (`hostPort` in bridge mode,
    /// `containerPort` in host mode, none in awsvpc).
    pub fn from_ecs_json(
        family: &str,
        containers: &serde_json::Value,
        cpu: Option<&str>,
        memory: Option<&str>,
        network_mode: Option<&str>,
    ) -> Known<TaskShape> {
        use ecs_gpu_catalog::GpuValue;
        let Some(list) = containers.as_array() else {
            return Known::unknown("the container definitions are not a list");
        };
        let num = |v: Option<&serde_json::Value>| -> Option<u64> {
            let v = v?;
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        };
        let (mut gpus, mut cpu_sum, mut mem_sum) = (0u32, 0u64, Some(0u64));
        let mut ports = Vec::new();
        for c in list {
            for r in c
                .get("resourceRequirements")
                .and_then(|r| r.as_array())
                .into_iter()
                .flatten()
            {
                if r.get("type").and_then(|t| t.as_str()) != Some("GPU") {
                    continue;
                }
                if r.get("sharingStrategy").is_some() {
                    return Known::unknown(MPS_UNKNOWN);
                }
                match r.get("value").and_then(|v| v.as_str()).map(GpuValue::parse) {
                    Some(Ok(GpuValue::Whole(n))) => gpus += n,
                    Some(Ok(GpuValue::Fraction(_))) => {
                        return Known::unknown("a GPU fraction: fractions are not modelled")
                    }
                    _ => return Known::unknown("a GPU value is not a whole number"),
                }
            }
            cpu_sum += num(c.get("cpu")).unwrap_or(0);
            let mem = num(c.get("memoryReservation")).or_else(|| num(c.get("memory")));
            mem_sum = mem_sum.zip(mem).map(|(a, b)| a + b);
            for pm in c
                .get("portMappings")
                .and_then(|p| p.as_array())
                .into_iter()
                .flatten()
            {
                let port = match network_mode.unwrap_or("bridge") {
                    "host" => num(pm.get("containerPort")),
                    "bridge" => num(pm.get("hostPort")),
                    _ => None,
                };
                if let Some(p) = port.and_then(|p| u16::try_from(p).ok()).filter(|p| *p > 0) {
                    ports.push(p);
                }
            }
        }
        // The provider writes `""` for a task-level `cpu` or `memory` left unset: the containers'
        // sums, as when the field is absent.
        let (cpu, memory) = (
            cpu.filter(|s| !s.trim().is_empty()),
            memory.filter(|s| !s.trim().is_empty()),
        );
        let cpu = match cpu {
            Some(s) => match ecs_gpu_catalog::task_cpu_units(s) {
                Some(c) => c as u64,
                None => return Known::unknown(format!("the task's `cpu` `{s}` is not read")),
            },
            None => cpu_sum,
        };
        let memory = match (memory, mem_sum) {
            (Some(s), _) => match ecs_gpu_catalog::task_memory_mib(s) {
                Some(m) => m as u64,
                None => return Known::unknown(format!("the task's `memory` `{s}` is not read")),
            },
            (None, Some(m)) => m,
            (None, None) => {
                return Known::unknown("a container sets neither `memory` nor `memoryReservation`")
            }
        };
        ports.sort_unstable();
        ports.dedup();
        Known::Known(TaskShape {
            family: family.to_string(),
            gpus,
            cpu: u32::try_from(cpu).unwrap_or(u32::MAX),
            memory,
            host_ports: ports,
        })
    }
}
