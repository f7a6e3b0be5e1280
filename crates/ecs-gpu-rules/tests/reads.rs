//! What `check` loads: the union of what the rules read ([`ecs_gpu_rules::Rule::reads`]).

mod common;

use ecs_gpu_rules::{load_arguments, load_filters, load_types, Context, Findings, Rule, RULES};

/// The types the rules read, as the central list held them before each rule declared its own:
/// `check` loads exactly what it did.
const TYPES: &[&str] = &[
    "aws_ami",
    "aws_appautoscaling_target",
    "aws_autoscaling_group",
    "aws_autoscaling_schedule",
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

/// The arguments the rules read, as the central list held them before each rule declared its own.
const ARGUMENTS: &[(&str, &[&str])] = &[
    (
        "aws_appautoscaling_target",
        &["resource_id", "scalable_dimension", "service_namespace"],
    ),
    (
        "aws_autoscaling_group",
        &[
            "availability_zones",
            "default_instance_warmup",
            "desired_capacity",
            "health_check_grace_period",
            "instance_maintenance_policy",
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
            "deployment_configuration",
            "deployment_controller",
            "deployment_maximum_percent",
            "deployment_minimum_healthy_percent",
            "desired_count",
            "launch_type",
            "name",
            "ordered_placement_strategy",
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

#[test]
fn check_loads_what_the_rules_read_together() {
    let loaded = load_arguments();
    let arguments: Vec<(&str, Vec<&str>)> = loaded
        .iter()
        .map(|(kind, names)| (kind.as_str(), names.iter().map(String::as_str).collect()))
        .collect();
    let expected: Vec<(&str, Vec<&str>)> = ARGUMENTS
        .iter()
        .map(|(kind, names)| (*kind, names.to_vec()))
        .collect();
    assert_eq!(arguments, expected);
    assert_eq!(load_types(), TYPES);
}

/// A rule's reads are complete: on each of its fixtures, loaded with only what it declares it
/// reads, it finds what it finds with what every rule reads (and a debug build panics on a type or
/// an argument it asks for and did not declare).
#[test]
fn each_rule_finds_the_same_with_only_what_it_declares_it_reads() {
    std::env::set_var("SOURCE_DATE_EPOCH", "1796083200");
    let findings = |model: &ecs_gpu_model::Model, rule: &'static Rule| {
        let ctx = Context::new(model);
        let mut report = Findings::new(&ctx, rule);
        (rule.check)(model, &mut report);
        let found = report.into_findings();
        found
            .iter()
            .map(|f| format!("{:?}", (&f.message, f.loc, &f.resource, &f.help, &f.labels)))
            .collect::<Vec<_>>()
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    // GPU004 reports what the load could not follow in what the other rules read: its findings
    // depend on their reads.
    for rule in RULES.iter().filter(|r| r.id != "GPU004") {
        let (types, arguments) = load_filters(&[&rule.reads]);
        for (_, path) in common::cases(rule.id) {
            let all = findings(&common::load(&path), rule);
            let own = findings(
                &common::load_only(&path, types.clone(), arguments.clone()),
                rule,
            );
            compared += all.len();
            if own != all {
                failures.push(format!(
                    "{}: {} with its reads {own:#?}\nwith every rule's {all:#?}",
                    path.display(),
                    rule.id
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 0);
}

/// Reads with a type read whole and also with arguments: the type is read whole.
#[test]
fn a_type_read_whole_is_loaded_whole() {
    use ecs_gpu_rules::{reads, Reads};
    const WALK: Reads = reads! {
        arguments: { "aws_instance": ["ami"], "aws_launch_template": ["b"] },
    };
    const RULE: Reads = reads! {
        whole: ["aws_instance"],
        arguments: { "aws_launch_template": ["a"] },
        walks: [WALK],
    };
    let (types, arguments) = load_filters(&[&RULE]);
    assert_eq!(types, ["aws_instance", "aws_launch_template"]);
    assert_eq!(
        arguments,
        [(
            "aws_launch_template".to_string(),
            vec!["a".to_string(), "b".to_string()]
        )]
    );
}
