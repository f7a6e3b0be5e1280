//! The catalog as `ecs-gpu types` prints it: an aligned table (with each named type's facts and
//! their sources) and the `--format json` document (docs/json.md).

use std::io::{self, Write};

use serde::Serialize;

use crate::{catalog, Architecture, EcsStatus, Gpus, InstanceType};

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
