//! No rule fires on an unknown: configurations whose values are variables without a value.

mod common;

use ecs_gpu_rules::Settings;

#[test]
fn nothing_is_reported_when_every_value_is_unknown() {
    let model = common::load(&common::crate_path("tests/unknowns/every_value_unknown"));
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    assert_eq!(
        model.resources.len(),
        8,
        "every resource of the case is loaded"
    );
    let found = ecs_gpu_rules::check(&model, &Settings::default());
    assert!(found.is_empty(), "findings on unknown values: {found:#?}");
}

#[test]
fn a_partly_unknown_capacity_or_compatibility_decides_nothing() {
    let model = common::load(&common::crate_path("tests/unknowns/partly_unknown"));
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let found = ecs_gpu_rules::check(&model, &Settings::default());
    let rules: Vec<&str> = found.iter().map(|d| d.rule.as_str()).collect();
    // These need the unknown instance type or compatibility to decide.
    for id in ["GPU101", "GPU106", "GPU107", "GPU201", "GPU306", "GPU401"] {
        assert!(!rules.contains(&id), "{id} fired: {found:#?}");
    }
    // What is known is still reported: the literal AMI ID and the group's missing refresh.
    assert!(rules.contains(&"GPU203"), "{rules:?}");
    assert!(rules.contains(&"GPU303"), "{rules:?}");
}

#[test]
fn capacity_outside_capacity_providers_with_every_other_value_unknown_gives_nothing() {
    let model = common::load(&common::crate_path(
        "tests/unknowns/outside_capacity_providers",
    ));
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    // It is GPU capacity (so the rules do look at it)...
    let capacity = ecs_gpu_stack::capacity::gpu_capacity(&model);
    assert_eq!(capacity.groups.len(), 1);
    assert_eq!(
        capacity.templates.len(),
        2,
        "the group's template and the instance"
    );
    // ...and nothing about it is known.
    let found = ecs_gpu_rules::check(&model, &Settings::default());
    assert!(found.is_empty(), "findings on unknown values: {found:#?}");
}
