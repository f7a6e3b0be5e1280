//! The fuzz targets of ecs-gpu, as plain functions: `cargo fuzz` calls them from
//! `fuzz_targets/` (with libFuzzer), and `src/bin/mutate.rs` (a stable random-mutation loop)
//! and the tests call them the same way. Each must return for every input, never panic.
//! See docs/fuzzing.md.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};

pub mod grammar;
pub mod sim;

/// The HCL parser: the whole-file parser, the expression and template parsers, and the JSON
/// parser, on any text.
pub fn hcl(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = ecs_gpu_hcl::parse(text) {
        // The place of an error is within the text.
        let _ = ecs_gpu_hcl::line_col(text, e.span.start);
    }
    let _ = ecs_gpu_hcl::parse_expression(text);
    let _ = ecs_gpu_hcl::parse_template(text);
    let _ = ecs_gpu_hcl::json::parse(text);
}

/// The evaluator, through the model's public API: a module built from expressions of a small
/// grammar ([`grammar`]) in a variable default, locals, a `count` and a task definition, loaded
/// and checked by every rule. When the variable is sensitive or ephemeral, no diagnostic shows
/// its value ([`grammar::CANARY`]), whatever the expressions do with it.
pub fn eval(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(module) = grammar::Module::arbitrary(&mut u) else {
        return;
    };
    let text = module.to_hcl();
    let diagnostics = check_text(&text);
    if module.hides_canary() && !text.contains("nonsensitive") {
        if let Err(shown) = canary_hidden(&diagnostics) {
            panic!("a hidden value is shown: {shown}\nin\n{text}");
        }
    }
}

/// The first diagnostic that shows [`grammar::CANARY`], in any case, in any field.
pub fn canary_hidden(diagnostics: &[ecs_gpu_report::Diagnostic]) -> Result<(), String> {
    for d in diagnostics {
        let shown = format!("{d:?}");
        if shown.to_lowercase().contains(grammar::CANARY) {
            return Err(shown);
        }
    }
    Ok(())
}

/// Loads one `main.tf` holding `text` and runs every rule on it: the diagnostics.
pub fn check_text(text: &str) -> Vec<ecs_gpu_report::Diagnostic> {
    let Ok(dir) = tempfile::tempdir() else {
        return Vec::new();
    };
    if std::fs::write(dir.path().join("main.tf"), text).is_err() {
        return Vec::new();
    }
    let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: vec![dir.path().to_path_buf()],
        threads: Some(1),
        ..Default::default()
    });
    ecs_gpu_rules::check(&model, &ecs_gpu_rules::Settings::default())
}

/// The plan reader, on any bytes, both ways (from memory and streaming).
pub fn plan(data: &[u8]) {
    let _ = ecs_gpu_plan::read_slice(data);
    let _ = ecs_gpu_plan::read(std::io::BufReader::new(data));
}

/// The simulator: a scenario and events built from the bytes ([`sim`]), simulated and rendered
/// in both formats. Beyond not panicking and ending: a deployment or a scale-out that completes
/// never needs more instances at once than a known `max_size`, or than run before it (an
/// instance refresh may: with a maximum healthy percentage above 100 it launches replacements
/// before it terminates).
pub fn simulate(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((scenario, events)) = sim::scenario(&mut u) else {
        return;
    };
    let report = ecs_gpu_sim::simulate(&scenario, &events, None);
    assert_eq!(report.answers.len(), events.len());
    for a in &report.answers {
        if a.verdict.as_str() != "completes"
            || matches!(a.event, ecs_gpu_sim::Event::Refresh { .. })
        {
            continue;
        }
        for g in &a.groups {
            // Instances already running count even when the group's `max_size` is lower.
            if let Some(max) = g
                .max_instances
                .known()
                .map(|m| (*m).max(g.instances_before))
            {
                assert!(
                    g.peak_instances <= max && g.instances_after <= max,
                    "{} completes with {} instances at its peak and {} after, past the max of {max}: {scenario:#?}",
                    a.event.title(),
                    g.peak_instances,
                    g.instances_after
                );
            }
        }
    }
    // Each event is answered from the steady state, whatever was answered before it: alone or
    // after the others, the same answer (the simulator puts back what an event changed instead of
    // copying the steady state for each one).
    // A list with an event past the simulator's sizes (a scale-out to billions, a task of 2,000
    // GPUs) is refused whole, every answer naming that event: the property is for lists it takes.
    let refused_whole = report.answers.iter().all(|a| {
        matches!(&a.verdict, ecs_gpu_sim::Verdict::Unknown { reason }
            if reason.contains("more than the simulator takes"))
    });
    for (e, a) in events.iter().zip(&report.answers) {
        if refused_whole {
            break;
        }
        let alone = ecs_gpu_sim::simulate(&scenario, std::slice::from_ref(e), None);
        assert_eq!(
            alone.answers.first(),
            Some(a),
            "{} alone differs from its answer among {} events: {scenario:#?}",
            e.title(),
            events.len()
        );
    }
    let _ = ecs_gpu_sim::render::human(&mut std::io::sink(), &report);
    let _ = ecs_gpu_sim::render::json(&mut std::io::sink(), &report);
}

/// The saved AWS CLI outputs diagnose reads (`--from DIR`).
const DIAGNOSE_FILES: [&str; 7] = [
    "describe-services.json",
    "describe-task-definition.json",
    "describe-container-instances.json",
    "describe-tasks.json",
    "describe-capacity-providers.json",
    "describe-auto-scaling-groups.json",
    "describe-scaling-activities.json",
];

/// The diagnose scenarios of the repository (read once, at run time).
fn scenarios() -> &'static [PathBuf] {
    static SCENARIOS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    SCENARIOS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../crates/ecs-gpu-diagnose/tests/scenarios");
        let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        all.sort();
        all
    })
}

/// The diagnose input reader and walk: the first byte picks which saved output the rest of the
/// input replaces, the second which scenario of the repository gives the other outputs.
pub fn diagnose(data: &[u8]) {
    let [which, scenario, content @ ..] = data else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let name = DIAGNOSE_FILES[usize::from(*which) % DIAGNOSE_FILES.len()];
    if let Some(base) = scenarios().get(usize::from(*scenario) % scenarios().len().max(1)) {
        for other in DIAGNOSE_FILES.iter().filter(|f| **f != name) {
            let _ = std::fs::copy(base.join(other), dir.path().join(other));
        }
    }
    if std::fs::write(dir.path().join(name), content).is_err() {
        return;
    }
    if let Ok(inputs) = ecs_gpu_diagnose::Inputs::from_dir(dir.path()) {
        let _ = ecs_gpu_diagnose::diagnose(&inputs, &ecs_gpu_diagnose::Target { service: None });
    }
}

/// A target by name.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    Some(match name {
        "hcl" => hcl,
        "eval" => eval,
        "plan" => plan,
        "diagnose" => diagnose,
        "simulate" => simulate,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` bytes of a xorshift sequence from `state`: the same inputs on every run.
    fn random_bytes(state: &mut u64, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                *state as u8
            })
            .collect()
    }

    /// The grammar's modules parse: the evaluator target reaches the evaluator, not only the
    /// parser's errors.
    #[test]
    fn the_grammar_makes_modules_that_parse() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut parsed = 0;
        for _ in 0..500 {
            let bytes = random_bytes(&mut state, 256);
            let module = grammar::Module::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
            let text = module.to_hcl();
            match ecs_gpu_hcl::parse(&text) {
                Ok(_) => parsed += 1,
                Err(e) => panic!(
                    "{} at {:?}\n{text}",
                    e.message,
                    ecs_gpu_hcl::line_col(&text, e.span.start)
                ),
            }
        }
        assert_eq!(parsed, 500);
    }

    /// The hidden-value property holds on a few hundred modules whose variable is hidden, and it
    /// can fail: a diagnostic that shows the canary, in another case, is caught.
    #[test]
    fn no_diagnostic_shows_a_hidden_value() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let (mut hidden, mut redacted) = (0, 0);
        for _ in 0..300 {
            let bytes = random_bytes(&mut state, 512);
            let module = grammar::Module::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
            if module.hides_canary() {
                hidden += 1;
                let diagnostics = check_text(&module.to_hcl());
                if diagnostics.iter().any(|d| {
                    let d = format!("{d:?}");
                    d.contains("(sensitive)") || d.contains("(ephemeral)")
                }) {
                    redacted += 1;
                }
            }
            eval(&bytes);
        }
        assert!(hidden > 100, "{hidden} of 300 modules hide the variable");
        // The property is reached: some diagnostics quote a value derived from the variable.
        assert!(redacted > 0, "no diagnostic of {hidden} hid a value");
        eprintln!("{hidden} modules hide the variable, {redacted} of them with a hidden value in a diagnostic");
        let shown = ecs_gpu_report::Diagnostic {
            rule: "GPU103".into(),
            name: "x".into(),
            severity: ecs_gpu_report::Severity::Error,
            message: format!("the GPU value `{}`", grammar::CANARY.to_uppercase()),
            location: None,
            resource: None,
            module: None,
            instances: Vec::new(),
            help: None,
            labels: Vec::new(),
            omitted: 0,
        };
        assert!(canary_hidden(&[shown]).is_err());
    }

    /// The simulator target reaches every verdict from random bytes (so its invariant is
    /// exercised on answers that complete), and holds on a few hundred of them.
    #[test]
    fn the_simulator_target_reaches_every_verdict() {
        let mut state = 0x51_7cc1_b727_220au64;
        let mut seen = std::collections::BTreeMap::new();
        for _ in 0..400 {
            let bytes = random_bytes(&mut state, 512);
            simulate(&bytes);
            let (scenario, events) = sim::scenario(&mut Unstructured::new(&bytes)).unwrap();
            for a in ecs_gpu_sim::simulate(&scenario, &events, None).answers {
                *seen.entry(a.verdict.as_str()).or_insert(0) += 1;
            }
        }
        for verdict in ["completes", "stuck", "over-max", "unknown"] {
            assert!(
                seen.contains_key(verdict),
                "{verdict} never reached: {seen:?}"
            );
        }
    }

    /// Every target returns on the empty input and on a seed-like input.
    #[test]
    fn every_target_runs() {
        for name in ["hcl", "eval", "plan", "diagnose", "simulate"] {
            let target = target(name).unwrap();
            target(b"");
            target(b"\x01\x00{\"taskDefinition\": {\"containerDefinitions\": []}}");
        }
    }
}
