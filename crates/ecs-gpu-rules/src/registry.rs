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
    &gpu102_gpu_requirement_misplaced::RULE,
    &gpu103_gpu_value_invalid::RULE,
    &gpu104_gpu_task_on_windows::RULE,
    &gpu105_nvidia_driver_capabilities::RULE,
    &gpu106_gpu_count_exceeds_instance::RULE,
    &gpu107_task_size_exceeds_instance::RULE,
    &gpu108_container_definition_duplicate_key::RULE,
    &gpu201_instance_type_without_gpu::RULE,
    &gpu202_gpu_family_unsupported::RULE,
    &gpu203_ami_not_gpu_optimized::RULE,
    &gpu204_gpu_support_disabled::RULE,
    &gpu205_ecs_cluster_not_set::RULE,
    &gpu206_shared_gpu_runtime_with_reservations::RULE,
    &gpu207_instance_profile_missing::RULE,
    &gpu208_imdsv1_allowed::RULE,
    &gpu209_ami_end_of_life::RULE,
];
