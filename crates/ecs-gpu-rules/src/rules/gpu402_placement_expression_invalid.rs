use ecs_gpu_model::{Loc, Model, Node};
use ecs_gpu_query::Expression;

use crate::capacity::{string, GPU_CAPACITY, PLACEMENT_CONSTRAINTS};
use crate::task::{task_definitions, TASK_DEFINITIONS};
use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Placement constraint expressions of GPU services (`placement_constraints` blocks) and GPU task
    /// definitions (`placement_constraints` blocks, `placementConstraints` in JSON):
    ///
    /// - a `memberOf` expression that is not valid cluster query language: an unknown subject or
    ///   operator, a missing argument, an unbalanced parenthesis or bracket, text left over;
    /// - an expression on a `distinctInstance` constraint, which takes none.
    ///
    /// Not reported, because the ECS guide does not say how ECS reads them: `&&` or `||` written
    /// against other text (`a==x||b==y`), and nesting deeper than 128 parentheses or negations.
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
        reads: { analyses: [TASK_DEFINITIONS, GPU_CAPACITY, PLACEMENT_CONSTRAINTS] },
        check: check,
    }
}

/// Where in the file the error is: inside the string literal when the literal is the expression
/// text exactly (no escapes, no template), else the whole value.
fn error_loc(
    model: &Model,
    expr: &Node,
    text: &str,
    err: &ecs_gpu_query::ParseError,
) -> Option<Loc> {
    let loc = expr.loc?;
    let source = model.file(loc.file).read_text()?;
    let written = source.get(loc.span.start as usize..loc.span.end as usize)?;
    if written.len() != text.len() + 2 || &written[1..written.len() - 1] != text {
        return Some(loc);
    }
    let start = loc.span.start as usize + 1 + err.span.start;
    let end = (loc.span.start as usize + 1 + err.span.end).max(start + 1);
    let mut narrowed = loc;
    narrowed.span.start = u32::try_from(start).ok()?.min(loc.span.end);
    narrowed.span.end = u32::try_from(end).ok()?.min(loc.span.end);
    Some(narrowed)
}

/// The problem of one constraint: where, the message and the help.
fn problem(
    model: &Model,
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
        // Nesting deeper than the parser reads is not known to be invalid.
        Some("memberOf") if ecs_gpu_query::has_unspaced_symbol_operator(text) => None,
        Some("memberOf") => Expression::parse(text).err().filter(|e| !e.too_deep).map(|e| {
            // What the parser found is a piece of the expression: not quoted when it is hidden.
            let message = if expr.is_sensitive() {
                format!(
                    "the placement expression `{}` is invalid: expected {} at column {}",
                    expr.shown(),
                    e.expected,
                    e.column
                )
            } else {
                format!("the placement expression `{text}` is invalid: {e}")
            };
            (
                error_loc(model, expr, text, &e),
                message,
                "write `subject operator [argument]`, for example `attribute:ecs.instance-type == g5.xlarge`",
            )
        }),
        _ => None,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for svc in model.resources_of("aws_ecs_service") {
        if svc.instances_unknown || !report.is_gpu_resource(svc) {
            continue;
        }
        for b in svc.body.blocks("placement_constraints") {
            if let Some((at, msg, help)) =
                problem(model, b.body.attr("type"), b.body.attr("expression"))
            {
                report.add(at, msg).help(help).resource(svc);
            }
        }
    }
    for td in task_definitions(model).filter(|td| crate::task::is_gpu_task(td)) {
        for (kind, expr) in &td.placement_constraints {
            if let Some((at, msg, help)) = problem(model, kind.as_ref(), expr.as_ref()) {
                report.add(at, msg).help(help).task(td);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The documentation writes the parser's nesting limit as a number: it must be the limit.
    #[test]
    fn documented_nesting_limit_is_the_parsers() {
        let doc = super::RULE.doc();
        assert!(
            doc.contains(&format!(
                "nesting deeper than {} parentheses",
                ecs_gpu_query::MAX_NESTING
            )),
            "{doc}"
        );
    }
}
