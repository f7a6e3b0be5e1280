//! The rules' registry, documentation and messages follow the project's conventions:
//! - every registered rule has a well-formed ID and name, its own file, the four doc headings, and
//!   fixtures that fire and stay clean (clippy's `missing-test-files`);
//! - (that `docs/rules/` is what the rules generate is checked by crates/ecs-gpu-generate, with
//!   every other generated file: `scripts/generate.sh --check`);
//! - every message and help line the fixtures produce is lowercase, without a trailing period
//!   (clippy's `lint_message_convention`).

mod common;

use ecs_gpu_rules::docs::heading_problems;
use ecs_gpu_rules::{Settings, RULES};

#[test]
fn every_registered_rule_has_a_file_docs_and_fixtures() {
    let mut problems = Vec::new();
    let mut ids = std::collections::BTreeSet::new();
    let mut names = std::collections::BTreeSet::new();
    let mut last = "";
    for r in RULES {
        let id_ok = r.id.len() == 6
            && r.id.starts_with("GPU")
            && r.id[3..].bytes().all(|b| b.is_ascii_digit());
        if !id_ok {
            problems.push(format!("{}: the ID is not GPUnnn", r.id));
        }
        if !r
            .name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            || r.name.starts_with('-')
            || r.name.ends_with('-')
        {
            problems.push(format!("{}: the name `{}` is not kebab-case", r.id, r.name));
        }
        if !ids.insert(r.id) || !names.insert(r.name) {
            problems.push(format!("{}: ID or name registered twice", r.id));
        }
        if r.id <= last {
            problems.push(format!("{}: the registry is not in ID order", r.id));
        }
        last = r.id;
        let file = common::crate_path("src/rules").join(format!(
            "{}_{}.rs",
            r.id.to_ascii_lowercase(),
            r.name.replace('-', "_")
        ));
        if !file.exists() {
            problems.push(format!("{}: no file {}", r.id, file.display()));
        }
        for p in heading_problems(&r.doc()) {
            problems.push(format!("{}: documentation: {p}", r.id));
        }
        if r.summary.ends_with('.') || r.summary.starts_with(char::is_uppercase) {
            problems.push(format!(
                "{}: the summary must be lowercase without a trailing period",
                r.id
            ));
        }
        for sub in ["fires", "clean"] {
            if common::count(r.id, sub) == 0 {
                problems.push(format!(
                    "{}: no fixture in tests/fixtures/{}/{sub}/",
                    r.id, r.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn convention_problems(what: &str, text: &str) -> Vec<String> {
    let mut p = Vec::new();
    if text.starts_with(char::is_uppercase)
        && !text.starts_with("GPU")
        && !text.starts_with("NVIDIA")
    {
        p.push(format!("{what} starts with a capital letter: {text:?}"));
    }
    if text.ends_with('.') {
        p.push(format!("{what} ends with a period: {text:?}"));
    }
    if text.contains('\n') {
        p.push(format!("{what} spans several lines: {text:?}"));
    }
    p
}

#[test]
fn messages_and_help_follow_the_convention() {
    let mut problems = Vec::new();
    for r in RULES {
        for (kind, path) in common::cases(r.id) {
            if !matches!(kind, common::Kind::Fires) {
                continue;
            }
            let model = common::load(&path);
            for d in ecs_gpu_rules::check(&model, &Settings::default()) {
                let at = format!("{} ({})", d.rule, path.display());
                problems.extend(convention_problems(&format!("{at} message"), &d.message));
                match &d.help {
                    Some(h) => problems.extend(convention_problems(&format!("{at} help"), h)),
                    None => problems.push(format!("{at}: no help line")),
                }
                for l in &d.labels {
                    problems.extend(convention_problems(&format!("{at} label"), &l.message));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
