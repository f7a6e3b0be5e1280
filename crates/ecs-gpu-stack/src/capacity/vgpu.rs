//! The fractional GPU (NVIDIA vGPU) instance types of GPU capacity, by the launch template (or
//! standalone instance) they are launched from: what their AMI and user data must give them.

use ecs_gpu_catalog::{catalog, family_of};
use ecs_gpu_model::{Loc, Resource};

use super::gpu::{GpuCapacity, GpuReason};
use super::graph::GroupCapacity;

/// A launch template (or standalone `aws_instance`) of GPU capacity that launches vGPU types.
#[derive(Debug, Clone)]
pub struct VgpuTemplate<'m> {
    /// The launch template or instance.
    pub template: &'m Resource,
    /// The vGPU instance types launched from it, each with where it is written.
    pub types: Vec<(String, Option<Loc>)>,
    /// What launches them: the group or fleet (`None` for a standalone instance).
    pub launcher: Option<&'m Resource>,
}

fn is_vgpu(instance_type: &str) -> bool {
    catalog().vgpu.is_vgpu_family(family_of(instance_type))
}

/// Each template of GPU capacity with the vGPU types known to be launched from it. A type written
/// in an override without a template of its own is launched from the group's template only when
/// the group has exactly one.
pub fn vgpu_templates<'m>(gpu: &GpuCapacity<'m>) -> Vec<VgpuTemplate<'m>> {
    templates_launching(gpu, is_vgpu)
}

/// [`vgpu_templates`] for the instance types `keep` selects (GPU216 reads every GPU type).
pub fn templates_launching<'m>(
    gpu: &GpuCapacity<'m>,
    keep: impl Fn(&str) -> bool,
) -> Vec<VgpuTemplate<'m>> {
    let mut out: Vec<VgpuTemplate<'m>> = Vec::new();
    let units: Vec<&GroupCapacity<'m>> = gpu
        .groups
        .iter()
        .map(|(g, _)| g.as_ref())
        .chain(gpu.fleets.iter().map(|(f, _)| f))
        .collect();
    for cap in units {
        let only_template = match (cap.templates.as_deref(), cap.known_templates.as_slice()) {
            (Some([_]), [t]) => Some(t.template),
            _ => None,
        };
        for t in &cap.known_instance_types {
            if !keep(&t.name) {
                continue;
            }
            let Some(template) = t.template.or(only_template) else {
                continue;
            };
            if template.instances_unknown {
                continue;
            }
            let entry = match out.iter_mut().position(|v| v.template.id == template.id) {
                Some(i) => &mut out[i],
                None => {
                    out.push(VgpuTemplate {
                        template,
                        types: Vec::new(),
                        launcher: Some(cap.group),
                    });
                    out.last_mut().expect("just pushed")
                }
            };
            if !entry.types.iter().any(|(n, _)| *n == t.name) {
                entry.types.push((t.name.clone(), t.node.loc));
            }
        }
    }
    for (t, reason) in &gpu.templates {
        if let GpuReason::EcsInstance {
            instance,
            instance_type,
            at,
            ..
        } = reason
        {
            if keep(instance_type) && !out.iter().any(|v| v.template.id == instance.id) {
                out.push(VgpuTemplate {
                    template: t.template,
                    types: vec![(instance_type.clone(), *at)],
                    launcher: None,
                });
            }
        }
    }
    out
}
