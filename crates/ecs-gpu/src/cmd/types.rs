//! `ecs-gpu types`: list and filter the GPU instance catalog.

use std::io::Write;

use anyhow::{bail, Result};
use ecs_gpu_catalog::{catalog, render, Architecture, EcsStatus, Filter, InstanceType, Lookup};

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ecs-gpu types g5.12xlarge\n  ecs-gpu types --family g6e --min-gpus 4\n  ecs-gpu types --gpu-model l4 --supported --format json\n\nGPU memory is per GPU (per partition on g6f/gr6f) in MiB as the EC2 API reports it, which is below the advertised size for several GPUs (A10G: 22888 MiB for \"24 GB\"). Numbers no source gives (p6e-gb200) are shown as unknown and never match a numeric filter. GPU names of types that came from Karpenter's DescribeInstanceTypes rendering (g7, g7e) are in its lower-case form. An `unverified` ECS status means no source says how ECS GPU support treats the family; `no-ecs-gpu-ami-driver` (g7) that its GPU needs a newer NVIDIA driver than any ECS GPU-optimized AMI release ships. A named type's details give the driver its family needs and the driver of the newest ECS GPU AMI releases (docs/drivers.md)."
)]
pub struct Args {
    /// Instance types to show, by exact name (for example g5.12xlarge). Without names, every type that passes the filters.
    #[arg(value_name = "INSTANCE_TYPE")]
    names: Vec<String>,
    /// Only this family (g5, g6e, p5, ...).
    #[arg(long, value_name = "FAMILY")]
    family: Option<String>,
    /// Only types with at least N whole GPUs (fractional g6f/gr6f types have 0).
    #[arg(long, value_name = "N")]
    min_gpus: Option<u32>,
    /// Only types with at least this much GPU memory per GPU, in GiB (EC2 API figure).
    #[arg(long, value_name = "GIB")]
    min_gpu_memory: Option<f64>,
    /// Only this GPU model, by word (l4 matches NVIDIA L4, not L40S; a10g, h100, t4, ...).
    #[arg(long, value_name = "MODEL")]
    gpu_model: Option<String>,
    /// Only this CPU architecture.
    #[arg(long, value_enum)]
    arch: Option<ArchArg>,
    /// Only types usable with the current ECS GPU-optimized AMI (excludes g2, p2, g4ad, g5g, p6e-gb200, g7, and unverified families such as g7e).
    #[arg(long)]
    supported: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ArchArg {
    #[value(name = "x86_64")]
    X86_64,
    Arm64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// An aligned table.
    Human,
    /// `{"version": 1, "command": "types", "instance_types": [...]}`.
    Json,
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let cat = catalog();
    let filter = Filter {
        family: args.family.clone(),
        min_gpus: args.min_gpus,
        min_gpu_memory_mib: match args.min_gpu_memory {
            Some(g) if !(g.is_finite() && g >= 0.0) => {
                bail!("--min-gpu-memory {g}: give a number of GiB, 0 or more")
            }
            // Whole MiB: GiB × 1024, rounded up so 22.4 GiB does not admit 22.35 GiB.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(g) => Some((g * 1024.0).ceil() as u64),
            None => None,
        },
        gpu_model: args.gpu_model.clone(),
        architecture: args.arch.map(|a| match a {
            ArchArg::X86_64 => Architecture::X86_64,
            ArchArg::Arm64 => Architecture::Arm64,
        }),
        supported: args.supported,
    };
    if let Some(f) = &args.family {
        if cat.family(f).is_none() {
            let known: Vec<&str> = cat.families().iter().map(|f| f.name.as_str()).collect();
            bail!(
                "unknown GPU family `{f}`; known families: {}",
                known.join(", ")
            );
        }
    }

    let types: Vec<&InstanceType> = if args.names.is_empty() {
        cat.filter(&filter).collect()
    } else {
        let mut found = Vec::new();
        for name in &args.names {
            found.push(resolve(name)?);
        }
        found.into_iter().filter(|t| filter.matches(t)).collect()
    };

    match args.format {
        Format::Json => render::json(out, &types)?,
        Format::Human => render::human(out, &types, !args.names.is_empty())?,
    }
    Ok(Outcome::Clean)
}

/// An exact name, or an error that says what the name is and suggests the nearest ones.
fn resolve(name: &str) -> Result<&'static InstanceType> {
    let cat = catalog();
    match cat.lookup(name) {
        Lookup::Known(t) => Ok(t),
        Lookup::NoGpu => bail!("`{name}` is an EC2 instance type without a GPU"),
        Lookup::Unknown { family } => {
            let suggestions = cat.suggest(name, 3);
            let hint = match suggestions.as_slice() {
                [] => String::new(),
                [one] => format!("; did you mean {one}?"),
                many => format!("; did you mean {}?", many.join(", ")),
            };
            match family {
                Some(f)
                    if f.status != EcsStatus::Supported
                        && !cat.instance_types().iter().any(|t| t.family == f.name) =>
                {
                    bail!(
                        "unknown instance type `{name}`: family {} is {} for ECS GPU ({}){hint}",
                        f.name,
                        f.status,
                        f.reason
                            .as_deref()
                            .unwrap_or("see the ECS GPU documentation")
                    )
                }
                _ => bail!("unknown instance type `{name}`: not in the GPU catalog{hint}"),
            }
        }
    }
}
