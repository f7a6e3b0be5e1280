//! The catalog as `ecs-gpu types` prints it: an aligned table (with each named type's facts and
//! their sources) and the `--format json` document (docs/json.md).

use std::io::{self, Write};

use serde::Serialize;

use crate::{catalog, AmiRelease, Architecture, EcsStatus, Gpus, InstanceType, Support};

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
    available: Option<&'a str>,
    ecs_gpu_value: Option<String>,
    /// What the sources say of the driver branches the family can use (`null`: nothing).
    driver_needs: Option<DriverNeedsRow<'a>>,
    /// The driver of the newest release of each ECS GPU AMI variant, and whether it drives the
    /// type's GPU (`[]` for a type no ECS GPU AMI applies to: not NVIDIA, or arm64).
    ecs_gpu_ami_drivers: Vec<AmiDriverRow<'a>>,
    unverified: &'a [String],
    sources: &'a std::collections::BTreeMap<String, Vec<String>>,
}

/// The JSON shape of a family's driver needs.
#[derive(Debug, Serialize)]
struct DriverNeedsRow<'a> {
    summary: String,
    note: &'a str,
    sources: &'a [String],
}

/// The JSON shape of one ECS GPU AMI variant's driver, for a type.
#[derive(Debug, Serialize)]
struct AmiDriverRow<'a> {
    variant: &'a str,
    release: &'a str,
    nvidia_driver: String,
    cuda: Option<String>,
    /// `yes`, `no` or `unknown`.
    drives: &'static str,
    sources: &'a [String],
}

/// The newest release of each ECS GPU AMI variant, with whether its driver drives the type's GPU;
/// none for a type no ECS GPU AMI applies to (not NVIDIA, or arm64).
fn ami_drivers(t: &InstanceType) -> Vec<(&'static AmiRelease, Support)> {
    let cat = catalog();
    if !t.is_nvidia() || t.architecture == Some(Architecture::Arm64) {
        return Vec::new();
    }
    cat.ami
        .gpu_parameters
        .iter()
        .filter_map(|p| cat.drivers.newest_release(&p.variant))
        .map(|r| (r, cat.drivers.family_supports(&t.family, &r.driver)))
        .collect()
}

fn support_word(s: Support) -> &'static str {
    match s {
        Support::Yes => "yes",
        Support::No => "no",
        Support::Unknown => "unknown",
    }
}

impl<'a> Row<'a> {
    fn new(t: &'a InstanceType) -> Self {
        let family = catalog().family(&t.family);
        let reason = family.and_then(|f| f.reason.as_deref());
        let needs = catalog().drivers.family_needs(&t.family);
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
            available: family.and_then(|f| f.available.as_deref()),
            ecs_gpu_value: t.ecs_gpu_value(),
            driver_needs: needs.map(|n| DriverNeedsRow {
                summary: n.describe(),
                note: &n.note,
                sources: &n.sources,
            }),
            ecs_gpu_ami_drivers: ami_drivers(t)
                .into_iter()
                .map(|(r, s)| AmiDriverRow {
                    variant: &r.variant,
                    release: &r.release,
                    nvidia_driver: r.driver.to_string(),
                    cuda: catalog()
                        .drivers
                        .cuda_of_driver(&r.driver)
                        .map(|c| c.to_string()),
                    drives: support_word(s),
                    sources: &r.sources,
                })
                .collect(),
            unverified: &t.unverified,
            sources: &t.sources,
        }
    }
}

/// Writes the `--format json` document: `{"version": 1, "command": "types", "instance_types"}`.
pub fn json(out: &mut dyn Write, types: &[&InstanceType]) -> io::Result<()> {
    let rows: Vec<Row<'_>> = types.iter().map(|t| Row::new(t)).collect();
    let document = serde_json::json!({"version": 1, "command": "types", "instance_types": rows});
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

/// Writes the types as an aligned table and, with `detail`, each type's facts with their sources.
pub fn human(out: &mut dyn Write, types: &[&InstanceType], detail: bool) -> io::Result<()> {
    write_table(out, types)?;
    if detail {
        for t in types {
            write_detail(out, t)?;
        }
    }
    Ok(())
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

fn write_table(out: &mut dyn Write, types: &[&InstanceType]) -> io::Result<()> {
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
                // A fractional type's share as ECS takes it (`0.125`), not the `0` of the filters.
                t.gpus
                    .fraction()
                    .map_or_else(|| cell(t.gpus.count()), |f| f.as_str().into()),
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

fn write_detail(out: &mut dyn Write, t: &InstanceType) -> io::Result<()> {
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
    if let Some(a) = family.and_then(|f| f.available.as_deref()) {
        writeln!(out, "  available       {a} (general availability)")?;
    }
    let needs = cat.drivers.family_needs(&t.family);
    if let Some(n) = needs {
        writeln!(out, "  NVIDIA driver   {}: {}", n.describe(), n.note)?;
    }
    let amis = ami_drivers(t);
    if !amis.is_empty() {
        let shipped: Vec<String> = amis
            .iter()
            .map(|(r, s)| {
                let cuda = cat
                    .drivers
                    .cuda_of_driver(&r.driver)
                    .map_or(String::new(), |c| format!(", CUDA {c}"));
                let drives = if needs.is_some() {
                    format!(", drives it: {}", support_word(*s))
                } else {
                    String::new()
                };
                format!("{} {} ({}{cuda}{drives})", r.variant, r.driver, r.release)
            })
            .collect();
        writeln!(
            out,
            "  ECS GPU AMI     newest releases the catalog knows: {}",
            shipped.join("; ")
        )?;
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
    if let Some(n) = needs {
        keys.extend(n.sources.iter().map(String::as_str));
    }
    for (r, _) in &amis {
        keys.extend(r.sources.iter().map(String::as_str));
    }
    keys.sort_unstable();
    keys.dedup();
    writeln!(out, "  sources         {}", keys.join(", "))?;
    Ok(())
}
