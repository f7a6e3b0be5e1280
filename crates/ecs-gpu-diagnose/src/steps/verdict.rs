//! The verdict: the first failing step, `healthy`, or `unknown`.

use super::*;

impl Diagnosis<'_> {
    pub(super) fn verdict(&self, steps: &[Step]) -> Verdict {
        if let Some(s) = steps.iter().find(|s| s.status == Status::Fail) {
            return Verdict {
                step: s.id.as_str().to_string(),
                status: Status::Fail,
                message: s.message.clone().unwrap_or_default(),
                fix: s.fix.clone(),
                notes: Vec::new(),
            };
        }
        let unknown: Vec<&str> = steps
            .iter()
            .filter(|s| s.status == Status::Unknown)
            .map(|s| s.id.as_str())
            .collect();
        if let Some(s) = self.service {
            if s.running_count >= s.desired_count {
                return Verdict {
                    step: "healthy".to_string(),
                    status: Status::Pass,
                    message: format!(
                        "service `{}` runs {} of {} desired tasks and no step fails",
                        s.service_name, s.running_count, s.desired_count
                    ),
                    fix: None,
                    notes: self.notes.clone(),
                };
            }
            let stopped = self
                .inputs
                .tasks
                .as_ref()
                .and_then(|t| {
                    self.group_tasks(&t.tasks)
                        .find(|t| t.last_status.as_deref() == Some("STOPPED"))
                })
                .and_then(|t| {
                    t.stopped_reason
                        .clone()
                        .or_else(|| t.containers.iter().find_map(|c| c.reason.clone()))
                });
            let mut message = format!(
                "no step fails, yet service `{}` runs {} of {} desired tasks",
                s.service_name, s.running_count, s.desired_count
            );
            let fix = if let Some(r) = stopped {
                message.push_str(&format!("; a task was placed and stopped: {r}"));
                Some(
                    "the tasks are placed but stop: read the stopped reason and the container logs"
                        .to_string(),
                )
            } else if !unknown.is_empty() {
                Some(format!(
                    "give the inputs of the unknown steps ({})",
                    unknown.join(", ")
                ))
            } else {
                Some("tasks may still be starting: run the diagnosis again in a minute".to_string())
            };
            return Verdict {
                step: "unknown".to_string(),
                status: Status::Unknown,
                message,
                fix,
                notes: Vec::new(),
            };
        }
        if unknown.is_empty() {
            return Verdict {
                step: "healthy".to_string(),
                status: Status::Pass,
                message: "a task of this task definition can be placed now: no step fails"
                    .to_string(),
                fix: None,
                notes: Vec::new(),
            };
        }
        Verdict {
            step: "unknown".to_string(),
            status: Status::Unknown,
            message: format!(
                "no step fails, but {} could not be checked",
                unknown.join(", ")
            ),
            fix: Some(format!(
                "give the inputs of the unknown steps ({})",
                unknown.join(", ")
            )),
            notes: Vec::new(),
        }
    }
}
