use ecs_gpu_model::Model;

use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A suppression comment that silences nothing: no finding of the rules it names is on the line
    /// below it or in the block below it, or it names something that is not a rule.
    ///
    /// ## Why it matters
    ///
    /// A stale suppression is a trap: when the code below it changes, it silently hides the next real
    /// finding there. A misspelt rule ID silences nothing at all, while the author believes it does.
    /// A suppression of a rule that `--select`/`--ignore` turned off is not reported.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// # ecs-gpu:ignore GPU999 not a rule
    /// resource "aws_ecs_task_definition" "app" {
    ///   # ...
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Remove the comment, or correct the rule ID to one that `ecs-gpu rules` lists.
    pub static RULE = {
        id: "GPU002",
        name: "unused-suppression",
        severity: Info,
        summary: "a suppression comment silences nothing",
        reads: {},
        check: check,
    }
}

/// Reported by the suppression pass in [`crate::check`], which knows which suppressions were used.
fn check(_model: &Model, _report: &mut Findings<'_>) {}
