//! The `task-definition` step: the GPU requirement is well-formed and inside a container, and the task can run where GPUs are.

use super::*;

impl Diagnosis<'_> {
    pub(super) fn task_definition(&mut self) -> Step {
        let id = StepId::TaskDefinition;
        let Some(td) = self.task_def else {
            return unknown(id, vec![self.missing(Call::DescribeTaskDefinition)]);
        };
        let mut ev = Vec::new();
        let name = match td.revision {
            Some(r) => format!("{}:{r}", td.family),
            None => td.family.clone(),
        };
        ev.push(format!("task definition `{name}`"));
        if let (Some(s), Some(arn)) = (self.service, &td.task_definition_arn) {
            if let Some(used) = &s.task_definition {
                if used != arn {
                    ev.push(format!(
                        "note: the service uses `{used}`, the input describes `{arn}`"
                    ));
                }
            }
        }
        let gpu_type = &catalog().gpu_requirement.type_;

        // A GPU requirement at task level is not an ECS field: it must be inside a container.
        if td
            .resource_requirements
            .iter()
            .any(|r| r.type_.eq_ignore_ascii_case(gpu_type))
        {
            return fail(
                id,
                ev,
                "the GPU requirement is at task level, outside every container".to_string(),
                format!("move `{{\"type\": \"{gpu_type}\", \"value\": \"1\"}}` into the `resourceRequirements` of the container that uses the GPU"),
            );
        }

        let mut values: Vec<(&str, GpuValue)> = Vec::new();
        for c in &td.container_definitions {
            for r in &c.resource_requirements {
                if r.type_ == *gpu_type {
                    match GpuValue::parse(&r.value) {
                        Ok(v) => {
                            ev.push(format!("container `{}` asks for GPU `{v}`", c.name));
                            values.push((&c.name, v));
                        }
                        Err(e) => {
                            ev.push(format!(
                                "container `{}` has GPU value `{}`",
                                c.name, r.value
                            ));
                            return fail(
                                id,
                                ev,
                                format!("the GPU requirement of container `{}` is malformed: {e}", c.name),
                                "give a whole number of GPUs (`\"1\"`), `ALL`, or on g6f/gr6f one of 0.125, 0.25, 0.5".to_string(),
                            );
                        }
                    }
                } else if r.type_.eq_ignore_ascii_case(gpu_type) {
                    return fail(
                        id,
                        ev,
                        format!(
                            "container `{}` has resource type `{}`, which ECS does not read as a GPU",
                            c.name, r.type_
                        ),
                        format!("write the type as `{gpu_type}`, in capitals"),
                    );
                }
            }
        }
        if values.is_empty() {
            return fail(
                id,
                ev,
                "no container asks for a GPU, so ECS gives the task none".to_string(),
                format!("add `{{\"type\": \"{gpu_type}\", \"value\": \"1\"}}` to the `resourceRequirements` of the container that uses the GPU"),
            );
        }
        let fractions = values
            .iter()
            .filter(|(_, v)| matches!(v, GpuValue::Fraction(_)))
            .count();
        if fractions > 0 && values.len() > 1 {
            return fail(
                id,
                ev,
                "a container asks for a GPU fraction while another container also asks for GPUs".to_string(),
                "only one container per task may ask for a fraction, and then no other container may have a GPU requirement".to_string(),
            );
        }
        let all = values.iter().any(|(_, v)| *v == GpuValue::All);
        let need = if let Some((_, GpuValue::Fraction(f))) = values.first() {
            GpuNeed::Fraction(*f)
        } else if all {
            GpuNeed::All
        } else {
            GpuNeed::Whole(
                values
                    .iter()
                    .map(|(_, v)| match v {
                        GpuValue::Whole(n) => *n,
                        _ => 0,
                    })
                    .fold(0u32, u32::saturating_add),
            )
        };

        // Where a GPU task may run: not Fargate (catalog `fargate.gpu` is false; source keys ECS-GPU,
        // ECS-2023). The compatibility names are the ECS API's (source key BOTO, `Compatibility`).
        const GPU_CAPABLE: [&str; 3] = ["EC2", "EXTERNAL", "MANAGED_INSTANCES"];
        let fargate_gpu = catalog().fargate.gpu;
        let usable =
            |list: &[String]| fargate_gpu || list.iter().any(|c| GPU_CAPABLE.contains(&c.as_str()));
        if !td.requires_compatibilities.is_empty() && !usable(&td.requires_compatibilities) {
            ev.push(format!(
                "requiresCompatibilities: {}",
                td.requires_compatibilities.join(", ")
            ));
            return fail(
                id,
                ev,
                "the task definition is for Fargate only, and Fargate has no GPUs".to_string(),
                "set `requiresCompatibilities` to `[\"EC2\"]` (or `MANAGED_INSTANCES`) and run it on GPU container instances".to_string(),
            );
        }
        if !td.compatibilities.is_empty() && !usable(&td.compatibilities) {
            ev.push(format!(
                "compatibilities: {}",
                td.compatibilities.join(", ")
            ));
            return fail(
                id,
                ev,
                "ECS found the task definition compatible with Fargate only, and Fargate has no GPUs".to_string(),
                "register it with `requiresCompatibilities: [\"EC2\"]` and a network mode and sizes EC2 accepts".to_string(),
            );
        }
        if let Some(s) = self.service {
            let fargate_lt = s.launch_type.as_deref() == Some("FARGATE");
            let fargate_cp = !s.capacity_provider_strategy.is_empty()
                && s.capacity_provider_strategy
                    .iter()
                    .all(|c| catalog().fargate.is_capacity_provider(&c.capacity_provider));
            if (fargate_lt || fargate_cp) && !fargate_gpu {
                ev.push(format!(
                    "service `{}` runs on Fargate ({})",
                    s.service_name,
                    if fargate_lt {
                        "launch type FARGATE".to_string()
                    } else {
                        "capacity provider strategy FARGATE".to_string()
                    }
                ));
                return fail(
                    id,
                    ev,
                    "the service runs its tasks on Fargate, which has no GPUs".to_string(),
                    "recreate the service with launch type EC2 or a capacity provider backed by GPU instances".to_string(),
                );
            }
        }
        if let Some(os) = td
            .runtime_platform
            .as_ref()
            .and_then(|p| p.operating_system_family.as_deref())
        {
            if os.to_ascii_uppercase().starts_with("WINDOWS") {
                ev.push(format!("runtimePlatform.operatingSystemFamily: {os}"));
                return fail(
                    id,
                    ev,
                    "the task is a Windows task, and ECS supports GPUs only for Linux containers"
                        .to_string(),
                    "use a Linux image and `operatingSystemFamily: LINUX`".to_string(),
                );
            }
        }
        let compat = if td.requires_compatibilities.is_empty() {
            td.compatibilities.join(", ")
        } else {
            td.requires_compatibilities.join(", ")
        };
        if !compat.is_empty() {
            ev.push(format!("compatible with {compat}"));
        }
        if let Some(m) = &td.network_mode {
            ev.push(format!("network mode {m}"));
        }
        ev.push(format!("one task needs {}", need.describe()));
        self.need = Some(need);
        pass(id, ev)
    }
}
