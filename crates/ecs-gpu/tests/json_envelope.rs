//! Every command's `--format json` document has the envelope of docs/json.md (`version`, then
//! `command`), and then the keys that page's table lists for the command, in that order.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each command with `--format json`, on an input of the repository.
const RUNS: &[(&str, &[&str])] = &[
    ("check", &["check", "examples/broken-gpu-chain"]),
    ("rules", &["rules"]),
    (
        "plan",
        &["plan", "crates/ecs-gpu-plan/tests/fixtures/example.json"],
    ),
    (
        "diagnose",
        &[
            "diagnose",
            "--from",
            "crates/ecs-gpu-diagnose/tests/scenarios/gpus-available-pinned",
        ],
    ),
    (
        "simulate",
        &[
            "simulate",
            "crates/ecs-gpu-rules/tests/fixtures/GPU406/fires/rolling-needs-a-fifth-gpu",
        ],
    ),
    ("types", &["types", "g5.xlarge"]),
    ("route", &["route", "--gpu"]),
];

/// The table of docs/json.md: each command and its keys after the envelope.
fn documented() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(root().join("docs/json.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let command = cells[0].trim_end_matches('`').to_string();
            let keys = cells[1]
                .split(", ")
                .map(|k| k.trim_matches('`').to_string())
                .collect();
            (command, keys)
        })
        .collect()
}

#[test]
fn every_json_document_has_the_documented_envelope_and_keys() {
    let documented = documented();
    let commands: Vec<&str> = documented.iter().map(|(c, _)| c.as_str()).collect();
    let run: Vec<&str> = RUNS.iter().map(|(c, _)| *c).collect();
    assert_eq!(commands, run, "docs/json.md lists the commands run here");
    for ((command, args), (_, keys)) in RUNS.iter().zip(&documented) {
        let o = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
            .args(*args)
            .args(["--format", "json"])
            .current_dir(root())
            .output()
            .unwrap();
        assert_ne!(o.status.code(), Some(2), "{command}: {o:?}");
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{command}: not JSON: {e}"));
        let object = doc
            .as_object()
            .unwrap_or_else(|| panic!("{command}: {doc}"));
        let mut expected = vec!["version".to_string(), "command".to_string()];
        expected.extend(keys.iter().cloned());
        let actual: Vec<&String> = object.keys().collect();
        assert_eq!(actual, expected.iter().collect::<Vec<_>>(), "{command}");
        assert_eq!(doc["version"], 1, "{command}");
        assert_eq!(doc["command"], *command);
    }
}
