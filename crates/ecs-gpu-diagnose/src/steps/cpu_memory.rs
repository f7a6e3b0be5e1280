//! The `cpu-memory` step: an instance with free GPUs also has the free CPU and memory.

use super::*;

impl Diagnosis<'_> {
    pub(super) fn cpu_memory(&mut self) -> Step {
        let id = StepId::CpuMemory;
        let Some(td) = self.task_def else {
            return unknown(id, vec![self.missing(Call::DescribeTaskDefinition)]);
        };
        if self.instances().is_none() {
            return unknown(id, vec![self.missing(Call::DescribeContainerInstances)]);
        }
        // Only an instance with free GPUs can take the task: the placement step falls back to the
        // instances whose GPUs are all taken to show a constraint's typo, and those must not be
        // said to have room.
        let free =
            |i: &&ContainerInstance| self.free_gpu_instances.iter().any(|f| std::ptr::eq(*f, *i));
        let pool: Vec<&ContainerInstance> = match &self.placeable {
            Some(p) if !p.is_empty() => p.iter().copied().filter(free).collect(),
            _ => self.free_gpu_instances.clone(),
        };
        if self.packed {
            return pass(
                id,
                vec![
                    "the service's running tasks have their CPU and memory; one more task would first need a free GPU (see gpus-available)".to_string(),
                ],
            );
        }
        if pool.is_empty() {
            return unknown(
                id,
                vec![
                    "no instance with enough free GPUs to check (see the steps above)".to_string(),
                ],
            );
        }
        let (cpu, memory) = task_size(td);
        let mut ev = vec![format!(
            "one task needs {cpu} CPU units and {memory} MiB of memory"
        )];
        let mut fits = Vec::new();
        let mut lines = Vec::new();
        let mut never = true;
        for i in &pool {
            let free_cpu = i.remaining("CPU").map_or(0, |r| r.amount());
            let free_mem = i.remaining("MEMORY").map_or(0, |r| r.amount());
            let reg_cpu = i.registered("CPU").map_or(0, |r| r.amount());
            let reg_mem = i.registered("MEMORY").map_or(0, |r| r.amount());
            if reg_cpu >= cpu && reg_mem >= memory {
                never = false;
            }
            lines.push((
                *i,
                format!("{free_cpu} of {reg_cpu} CPU units and {free_mem} of {reg_mem} MiB free"),
            ));
            if free_cpu >= cpu && free_mem >= memory {
                fits.push(*i);
            }
        }
        ev.extend(grouped(lines));
        let awsvpc = td.network_mode.as_deref() == Some("awsvpc");
        let eni_event = if awsvpc {
            self.event(&["resource:eni", " eni"])
        } else {
            None
        };
        if !fits.is_empty() {
            if let Some(e) = eni_event {
                ev.push(e);
                return fail(
                    id,
                    ev,
                    "the instances have no free network interface (ENI) for another awsvpc task".to_string(),
                    "turn on ENI trunking (`aws ecs put-account-setting --name awsvpcTrunking --value enabled`, then replace the instances), use an instance type with more ENIs, or use the `bridge` or `host` network mode".to_string(),
                );
            }
            if awsvpc {
                ev.push("network mode awsvpc: each task takes an ENI; the ECS API does not show free ENIs, and no service event reports a shortage".to_string());
            }
            ev.insert(
                1,
                format!("enough free GPUs, CPU and memory on {}", labels(&fits)),
            );
            return pass(id, ev);
        }
        if let Some(e) = self.event(&["cpu", "memory"]) {
            ev.push(e);
        }
        if self.steady && !never {
            ev.insert(
                1,
                "no instance with a free GPU has the CPU and memory for one more task, and the service runs its desired count: no headroom, not a fault (see the note)".to_string(),
            );
            self.notes.push(format!(
                "no headroom: the instances with a free GPU lack the free CPU or memory for one more task ({cpu} CPU units, {memory} MiB), so a scale-out or a deployment that starts new tasks first needs another instance"
            ));
            return pass(id, ev);
        }
        if never {
            // The largest registered figures: what the agent reports, below the EC2 memory.
            let biggest = pool
                .iter()
                .max_by_key(|i| i.registered("MEMORY").map_or(0, |r| r.amount()))
                .copied();
            let (reg_cpu, reg_mem, who) = biggest.map_or((0, 0, String::new()), |i| {
                (
                    i.registered("CPU").map_or(0, |r| r.amount()),
                    i.registered("MEMORY").map_or(0, |r| r.amount()),
                    i.label_with_type(),
                )
            });
            return fail(
                id,
                ev,
                format!("the task asks for {cpu} CPU units and {memory} MiB, more than any instance with free GPUs registers at all ({who} registers {reg_cpu} CPU units and {reg_mem} MiB)"),
                format!("lower the task's `cpu` to at most {reg_cpu} and `memory` to at most {reg_mem} MiB (the agent registers less memory than the instance type's EC2 memory), or use a larger instance type"),
            );
        }
        // Name only what is short: a help to lower CPU when CPU is free would mislead.
        let cpu_short = !pool
            .iter()
            .any(|i| i.remaining("CPU").map_or(0, |r| r.amount()) >= cpu);
        let mem_short = !pool
            .iter()
            .any(|i| i.remaining("MEMORY").map_or(0, |r| r.amount()) >= memory);
        let (what, knob) = match (cpu_short, mem_short) {
            (true, false) => ("CPU", "`cpu`"),
            (false, true) => ("memory", "`memory`"),
            _ => ("CPU and memory", "`cpu` and `memory`"),
        };
        fail(
            id,
            ev,
            format!("the instances with free GPUs lack the free {what} for the task: other tasks hold it"),
            format!("lower the task's {knob}, move CPU-only tasks off the GPU instances (a placement constraint or a separate capacity provider), or add instances"),
        )
    }
}

/// Task CPU units and memory MiB: the task-level values if set, else the sums over containers
/// (memory: each container's `memoryReservation`, else its `memory`; source key ECS-MEM).
pub fn task_size(td: &TaskDefinition) -> (i64, i64) {
    let cpu = td
        .cpu
        .as_deref()
        .and_then(ecs_gpu_catalog::task_cpu_units)
        .map(whole)
        .unwrap_or_else(|| {
            td.container_definitions
                .iter()
                .map(|c| c.cpu.unwrap_or(0))
                .fold(0i64, i64::saturating_add)
        });
    let memory = td
        .memory
        .as_deref()
        .and_then(ecs_gpu_catalog::task_memory_mib)
        .map(whole)
        .unwrap_or_else(|| {
            td.container_definitions
                .iter()
                .map(|c| c.memory_reservation.or(c.memory).unwrap_or(0))
                .fold(0i64, i64::saturating_add)
        });
    (cpu, memory)
}

/// A size as a whole number of units (sizes are small whole numbers: far inside `i64`).
#[allow(clippy::cast_possible_truncation)]
fn whole(x: f64) -> i64 {
    x.round() as i64
}
