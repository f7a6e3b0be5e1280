//! The `gpu-registration` step: the instances register their GPUs with ECS.

use super::*;

impl Diagnosis<'_> {
    pub(super) fn gpu_registration(&mut self) -> Step {
        let id = StepId::GpuRegistration;
        if self.instances().is_none() {
            return unknown(id, vec![self.missing(Call::DescribeContainerInstances)]);
        }
        if self.candidates.is_empty() {
            return unknown(
                id,
                vec![
                    "no ACTIVE instance with a connected agent to look at (see capacity)"
                        .to_string(),
                ],
            );
        }
        let driver_attr = driver_attribute();
        let gpu = catalog().gpu_requirement.type_.as_str();
        let mut ev = Vec::new();
        let mut lines = Vec::new();
        let mut no_gpu_type = Vec::new();
        for i in &self.candidates {
            let registered = i.registered(gpu).map_or(0, |r| r.amount());
            let itype = i
                .attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE)
                .unwrap_or("");
            let expected = match catalog().lookup(itype) {
                Lookup::Known(t) => match t.gpus {
                    Gpus::Whole(n) => {
                        Some(format!("{itype} has {}", plural(n as usize, "GPU", "GPUs")))
                    }
                    Gpus::Fraction(f) => Some(format!("{itype} has a {f} GPU partition")),
                    Gpus::Unknown => None,
                },
                Lookup::NoGpu => {
                    no_gpu_type.push(*i);
                    Some(format!("{itype} has no GPU"))
                }
                Lookup::Unknown { .. } => None,
            };
            let driver = i
                .attribute(&driver_attr)
                .map(|v| format!("`{driver_attr}` = {v}"))
                .unwrap_or_else(|| format!("no `{driver_attr}` attribute"));
            let ami = i
                .attribute("ecs.ami-id")
                .map(|a| format!("AMI {a}"))
                .unwrap_or_else(|| "AMI unknown".to_string());
            if registered > 0 {
                self.gpu_instances.push(i);
                let mut line = format!(
                    "{} registered",
                    plural(usize::try_from(registered).unwrap_or(0), "GPU", "GPUs")
                );
                if let Some(e) = &expected {
                    line.push_str(&format!(" ({e})"));
                }
                line.push_str(&format!(", {driver}"));
                lines.push((*i, line));
            } else {
                let mut line = "no GPU registered".to_string();
                if let Some(e) = &expected {
                    line.push_str(&format!(" ({e})"));
                }
                line.push_str(&format!("; {driver}; {ami}"));
                lines.push((*i, line));
            }
        }
        ev.extend(grouped(lines));
        if !self.gpu_instances.is_empty() {
            return pass(id, ev);
        }
        let agent = &catalog().agent;
        let ami = &catalog().ami;
        if no_gpu_type.len() == self.candidates.len() {
            let mut types: Vec<&str> = no_gpu_type
                .iter()
                .filter_map(|i| i.attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE))
                .collect();
            types.sort_unstable();
            types.dedup();
            return fail(
                id,
                ev,
                format!(
                    "the cluster's instances have no GPU: {}",
                    types.join(", ")
                ),
                "launch a GPU instance type (`ecs-gpu types --supported` lists them) with the ECS GPU-optimized AMI in the launch template or capacity provider".to_string(),
            );
        }
        // The AMI the instances report, so the command to run is the one for them.
        let mut amis: Vec<&str> = self
            .candidates
            .iter()
            .filter_map(|i| i.attribute("ecs.ami-id"))
            .filter(|a| !a.is_empty())
            .collect();
        amis.sort_unstable();
        amis.dedup();
        let image_ids = if amis.is_empty() {
            "<the instance's AMI ID>".to_string()
        } else {
            amis.iter()
                .take(LIST_MAX)
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        };
        fail(
            id,
            ev,
            format!(
                "the instances register no GPU with ECS: either the AMI is not the ECS GPU-optimized AMI, or `{}` is off (the agent's default is `{}`); the two look the same from ECS",
                agent.gpu_support_variable, agent.gpu_support_default
            ),
            format!(
                "tell them apart by the AMI: `aws ec2 describe-images --image-ids {image_ids} --query 'Images[].Name'`; a GPU AMI's name starts with {} (the current one is `aws ssm get-parameters --names {}`). Not a GPU AMI: put the GPU AMI in the launch template. A GPU AMI: GPU support was turned off, so remove `{}=false` from the user data that writes /etc/ecs/ecs.config. An agent running with GPU support reports the `{}` attribute",
                ami.gpu_ami_name_prefixes
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                ami.recommended_parameter,
                agent.gpu_support_variable,
                driver_attribute()
            ),
        )
    }
}
