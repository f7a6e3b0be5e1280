use ecs_gpu_model::Model;
use ecs_gpu_query::{matches_none, Expression, INSTANCE_TYPE_ATTRIBUTE};

use crate::capacity::{
    placement_constraints, string, GPU_CAPACITY, PLACEMENT_CONSTRAINTS, SERVICE_CAPACITY,
};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// `memberOf` placement constraints of a GPU service (and of its task definition) whose expression
    /// tests `attribute:ecs.instance-type` and is false for every instance type the service can be
    /// placed on. The expression is evaluated in three-valued logic with only the instance type known
    /// (plus the type's `ecs.cpu-architecture` from the catalog): any other subject (a zone, the
    /// operating system, which the AMI decides, a custom attribute) is unknown, so the rule fires only when the
    /// expression cannot hold whatever those are. `==`, `!=`, `in`, `!in`, `=~` (Java whole-string
    /// match), `!~` and compound expressions are understood.
    ///
    /// It needs the service's capacity known in full: a capacity provider strategy (or the cluster's
    /// default strategy) whose providers, groups and instance types are all known. `launch_type =
    /// "EC2"` is never complete (instances may join the cluster without a capacity provider).
    /// An expression that writes `&&` or `||` against other text (`a==x&&b==y`) is not judged: the
    /// ECS guide does not say how ECS reads it.
    ///
    /// ## Why it matters
    ///
    /// No container instance can ever satisfy the constraint, so every task of the service stays
    /// `PENDING` ("no container instance met all of its requirements") while the GPU instances the
    /// capacity provider launches sit idle and billed.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// placement_constraints {
    ///   type       = "memberOf"
    ///   expression = "attribute:ecs.instance-type == g4dn.xlarge" # the capacity launches g5.xlarge
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Make the expression match the instance types of the capacity provider
    /// (`attribute:ecs.instance-type =~ g5.*`), or change the capacity.
    pub static RULE = {
        id: "GPU401",
        name: "placement-constraint-matches-no-instance",
        severity: Error,
        summary: "a `memberOf` expression on `ecs.instance-type` matches none of the service's instance types",
        reads: { analyses: [GPU_CAPACITY, SERVICE_CAPACITY, PLACEMENT_CONSTRAINTS] },
        check: check,
    }
}

fn check(_: &Model, report: &mut Findings<'_>) {
    // The model as the run's: the services' capacity is read through the run's groups.
    let model = report.model();
    for svc in model.resources_of("aws_ecs_service") {
        if svc.instances_unknown || !report.is_gpu_resource(svc) {
            continue;
        }
        let (constraints, _) = placement_constraints(model, svc);
        let mut capacity = None;
        for (kind, expr) in constraints {
            if string(kind) != Some("memberOf") {
                continue;
            }
            let Some(node) = expr else { continue };
            let Some(text) = string(Some(node)) else {
                continue;
            };
            if ecs_gpu_query::has_unspaced_symbol_operator(text) {
                continue;
            }
            let Ok(e) = Expression::parse(text) else {
                continue;
            };
            if !e.mentions_attribute(INSTANCE_TYPE_ATTRIBUTE) {
                continue;
            }
            let types =
                capacity.get_or_insert_with(|| report.service_capacity(svc).instance_types());
            let Some(types) = types.as_ref() else { break };
            let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
            if !matches_none(&e, &names) {
                continue;
            }
            let mut listed: Vec<&str> = names.clone();
            listed.sort_unstable();
            listed.dedup();
            let mut b = report
                .add(
                    node.loc,
                    format!(
                        "`{text}` matches none of the instance types the service can be placed on ({})",
                        crate::backticked(&listed)
                    ),
                )
                .help("make the expression match the capacity's instance types, or change the capacity");
            for t in types {
                b = b.label(t.node.loc, format!("the capacity launches `{}`", t.name));
            }
            b.resource(svc);
        }
    }
}
