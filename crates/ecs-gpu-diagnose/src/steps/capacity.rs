//! The `capacity` step: an ACTIVE instance with a connected agent, or why the Auto Scaling group has none.

use super::*;

impl Diagnosis<'_> {
    pub(super) fn capacity(&mut self) -> Step {
        let id = StepId::Capacity;
        let Some(all) = self.instances() else {
            let mut ev = vec![self.missing(Call::DescribeContainerInstances)];
            ev.extend(self.asg_evidence().0);
            return unknown(id, ev);
        };
        let strategy: Vec<&str> = self
            .service
            .map(|s| {
                s.capacity_provider_strategy
                    .iter()
                    .map(|c| c.capacity_provider.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let mut ev = Vec::new();
        let mut left_out = Vec::new();
        // The instances that could host a GPU task: not those of a type without GPUs. In a mixed
        // cluster a connected CPU instance must not hide a GPU instance that cannot take tasks; with
        // no GPU type at all, every instance is looked at (gpu-registration says they have no GPU).
        let no_gpu = |i: &&ContainerInstance| {
            matches!(
                i.attribute(ecs_gpu_query::INSTANCE_TYPE_ATTRIBUTE)
                    .map(|t| catalog().lookup(t)),
                Some(Lookup::NoGpu)
            )
        };
        let (others, gpu_capable): (Vec<&ContainerInstance>, Vec<&ContainerInstance>) =
            all.iter().partition(no_gpu);
        let all: Vec<&ContainerInstance> = if gpu_capable.is_empty() {
            all.iter().collect()
        } else {
            if !others.is_empty() {
                ev.push(format!(
                    "not looked at: {} of a type without GPUs, which cannot host the task: {}",
                    plural(others.len(), "instance", "instances"),
                    labels(&others)
                ));
            }
            gpu_capable
        };
        for i in all.iter().copied() {
            let status = i.status.as_deref().unwrap_or("ACTIVE");
            if status != "ACTIVE" {
                left_out.push(format!("{}: status {status}", i.label_with_type()));
            } else if !i.agent_connected {
                left_out.push(format!(
                    "{}: ACTIVE but its agent is disconnected",
                    i.label_with_type()
                ));
            } else if let Some(cp) = i
                .capacity_provider_name
                .as_deref()
                .filter(|cp| !strategy.is_empty() && !strategy.contains(cp))
            {
                left_out.push(format!(
                    "{}: in capacity provider `{cp}`, not in the service's strategy ({})",
                    i.label_with_type(),
                    strategy.join(", ")
                ));
            } else {
                self.candidates.push(i);
            }
        }
        if !self.candidates.is_empty() {
            ev.insert(
                0,
                format!(
                    "ACTIVE with a connected agent: {} of {}: {}",
                    self.candidates.len(),
                    plural(all.len(), "container instance", "container instances"),
                    labels(&self.candidates)
                ),
            );
            ev.extend(left_out.into_iter().take(LIST_MAX));
            return pass(id, ev);
        }
        if all.is_empty() {
            ev.push("no container instance is registered in the cluster".to_string());
            if let Some(why) = &self.inputs.no_instances_because {
                ev.push(why.clone());
            }
        } else {
            ev.push(format!(
                "no {} can take tasks ({} registered)",
                if others.is_empty() || all.len() == others.len() {
                    "container instance"
                } else {
                    "GPU instance"
                },
                all.len()
            ));
            ev.extend(left_out.iter().take(LIST_MAX).cloned());
        }
        if let Some(e) = self.event(&["no container instances were found"]) {
            ev.push(e);
        }
        let (asg_ev, activity_cause, group_cause) = self.asg_evidence();
        ev.extend(asg_ev);
        let disconnected = all
            .iter()
            .any(|i| i.status.as_deref().unwrap_or("ACTIVE") == "ACTIVE" && !i.agent_connected);
        // A failed launch explains everything; a group that launched instances that never joined only
        // matters when no instance joined at all.
        let cause = activity_cause.or(match group_cause {
            Some((c, joined)) if !joined || all.is_empty() => Some(c),
            _ => None,
        });
        let (message, fix) = match cause {
            Some(c) => c,
            None if disconnected => (
                "the container instances are registered, but their ECS agents are disconnected".to_string(),
                "on the instance, check the agent (`systemctl status ecs`, /var/log/ecs/ecs-agent.log) and that it can reach the ECS endpoint (a NAT gateway or VPC endpoints for ecs, ecs-agent and ecs-telemetry)".to_string(),
            ),
            None if !all.is_empty() && !left_out.iter().any(|l| l.contains("status")) => (
                "no container instance is in the capacity providers of the service's strategy".to_string(),
                "put the service on the capacity provider whose Auto Scaling group launches the GPU instances".to_string(),
            ),
            None if !all.is_empty() => (
                "no container instance is ACTIVE".to_string(),
                "start new GPU instances for the cluster; DRAINING instances take no new tasks (set them ACTIVE with `aws ecs update-container-instances-state` if that was a mistake)".to_string(),
            ),
            None => (
                "no container instance is registered in the cluster, so there is nowhere to place the task".to_string(),
                format!(
                    "start GPU instances that join this cluster (`{}=<cluster>` in /etc/ecs/ecs.config; without it they join `{}`){}",
                    catalog().agent.cluster_variable,
                    catalog().agent.cluster_default,
                    if self.inputs.auto_scaling_groups.is_none() {
                        "; to see why an Auto Scaling group starts none, add describe-auto-scaling-groups.json and describe-scaling-activities.json"
                    } else {
                        ""
                    }
                ),
            ),
        };
        fail(id, ev, message, fix)
    }

    /// Evidence from the Auto Scaling groups and their scaling activities, and the cause when it is
    /// clear (stock-out, vCPU quota, launch template, nothing wanted, instances that never joined).
    #[allow(clippy::type_complexity)]
    pub(super) fn asg_evidence(
        &self,
    ) -> (
        Vec<String>,
        Option<(String, String)>,
        Option<((String, String), bool)>,
    ) {
        let mut ev = Vec::new();
        let mut cause = None;
        let Some(groups) = &self.inputs.auto_scaling_groups else {
            if self.inputs.error(Call::DescribeAutoScalingGroups).is_some() {
                ev.push(self.missing(Call::DescribeAutoScalingGroups));
            }
            return (ev, None, None);
        };
        // The groups behind the service's capacity providers, when that link is known.
        let strategy: Vec<&str> = self
            .service
            .map(|s| {
                s.capacity_provider_strategy
                    .iter()
                    .map(|c| c.capacity_provider.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let linked: Vec<&str> = self
            .inputs
            .capacity_providers
            .iter()
            .flat_map(|c| &c.capacity_providers)
            .filter(|cp| strategy.is_empty() || strategy.contains(&cp.name.as_str()))
            .filter_map(|cp| cp.auto_scaling_group_provider.as_ref())
            .map(|p| p.auto_scaling_group_arn.as_str())
            .collect();
        let relevant: Vec<_> = groups
            .auto_scaling_groups
            .iter()
            .filter(|g| {
                linked.is_empty()
                    || linked.iter().any(|l| {
                        Some(*l) == g.auto_scaling_group_arn.as_deref()
                            || *l == g.auto_scaling_group_name
                            || l.ends_with(&format!(
                                "autoScalingGroupName/{}",
                                g.auto_scaling_group_name
                            ))
                    })
            })
            .collect();
        for g in &relevant {
            let in_service = g
                .instances
                .iter()
                .filter(|i| i.lifecycle_state.as_deref() == Some("InService"))
                .count();
            ev.push(format!(
                "Auto Scaling group `{}`: desired {}, min {}, max {}, {} in service",
                g.auto_scaling_group_name,
                g.desired_capacity,
                g.min_size,
                g.max_size,
                plural(in_service, "instance", "instances")
            ));
        }
        let activities: Vec<_> = self
            .inputs
            .scaling_activities
            .iter()
            .flat_map(|a| &a.activities)
            .filter(|a| {
                relevant.is_empty()
                    || relevant
                        .iter()
                        .any(|g| g.auto_scaling_group_name == a.auto_scaling_group_name)
            })
            .collect();
        if self.inputs.scaling_activities.is_none() {
            ev.push(self.missing(Call::DescribeScalingActivities));
        }
        // The AWS CLI lists the newest activity first.
        for a in activities.iter().filter(|a| {
            !matches!(
                a.status_code.as_deref(),
                Some("Successful" | "InProgress" | "PreInService" | "WaitingForSpotInstanceId")
            )
        }) {
            let text = [
                a.status_message.as_deref(),
                a.description.as_deref(),
                a.cause.as_deref(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
            let when = a
                .start_time
                .as_ref()
                .map(|t| format!(" at {t}"))
                .unwrap_or_default();
            ev.push(format!(
                "scaling activity {}{when}: {}",
                a.status_code.as_deref().unwrap_or("?"),
                a.status_message
                    .as_deref()
                    .or(a.description.as_deref())
                    .unwrap_or("")
            ));
            if cause.is_none() {
                cause = classify_activity(&text, &a.auto_scaling_group_name);
            }
            if ev.len() > 2 * LIST_MAX {
                break;
            }
        }
        let mut group_cause = None;
        {
            for g in &relevant {
                let in_service = g
                    .instances
                    .iter()
                    .filter(|i| i.lifecycle_state.as_deref() == Some("InService"))
                    .count();
                if g.max_size == 0 {
                    group_cause = Some(((
                        format!("the Auto Scaling group `{}` has max size 0, so it can never launch an instance", g.auto_scaling_group_name),
                        "raise its max size (and let the capacity provider's managed scaling set the desired capacity)".to_string(),
                    ), false));
                } else if g.desired_capacity == 0 {
                    group_cause = Some(((
                        format!("the Auto Scaling group `{}` wants no instances (desired capacity 0)", g.auto_scaling_group_name),
                        self.desired_zero_fix(g),
                    ), false));
                } else if in_service > 0 {
                    group_cause = Some(((
                        format!("the Auto Scaling group `{}` has {} in service, but none joined the cluster", g.auto_scaling_group_name, plural(in_service, "instance", "instances")),
                        format!(
                            "check the user data writes `{}=<cluster>` to /etc/ecs/ecs.config (without it the agent joins `{}`), that the instance role has the AmazonEC2ContainerServiceforEC2Role policy, and that the instances reach the ECS endpoint",
                            catalog().agent.cluster_variable,
                            catalog().agent.cluster_default
                        ),
                    ), true));
                } else if i64::try_from(in_service).unwrap_or(i64::MAX) < g.desired_capacity {
                    group_cause = Some(((
                        format!(
                            "the Auto Scaling group `{}` wants {} but has {} in service, and no scaling activity failed",
                            g.auto_scaling_group_name,
                            plural(usize::try_from(g.desired_capacity).unwrap_or(0), "instance", "instances"),
                            in_service
                        ),
                        format!(
                            "instances may still be launching: diagnose again in a few minutes; if nothing changes, read `aws autoscaling describe-scaling-activities --auto-scaling-group-name {}`",
                            g.auto_scaling_group_name
                        ),
                    ), false));
                }
                if group_cause.is_some() {
                    break;
                }
            }
        }
        (ev, cause, group_cause)
    }
}

/// The cause a failed scaling activity names, with its fix: a stock-out, a vCPU quota, or a launch
/// template error. `None` for anything else (its message is still evidence).
fn classify_activity(text: &str, group: &str) -> Option<(String, String)> {
    let t = text.to_ascii_lowercase();
    if t.contains("insufficientinstancecapacity")
        || (t.contains("sufficient") && t.contains("capacity") && !t.contains("vcpu"))
    {
        return Some((
            format!("EC2 has no capacity for the GPU instance type in the Availability Zone (a stock-out): the Auto Scaling group `{group}` cannot launch instances"),
            "let the group use more Availability Zones (subnets) and more GPU instance types (a mixed instances policy), or reserve the capacity with an On-Demand Capacity Reservation or EC2 Capacity Blocks for ML".to_string(),
        ));
    }
    if t.contains("vcpulimitexceeded") || (t.contains("vcpu") && t.contains("limit")) {
        return Some((
            format!("the account's vCPU quota for this instance family is used up: the Auto Scaling group `{group}` cannot launch instances"),
            "request a higher quota in Service Quotas: \"Running On-Demand G and VT instances\" for g types, \"Running On-Demand P instances\" for p types (Spot has its own quotas); the quota counts vCPUs, not instances".to_string(),
        ));
    }
    if t.contains("launch template")
        || t.contains("launchtemplate")
        || t.contains("image id")
        || t.contains("invalidami")
        || t.contains("iaminstanceprofile")
        || t.contains("instance profile")
    {
        return Some((
            format!("the Auto Scaling group `{group}` cannot launch instances from its launch template"),
            "fix the launch template the group uses (the version it points at, its AMI ID, instance profile, security groups and subnets) as the scaling activity's message says, then let the group launch again".to_string(),
        ));
    }
    None
}

impl<'a> Diagnosis<'a> {
    /// The Auto Scaling groups behind the service's capacity providers, each with its capacity
    /// provider when the input has it; every group when the link is not known.
    pub(super) fn linked_groups(
        &self,
    ) -> Vec<(
        &'a crate::api::AutoScalingGroup,
        Option<&'a crate::api::CapacityProvider>,
    )> {
        let Some(groups) = &self.inputs.auto_scaling_groups else {
            return Vec::new();
        };
        let strategy: Vec<&str> = self
            .service
            .map(|s| {
                s.capacity_provider_strategy
                    .iter()
                    .map(|c| c.capacity_provider.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let providers: Vec<&crate::api::CapacityProvider> = self
            .inputs
            .capacity_providers
            .iter()
            .flat_map(|c| &c.capacity_providers)
            .filter(|cp| strategy.is_empty() || strategy.contains(&cp.name.as_str()))
            .collect();
        let provider_of = |g: &crate::api::AutoScalingGroup| {
            providers.iter().copied().find(|cp| {
                cp.auto_scaling_group_provider.as_ref().is_some_and(|p| {
                    let l = p.auto_scaling_group_arn.as_str();
                    Some(l) == g.auto_scaling_group_arn.as_deref()
                        || l == g.auto_scaling_group_name
                        || l.ends_with(&format!(
                            "autoScalingGroupName/{}",
                            g.auto_scaling_group_name
                        ))
                })
            })
        };
        let linked: Vec<_> = groups
            .auto_scaling_groups
            .iter()
            .map(|g| (g, provider_of(g)))
            .collect();
        if linked.iter().any(|(_, cp)| cp.is_some()) {
            linked.into_iter().filter(|(_, cp)| cp.is_some()).collect()
        } else {
            linked
        }
    }
}

impl Diagnosis<'_> {
    /// What to do about a group at desired capacity 0, from what its capacity provider says: a
    /// help that turns on managed scaling only when it is off.
    fn desired_zero_fix(&self, g: &crate::api::AutoScalingGroup) -> String {
        let cp = self
            .linked_groups()
            .into_iter()
            .find(|(lg, _)| lg.auto_scaling_group_name == g.auto_scaling_group_name)
            .and_then(|(_, cp)| cp);
        let Some(cp) = cp else {
            return "raise its desired capacity, or turn on managed scaling in the capacity provider and put the service on that capacity provider so ECS scales it out".to_string();
        };
        let managed = cp
            .auto_scaling_group_provider
            .as_ref()
            .and_then(|p| p.managed_scaling.as_ref())
            .and_then(|m| m.status.as_deref());
        let on_it = self.service.is_some_and(|s| {
            s.capacity_provider_strategy
                .iter()
                .any(|c| c.capacity_provider == cp.name)
        });
        match (managed, on_it) {
            (Some("ENABLED"), true) => format!(
                "managed scaling of capacity provider `{}` is ENABLED and the service uses it, yet the group stays at 0: read the group's scaling activities and the capacity provider's `CapacityProviderReservation` alarm, or raise the desired capacity to start an instance now",
                cp.name
            ),
            (Some("ENABLED"), false) => format!(
                "managed scaling of capacity provider `{}` is ENABLED, but the service does not use that capacity provider: put it in the service's capacity provider strategy so ECS scales the group out",
                cp.name
            ),
            _ => format!(
                "raise the group's desired capacity, or turn on managed scaling in capacity provider `{}` so ECS scales the group out for the service's tasks",
                cp.name
            ),
        }
    }
}
