//! Loading and validating `data/catalog.json`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;

use crate::ami::{AmiFacts, GpuAmiParameter};
use crate::drivers::RawDrivers;
use crate::{Architecture, Catalog, EcsStatus, Family, GpuFraction, GpuVendor, Gpus, InstanceType};

/// Why the embedded data could not be loaded. Only tests should ever see one.
#[derive(Debug)]
pub struct DataError(String);

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DataError {}

fn err<T>(msg: impl Into<String>) -> Result<T, DataError> {
    Err(DataError(msg.into()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[allow(dead_code)]
    about: String,
    sources: BTreeMap<String, String>,
    families: Vec<RawFamily>,
    instance_types: Vec<RawInstanceType>,
    ami: RawAmi,
    agent: AgentFacts,
    nvidia_driver_capabilities: CapabilityFacts,
    gpu_requirement: GpuRequirementFacts,
    task_cpu_units_range_ec2: (u32, u32),
    fargate: FargateFacts,
    query_language: QueryLanguageFacts,
    ec2: Ec2Facts,
    autoscaling: AutoscalingFacts,
    anywhere: AnywhereFacts,
    managed_instances: ManagedInstancesFacts,
    market: MarketFacts,
    efa: EfaFacts,
    vgpu: VgpuFacts,
    drivers: RawDrivers,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFamily {
    family: String,
    status: String,
    reason: Option<String>,
    available: Option<String>,
    gpu: Option<String>,
    ecs_note: Option<String>,
    sources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInstanceType {
    instance_type: String,
    family: String,
    gpu_vendor: String,
    gpu_count: Option<u32>,
    gpu_fraction: Option<f64>,
    gpu_model: Option<String>,
    gpu_memory_mib: Option<u32>,
    vcpus: Option<u32>,
    memory_mib: Option<u64>,
    architecture: Option<String>,
    unverified: Vec<String>,
    sources: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAmi {
    ecs_parameter_prefix: String,
    gpu_parameters: Vec<GpuAmiParameter>,
    recommended_parameter: String,
    version_pinned_form: String,
    arm64_gpu_parameter: Option<String>,
    gpu_ami_name_prefixes: Vec<String>,
    ecs_ami_name_prefixes: Vec<String>,
    amazon_owner_alias: String,
    amazon_owner_alias_note: String,
    note: String,
    sources: Vec<String>,
}

/// ECS container agent facts (source keys AGENT, AMI, ECS-MEM).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFacts {
    /// `ECS_ENABLE_GPU_SUPPORT`.
    pub gpu_support_variable: String,
    /// The agent's default for it (`false`).
    pub gpu_support_default: String,
    /// The ECS GPU-optimized AMIs write `ECS_ENABLE_GPU_SUPPORT=true` themselves.
    pub gpu_ami_enables_gpu_support: bool,
    /// `ECS_CLUSTER`.
    pub cluster_variable: String,
    /// The cluster an instance joins without it (`default`).
    pub cluster_default: String,
    pub reserved_memory_variable: String,
    pub reserved_memory_default_mib: u64,
    pub registered_cpu: String,
    pub registered_memory: String,
    pub memory_example: String,
    /// The least memory, MiB, any GPU type registers below its EC2 memory (derived from the ECS-MEM
    /// example: 8192 MiB installed, 7985 MiB registered).
    pub min_unregistered_memory_mib: u64,
    /// `ECS_WARM_POOLS_CHECK`: with `true`, an instance launched into an Auto Scaling group's warm
    /// pool does not register with the cluster (AGENT README, ECS-WARM).
    pub warm_pools_check_variable: String,
    /// Its default (`false`).
    pub warm_pools_check_default: String,
    /// `ECS_ENABLE_SPOT_INSTANCE_DRAINING`: with `true`, a Spot interruption notice sets the
    /// container instance to DRAINING, and the services' tasks are replaced elsewhere (AGENT README).
    pub spot_draining_variable: String,
    /// Its default (`false`).
    pub spot_draining_default: String,
    pub gpu_attributes: Vec<String>,
    pub sources: Vec<String>,
}

/// EC2 purchasing options (source key BOTO).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarketFacts {
    /// `instance_market_options.market_type` of Spot Instances: `spot`.
    pub spot_market_type: String,
    /// `instance_market_options.market_type` of a Capacity Block for ML: `capacity-block`.
    pub capacity_block_market_type: String,
    /// An Auto Scaling group's `on_demand_percentage_above_base_capacity` when not given (100: no
    /// Spot).
    pub on_demand_percentage_default: u32,
    pub sources: Vec<String>,
}

/// Elastic Fabric Adapter support per instance type (source keys karpenter-preview-efa, BOTO).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EfaFacts {
    /// The network interface types that request an EFA (`efa`, `efa-only`).
    pub interface_types: Vec<String>,
    /// The catalog's instance types with EFA, each with its maximum number of EFA interfaces.
    pub max_interfaces: BTreeMap<String, u32>,
    /// The catalog's instance types known to have no EFA.
    pub without: Vec<String>,
    pub note: String,
    pub sources: Vec<String>,
}

impl EfaFacts {
    /// Whether the instance type supports EFA: `None` when the sources do not say.
    pub fn supports(&self, instance_type: &str) -> Option<bool> {
        if self
            .max_interfaces
            .get(instance_type)
            .is_some_and(|n| *n > 0)
        {
            Some(true)
        } else if self.without.iter().any(|t| t == instance_type) {
            Some(false)
        } else {
            None
        }
    }
}

/// The fractional GPU families (NVIDIA vGPU slices of an L4: g6f, gr6f) on ECS on EC2: what they
/// need of the AMI and of the instance (source keys AMI-GRID-KMOD, AMI-GRIDD, AMI-README-G6F,
/// AMI-609, AGENT-MPS-VGPU, ecs-doc-gpu-specifying).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VgpuFacts {
    pub families: Vec<String>,
    /// The ECS GPU-optimized AMI variants ([`crate::GpuAmiParameter::variant`]) with the NVIDIA GRID
    /// driver these families need (`al2023`): no Amazon Linux 2 recipe installs it.
    pub ami_variants: Vec<String>,
    /// The first AMI release (`YYYYMMDD`) whose GRID driver keeps its license past 24 hours.
    pub min_ami_release: String,
    /// What happens on an earlier release.
    pub min_ami_release_reason: String,
    /// Whether NVIDIA MPS sharing is offered on them (`false`: the agent withholds it on vGPU slices).
    pub mps: bool,
    /// The types that need memory overcommit enabled in their user data (`g6f.large`).
    pub memory_overcommit_instance_types: Vec<String>,
    /// The kernel setting (`vm.overcommit_memory`) and the value it needs (`1`).
    pub memory_overcommit_setting: String,
    pub memory_overcommit_value: String,
    pub marketplace_note: String,
    pub regions_without_grid_driver: Vec<String>,
    pub sources: Vec<String>,
}

impl VgpuFacts {
    /// Whether the family is one of the vGPU families.
    pub fn is_vgpu_family(&self, family: &str) -> bool {
        self.families.iter().any(|f| f == family)
    }

    /// Whether the instance type needs memory overcommit enabled to run GPU tasks.
    pub fn needs_memory_overcommit(&self, instance_type: &str) -> bool {
        self.memory_overcommit_instance_types
            .iter()
            .any(|t| t == instance_type)
    }
}

/// `NVIDIA_DRIVER_CAPABILITIES` facts (source keys NCT, ECS-GPU).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilityFacts {
    /// The capability names the NVIDIA container toolkit accepts.
    pub names: Vec<String>,
    /// The toolkit's default (`utility,compute`).
    pub default: String,
    /// What the ECS guide says to set for images not built on NVIDIA/CUDA base images.
    pub ecs_doc_values_for_non_cuda_images: Vec<String>,
    pub sources: Vec<String>,
}

impl AgentFacts {
    /// The name of the attribute that carries the NVIDIA driver version
    /// (`ecs.capability.gpu-driver-version`), read from the `name = <version>` entry of
    /// [`AgentFacts::gpu_attributes`].
    pub fn gpu_driver_version_attribute(&self) -> Option<&str> {
        self.gpu_attributes
            .iter()
            .find_map(|a| a.split_once(" = ").map(|(n, _)| n.trim()))
    }
}

impl CapabilityFacts {
    /// The names in a comma-separated value that are not capability names, in order.
    pub fn invalid_names<'a>(&self, value: &'a str) -> Vec<&'a str> {
        value
            .split(',')
            .map(str::trim)
            .filter(|n| !self.names.iter().any(|k| k == n))
            .collect()
    }
}

/// GPU `resourceRequirements` facts (source keys BOTO, ECS-GPU-SPEC, ECS-GPU).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuRequirementFacts {
    #[serde(rename = "type")]
    pub type_: String,
    pub all: String,
    pub fractions: Vec<String>,
    pub rules: Vec<String>,
    pub mps: BTreeMap<String, String>,
    pub mps_where: String,
    pub sources: Vec<String>,
}

/// Fargate facts (source keys BOTO, ECS-GPU, ECS-2023).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FargateFacts {
    /// Fargate has no GPU.
    pub gpu: bool,
    /// The capacity providers that run tasks on Fargate (`FARGATE`, `FARGATE_SPOT`).
    pub capacity_providers: Vec<String>,
    /// Task CPU units -> the memory sizes (MiB) allowed with it.
    pub combos_mib: BTreeMap<String, Vec<u64>>,
    pub windows_note: String,
    pub sources: Vec<String>,
}

impl FargateFacts {
    /// Whether a capacity provider name is one of Fargate's.
    pub fn is_capacity_provider(&self, name: &str) -> bool {
        self.capacity_providers.iter().any(|p| p == name)
    }

    /// The CPU/memory table as numbers, ascending by CPU.
    pub fn sizes(&self) -> Vec<(u32, &[u64])> {
        let mut v: Vec<(u32, &[u64])> = self
            .combos_mib
            .iter()
            .filter_map(|(cpu, mem)| cpu.parse().ok().map(|c| (c, mem.as_slice())))
            .collect();
        v.sort_by_key(|(c, _)| *c);
        v
    }
}

/// Cluster query language facts (source keys ECS-2023, AGENT).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryLanguageFacts {
    pub constraint_types: Vec<String>,
    pub operators: Vec<String>,
    /// Word forms of operators (`equals` -> `==`).
    pub operator_words: BTreeMap<String, String>,
    pub boolean: Vec<String>,
    pub boolean_words: BTreeMap<String, String>,
    pub subjects: Vec<String>,
    pub builtin_attributes: Vec<String>,
    pub example: String,
    pub sources: Vec<String>,
}

/// EC2 facts (source keys BOTO, botocore-ec2-model, karpenter-preview).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ec2Facts {
    /// Every instance type name of the EC2 API model.
    pub instance_types: Vec<String>,
    /// Families with GPUs that the catalog does not detail: their types are unknown, never "no GPU".
    pub families_with_gpus_not_detailed: Vec<String>,
    pub sources: Vec<String>,
}

/// EC2 Auto Scaling defaults (source keys ASG-API, TF-AWS), and what ECS allows of a group
/// (ECS-WARM).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoscalingFacts {
    /// Whether a warm pool of an Auto Scaling group for ECS may return instances to the pool on
    /// scale in (`ReuseOnScaleIn`, Terraform's `instance_reuse_policy.reuse_on_scale_in`): the ECS
    /// guide's warm-pool page says it cannot be set (`false`).
    pub ecs_warm_pool_reuse_on_scale_in: bool,
    /// An instance refresh's minimum healthy percentage when none is given.
    pub instance_refresh_min_healthy_percentage_default: u32,
    /// What an instance refresh waits when it has no `instance_warmup` of its own.
    pub instance_warmup_fallback: String,
    /// The AWS provider's default `health_check_grace_period`, in seconds.
    pub health_check_grace_period_provider_default: u32,
    /// The AWS provider's default `protect_from_scale_in`.
    pub protect_from_scale_in_provider_default: bool,
    pub sources: Vec<String>,
}

/// ECS Anywhere GPU facts (source keys ECS-GPU, ECS-GPU-SPEC, BOTO).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnywhereFacts {
    /// The registration script's flag that enables GPU support on an external instance.
    pub gpu_registration_flag: String,
    /// Fractional GPU values are not available on ECS Anywhere.
    pub fractional_gpu: bool,
    /// The MPS `sharingStrategy` is not available to EXTERNAL task definitions.
    pub mps_sharing: bool,
    pub sources: Vec<String>,
}

/// ECS Managed Instances GPU facts (source keys ECS-MI-GPU, ECS-GPU-SPEC, BOTO).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManagedInstancesFacts {
    pub doc_subset_families: Vec<String>,
    pub drivers: String,
    pub fractional_gpu: String,
    pub neuron_device: String,
    /// The values of `instanceRequirements.acceleratorTypes` (`gpu`, `fpga`, `inference`).
    pub accelerator_types: Vec<String>,
    /// The values of `instanceRequirements.acceleratorManufacturers` (`nvidia`, `amd`, ...).
    pub accelerator_manufacturers: Vec<String>,
    /// The values of `instanceRequirements.acceleratorNames` that name an NVIDIA GPU (`a10g`, `t4`,
    /// ...): the API's names that the curated table gives for an NVIDIA type's GPU.
    pub nvidia_accelerator_names: Vec<String>,
    pub sources: Vec<String>,
}

impl ManagedInstancesFacts {
    /// The `acceleratorTypes` value of GPUs.
    pub const GPU_ACCELERATOR_TYPE: &'static str = "gpu";
    /// The `acceleratorManufacturers` value of NVIDIA.
    pub const NVIDIA_MANUFACTURER: &'static str = "nvidia";
}

pub(crate) fn load(json: &str) -> Result<Catalog, DataError> {
    let raw: Raw = serde_json::from_str(json).map_err(|e| DataError(e.to_string()))?;

    let mut families = Vec::new();
    for f in raw.families {
        let Some(status) = EcsStatus::parse(&f.status) else {
            return err(format!(
                "family {}: unknown status {:?}",
                f.family, f.status
            ));
        };
        families.push(Family {
            name: f.family,
            status,
            reason: f.reason,
            available: f.available,
            gpu: f.gpu,
            ecs_note: f.ecs_note,
            sources: f.sources,
        });
    }

    let mut instance_types = Vec::new();
    let mut by_name = BTreeMap::new();
    for t in raw.instance_types {
        let name = t.instance_type;
        let gpu_vendor = match t.gpu_vendor.as_str() {
            "NVIDIA" => GpuVendor::Nvidia,
            "AMD" => GpuVendor::Amd,
            v => return err(format!("{name}: unknown GPU vendor {v:?}")),
        };
        let gpus = match (t.gpu_count, t.gpu_fraction) {
            (None, None) => Gpus::Unknown,
            (Some(0), Some(x)) => match GpuFraction::from_f64(x) {
                Some(f) => Gpus::Fraction(f),
                None => {
                    return err(format!(
                        "{name}: GPU fraction {x} is not 0.125, 0.25 or 0.5"
                    ))
                }
            },
            (Some(n), None) if n >= 1 => Gpus::Whole(n),
            (c, f) => {
                return err(format!(
                    "{name}: inconsistent gpu_count {c:?} / gpu_fraction {f:?}"
                ))
            }
        };
        let architecture = match t.architecture.as_deref() {
            None => None,
            Some(a) => match Architecture::parse(a) {
                Some(a) => Some(a),
                None => return err(format!("{name}: unknown architecture {a:?}")),
            },
        };
        let Some(family) = families.iter().find(|f| f.name == t.family) else {
            return err(format!("{name}: family {} has no status", t.family));
        };
        if by_name.insert(name.clone(), instance_types.len()).is_some() {
            return err(format!("{name}: listed twice"));
        }
        instance_types.push(InstanceType {
            ecs_status: family.status,
            name,
            family: t.family,
            gpu_vendor,
            gpus,
            gpu_model: t.gpu_model,
            gpu_memory_mib: t.gpu_memory_mib,
            vcpus: t.vcpus,
            memory_mib: t.memory_mib,
            architecture,
            sources: t.sources,
            unverified: t.unverified,
        });
    }

    let ec2_names: BTreeSet<String> = raw.ec2.instance_types.iter().cloned().collect();
    Ok(Catalog {
        sources: raw.sources,
        families,
        instance_types,
        by_name,
        ec2_names,
        ami: AmiFacts {
            ecs_parameter_prefix: raw.ami.ecs_parameter_prefix,
            gpu_parameters: raw.ami.gpu_parameters,
            recommended_parameter: raw.ami.recommended_parameter,
            version_pinned_form: raw.ami.version_pinned_form,
            arm64_gpu_parameter: raw.ami.arm64_gpu_parameter,
            gpu_ami_name_prefixes: raw.ami.gpu_ami_name_prefixes,
            ecs_ami_name_prefixes: raw.ami.ecs_ami_name_prefixes,
            amazon_owner_alias: raw.ami.amazon_owner_alias,
            amazon_owner_alias_note: raw.ami.amazon_owner_alias_note,
            note: raw.ami.note,
            sources: raw.ami.sources,
        },
        agent: raw.agent,
        capabilities: raw.nvidia_driver_capabilities,
        gpu_requirement: raw.gpu_requirement,
        fargate: raw.fargate,
        query_language: raw.query_language,
        managed_instances: raw.managed_instances,
        anywhere: raw.anywhere,
        autoscaling: raw.autoscaling,
        ec2: raw.ec2,
        task_cpu_units_range_ec2: raw.task_cpu_units_range_ec2,
        market: raw.market,
        efa: raw.efa,
        vgpu: raw.vgpu,
        drivers: raw.drivers.into(),
    })
}
