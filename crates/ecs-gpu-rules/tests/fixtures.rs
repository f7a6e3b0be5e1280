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
    // The snapshots do not change with the day they run on (GPU209 says whether an end of life
    // has passed): 2026-12-01.
    std::env::set_var("SOURCE_DATE_EPOCH", "1796083200");
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

/// `check` loads only the resource types and arguments the rules read (`load_types`,
/// `load_arguments`): on every fixture, the findings are the same as with every type and
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
                    "{}: with what the rules read {some:#?}\nwith everything {all:#?}",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `check` runs the rules in parallel: on every rule's fixtures folder, the report is the one of
/// the rules run one after the other, on one thread.
#[test]
fn the_rules_in_parallel_report_what_one_thread_reports() {
    // Paths are shown relative to the current directory, which other tests change.
    let _guard = common::CWD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let fixtures = common::crate_path("tests/fixtures");
    let settings = Settings::default();
    let parts = ecs_gpu_rules::ReportParts {
        sources: true,
        rules: true,
    };
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let many = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let mut compared = 0;
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let dir = entry.unwrap().path();
        let options = ecs_gpu_model::LoadOptions {
            paths: vec![dir.clone()],
            only_types: Some(ecs_gpu_rules::load_types()),
            only_arguments: Some(ecs_gpu_rules::load_arguments()),
            ..Default::default()
        };
        let model = ecs_gpu_model::load(&options);
        let report = |pool: &rayon::ThreadPool| {
            let diagnostics = pool.install(|| ecs_gpu_rules::check(&model, &settings));
            let found = diagnostics.len();
            let report = ecs_gpu_rules::report_with(&model, &settings, diagnostics, parts);
            (format!("{report:?}"), found)
        };
        let (expected, found) = report(&one_thread);
        assert_eq!(report(&many).0, expected, "{}", dir.display());
        compared += usize::from(found > 0);
    }
    assert!(compared > 20, "{compared} folders with findings");
}

/// The tests of this binary run at once, and loading a case moves the current directory: the
/// cases of a rule are found wherever it stands, else the other tests' loads silently cut the
/// list short and the cases left out are never checked.
#[test]
fn the_cases_are_found_whatever_the_current_directory() {
    let on_disk: Vec<(&str, usize)> = RULES
        .iter()
        .map(|r| {
            (
                r.id,
                common::count(r.id, "fires") + common::count(r.id, "clean"),
            )
        })
        .collect();
    assert!(on_disk.iter().all(|&(_, n)| n > 0), "{on_disk:?}");
    let found = {
        let _guard = common::CWD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let here = std::env::current_dir().unwrap();
        std::env::set_current_dir(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let found: Vec<(&str, usize)> = RULES
            .iter()
            .map(|r| (r.id, common::cases(r.id).len()))
            .collect();
        std::env::set_current_dir(here).unwrap();
        found
    };
    assert_eq!(found, on_disk);
}
