//! Every rule, in ID order, and what `check` loads: what they read, together. Adding a rule: one
//! line here and one in `rules/mod.rs` (see CONTRIBUTING.md).

use crate::rules::*;
use crate::{load_filters, Reads, Rule};

/// The registered rules, in ID order.
pub static RULES: &[&Rule] = &[
    &gpu001_suppression_without_reason::RULE,
    &gpu002_unused_suppression::RULE,
    &gpu003_remote_module_not_followed::RULE,
    &gpu004_input_not_followed::RULE,
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
    &gpu210_efa_on_instance_type_without_efa::RULE,
    &gpu211_gpu_capacity_runs_no_gpu_task::RULE,
    &gpu212_vgpu_type_without_grid_driver::RULE,
    &gpu213_vgpu_ami_release_too_old::RULE,
    &gpu214_memory_overcommit_not_enabled::RULE,
    &gpu215_mps_on_vgpu_type::RULE,
    &gpu216_ami_driver_cannot_drive_gpu::RULE,
    &gpu217_image_cuda_needs_newer_driver::RULE,
    &gpu218_ami_driver_follows_recommended::RULE,
    &gpu301_termination_protection_without_scale_in_protection::RULE,
    &gpu302_launch_template_version_not_tracked::RULE,
    &gpu303_instance_refresh_missing::RULE,
    &gpu304_instance_warmup_too_short::RULE,
    &gpu305_refresh_blocked_by_scale_in_protection::RULE,
    &gpu306_mixed_gpu_types_in_capacity_provider::RULE,
    &gpu307_managed_scaling_disabled::RULE,
    &gpu308_ecs_managed_tag_missing::RULE,
    &gpu309_warm_pool_without_warm_pools_check::RULE,
    &gpu310_mixed_gpu_types_without_capacity_provider::RULE,
    &gpu311_spot_without_draining::RULE,
    &gpu312_warm_pool_reuse_on_scale_in::RULE,
    &gpu401_placement_constraint_matches_no_instance::RULE,
    &gpu402_placement_expression_invalid::RULE,
    &gpu403_gpu_service_on_fargate::RULE,
    &gpu404_gpu_placement_unconstrained::RULE,
    &gpu405_capacity_provider_in_another_cluster::RULE,
    &gpu406_deployment_exceeds_group_capacity::RULE,
    &gpu501_desired_count_fights_autoscaling::RULE,
    &gpu502_ignore_changes_all::RULE,
    &gpu503_asg_desired_capacity_fights_managed_scaling::RULE,
];

/// The resource and data source types the rules read ([`Rule::reads`]), sorted. `check` loads
/// only these ([`ecs_gpu_model::LoadOptions::only_types`]): evaluating the rest (IAM, S3, VPC...)
/// costs time and memory for nothing.
pub fn load_types() -> Vec<String> {
    load_filters(&every_rule()).0
}

/// Of the managed resources of these types, the top-level arguments and nested block types the
/// rules read ([`Rule::reads`]), sorted. `check` evaluates only these
/// ([`ecs_gpu_model::LoadOptions::only_arguments`]): tags, networking, IAM roles and the like cost
/// time and memory for nothing. Another reads as unknown, so no rule can conclude from it.
pub fn load_arguments() -> Vec<(String, Vec<String>)> {
    load_filters(&every_rule()).1
}

fn every_rule() -> Vec<&'static Reads> {
    RULES.iter().map(|r| &r.reads).collect()
}
