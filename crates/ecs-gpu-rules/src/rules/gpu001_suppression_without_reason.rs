use ecs_gpu_model::Model;

use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// A suppression comment, `# ecs-gpu:ignore GPU303`, that does not say why.
    ///
    /// ## Why it matters
    ///
    /// A suppression hides a broken link of the GPU chain from every later reader and from CI. Without
    /// a reason, nobody can tell later whether the finding was wrong, accepted on purpose, or just in
    /// the way; and nobody will dare remove it. The suppression still works.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// # ecs-gpu:ignore GPU303
    /// resource "aws_autoscaling_group" "gpu" {
    ///   # ...
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the reason after the rule IDs:
    ///
    /// ```hcl
    /// # ecs-gpu:ignore GPU303 instances are replaced nightly by the fleet job
    /// resource "aws_autoscaling_group" "gpu" {
    ///   # ...
    /// }
    /// ```
    pub static RULE = {
        id: "GPU001",
        name: "suppression-without-reason",
        severity: Warning,
        summary: "a suppression comment gives no reason",
        reads: {},
        check: check,
    }
}

/// Reported by the suppression pass in [`crate::check`], which sees every suppression.
fn check(_model: &Model, _report: &mut Findings<'_>) {}
