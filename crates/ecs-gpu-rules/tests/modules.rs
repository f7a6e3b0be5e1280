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

/// A finding placed in the code of a module `terraform init` installed (which the user does not
/// edit) points at the root's `module` block that calls it, with the module's line as a note.
#[test]
fn a_finding_inside_an_installed_module_points_at_the_roots_call() {
    let dir = std::env::temp_dir().join(format!("ecs-gpu-rules-installed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let module = dir.join(".terraform/modules/workers");
    std::fs::create_dir_all(&module).unwrap();
    std::fs::write(
        dir.join("main.tf"),
        "module \"workers\" {\n  source  = \"acme/gpu-worker/aws\"\n  version = \"1.0.0\"\n  name    = \"workers\"\n}\n",
    )
    .unwrap();
    std::fs::copy(
        common::crate_path("tests/modules/two_instances/modules/worker/main.tf"),
        module.join("main.tf"),
    )
    .unwrap();
    std::fs::write(
        dir.join(".terraform/modules/modules.json"),
        r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"workers","Source":"registry.terraform.io/acme/gpu-worker/aws","Version":"1.0.0","Dir":".terraform/modules/workers"}]}"#,
    )
    .unwrap();
    let model = common::load(&dir);
    let found: Vec<_> = ecs_gpu_rules::check(&model, &Settings::default())
        .into_iter()
        .filter(|d| d.rule == "GPU105")
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(found.len(), 1, "{found:#?}");
    let at = found[0].location.as_ref().unwrap();
    assert!(
        at.file.ends_with("main.tf") && !at.file.contains(".terraform"),
        "{at:?}"
    );
    assert_eq!(at.line, 1);
    assert!(found[0].labels[0]
        .location
        .file
        .contains(".terraform/modules/workers"));
    assert_eq!(found[0].labels[0].location.line, 13);
}
