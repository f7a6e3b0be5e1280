//! A monorepo with one root module per environment (`envs/a`, `envs/b`: the same code with other
//! names), checked and simulated from the top, as the Action and the pre-commit hook run
//! `check .`: each environment gets what it gets alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// `envs/a` and `envs/b`: a GPU stack whose deployment fits its group (rolling, 2 tasks of 4 GPUs
/// on `g5.12xlarge`, `max_size` 3), in `envs/b` with another cluster, group, provider and family.
/// Each test writes its own copy (`name`): tests run in parallel, and one removing the folder
/// while another reads it made the reader exit 2.
fn monorepo(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("roots-monorepo-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let stack = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ecs-gpu-rules/tests/fixtures/GPU406/clean/fits");
    let mut text = String::new();
    for file in ["capacity.tf", "service.tf"] {
        text += &std::fs::read_to_string(stack.join(file)).unwrap();
    }
    for (env, name) in [("a", "gpu"), ("b", "gpu-b")] {
        let text = text
            .replace("= \"gpu\"", &format!("= \"{name}\""))
            .replace("ECS_CLUSTER=gpu ", &format!("ECS_CLUSTER={name} "))
            .replace("= \"train\"", &format!("= \"train-{name}\""));
        std::fs::create_dir_all(dir.join("envs").join(env)).unwrap();
        std::fs::write(dir.join("envs").join(env).join("main.tf"), text).unwrap();
    }
    dir
}

/// The findings of `check` in one environment's files.
fn findings_in(report: &serde_json::Value, env: &str) -> Vec<serde_json::Value> {
    let prefix = format!("envs/{env}/");
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"].as_str().unwrap().starts_with(&prefix))
        .cloned()
        .collect()
}

/// Checked alone, `envs/a` has no error; checked with `envs/b` beside it, GPU406 said its
/// deployment never finishes "besides 1 instance for 1 of `aws_ecs_service.infer`" (`envs/b`'s
/// service, placed on `envs/a`'s group because they have the same address), with a label in the
/// other environment's file.
#[test]
fn check_of_a_monorepo_gives_each_environment_its_own_findings() {
    let dir = monorepo("check");
    let both = run_in(&dir, &["check", ".", "--format", "json"]);
    let both = json(&both);
    for env in ["a", "b"] {
        let alone = json(&run_in(
            &dir,
            &["check", &format!("envs/{env}"), "--format", "json"],
        ));
        assert_eq!(
            findings_in(&both, env),
            findings_in(&alone, env),
            "envs/{env}"
        );
        assert!(!findings_in(&alone, env).is_empty());
    }
    let rules: Vec<&str> = both["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"GPU406"), "{both:#}");
}

/// `simulate .` said over-max for both deployments (exit 1 under `--fail-on`); each environment
/// is simulated on its own, its names prefixed with its folder.
#[test]
fn simulate_of_a_monorepo_simulates_each_environment_alone() {
    let dir = monorepo("simulate");
    let both = run_in(
        &dir,
        &["simulate", ".", "--fail-on", "over-max", "--format", "json"],
    );
    assert_eq!(code(&both), 0, "{}", String::from_utf8_lossy(&both.stdout));
    let both = json(&both);
    let answers = both["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 2);
    for (answer, env) in answers.iter().zip(["a", "b"]) {
        let alone = run_in(
            &dir,
            &["simulate", &format!("envs/{env}"), "--format", "json"],
        );
        let alone = json(&alone);
        // The same answer, but for the names, which say the environment.
        let text = answer.to_string().replace(&format!("envs/{env}:"), "");
        assert_eq!(text, alone["answers"][0].to_string(), "envs/{env}");
        assert_eq!(alone["answers"][0]["verdict"]["status"], "completes");
    }
    // A name says its environment; the unqualified address names none.
    let one = run_in(
        &dir,
        &["simulate", ".", "--deploy", "envs/b:aws_ecs_service.train"],
    );
    assert_eq!(code(&one), 0, "{}", String::from_utf8_lossy(&one.stderr));
    let stdout = String::from_utf8_lossy(&one.stdout);
    assert!(
        stdout.starts_with("deploy `envs/b:aws_ecs_service.train`: completes"),
        "{stdout}"
    );
    let unqualified = run_in(
        &dir,
        &["simulate", ".", "--deploy", "aws_ecs_service.train"],
    );
    assert_eq!(code(&unqualified), 2);
    let stderr = String::from_utf8_lossy(&unqualified.stderr);
    assert!(
        stderr.contains("`envs/a:aws_ecs_service.train`, `envs/b:aws_ecs_service.train`"),
        "{stderr}"
    );
}
