//! Every rule's fixtures: each case under `tests/fixtures/<ID>/fires/` must produce at least one
//! finding of that rule (its human output is pinned by an insta snapshot), and each case under
//! `tests/fixtures/<ID>/clean/` none. A case is a file (`.tf`, `.tf.json`, `.json`) or a folder.
//!
//! Run one rule's fixtures: `FIXTURE=GPU101 cargo test -p ecs-gpu-rules --test fixtures`.

mod common;

use ecs_gpu_report::RenderOptions;
use ecs_gpu_rules::{Settings, RULES};

#[test]
fn every_rule_fires_on_its_fires_fixtures_and_not_on_its_clean_ones() {
    let only = std::env::var("FIXTURE").ok();
    let mut failures = Vec::new();
    let mut cases = 0;
    for rule in RULES {
        if only
            .as_deref()
            .is_some_and(|o| !o.eq_ignore_ascii_case(rule.id))
        {
            continue;
        }
        for (kind, path) in common::cases(rule.id) {
            cases += 1;
            let model = common::load(&path);
            if !model.problems.is_empty() {
                failures.push(format!(
                    "{}: load problems: {:?}",
                    path.display(),
                    model.problems
                ));
                continue;
            }
            let diagnostics: Vec<_> = ecs_gpu_rules::check(&model, &Settings::default())
                .into_iter()
                .filter(|d| d.rule == rule.id)
                .collect();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            match kind {
                common::Kind::Fires => {
                    if diagnostics.is_empty() {
                        failures.push(format!("{}: {} did not fire", path.display(), rule.id));
                        continue;
                    }
                    let report = ecs_gpu_rules::report(&model, &Settings::default(), diagnostics);
                    let mut out = Vec::new();
                    ecs_gpu_report::human::render(&report, &RenderOptions::default(), &mut out)
                        .unwrap();
                    let text = String::from_utf8(out).unwrap();
                    let snapshot = format!("{}__{}", rule.id, name.replace('.', "_"));
                    insta::with_settings!({ prepend_module_to_snapshot => false, omit_expression => true }, {
                        insta::assert_snapshot!(snapshot, text);
                    });
                }
                common::Kind::Clean => {
                    if !diagnostics.is_empty() {
                        failures.push(format!(
                            "{}: {} fired on a clean fixture: {:#?}",
                            path.display(),
                            rule.id,
                            diagnostics
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases > 0 || only.is_some(), "no fixture found");
}

/// `check` loads only the resource types and arguments the rules read (`RESOURCE_TYPES`,
/// `RESOURCE_ARGUMENTS`): on every fixture, the findings are the same as with every type and
/// argument loaded.
#[test]
fn loading_only_what_rules_read_changes_no_finding() {
    let mut failures = Vec::new();
    for rule in RULES {
        for (_, path) in common::cases(rule.id) {
            let some = ecs_gpu_rules::check(&common::load(&path), &Settings::default());
            let all = ecs_gpu_rules::check(&common::load_every_type(&path), &Settings::default());
            if some != all {
                failures.push(format!(
                    "{}: with RESOURCE_TYPES and RESOURCE_ARGUMENTS {some:#?}\nwith everything {all:#?}",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
