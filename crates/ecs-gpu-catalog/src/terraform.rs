//! The Terraform modules' view of the catalog: `terraform/modules/facts/catalog.tf`, generated
//! (by `scripts/generate.sh`, whose check fails when the committed file drifts) so that the
//! modules' validations read the same facts as the checker.

use std::fmt::Write;

use crate::{Catalog, Gpus};

fn hcl_string(s: &str) -> String {
    // Terraform string literal: escape backslash, quote, and template sequences.
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out.replace("${", "$${").replace("%{", "%%{")
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

impl Catalog {
    /// The HCL text of `catalog.tf`.
    pub fn terraform_locals(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Generated from crates/ecs-gpu-catalog/data/catalog.json by `scripts/generate.sh`.\n\
             # Do not edit: `scripts/generate.sh --check` fails when this file drifts.\n\
             # Sources: instance facts karpenter-preview / ecs-doc-gpu / ecs-doc-gpu-specifying (per type in\n\
             # catalog.json); family status ECS-GPU, AMI; AMI parameters AMI, CDK; capabilities NCT; memory ECS-MEM;\n\
             # EFA karpenter-preview-efa, BOTO; vGPU AMI-GRID-KMOD, AMI-GRIDD, AMI-README-G6F, AGENT-MPS-VGPU.\n"
        );
        s.push_str("locals {\n");
        s.push_str("  # GPU instance types: whole GPUs (0 on fractional types), fraction, vCPUs, memory (MiB, EC2),\n");
        s.push_str("  # memory the agent can register at most (MiB), ECS status of the family, EFA support (null:\n");
        s.push_str("  # the sources do not say).\n");
        s.push_str("  ecs_gpu_instance_types = {\n");
        let width = self
            .instance_types()
            .iter()
            .map(|t| t.name.len() + 2)
            .max()
            .unwrap_or(0);
        for t in self.instance_types() {
            let gpus = match t.gpus {
                Gpus::Whole(n) => n.to_string(),
                Gpus::Fraction(_) => "0".to_string(),
                Gpus::Unknown => "null".to_string(),
            };
            let fraction = opt(t.gpus.fraction().map(|f| f.as_str()));
            let _ = writeln!(
                s,
                "    {:<width$} = {{ family = {}, gpus = {}, gpu_fraction = {}, gpu_model = {}, gpu_memory_mib = {}, vcpus = {}, memory_mib = {}, max_task_memory_mib = {}, architecture = {}, ecs_status = {}, efa = {} }}",
                hcl_string(&t.name),
                hcl_string(&t.family),
                gpus,
                fraction,
                t.gpu_model.as_deref().map_or("null".to_string(), hcl_string),
                opt(t.gpu_memory_mib),
                opt(t.vcpus),
                opt(t.memory_mib),
                opt(t.max_registrable_memory_mib()),
                t.architecture.map_or("null".to_string(), |a| hcl_string(a.as_str())),
                hcl_string(t.ecs_status.as_str()),
                opt(self.efa.supports(&t.name)),
            );
        }
        s.push_str("  }\n\n");
        s.push_str("  # Why a family is not plainly supported.\n");
        s.push_str("  ecs_gpu_family_status = {\n");
        let width = self
            .families()
            .iter()
            .map(|f| f.name.len() + 2)
            .max()
            .unwrap_or(0);
        for f in self.families() {
            let _ = writeln!(
                s,
                "    {:<width$} = {{ status = {}, reason = {} }}",
                hcl_string(&f.name),
                hcl_string(f.status.as_str()),
                f.reason.as_deref().map_or("null".to_string(), hcl_string)
            );
        }
        s.push_str("  }\n\n");
        s.push_str("  # ECS GPU-optimized AMI SSM parameters (the .../recommended form; sub-parameters such as /image_id belong to it).\n");
        s.push_str("  ecs_gpu_ami_parameters = {\n");
        let width = self
            .ami
            .gpu_parameters
            .iter()
            .map(|p| p.variant.len() + 2)
            .max()
            .unwrap_or(0);
        for p in &self.ami.gpu_parameters {
            let _ = writeln!(
                s,
                "    {:<width$} = {{ parameter = {}, end_of_life = {} }}",
                hcl_string(&p.variant),
                hcl_string(&p.parameter),
                p.end_of_life
                    .as_deref()
                    .map_or("null".to_string(), hcl_string)
            );
        }
        s.push_str("  }\n");
        let _ = writeln!(
            s,
            "  ecs_gpu_ami_recommended_parameter = {}\n",
            hcl_string(&self.ami.recommended_parameter)
        );
        let names: Vec<String> = self
            .capabilities
            .names
            .iter()
            .map(|n| hcl_string(n))
            .collect();
        let _ = writeln!(
            s,
            "  # NVIDIA_DRIVER_CAPABILITIES names the NVIDIA container toolkit accepts."
        );
        let _ = writeln!(
            s,
            "  nvidia_driver_capability_names = [{}]",
            names.join(", ")
        );
        let list = |v: &[String]| -> String {
            v.iter()
                .map(|x| hcl_string(x))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let v = &self.vgpu;
        s.push_str("\n  # The fractional GPU (vGPU) families on ECS on EC2: only the AMI variants with the NVIDIA GRID\n");
        s.push_str("  # driver, from this release (YYYYMMDD) on; no MPS; the types that need memory overcommit in\n");
        s.push_str("  # their user data (`<setting> = <value>`).\n");
        s.push_str("  ecs_gpu_vgpu = {\n");
        let _ = writeln!(
            s,
            "    families                         = [{}]",
            list(&v.families)
        );
        let _ = writeln!(
            s,
            "    ami_variants                     = [{}]",
            list(&v.ami_variants)
        );
        let _ = writeln!(
            s,
            "    min_ami_release                  = {}",
            hcl_string(&v.min_ami_release)
        );
        let _ = writeln!(s, "    mps                              = {}", v.mps);
        let _ = writeln!(
            s,
            "    memory_overcommit_instance_types = [{}]",
            list(&v.memory_overcommit_instance_types)
        );
        let _ = writeln!(
            s,
            "    memory_overcommit_setting        = {}",
            hcl_string(&v.memory_overcommit_setting)
        );
        let _ = writeln!(
            s,
            "    memory_overcommit_value          = {}",
            hcl_string(&v.memory_overcommit_value)
        );
        s.push_str("  }\n");
        s.push_str("}\n");
        s
    }
}
