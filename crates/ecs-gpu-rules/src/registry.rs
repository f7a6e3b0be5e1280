//! Every rule, in ID order. Adding a rule: one line here and one in `rules/mod.rs`
//! (see CONTRIBUTING.md).

use crate::rules::*;
use crate::Rule;

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
    &gpu501_desired_count_fights_autoscaling::RULE,
    &gpu502_ignore_changes_all::RULE,
    &gpu503_asg_desired_capacity_fights_managed_scaling::RULE,
];

/// The resource and data source types the rules read. `check` loads only these
/// ([`ecs_gpu_model::LoadOptions::only_types`]): evaluating the rest (IAM, S3, VPC...) costs time
/// and memory for nothing. A rule that reads another type must add it here; in debug builds the
/// model panics when asked for a type it did not load, so the rule's tests catch a forgotten one.
pub static RESOURCE_TYPES: &[&str] = &[
    "aws_ami",
    "aws_appautoscaling_target",
    "aws_autoscaling_group",
    "aws_ec2_fleet",
    "aws_ecs_capacity_provider",
    "aws_ecs_cluster",
    "aws_ecs_cluster_capacity_providers",
    "aws_ecs_service",
    "aws_ecs_task_definition",
    "aws_instance",
    "aws_launch_configuration",
    "aws_launch_template",
    "aws_spot_fleet_request",
    "aws_ssm_parameter",
    "aws_ssm_parameters_by_path",
];

/// Of the managed resources of these types, the top-level arguments and nested block types the
/// rules read (`lifecycle` is always evaluated). `check` evaluates only these
/// ([`ecs_gpu_model::LoadOptions::only_arguments`]): tags, networking, IAM roles and the like cost
/// time and memory for nothing. Another reads as unknown, so no rule can conclude from it; a rule
/// that reads another must add it here, and in debug builds the model panics when asked for one it
/// did not evaluate, so the rule's tests catch a forgotten one. Data sources are evaluated whole.
pub static RESOURCE_ARGUMENTS: &[(&str, &[&str])] = &[
    (
        "aws_appautoscaling_target",
        &["resource_id", "scalable_dimension", "service_namespace"],
    ),
    (
        "aws_autoscaling_group",
        &[
            "default_instance_warmup",
            "desired_capacity",
            "health_check_grace_period",
            "instance_refresh",
            "launch_configuration",
            "launch_template",
            "max_instance_lifetime",
            "max_size",
            "min_size",
            "mixed_instances_policy",
            "name",
            "name_prefix",
            "protect_from_scale_in",
            "tag",
            "tags",
            "warm_pool",
        ],
    ),
    (
        "aws_ec2_fleet",
        &[
            "launch_template_config",
            "on_demand_options",
            "spot_options",
            "target_capacity_specification",
            "type",
        ],
    ),
    (
        "aws_ecs_capacity_provider",
        &[
            "auto_scaling_group_provider",
            "managed_instances_provider",
            "name",
        ],
    ),
    ("aws_ecs_cluster", &["name"]),
    (
        "aws_ecs_cluster_capacity_providers",
        &[
            "capacity_providers",
            "cluster_name",
            "default_capacity_provider_strategy",
        ],
    ),
    (
        "aws_ecs_service",
        &[
            "capacity_provider_strategy",
            "cluster",
            "desired_count",
            "launch_type",
            "name",
            "placement_constraints",
            "task_definition",
        ],
    ),
    (
        "aws_ecs_task_definition",
        &[
            "container_definitions",
            "cpu",
            "family",
            "memory",
            "network_mode",
            "placement_constraints",
            "requires_compatibilities",
            "runtime_platform",
        ],
    ),
    (
        "aws_instance",
        &[
            "ami",
            "iam_instance_profile",
            "instance_type",
            "launch_template",
            "metadata_options",
            "user_data",
            "user_data_base64",
        ],
    ),
    (
        "aws_launch_configuration",
        &[
            "iam_instance_profile",
            "image_id",
            // Not an argument of a launch configuration: read as absent, like a template's.
            "instance_requirements",
            "instance_type",
            "metadata_options",
            "name",
            "user_data",
            "user_data_base64",
        ],
    ),
    (
        "aws_launch_template",
        &[
            "iam_instance_profile",
            "image_id",
            "instance_market_options",
            "instance_requirements",
            "instance_type",
            "metadata_options",
            "name",
            "network_interfaces",
            "user_data",
        ],
    ),
    (
        "aws_spot_fleet_request",
        &[
            "fleet_type",
            "launch_specification",
            "launch_template_config",
            "on_demand_target_capacity",
            "target_capacity",
        ],
    ),
];

/// [`RESOURCE_ARGUMENTS`] as the loader takes them.
pub fn load_arguments() -> Vec<(String, Vec<String>)> {
    RESOURCE_ARGUMENTS
        .iter()
        .map(|(kind, names)| {
            (
                kind.to_string(),
                names.iter().map(|n| n.to_string()).collect(),
            )
        })
        .collect()
}

/// [`RESOURCE_TYPES`] as the loader takes them.
pub fn load_types() -> Vec<String> {
    RESOURCE_TYPES.iter().map(|t| t.to_string()).collect()
}
