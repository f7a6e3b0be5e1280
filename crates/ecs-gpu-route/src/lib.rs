//! The service-boundary router: is ECS the right home for a workload, and which kind of ECS?
//!
//! A [`Workload`] states what the workload needs (an accelerator, Kubernetes primitives, a managed
//! model API, Windows, Fargate, on-premises hosts, who owns the EC2 lifecycle). [`route`] gives the
//! [`Home`] with its reasons, each tied to a fact of the catalog (its source key in parentheses),
//! the guardrails that apply there, and how to [`Deploy`] it: this repository's Terraform module
//! for that home, or why there is none. A GPU workload is never routed to Fargate.
//!
//! ```
//! use ecs_gpu_route::{route, Accelerator, Home, Workload};
//!
//! let w = Workload { accelerator: Accelerator::Gpu, fargate: true, ..Workload::default() };
//! let r = route(&w);
//! assert_eq!(r.home, Home::EcsEc2);
//! assert!(r.reasons.iter().any(|s| s.contains("Fargate")));
//! assert_eq!(r.deploy.module, Some("terraform/ecs-gpu-task"));
//! ```

use std::fmt;

use ecs_gpu_catalog::{catalog, EcsStatus};
use serde::Deserialize;

/// The accelerator a workload needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Accelerator {
    /// NVIDIA GPUs.
    Gpu,
    /// AWS Inferentia/Trainium (Neuron devices).
    Neuron,
    /// CPU only.
    #[default]
    None,
}

/// Who should own the EC2 instances' lifecycle (AMI, patching, scaling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ec2Lifecycle {
    /// The team: launch templates, Auto Scaling groups, AMI updates.
    Own,
    /// AWS: ECS Managed Instances.
    Aws,
}

/// A Kubernetes primitive a workload relies on. Naming one routes to EKS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum K8sPrimitive {
    Karpenter,
    Kuberay,
    Kserve,
    DevicePlugins,
    Mig,
    TimeSlicing,
    Dra,
    Volcano,
    Kueue,
    EksEstate,
}

impl K8sPrimitive {
    pub const ALL: [K8sPrimitive; 10] = [
        K8sPrimitive::Karpenter,
        K8sPrimitive::Kuberay,
        K8sPrimitive::Kserve,
        K8sPrimitive::DevicePlugins,
        K8sPrimitive::Mig,
        K8sPrimitive::TimeSlicing,
        K8sPrimitive::Dra,
        K8sPrimitive::Volcano,
        K8sPrimitive::Kueue,
        K8sPrimitive::EksEstate,
    ];

    /// The name used on the command line and in workload files.
    pub fn as_str(self) -> &'static str {
        match self {
            K8sPrimitive::Karpenter => "karpenter",
            K8sPrimitive::Kuberay => "kuberay",
            K8sPrimitive::Kserve => "kserve",
            K8sPrimitive::DevicePlugins => "device-plugins",
            K8sPrimitive::Mig => "mig",
            K8sPrimitive::TimeSlicing => "time-slicing",
            K8sPrimitive::Dra => "dra",
            K8sPrimitive::Volcano => "volcano",
            K8sPrimitive::Kueue => "kueue",
            K8sPrimitive::EksEstate => "eks-estate",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        K8sPrimitive::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// How people name it.
    fn label(self) -> &'static str {
        match self {
            K8sPrimitive::Karpenter => "Karpenter",
            K8sPrimitive::Kuberay => "KubeRay/Ray Serve",
            K8sPrimitive::Kserve => "KServe",
            K8sPrimitive::DevicePlugins => "device plugins",
            K8sPrimitive::Mig => "MIG",
            K8sPrimitive::TimeSlicing => "GPU time-slicing",
            K8sPrimitive::Dra => "DRA",
            K8sPrimitive::Volcano => "Volcano gang scheduling",
            K8sPrimitive::Kueue => "Kueue",
            K8sPrimitive::EksEstate => "an existing EKS estate",
        }
    }

    /// GPU-sharing primitives: ECS has no counterpart in its GPU values.
    fn is_gpu_sharing(self) -> bool {
        matches!(
            self,
            K8sPrimitive::Mig | K8sPrimitive::TimeSlicing | K8sPrimitive::Dra
        )
    }
}

/// What a workload needs. The same keys are read from a workload TOML file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Workload {
    pub accelerator: Accelerator,
    /// A managed model API (Amazon Bedrock) is enough: nothing needs to be self-hosted.
    pub managed_model_api: bool,
    /// Kubernetes primitives the workload relies on.
    pub kubernetes: Vec<K8sPrimitive>,
    /// Fully managed training or hosting is wanted (Amazon SageMaker).
    pub managed_ml: bool,
    /// The containers are Windows containers.
    pub windows: bool,
    /// Fargate was asked for.
    pub fargate: bool,
    /// The hosts are on premises.
    pub on_premises: bool,
    /// Who owns the EC2 lifecycle; `None` when there is no preference.
    pub ec2_lifecycle: Option<Ec2Lifecycle>,
}

/// Why a workload file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WorkloadError {
    pub message: String,
    /// 1-based line, when the error has a place.
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// The largest workload file read: a workload is a handful of keys, and a bound keeps `--from
/// /dev/zero` or a huge file from filling memory.
pub const MAX_WORKLOAD_BYTES: u64 = 1024 * 1024;

impl Workload {
    /// Reads a workload file: a regular file of at most [`MAX_WORKLOAD_BYTES`] (through the
    /// bounded opener of every command, [`ecs_gpu_fs`]), TOML.
    pub fn from_file(path: &std::path::Path) -> Result<Workload, WorkloadError> {
        let plain = |message: String| WorkloadError {
            message,
            line: None,
            column: None,
        };
        let bytes = ecs_gpu_fs::read(path, MAX_WORKLOAD_BYTES).map_err(|e| {
            plain(match e {
                ecs_gpu_fs::FileError::NotRegular(kind) => {
                    format!("not a regular file ({kind}): give a workload file")
                }
                ecs_gpu_fs::FileError::TooLarge { .. } => format!(
                    "larger than {} KiB, too large for a workload file",
                    MAX_WORKLOAD_BYTES / 1024
                ),
                ecs_gpu_fs::FileError::Read(e) => io_text(&e),
                e => e.to_string(),
            })
        })?;
        let text = String::from_utf8(bytes).map_err(|_| plain("not UTF-8 text".to_string()))?;
        Workload::from_toml(&text)
    }

    /// Reads a workload from TOML text with the same keys as the struct.
    pub fn from_toml(text: &str) -> Result<Workload, WorkloadError> {
        toml::from_str(text).map_err(|e| {
            let (line, column) = match e.span() {
                Some(span) => {
                    let before = &text[..span.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                    (Some(line), Some(column))
                }
                None => (None, None),
            };
            WorkloadError {
                message: e.message().to_string(),
                line,
                column,
            }
        })
    }
}

/// An I/O error in words, without the OS error number.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let t = e.to_string();
            t.find(" (os error")
                .map_or(t.clone(), |i| t[..i].to_string())
        }
    }
}

/// Where a workload should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    EcsEc2,
    EcsManagedInstances,
    EcsAnywhere,
    Eks,
    Sagemaker,
    Bedrock,
    /// Only for CPU-only workloads.
    Fargate,
}

impl Home {
    pub fn as_str(self) -> &'static str {
        match self {
            Home::EcsEc2 => "ecs-ec2",
            Home::EcsManagedInstances => "ecs-managed-instances",
            Home::EcsAnywhere => "ecs-anywhere",
            Home::Eks => "eks",
            Home::Sagemaker => "sagemaker",
            Home::Bedrock => "bedrock",
            Home::Fargate => "fargate",
        }
    }

    /// A short description for people.
    pub fn describe(self) -> &'static str {
        match self {
            Home::EcsEc2 => "Amazon ECS on EC2 container instances you run",
            Home::EcsManagedInstances => "Amazon ECS Managed Instances",
            Home::EcsAnywhere => "Amazon ECS Anywhere on your own hosts",
            Home::Eks => "Amazon EKS",
            Home::Sagemaker => "Amazon SageMaker",
            Home::Bedrock => "Amazon Bedrock",
            Home::Fargate => "AWS Fargate",
        }
    }
}

impl fmt::Display for Home {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The Terraform module of this repository for GPU tasks on ECS on EC2 (launch template, Auto
/// Scaling group, capacity provider, task definition, service).
pub const EC2_MODULE: &str = "terraform/ecs-gpu-task";
/// The Terraform module of this repository for GPU tasks on ECS Managed Instances (capacity
/// provider with NVIDIA instance requirements, task definition, service).
pub const MANAGED_INSTANCES_MODULE: &str = "terraform/ecs-gpu-managed-instances";

/// How to build the home: this repository's module for it, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deploy {
    /// The module's path in this repository; `None` when no module here builds the home.
    pub module: Option<&'static str>,
    /// What the module builds, or why there is none.
    pub note: &'static str,
}

impl Deploy {
    /// The module for a home and accelerator. Both modules build NVIDIA GPU capacity only.
    pub fn for_home(home: Home, accelerator: Accelerator) -> Deploy {
        let none = |note| Deploy { module: None, note };
        match (home, accelerator) {
            (Home::EcsEc2, Accelerator::Gpu) => Deploy {
                module: Some(EC2_MODULE),
                note: "the EC2 capacity mode: GPU AMI, launch template, Auto Scaling group, capacity provider, task definition and service",
            },
            (Home::EcsManagedInstances, Accelerator::Gpu) => Deploy {
                module: Some(MANAGED_INSTANCES_MODULE),
                note: "the Managed Instances capacity mode: capacity provider selecting NVIDIA GPU types, infrastructure role, instance profile, task definition and service",
            },
            (Home::EcsManagedInstances, Accelerator::Neuron) => none(
                "terraform/ecs-gpu-managed-instances selects NVIDIA GPUs only, not Neuron devices",
            ),
            (Home::EcsEc2 | Home::EcsManagedInstances, _) => none(
                "the modules build GPU capacity; a CPU-only service needs none of their GPU links",
            ),
            (Home::EcsAnywhere, _) => none(
                "the hosts are yours: register them with ECS Anywhere and run an EXTERNAL task definition",
            ),
            (Home::Eks | Home::Sagemaker | Home::Bedrock, _) => {
                none("ecs-gpu builds only ECS capacity")
            }
            (Home::Fargate, _) => none("Fargate has no instances to build"),
        }
    }
}

/// The answer: a home, why, what to watch there, and how to build it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub home: Home,
    /// Each reason ends with the source keys of the facts it rests on, in parentheses, where it
    /// rests on one.
    pub reasons: Vec<String>,
    pub guardrails: Vec<String>,
    pub deploy: Deploy,
}

/// `"text (KEY, KEY)"` with the keys of a catalog fact.
fn cite(text: impl Into<String>, keys: &[String]) -> String {
    let text = text.into();
    if keys.is_empty() {
        text
    } else {
        format!("{text} ({})", keys.join(", "))
    }
}

fn keys(k: &[&str]) -> Vec<String> {
    k.iter().map(|s| (*s).to_string()).collect()
}

/// Decides the home of a workload. Pure: the same workload always gives the same route.
pub fn route(w: &Workload) -> Route {
    let cat = catalog();
    let mut reasons = Vec::new();
    let mut guardrails = Vec::new();
    let needs_accelerator = w.accelerator != Accelerator::None;

    // A GPU or Neuron workload asked onto Fargate: say why not, whatever the home turns out to be.
    if needs_accelerator && w.fargate {
        let sizes: Vec<String> = cat
            .fargate
            .sizes()
            .iter()
            .map(|(cpu, _)| cpu.to_string())
            .collect();
        reasons.push(cite(
            format!(
                "not Fargate: Fargate task sizes have only CPU ({} units) and memory, no GPU dimension, and the GPU resourceRequirements parameter is not valid on Fargate",
                sizes.join("/")
            ),
            &cat.fargate.sources,
        ));
    }

    let home = if w.managed_model_api {
        reasons.push(
            "a managed model API is enough: with nothing to self-host there is no GPU capacity, AMI, driver or placement to run"
                .to_string(),
        );
        Home::Bedrock
    } else if w.managed_ml {
        reasons.push(
            "fully managed training or hosting was asked for: SageMaker runs the instances, drivers and scaling"
                .to_string(),
        );
        Home::Sagemaker
    } else if !w.kubernetes.is_empty() {
        let named: Vec<&str> = w.kubernetes.iter().map(|p| p.label()).collect();
        reasons.push(format!(
            "the workload relies on Kubernetes primitives ({}) that have no ECS counterpart",
            named.join(", ")
        ));
        if w.kubernetes.iter().any(|p| p.is_gpu_sharing()) {
            reasons.push(cite(
                format!(
                    "ECS GPU requirements take only whole GPUs, `{}`, the fractions {} on g6f/gr6f, or an MPS sharingStrategy: there is no MIG profile, time-slicing or DRA",
                    cat.gpu_requirement.all,
                    cat.gpu_requirement.fractions.join("/")
                ),
                &cat.gpu_requirement.sources,
            ));
        }
        Home::Eks
    } else if w.on_premises && w.accelerator != Accelerator::Neuron {
        reasons.push(cite(
            format!(
                "the hosts are on premises: ECS Anywhere runs tasks on external instances; GPU hosts register with `{}`",
                cat.anywhere.gpu_registration_flag
            ),
            &cat.anywhere.sources,
        ));
        Home::EcsAnywhere
    } else {
        match w.accelerator {
            Accelerator::Neuron => {
                reasons.push(cite(
                    format!(
                        "Neuron accelerators: {}",
                        cat.managed_instances.neuron_device.to_lowercase()
                    ),
                    &cat.managed_instances.sources,
                ));
                if w.on_premises {
                    guardrails.push(
                        "on-premises hosts cannot offer the NeuronDevice resource to ECS"
                            .to_string(),
                    );
                }
                if w.ec2_lifecycle == Some(Ec2Lifecycle::Own) {
                    guardrails.push(
                        "owning the EC2 lifecycle means giving up the NeuronDevice resource requirement, which only Managed Instances offer"
                            .to_string(),
                    );
                }
                Home::EcsManagedInstances
            }
            Accelerator::Gpu => {
                if w.ec2_lifecycle == Some(Ec2Lifecycle::Aws) {
                    reasons.push(cite(
                        format!(
                            "AWS owns the EC2 lifecycle on Managed Instances: {}",
                            cat.managed_instances.drivers.to_lowercase()
                        ),
                        &cat.managed_instances.sources,
                    ));
                    Home::EcsManagedInstances
                } else {
                    reasons.push(cite(
                        "GPU resourceRequirements are placed on EC2 container instances of an NVIDIA GPU type running the ECS GPU-optimized AMI",
                        &keys(&["ECS-GPU"]),
                    ));
                    if w.ec2_lifecycle.is_none() {
                        reasons.push(cite(
                            format!("no lifecycle preference was given: ECS on EC2 keeps the AMI, driver and scaling in your hands; choose Managed Instances (`--ec2-lifecycle aws`, module `{MANAGED_INSTANCES_MODULE}`) to hand them to AWS"),
                            &cat.managed_instances.sources,
                        ));
                    }
                    Home::EcsEc2
                }
            }
            Accelerator::None => {
                if w.ec2_lifecycle == Some(Ec2Lifecycle::Own) {
                    reasons.push(
                        "CPU-only and the team wants to own the EC2 lifecycle: ECS on EC2"
                            .to_string(),
                    );
                    Home::EcsEc2
                } else {
                    reasons.push(cite(
                        "CPU-only: Fargate runs it without instances to manage, within its task sizes",
                        &cat.fargate.sources,
                    ));
                    Home::Fargate
                }
            }
        }
    };

    if needs_accelerator && w.fargate && home != Home::Fargate {
        guardrails.push(format!(
            "alternatives to Fargate for the accelerated part: {} (you own the instances; module `{EC2_MODULE}` for GPUs) or {} (AWS owns them; module `{MANAGED_INSTANCES_MODULE}` for GPUs); keep only CPU-only parts on Fargate",
            Home::EcsEc2,
            Home::EcsManagedInstances
        ));
    }
    if w.windows && needs_accelerator {
        let rule = cat
            .gpu_requirement
            .rules
            .iter()
            .find(|r| r.contains("Windows"))
            .cloned()
            .unwrap_or_else(|| "GPUs are not supported for Windows containers".to_string());
        reasons.push(cite(
            format!("Windows containers cannot reserve GPUs: {rule}"),
            &cat.gpu_requirement.sources,
        ));
        guardrails.push(
            "no GPU on Windows: run the GPU containers as Linux containers and keep the Windows parts apart"
                .to_string(),
        );
    }
    guardrails.extend(guardrails_for(home, w));
    Route {
        home,
        reasons,
        guardrails,
        deploy: Deploy::for_home(home, w.accelerator),
    }
}

fn guardrails_for(home: Home, w: &Workload) -> Vec<String> {
    let cat = catalog();
    let gpu = w.accelerator == Accelerator::Gpu;
    let mut g = Vec::new();
    let whole_gpus = cite(
        format!(
            "ECS pins whole GPUs to a task: sharing only through the fractional g6f/gr6f types ({}), the MPS sharingStrategy, or the manual dev-only recipe that makes nvidia the default Docker runtime with no GPU reservation",
            cat.gpu_requirement.fractions.join("/")
        ),
        &cat.gpu_requirement.sources,
    );
    match home {
        Home::EcsEc2 if gpu => {
            g.push(
                "one homogeneous Auto Scaling group per GPU instance type behind each capacity provider: managed scaling sizes a group that mixes GPU counts or models on its smallest type"
                    .to_string(),
            );
            g.push(whole_gpus);
            let eol = cat
                .ami
                .amazon_linux_2_end_of_life()
                .map(|d| format!("; Amazon Linux 2 ECS AMIs reached end of life on {d}"))
                .unwrap_or_default();
            g.push(cite(
                format!(
                    "resolve the AMI from `{}`{eol}",
                    cat.ami.recommended_parameter
                ),
                &cat.ami.sources,
            ));
            g.push(cite(
                format!(
                    "the agent registers GPUs only with `{}=true` (the GPU-optimized AMI sets it; keep it on in user data)",
                    cat.agent.gpu_support_variable
                ),
                &cat.agent.sources,
            ));
            g.push(
                "roll AMI and driver updates with an instance refresh on the Auto Scaling group; a new launch template version reaches only new instances otherwise"
                    .to_string(),
            );
            if let Some(r) = cat.drivers.newest_release("al2023") {
                let refused: Vec<String> = cat
                    .families()
                    .iter()
                    .filter(|f| f.status == EcsStatus::NoEcsGpuAmiDriver)
                    .map(|f| f.name.clone())
                    .collect();
                let custom = if refused.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} {} a newer driver than any ECS GPU AMI release ships, so a custom AMI",
                        refused.join(", "),
                        if refused.len() == 1 { "needs" } else { "need" }
                    )
                };
                let mut keys = r.sources.clone();
                for f in &refused {
                    if let Some(n) = cat.drivers.family_needs(f) {
                        keys.extend(n.sources.iter().cloned());
                    }
                }
                keys.sort();
                keys.dedup();
                g.push(cite(
                    format!(
                        "the AMI carries one NVIDIA driver (the AL2023 GPU AMI: {} in release {}), which moves with each AMI release: match the images' CUDA to it (`ecs-gpu check`, `ecs-gpu plan` on AMI changes){custom}",
                        r.driver, r.release
                    ),
                    &keys,
                ));
            }
        }
        Home::EcsManagedInstances if gpu => {
            g.push(whole_gpus);
            g.push(cite(
                format!(
                    "fractional GPUs: {}",
                    cat.managed_instances.fractional_gpu.to_lowercase()
                ),
                &cat.managed_instances.sources,
            ));
        }
        Home::EcsAnywhere if gpu => {
            g.push(whole_gpus);
            g.push(cite(
                "no fractional GPU values and no MPS sharingStrategy for EXTERNAL task definitions",
                &cat.anywhere.sources,
            ));
        }
        Home::Fargate => {
            g.push(cite(
                format!("no GPU on Fargate: any part that needs a GPU goes to ecs-ec2 (module `{EC2_MODULE}`) or ecs-managed-instances (module `{MANAGED_INSTANCES_MODULE}`)"),
                &cat.fargate.sources,
            ));
        }
        _ => {}
    }
    if w.windows && !gpu && home == Home::Fargate {
        g.push(cite(
            format!("Windows on Fargate: {}", cat.fargate.windows_note),
            &cat.fargate.sources,
        ));
    }
    g
}

pub mod render;

#[cfg(test)]
mod tests;
