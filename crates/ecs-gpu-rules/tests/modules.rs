//! Findings in a module folder that the checked tree also calls.

mod common;

use ecs_gpu_rules::Settings;

/// The folder's own check (with its defaults) and the call without inputs find the same thing at
/// the same place: it is reported once, with the call's module address. The call with other
/// capabilities finds something else there (a warning, not an info), and is reported too.
#[test]
fn a_module_folders_own_finding_is_reported_once_with_the_call_that_shares_it() {
    let model = common::load(&common::crate_path("tests/modules/called_module"));
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let found: Vec<_> = ecs_gpu_rules::check(&model, &Settings::default())
        .into_iter()
        .filter(|d| d.rule == "GPU105")
        .collect();
    let seen: Vec<(Option<&str>, String)> = found
        .iter()
        .map(|d| (d.module.as_deref(), d.severity.to_string()))
        .collect();
    assert_eq!(
        seen,
        [
            (Some("module.video"), "warning".to_string()),
            (Some("module.custom"), "info".to_string()),
        ],
        "{found:#?}"
    );
    // The value the call gives is written in the root: the warning points there.
    let file = |d: &ecs_gpu_report::Diagnostic| {
        d.location
            .as_ref()
            .map(|l| l.file.replace('\\', "/"))
            .unwrap_or_default()
    };
    assert!(
        file(&found[0]).ends_with("called_module/main.tf"),
        "{found:#?}"
    );
    assert!(
        file(&found[1]).ends_with("modules/inference/main.tf"),
        "{found:#?}"
    );
}

/// Checked alone, the module folder still reports its own finding.
#[test]
fn a_module_folder_checked_alone_reports_its_own_finding() {
    let model = common::load(&common::crate_path(
        "tests/modules/called_module/modules/inference",
    ));
    let found: Vec<_> = ecs_gpu_rules::check(&model, &Settings::default())
        .into_iter()
        .filter(|d| d.rule == "GPU105")
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].module, None);
}

/// A defect written once in a module folder that two calls reach is reported once, naming both
/// instances (and not a third time for the folder checked as a root of its own).
#[test]
fn one_place_reached_through_two_module_instances_is_one_finding() {
    let model = common::load(&common::crate_path("tests/modules/two_instances"));
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let found: Vec<_> = ecs_gpu_rules::check(&model, &Settings::default())
        .into_iter()
        .filter(|d| d.rule == "GPU105")
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].module.as_deref(), Some("module.head"));
    assert_eq!(found[0].instances, ["module.head", "module.workers"]);
}
