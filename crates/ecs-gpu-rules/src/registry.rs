//! Every rule, in ID order. Adding a rule: one line here and one in `rules/mod.rs`
//! (see CONTRIBUTING.md).

use crate::rules::*;
use crate::Rule;

/// The registered rules, in ID order.
pub static RULES: &[&Rule] = &[
    &gpu001_suppression_without_reason::RULE,
    &gpu002_unused_suppression::RULE,
    &gpu003_remote_module_not_followed::RULE,
    &gpu101_gpu_task_on_fargate::RULE,
];
