use ecs_gpu_model::Model;

use crate::capacity::{placement_constraints, string, GPU_SERVICES, PLACEMENT_CONSTRAINTS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// GPU services (their task definition reserves GPUs) with no `memberOf` placement constraint, on
    /// the service or its task definition, whose capacity is known in full and launches more than one
    /// instance type. Constraints that might exist (a `dynamic "placement_constraints"` with an unknown
    /// `for_each`, a type that is not known) silence it.
    ///
    /// ## Why it matters
    ///
    /// ECS places each task on any instance with enough free GPUs, so the same service lands on
    /// different GPU models and sizes: latency and throughput vary between tasks, and a small task can
    /// take a large multi-GPU instance that a bigger task then waits for.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// resource "aws_ecs_service" "inference" {
    ///   capacity_provider_strategy {
    ///     capacity_provider = aws_ecs_capacity_provider.mixed_gpu.name # g5.xlarge and g6.xlarge
    ///     weight            = 1
    ///   }
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Add `placement_constraints { type = "memberOf" expression = "attribute:ecs.instance-type =~ g5.*" }`,
    /// or give the service capacity of one instance type.
    pub static RULE = {
        id: "GPU404",
        name: "gpu-placement-unconstrained",
        severity: Info,
        summary: "a GPU service has no `memberOf` constraint and its capacity has several instance types",
        reads: { analyses: [GPU_SERVICES, PLACEMENT_CONSTRAINTS] },
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for s in report.gpu_services() {
        let svc = s.service;
        let (constraints, complete) = placement_constraints(model, svc);
        if !complete
            || constraints
                .iter()
                .any(|(kind, _)| string(*kind).is_none_or(|k| k == "memberOf"))
        {
            continue;
        }
        let Some(types) = s.capacity.instance_types() else {
            continue;
        };
        let mut names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() < 2 {
            continue;
        }
        let mut b = report
            .add(
                Some(svc.loc),
                format!(
                    "the GPU service `{}` has no `memberOf` constraint, and its capacity launches {}",
                    model.local_address(svc),
                    crate::backticked(&names)
                ),
            )
            .help("add a `memberOf` placement constraint on `attribute:ecs.instance-type`");
        for t in &types {
            b = b.label(t.node.loc, format!("the capacity launches `{}`", t.name));
        }
        b.resource(svc);
    }
}
