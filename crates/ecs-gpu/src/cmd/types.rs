//! `ecs-gpu types`: list and filter the GPU instance catalog.

use std::io::Write;

use anyhow::{bail, Result};
use ecs_gpu_catalog::{catalog, Architecture, EcsStatus, Filter, Gpus, InstanceType, Lookup};
use serde::Serialize;

use crate::Outcome;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  ecs-gpu types g5.12xlarge\n  ecs-gpu types --family g6e --min-gpus 4\n  ecs-gpu types --gpu-model l4 --supported --format json\n\nGPU memory is per GPU (per partition on g6f/gr6f) in MiB as the EC2 API reports it, which is below the advertised size for several GPUs (A10G: 22888 MiB for \"24 GB\"). Numbers no source gives (p6e-gb200) are shown as unknown and never match a numeric filter. GPU names of types that came from Karpenter's DescribeInstanceTypes rendering (g7, g7e) are in its lower-case form. An `unverified` ECS status means no source says how ECS GPU support treats the family."
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
    /// Only types usable with the current ECS GPU-optimized AMI (excludes g2, p2, g4ad, g5g, p6e-gb200, and unverified families such as g7 and g7e).
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
    /// An array of objects.
    Json,
}

/// The JSON shape of one instance type.
#[derive(Debug, Serialize)]
struct Row<'a> {
    instance_type: &'a str,
    family: &'a str,
    gpu_vendor: String,
    gpu_count: Option<u32>,
    gpu_fraction: Option<&'static str>,
    gpu_model: Option<&'a str>,
    gpu_memory_mib: Option<u32>,
    vcpus: Option<u32>,
    cpu_units: Option<u32>,
    memory_mib: Option<u64>,
    architecture: Option<&'static str>,
    ecs_status: &'static str,
    ecs_status_reason: Option<&'a str>,
    ecs_gpu_value: Option<String>,
    unverified: &'a [String],
    sources: &'a std::collections::BTreeMap<String, Vec<String>>,
}

impl<'a> Row<'a> {
    fn new(t: &'a InstanceType) -> Self {
        let reason = catalog()
            .family(&t.family)
            .and_then(|f| f.reason.as_deref());
        Row {
            instance_type: &t.name,
            family: &t.family,
            gpu_vendor: t.gpu_vendor.to_string(),
            gpu_count: t.gpus.count(),
            gpu_fraction: t.gpus.fraction().map(|f| f.as_str()),
            gpu_model: t.gpu_model.as_deref(),
            gpu_memory_mib: t.gpu_memory_mib,
            vcpus: t.vcpus,
            cpu_units: t.cpu_units(),
            memory_mib: t.memory_mib,
            architecture: t.architecture.map(Architecture::as_str),
            ecs_status: t.ecs_status.as_str(),
            ecs_status_reason: reason,
            ecs_gpu_value: t.ecs_gpu_value(),
            unverified: &t.unverified,
            sources: &t.sources,
        }
    }
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
        Format::Json => {
            let rows: Vec<Row<'_>> = types.iter().map(|t| Row::new(t)).collect();
            serde_json::to_writer_pretty(&mut *out, &rows)?;
            writeln!(out)?;
        }
        Format::Human => {
            write_table(out, &types)?;
            if !args.names.is_empty() {
                for t in &types {
                    write_detail(out, t)?;
                }
            }
        }
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

fn gpus_cell(t: &InstanceType) -> String {
    match t.gpus {
        Gpus::Whole(n) => n.to_string(),
        Gpus::Fraction(f) => f.as_str().to_string(),
        Gpus::Unknown => "unknown".to_string(),
    }
}

fn gib(mib: u64) -> String {
    let g = mib as f64 / 1024.0;
    if g.fract() == 0.0 {
        format!("{g:.0}")
    } else {
        format!("{g:.1}")
    }
}

fn cell<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

fn write_table(out: &mut dyn Write, types: &[&InstanceType]) -> Result<()> {
    let header = [
        "INSTANCE TYPE",
        "GPUS",
        "GPU MODEL",
        "GPU MEM/GPU (GiB)",
        "VCPUS",
        "MEMORY (GiB)",
        "ARCH",
        "ECS STATUS",
    ];
    let rows: Vec<[String; 8]> = types
        .iter()
        .map(|t| {
            [
                t.name.clone(),
                gpus_cell(t),
                cell(t.gpu_model.as_deref()),
                cell(t.gpu_memory_mib.map(|m| gib(u64::from(m)))),
                cell(t.vcpus),
                cell(t.memory_mib.map(gib)),
                cell(t.architecture),
                t.ecs_status.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    // Numbers right-aligned, text left-aligned.
    let right = [false, true, false, true, true, true, false, false];
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = widths[i].saturating_sub(c.chars().count());
            if right[i] {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                if i + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        s
    };
    writeln!(out, "{}", line(&header.map(String::from)))?;
    for r in &rows {
        writeln!(out, "{}", line(r))?;
    }
    writeln!(
        out,
        "{} instance type{}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    )?;
    Ok(())
}

fn write_detail(out: &mut dyn Write, t: &InstanceType) -> Result<()> {
    let cat = catalog();
    writeln!(out)?;
    let gpus = match t.gpus {
        Gpus::Whole(n) => format!("{n} × {}", cell(t.gpu_model.as_deref())),
        Gpus::Fraction(f) => format!("{f} of one {}", cell(t.gpu_model.as_deref())),
        Gpus::Unknown => "GPUs unknown (unverified)".to_string(),
    };
    writeln!(out, "{}: {gpus}", t.name)?;
    if let Some(m) = t.gpu_memory_mib {
        writeln!(out, "  GPU memory      {m} MiB per GPU (EC2 API)")?;
    }
    if let (Some(v), Some(u)) = (t.vcpus, t.cpu_units()) {
        writeln!(out, "  vCPUs           {v} ({u} ECS CPU units)")?;
    }
    if let (Some(m), Some(r)) = (t.memory_mib, t.max_registrable_memory_mib()) {
        writeln!(
            out,
            "  memory          {m} MiB (EC2); the ECS agent registers at most {r} MiB"
        )?;
    }
    if let Some(v) = t.ecs_gpu_value() {
        writeln!(
            out,
            "  GPU value       \"{v}\" in resourceRequirements takes the whole instance"
        )?;
    }
    let family = cat.family(&t.family);
    write!(out, "  ECS status      {}", t.ecs_status)?;
    match family.and_then(|f| f.reason.as_deref()) {
        Some(r) => writeln!(out, ": {r}")?,
        None => writeln!(out)?,
    }
    let vgpu = &cat.vgpu;
    if vgpu.is_vgpu_family(&t.family) {
        writeln!(
            out,
            "  vGPU            ECS on EC2 needs the {} ECS GPU AMI (its GRID driver), release {} or later, from its SSM parameter (not the Marketplace copy); no MPS sharing",
            vgpu.ami_variants
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            vgpu.min_ami_release
        )?;
        if vgpu.needs_memory_overcommit(&t.name) {
            writeln!(
                out,
                "                  user data must set `{} = {}`",
                vgpu.memory_overcommit_setting, vgpu.memory_overcommit_value
            )?;
        }
    }
    if !t.unverified.is_empty() {
        writeln!(out, "  unverified      {}", t.unverified.join(", "))?;
    }
    // The sources of every fact shown: the type's fields, its family's status, the vGPU facts.
    let mut keys: Vec<&str> = t.sources.values().flatten().map(String::as_str).collect();
    if let Some(f) = family.filter(|f| f.status != EcsStatus::Supported || f.reason.is_some()) {
        keys.extend(f.sources.iter().map(String::as_str));
    }
    if vgpu.is_vgpu_family(&t.family) {
        keys.extend(vgpu.sources.iter().map(String::as_str));
    }
    keys.sort_unstable();
    keys.dedup();
    writeln!(out, "  sources         {}", keys.join(", "))?;
    Ok(())
}
