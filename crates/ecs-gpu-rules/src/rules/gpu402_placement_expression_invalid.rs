use ecs_gpu_model::{Loc, Model, Node};
use ecs_gpu_query::Expression;

use crate::capacity::string;
use crate::task::task_definitions;
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Placement constraint expressions of services (`placement_constraints` blocks) and task
    /// definitions (`placement_constraints` blocks, `placementConstraints` in JSON):
    ///
    /// - a `memberOf` expression that is not valid cluster query language: an unknown subject or
    ///   operator, a missing argument, an unbalanced parenthesis or bracket, text left over;
    /// - an expression on a `distinctInstance` constraint, which takes none.
    ///
    /// The parser is lenient wherever the ECS guide does not say an input is refused (keywords in any
    /// case, `in` with a single value, arguments not checked against the subject's type), and
    /// expressions that are not known are not checked.
    ///
    /// ## Why it matters
    ///
    /// ECS rejects the service or task definition (`InvalidParameterException`), so `terraform apply`
    /// fails, or, for `run-task`, the task never starts.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// placement_constraints {
    ///   type       = "memberOf"
    ///   expression = "attribute:ecs.instance-type = g5.xlarge"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write `subject operator [argument]` with an operator of the cluster query language:
    /// `attribute:ecs.instance-type == g5.xlarge`. Remove the expression from `distinctInstance`.
    pub static RULE = {
        id: "GPU402",
        name: "placement-expression-invalid",
        severity: Error,
        summary: "a placement constraint expression is invalid",
        check: check,
    }
}

/// The problem of one constraint: where, the message and the help.
fn problem(
    kind: Option<&Node>,
    expr: Option<&Node>,
) -> Option<(Option<Loc>, String, &'static str)> {
    let expr = expr?;
    let text = string(Some(expr))?;
    match string(kind) {
        Some("distinctInstance") if !text.trim().is_empty() => Some((
            expr.loc,
            "a `distinctInstance` constraint takes no expression".to_string(),
            "remove the expression, or use `type = \"memberOf\"`",
        )),
        Some("memberOf") => Expression::parse(text).err().map(|e| {
            (
                expr.loc,
                format!("the placement expression `{text}` is invalid: {e}"),
                "write `subject operator [argument]`, for example `attribute:ecs.instance-type == g5.xlarge`",
            )
        }),
        _ => None,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for svc in model.resources_of("aws_ecs_service") {
        if svc.instances_unknown {
            continue;
        }
        for b in svc.body.blocks("placement_constraints") {
            if let Some((at, msg, help)) = problem(b.body.attr("type"), b.body.attr("expression")) {
                report.add(at, msg).help(help).resource(svc);
            }
        }
    }
    for td in task_definitions(model) {
        for (kind, expr) in &td.placement_constraints {
            if let Some((at, msg, help)) = problem(kind.as_ref(), expr.as_ref()) {
                report.add(at, msg).help(help).task(td);
            }
        }
    }
}
