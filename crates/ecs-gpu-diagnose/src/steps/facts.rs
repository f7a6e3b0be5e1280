//! What the cluster query language sees of a container instance. The language itself (parser,
//! evaluator, subjects, operators) is `ecs-gpu-query`'s; this is only the bridge from the AWS CLI
//! shapes of [`crate::api`] to its [`Facts`].

use ecs_gpu_query::{format_instant, ContainerInstance as Known, Fact, Facts, Subject};

use crate::api::{ContainerInstance, Task, Timestamp};

/// One container instance as `describe-container-instances` reports it: every subject is known (an
/// attribute that is absent does not exist) except, possibly, `task:group`.
#[derive(Debug)]
pub(super) struct InstanceFacts<'a> {
    pub(super) instance: &'a ContainerInstance,
    known: Known,
    /// Why the groups of the tasks on the instance are not all known (`task:group` is then
    /// unknown), or `None` when [`Known::task_groups`] lists them all.
    groups_unknown: Option<String>,
}

impl<'a> InstanceFacts<'a> {
    /// `tasks`: the tasks of the group being placed (`describe-tasks.json`), or why they are missing.
    pub(super) fn new(i: &'a ContainerInstance, tasks: Result<&[Task], String>) -> Self {
        let mut attributes = std::collections::BTreeMap::new();
        for a in &i.attributes {
            // The first one wins, as `ContainerInstance::attribute` reads it.
            attributes
                .entry(a.name.clone())
                .or_insert_with(|| a.value.clone());
        }
        let (task_groups, groups_unknown) = task_groups(i, tasks);
        InstanceFacts {
            instance: i,
            known: Known {
                attributes,
                ec2_instance_id: i.ec2_instance_id.clone(),
                agent_connected: Some(i.agent_connected),
                agent_version: i
                    .version_info
                    .as_ref()
                    .and_then(|v| v.agent_version.clone()),
                // ECS never reports a negative count; were it to, the subject reads as absent.
                running_tasks_count: u64::try_from(i.running_tasks_count).ok(),
                registered_at: i.registered_at.as_ref().map(|t| match t {
                    Timestamp::Text(s) => s.clone(),
                    #[allow(clippy::cast_possible_truncation)]
                    Timestamp::Epoch(x) => format_instant(x.floor() as i64),
                }),
                task_groups,
            },
            groups_unknown,
        }
    }

    /// Why a subject is not known on this instance, when it is not.
    pub(super) fn unknown_reason(&self, subject: &Subject) -> Option<String> {
        match subject {
            Subject::TaskGroup => self.groups_unknown.clone(),
            Subject::Other(s) => Some(format!("`{s}` has no meaning this tool knows")),
            _ => None,
        }
    }
}

impl Facts for InstanceFacts<'_> {
    fn fact(&self, subject: &Subject) -> Fact<'_> {
        if self.unknown_reason(subject).is_some() {
            return Fact::Unknown;
        }
        self.known.fact(subject)
    }
}

/// `task:group` is the groups of the tasks on the instance (ECS: `task:group == service:production`
/// "selects instances that are hosting tasks in the service:production group"). The input lists only
/// the tasks of the group being placed, so the groups are all known only when those account for
/// every task the instance runs (`runningTasksCount` counts the tasks whose desired status is
/// RUNNING).
fn task_groups(
    i: &ContainerInstance,
    tasks: Result<&[Task], String>,
) -> (Vec<String>, Option<String>) {
    if i.running_tasks_count <= 0 {
        return (Vec::new(), None);
    }
    let tasks = match tasks {
        Ok(t) => t,
        Err(why) => {
            return (
                Vec::new(),
                Some(format!(
                    "the groups of the tasks on {} are not known: {why}",
                    i.label()
                )),
            )
        }
    };
    let on_instance: Vec<&Task> = tasks
        .iter()
        .filter(|t| {
            t.container_instance_arn.is_some()
                && t.container_instance_arn == i.container_instance_arn
        })
        .filter(|t| match t.desired_status.as_deref() {
            Some(d) => d == "RUNNING",
            None => matches!(t.last_status.as_deref(), Some("PENDING" | "RUNNING")),
        })
        .collect();
    let groups: Vec<String> = on_instance.iter().filter_map(|t| t.group.clone()).collect();
    let complete = i64::try_from(groups.len()).ok() == Some(i.running_tasks_count)
        && groups.len() == on_instance.len();
    if complete {
        (groups, None)
    } else {
        (
            Vec::new(),
            Some(format!(
                "the groups of the tasks on {} are not all known: it runs {} and the input lists {} of them (it holds only the tasks of the group being placed)",
                i.label(),
                i.running_tasks_count,
                on_instance.len()
            )),
        )
    }
}
