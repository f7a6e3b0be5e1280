//! `ecs-gpu check`, `rules` and `rule` as a user runs them: output formats, exit statuses,
//! suppressions, configuration, variables, and input that must never make it panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the binary in `dir` (colour off: stdout is a pipe, and NO_COLOR is set for good measure).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn run(args: &[&str]) -> Output {
    run_in(&root(), args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

/// A fresh folder under the test target's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("check_cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const GPU_ON_FARGATE: &str = r#"resource "aws_ecs_task_definition" "app" {
  family                   = "app"
  requires_compatibilities = ["FARGATE"]
  container_definitions = jsonencode([{
    name                 = "app"
    image                = "nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    resourceRequirements = [{ type = "GPU", value = "1" }]
  }])
}
"#;

const MISSING_CAPABILITIES: &str = r#"resource "aws_ecs_task_definition" "app" {
  family = "app"
  container_definitions = jsonencode([{
    name                 = "app"
    image                = "python:3.12-slim"
    memory               = 1024
    resourceRequirements = [{ type = "GPU", value = "1" }]
    environment          = [{ name = "NVIDIA_DRIVER_CAPABILITIES", value = "utility" }]
  }])
}
"#;

fn rules_of(o: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

// ---- the shipped example, as a newcomer sees it ----

#[test]
fn broken_gpu_chain_example_human_output() {
    let o = run(&["check", "examples/broken-gpu-chain"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn broken_gpu_chain_example_json_output() {
    let o = run(&["check", "examples/broken-gpu-chain", "--format", "json"]);
    assert_eq!(code(&o), 1);
    insta::assert_snapshot!(stdout(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["summary"]["files"], 4);
    assert!(v["summary"]["errors"].as_u64().unwrap() >= 5);
}

#[test]
fn sarif_output_is_what_github_code_scanning_takes() {
    let o = run(&["check", "examples/broken-gpu-chain", "--format", "sarif"]);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "GPU101"));
    for r in rules {
        assert!(r["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## How to fix"));
        assert!(r["shortDescription"]["text"].is_string());
        let full = r["fullDescription"]["text"].as_str().unwrap();
        assert!(full.len() > 20 && !full.contains("##"), "{full}");
        assert!(r["defaultConfiguration"]["level"].is_string());
    }
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.starts_with("examples/broken-gpu-chain/"), "{uri}");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert_eq!(
            r["partialFingerprints"]["ecsGpuFingerprint/v1"]
                .as_str()
                .unwrap()
                .len(),
            32
        );
    }
}

#[test]
fn github_output_is_one_annotation_per_finding() {
    let o = run(&["check", "examples/broken-gpu-chain", "--format", "github"]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(!text.is_empty());
    for line in text.lines() {
        assert!(
            line.starts_with("::error file=examples/broken-gpu-chain/")
                || line.starts_with("::warning file=examples/broken-gpu-chain/")
                || line.starts_with("::notice "),
            "{line}"
        );
        assert!(line.contains(",title=GPU"), "{line}");
    }
}

#[test]
fn gitlab_output_is_a_code_quality_report() {
    let o = run(&["check", "examples/broken-gpu-chain", "--format", "gitlab"]);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let issues = v.as_array().unwrap();
    // The same findings as the JSON report, less those without a file.
    let json = run(&["check", "examples/broken-gpu-chain", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let located = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"].is_string())
        .count();
    assert_eq!(issues.len(), located);
    let mut fingerprints = std::collections::HashSet::new();
    for i in issues {
        let path = i["location"]["path"].as_str().unwrap();
        assert!(path.starts_with("examples/broken-gpu-chain/"), "{path}");
        assert!(i["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        let check = i["check_name"].as_str().unwrap();
        assert!(check.starts_with("GPU"), "{check}");
        assert!(i["description"].as_str().unwrap().starts_with(check));
        assert!(["critical", "major", "info"].contains(&i["severity"].as_str().unwrap()));
        assert!(fingerprints.insert(i["fingerprint"].as_str().unwrap().to_string()));
    }
}

/// What the README's editor setups (a VS Code problem matcher, Vim's `errorformat`, Emacs'
/// compilation mode) read: each finding is one line `file:line:col: severity RULE name: message`,
/// at the place the JSON gives, and no other line has that shape (notes say `note:`).
#[test]
fn human_headlines_are_what_editors_match() {
    let dir = "examples/broken-gpu-chain";
    let human = stdout(&run(&["check", dir, "--color", "never"]));
    let headlines: Vec<(String, u64, u64, String, String)> = human
        .lines()
        .filter_map(|line| {
            // docs/check.md's VS Code pattern: ^(.*):(\d+):(\d+): (error|warning|info) (GPU\d+) (.*)$
            let (place, tail) = line.split_once(": ")?;
            let mut parts = place.rsplitn(3, ':');
            let (col, ln, file) = (parts.next()?, parts.next()?, parts.next()?);
            let (line_no, col_no) = (ln.parse().ok()?, col.parse().ok()?);
            let (severity, tail) = tail.split_once(' ')?;
            let (rule, message) = tail.split_once(' ')?;
            (["error", "warning", "info"].contains(&severity)
                && rule.len() == 6
                && rule.starts_with("GPU")
                && rule[3..].bytes().all(|b| b.is_ascii_digit()))
            .then(|| {
                (
                    file.to_string(),
                    line_no,
                    col_no,
                    rule.to_string(),
                    message.to_string(),
                )
            })
        })
        .collect();
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&run(&["check", dir, "--format", "json"]))).unwrap();
    let diagnostics = json["diagnostics"].as_array().unwrap();
    assert!(!diagnostics.is_empty());
    assert_eq!(headlines.len(), diagnostics.len(), "{human}");
    for (h, d) in headlines.iter().zip(diagnostics) {
        assert_eq!(h.0, d["file"].as_str().unwrap());
        assert_eq!(h.1, d["line"].as_u64().unwrap());
        assert_eq!(h.2, d["column"].as_u64().unwrap());
        assert_eq!(h.3, d["rule"].as_str().unwrap());
        let name = d["name"].as_str().unwrap();
        let message = d["message"].as_str().unwrap();
        assert_eq!(h.4, format!("{name}: {message}"));
    }
}

#[test]
fn the_terraform_module_checks_with_no_error_and_no_warning() {
    let o = run(&[
        "check",
        "terraform/ecs-gpu-task",
        "--fail-on",
        "warning",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
}

/// The module refuses eight GPUs on a 4-GPU type, or a task memory above what the agent registers,
/// at plan time; `check` says so before any plan, following the values through the module's
/// inputs into its `service` submodule.
#[test]
fn a_root_calling_the_terraform_module_with_values_that_cannot_fit_gets_gpu106_and_gpu107() {
    let module = root()
        .join("terraform/ecs-gpu-task")
        .canonicalize()
        .unwrap();
    for (name, input, rule, says) in [
        (
            "module-gpu-count",
            "gpu_count = 8",
            "GPU106",
            "asks for 8 GPUs, more than any instance type it can be placed on: `g6.12xlarge` has 4",
        ),
        (
            "module-task-memory",
            "task_memory = 196608",
            "GPU107",
            "needs 196608 MiB of memory, more than any instance type it can be placed on: `g6.12xlarge` registers at most",
        ),
    ] {
        let dir = scratch(name);
        // A local module by a relative path, as a user calls it (one by an absolute path outside
        // the checked folders is not followed: docs/limits.md, "Links").
        let real = dir.canonicalize().unwrap();
        let common = real
            .ancestors()
            .find(|a| module.starts_with(a))
            .unwrap()
            .to_path_buf();
        let up = "../".repeat(real.strip_prefix(&common).unwrap().components().count());
        let source = format!("{up}{}", module.strip_prefix(&common).unwrap().display());
        write(
            &dir,
            "main.tf",
            &format!(
                r#"module "inference" {{
  source = "{}"

  name            = "inference"
  cluster_name    = "gpu-inference"
  vpc_id          = "vpc-0123456789abcdef0"
  subnet_ids      = ["subnet-0123456789abcdef0"]
  instance_type   = "g6.12xlarge"
  container_image = "vllm/vllm-openai:v0.10.2"
  {input}
}}
"#,
                source
            ),
        );
        let o = run_in(&dir, &["check", "--format", "json"]);
        assert_eq!(code(&o), 1, "{}\n{}", stdout(&o), stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let found: Vec<_> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] != "info")
            .collect();
        assert_eq!(found.len(), 1, "{}", stdout(&o));
        assert_eq!(found[0]["rule"], rule);
        assert_eq!(found[0]["module"], "module.inference.module.service");
        let message = found[0]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
}

#[test]
fn opentofu_files_are_checked_in_place_of_their_tf_twins() {
    let dir = scratch("tofu");
    // OpenTofu reads main.tofu (fixed) and never main.tf (broken): no finding from main.tf.
    write(&dir, "main.tf", GPU_ON_FARGATE);
    write(
        &dir,
        "main.tofu",
        &GPU_ON_FARGATE.replace("[\"FARGATE\"]", "[\"EC2\"]"),
    );
    let o = run_in(&dir, &["check", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["summary"]["files"], 1);
    assert!(!rules_of(&o).contains(&"GPU101".to_string()));
    // A `.tofu` file with no twin is checked like any other.
    write(
        &dir,
        "gpu.tofu",
        &GPU_ON_FARGATE.replace("\"app\"", "\"gpu\""),
    );
    let o = run_in(&dir, &["check"]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("gpu.tofu:3:31: error GPU101"),
        "{}",
        stdout(&o)
    );
}

// ---- exit statuses ----

#[test]
fn exit_0_when_nothing_reaches_fail_on() {
    let dir = scratch("exit0");
    write(&dir, "main.tf", MISSING_CAPABILITIES);
    let o = run_in(&dir, &["check"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("warning GPU105"));
}

#[test]
fn fail_on_warning_makes_a_warning_exit_1() {
    let dir = scratch("failon");
    write(&dir, "main.tf", MISSING_CAPABILITIES);
    assert_eq!(code(&run_in(&dir, &["check", "--fail-on", "warning"])), 1);
    assert_eq!(code(&run_in(&dir, &["check", "--fail-on", "info"])), 1);
    assert_eq!(code(&run_in(&dir, &["check", "--fail-on", "error"])), 0);
}

#[test]
fn exit_1_on_an_error() {
    let dir = scratch("exit1");
    write(&dir, "main.tf", GPU_ON_FARGATE);
    let o = run_in(&dir, &["check", "."]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).starts_with("./main.tf:3:31: error GPU101")
            || stdout(&o).starts_with("main.tf:3:31: error GPU101"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_parse_error_is_reported_with_its_place_and_the_rest_is_still_checked() {
    let dir = scratch("parse-error");
    write(&dir, "good.tf", GPU_ON_FARGATE);
    write(
        &dir,
        "bad.tf",
        "resource \"aws_ecs_service\" \"x\" {\n  name = \n}\n",
    );
    let o = run_in(&dir, &["check"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l.starts_with("bad.tf:3:")
            || l.starts_with("./bad.tf:3:")
            || l.starts_with("bad.tf:2:")
            || l.starts_with("./bad.tf:2:")),
        "{err}"
    );
    assert!(stdout(&o).contains("GPU101"), "{}", stdout(&o));
    // The machine formats carry the file too, so that a CI report says why the run failed.
    let problem = |o: &Output| {
        assert_eq!(code(o), 2);
        serde_json::from_str::<serde_json::Value>(&stdout(o)).unwrap()
    };
    let json = problem(&run_in(&dir, &["check", "--format", "json"]));
    let p = &json["problems"][0];
    assert_eq!(p["file"], "bad.tf");
    assert!(
        p["line"].as_u64().is_some() && p["message"].is_string(),
        "{json}"
    );
    assert_eq!(json["problems"].as_array().unwrap().len(), 1);
    let sarif = problem(&run_in(&dir, &["check", "--format", "sarif"]));
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let n = &invocation["toolExecutionNotifications"][0];
    assert_eq!(n["level"], "error");
    assert_eq!(
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "bad.tf"
    );
    let gitlab = problem(&run_in(&dir, &["check", "--format", "gitlab"]));
    assert!(gitlab
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["check_name"] == "ecs-gpu/parse-error" && i["location"]["path"] == "bad.tf"));
    let github = run_in(&dir, &["check", "--format", "github"]);
    assert_eq!(code(&github), 2);
    assert!(
        stdout(&github)
            .lines()
            .any(|l| l.starts_with("::error file=bad.tf,line=")),
        "{}",
        stdout(&github)
    );
    // Clean runs say so.
    let clean = scratch("parse-error-none");
    write(&clean, "good.tf", GPU_ON_FARGATE);
    let o = run_in(&clean, &["check", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
}

/// JSON in a tree may be anything (templates with placeholders, JSON with comments): what does not
/// parse is not a task definition, and is skipped (a folder left with nothing to check is an error).
/// A JSON file named on the command line was asked for: when it does not parse, that is said, with
/// its place, and the exit status is 2.
#[test]
fn a_named_json_file_that_does_not_parse_is_a_problem_a_walked_one_is_skipped() {
    let dir = scratch("named-json");
    let broken = "{\n  \"family\": \"gpu\",\n  \"containerDefinitions\": [],\n}\n";
    write(&dir, "taskdef.json", broken);
    // Skipped, it leaves the folder with nothing to check: that is the error.
    let walked = run_in(&dir, &["check", "--format", "json"]);
    assert_eq!(code(&walked), 2, "{}", stderr(&walked));
    assert!(
        stderr(&walked).contains("nothing to check"),
        "{}",
        stderr(&walked)
    );
    let named = run_in(&dir, &["check", "taskdef.json", "--format", "json"]);
    assert_eq!(code(&named), 2, "{}", stdout(&named));
    assert!(
        stderr(&named).starts_with("taskdef.json:4:1: "),
        "{}",
        stderr(&named)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&named)).unwrap();
    assert_eq!(v["problems"][0]["file"], "taskdef.json");
    // Named JSON that parses and is another document is skipped: nothing is left to check.
    write(&dir, "package.json", "{\"name\": \"web\"}\n");
    let other = run_in(&dir, &["check", "package.json"]);
    assert_eq!(code(&other), 2);
    assert!(stderr(&other).contains("nothing to check in `package.json`"));
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let o = run(&["check", "no/such/folder"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no/such/folder"));
}

// ---- select, ignore, configuration ----

#[test]
fn select_and_ignore_choose_the_rules() {
    let dir = scratch("select");
    write(&dir, "main.tf", GPU_ON_FARGATE);
    write(
        &dir,
        "caps.tf",
        &MISSING_CAPABILITIES.replace("\"app\"", "\"caps\""),
    );
    let all = rules_of(&run_in(&dir, &["check", "--format", "json"]));
    assert!(all.contains(&"GPU101".to_string()) && all.contains(&"GPU105".to_string()));
    let only = rules_of(&run_in(
        &dir,
        &["check", "--format", "json", "--select", "GPU105"],
    ));
    assert!(only.iter().all(|r| r == "GPU105") && !only.is_empty());
    let ignored = run_in(
        &dir,
        &["check", "--format", "json", "--ignore", "GPU101,GPU105"],
    );
    assert!(rules_of(&ignored)
        .iter()
        .all(|r| r != "GPU101" && r != "GPU105"));
    assert_eq!(code(&ignored), 0);
    let unknown = run_in(&dir, &["check", "--select", "GPU9999"]);
    assert_eq!(code(&unknown), 2);
    assert!(stderr(&unknown).contains("GPU9999"));
}

#[test]
fn config_file_is_found_upward_and_applied() {
    let dir = scratch("config");
    write(
        &dir,
        ".ecs-gpu.toml",
        "ignore = [\"GPU101\"]\nfail-on = \"warning\"\n\n[severity]\nGPU105 = \"info\"\n",
    );
    write(&dir, "infra/gpu/main.tf", GPU_ON_FARGATE);
    write(
        &dir,
        "infra/gpu/caps.tf",
        &MISSING_CAPABILITIES.replace("\"app\"", "\"caps\""),
    );
    let o = run_in(&dir.join("infra"), &["check", "gpu", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let d = v["diagnostics"].as_array().unwrap();
    assert!(d.iter().all(|d| d["rule"] != "GPU101"), "{d:?}");
    assert!(
        d.iter()
            .any(|d| d["rule"] == "GPU105" && d["severity"] == "info"),
        "{d:?}"
    );
    // fail-on = "warning" from the file; nothing left at warning or above.
    assert_eq!(code(&o), 0);
    // The command line wins over the file.
    let o = run_in(
        &dir.join("infra"),
        &["check", "gpu", "--select", "GPU101", "--fail-on", "error"],
    );
    assert_eq!(
        code(&o),
        0,
        "`--select` replaces the file's select; its ignore still applies"
    );
    let o = run_in(&dir.join("infra"), &["check", "gpu", "--no-config"]);
    assert_eq!(code(&o), 1);
}

#[test]
fn an_invalid_config_file_is_a_usage_error() {
    let dir = scratch("bad-config");
    write(&dir, ".ecs-gpu.toml", "selekt = [\"GPU101\"]\n");
    write(&dir, "main.tf", GPU_ON_FARGATE);
    let o = run_in(&dir, &["check"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains(".ecs-gpu.toml"), "{}", stderr(&o));
}

// ---- suppressions ----

#[test]
fn a_suppression_above_the_block_silences_the_rule_in_the_whole_block() {
    let dir = scratch("suppress-block");
    write(
        &dir,
        "main.tf",
        &format!("# ecs-gpu:ignore GPU101 registered by a test harness that rewrites it\n{GPU_ON_FARGATE}"),
    );
    let o = run_in(&dir, &["check", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(rules_of(&o).iter().all(|r| r != "GPU101" && r != "GPU002"));
}

#[test]
fn a_suppression_above_the_line_silences_that_line_only() {
    let dir = scratch("suppress-line");
    let text = GPU_ON_FARGATE.replace(
        "  requires_compatibilities",
        "  # ecs-gpu:ignore GPU101 a reason\n  requires_compatibilities",
    );
    write(&dir, "main.tf", &text);
    let o = run_in(&dir, &["check", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    // Above another line, it does not apply, and says it silenced nothing.
    let text = GPU_ON_FARGATE.replace("  family", "  # ecs-gpu:ignore GPU101 a reason\n  family");
    write(&dir, "main.tf", &text);
    let o = run_in(&dir, &["check", "--format", "json"]);
    assert_eq!(code(&o), 1);
    let rules = rules_of(&o);
    assert!(
        rules.contains(&"GPU101".to_string()) && rules.contains(&"GPU002".to_string()),
        "{rules:?}"
    );
}

#[test]
fn a_suppression_without_a_reason_works_and_is_reported() {
    let dir = scratch("suppress-no-reason");
    write(
        &dir,
        "main.tf",
        &format!("# ecs-gpu:ignore GPU101\n{GPU_ON_FARGATE}"),
    );
    let o = run_in(&dir, &["check", "--format", "json"]);
    let rules = rules_of(&o);
    assert!(rules.contains(&"GPU001".to_string()), "{rules:?}");
    assert!(!rules.contains(&"GPU101".to_string()), "{rules:?}");
    assert_eq!(code(&o), 0);
}

// ---- variables ----

#[test]
fn var_and_var_file_give_values_and_unknowns_stay_silent() {
    let dir = scratch("vars");
    write(
        &dir,
        "main.tf",
        r#"variable "gpus" {
  type = string
}

resource "aws_ecs_task_definition" "app" {
  family = "app"
  container_definitions = jsonencode([{
    name                 = "app"
    image                = "nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    memory               = 1024
    resourceRequirements = [{ type = "GPU", value = var.gpus }]
  }])
}
"#,
    );
    // No value: unknown, so no finding.
    let o = run_in(&dir, &["check", "--format", "json", "--select", "GPU103"]);
    assert!(rules_of(&o).is_empty());
    assert_eq!(code(&o), 0);
    let o = run_in(
        &dir,
        &[
            "check", "--format", "json", "--select", "GPU103", "--var", "gpus=0",
        ],
    );
    assert_eq!(rules_of(&o), ["GPU103"]);
    write(
        &dir.join("../vars-files"),
        "prod.tfvars",
        "gpus = \"0.3\"\n",
    );
    let var_file = dir.join("../vars-files/prod.tfvars");
    let o = run_in(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--select",
            "GPU103",
            "--var-file",
            var_file.to_str().unwrap(),
        ],
    );
    assert_eq!(rules_of(&o), ["GPU103"]);
    // --var wins over --var-file.
    let o = run_in(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--select",
            "GPU103",
            "--var-file",
            var_file.to_str().unwrap(),
            "--var",
            "gpus=1",
        ],
    );
    assert!(rules_of(&o).is_empty());
}

/// `--var-file` is read as Terraform reads `-var-file`: a relative path from the current
/// directory, not from the checked folder (`infra/prod.tfvars` when running from the repository
/// root); a path given relative to the checked folder is not found, and the message says so.
#[test]
fn var_file_paths_are_taken_from_the_current_directory() {
    let dir = scratch("var-file-cwd");
    write(
        &dir,
        "infra/main.tf",
        r#"variable "gpus" {
  type = string
}

resource "aws_ecs_task_definition" "app" {
  family = "app"
  container_definitions = jsonencode([{
    name                 = "app"
    image                = "nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    memory               = 1024
    resourceRequirements = [{ type = "GPU", value = var.gpus }]
  }])
}
"#,
    );
    write(&dir, "infra/prod.tfvars", "gpus = \"0.3\"\n");
    let o = run_in(
        &dir,
        &[
            "check",
            "infra",
            "--format",
            "json",
            "--select",
            "GPU103",
            "--var-file",
            "infra/prod.tfvars",
        ],
    );
    assert_eq!(rules_of(&o), ["GPU103"], "{}", stderr(&o));
    let o = run_in(&dir, &["check", "infra", "--var-file", "prod.tfvars"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--var-file prod.tfvars: no such file"),
        "{}",
        stderr(&o)
    );
}

/// A folder with nothing to check (a mistyped path in CI: the wrong folder of a repository) is an
/// error with the reason, not "0 files" and success.
#[test]
fn a_folder_with_nothing_to_check_exits_2_with_the_reason() {
    let dir = scratch("nothing-to-check");
    write(&dir, "docs/README.md", "# infra\n");
    write(&dir, "docs/package.json", "{\"name\": \"site\"}\n");
    let o = run_in(&dir, &["check", "docs"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("nothing to check in `docs`: no Terraform file"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
}

/// A file reached through a module call (`source = "../.."` from an example) is shown by the same
/// path as when the folder that holds it is checked: `main.tf`, not `./main.tf`.
#[test]
fn one_file_is_shown_by_one_path_however_it_is_reached() {
    let dir = scratch("one-path");
    write(&dir, "main.tf", GPU_ON_FARGATE);
    write(
        &dir,
        "examples/complete/main.tf",
        "module \"app\" {\n  source = \"../..\"\n}\n",
    );
    let files = |o: &Output| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["file"].as_str().unwrap().to_string())
            .collect()
    };
    let from_root = run_in(
        &dir,
        &["check", ".", "--format", "json", "--select", "GPU101"],
    );
    let from_example = run_in(
        &dir,
        &[
            "check",
            "examples/complete",
            "--format",
            "json",
            "--select",
            "GPU101",
        ],
    );
    assert_eq!(files(&from_root), ["main.tf"]);
    assert_eq!(files(&from_example), ["main.tf"]);
}

// ---- rules and rule ----

#[test]
fn rules_lists_every_rule_and_rule_shows_its_doc() {
    let o = run(&["rules"]);
    assert_eq!(code(&o), 0);
    for id in ["GPU101", "GPU108"] {
        assert!(stdout(&o).contains(id));
    }
    let o = run(&["rules", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["name"] == "gpu-task-on-fargate"));
    let o = run(&["rule", "GPU101"]);
    assert_eq!(code(&o), 0);
    for h in [
        "## What it checks",
        "## Why it matters",
        "## Example",
        "## How to fix",
    ] {
        assert!(stdout(&o).contains(h));
    }
}

#[test]
fn an_unknown_rule_id_exits_2_with_the_nearest() {
    let o = run(&["rule", "GPU1O1"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("GPU101"), "{}", stderr(&o));
}

// ---- never panic ----

fn assert_no_panic(o: &Output) {
    let c = code(o);
    assert!((0..=2).contains(&c), "exit {c}: {}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
}

#[test]
fn binary_and_invalid_utf8_files_do_not_panic() {
    let dir = scratch("binary");
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("blob.tf"), &bytes).unwrap();
    std::fs::write(dir.join("latin1.tf"), b"locals {\n  x = \"caf\xe9\"\n}\n").unwrap();
    std::fs::write(dir.join("task.json"), &bytes).unwrap();
    write(&dir, "main.tf", GPU_ON_FARGATE);
    let o = run_in(&dir, &["check"]);
    assert_no_panic(&o);
    assert!(
        stdout(&o).contains("GPU101"),
        "the good file is still checked"
    );
}

#[test]
fn deep_nesting_does_not_panic() {
    let dir = scratch("deep");
    let depth = 100_000;
    let text = format!(
        "locals {{\n  x = {}1{}\n}}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    write(&dir, "deep.tf", &text);
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    write(&dir, "deep.json", &json);
    assert_no_panic(&run_in(&dir, &["check"]));
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_does_not_panic_or_hang() {
    let dir = scratch("symlink-loop");
    write(&dir, "main.tf", GPU_ON_FARGATE);
    std::os::unix::fs::symlink(&dir, dir.join("loop")).unwrap();
    std::os::unix::fs::symlink(dir.join("b"), dir.join("a")).unwrap();
    std::os::unix::fs::symlink(dir.join("a"), dir.join("b")).unwrap();
    let o = run_in(&dir, &["check"]);
    assert_no_panic(&o);
    assert!(stdout(&o).contains("GPU101"));
}

// ---- colour ----

#[test]
fn colour_only_on_a_terminal_unless_asked() {
    let dir = scratch("colour");
    write(&dir, "main.tf", GPU_ON_FARGATE);
    // stdout is a pipe here: no colour, even without NO_COLOR.
    let o = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(["check"])
        .current_dir(&dir)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(!o.stdout.contains(&0x1b));
    let o = run_in(&dir, &["check", "--color", "always"]);
    assert!(o.stdout.contains(&0x1b));
    // Colour never reaches the machine formats.
    let o = run_in(&dir, &["check", "--color", "always", "--format", "json"]);
    assert!(!o.stdout.contains(&0x1b));
}

/// A root that gets its GPU capacity from a registry module, as `terraform init` leaves it: the
/// module's code in `.terraform/modules/gpu_asg`, and the manifest that says so.
fn initialized_root(dir: &Path, source: &str) {
    write(
        dir,
        "infra/main.tf",
        &include_str!("installed/root.tf.in").replace("acme/gpu-asg/aws", source),
    );
    write(
        dir,
        "infra/.terraform/modules/gpu_asg/main.tf",
        include_str!("installed/gpu_asg.tf.in"),
    );
    write(
        dir,
        "infra/.terraform/modules/modules.json",
        r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"gpu_asg","Source":"registry.terraform.io/acme/gpu-asg/aws","Version":"2.1.0","Dir":".terraform/modules/gpu_asg"}]}"#,
    );
}

/// What the JSON report says, one line per diagnostic: rule, file:line, module, resource.
fn json_lines(o: &Output) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_str(&stdout(o)).expect("JSON");
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{} {}:{} {} {}",
                d["rule"].as_str().unwrap_or(""),
                d["file"].as_str().unwrap_or(""),
                d["line"],
                d["module"].as_str().unwrap_or("-"),
                d["resource"].as_str().unwrap_or("-"),
            )
        })
        .collect()
}

/// What the JSON report of the shipped root says when its module call is not followed: GPU003
/// (its Triton container sets `NVIDIA_DRIVER_CAPABILITIES` through its CUDA base image).
const CALL_NOT_FOLLOWED: [&str; 1] = ["GPU003 infra/main.tf:5 - -"];

/// A registry module installed by `terraform init` is checked through the call: the wrong GPU
/// family and the missing scale-in protection are set by the root's arguments, and the findings
/// point there, naming the module's resource. Without the manifest, only GPU003 says the call was
/// not followed; with a call whose source or version changed since `terraform init`, GPU003 says
/// why the copy is not used.
#[test]
fn a_module_installed_by_terraform_init_is_checked_through_its_call() {
    let dir = scratch("installed_module");
    initialized_root(&dir, "acme/gpu-asg/aws");
    let o = run_in(&dir, &["check", "infra", "--format", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        json_lines(&o),
        [
            "GPU202 infra/main.tf:11 module.gpu_asg aws_launch_template.this",
            "GPU301 infra/main.tf:24 - aws_ecs_capacity_provider.gpu",
        ]
    );
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["summary"]["files"], 2);

    std::fs::remove_file(dir.join("infra/.terraform/modules/modules.json")).unwrap();
    let o = run_in(&dir, &["check", "infra", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json_lines(&o), CALL_NOT_FOLLOWED);

    let dir = scratch("installed_module_changed");
    initialized_root(&dir, "acme/gpu-asg-v3/aws");
    let o = run_in(&dir, &["check", "infra"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("`module.gpu_asg` (`acme/gpu-asg-v3/aws`; `.terraform/modules` holds it from `registry.terraform.io/acme/gpu-asg/aws`: run `terraform init` again)"),
        "{}",
        stdout(&o)
    );

    // The call's `version` raised since `terraform init` (2.1.0 installed): `terraform plan` would
    // refuse the copy, and its findings would be about code the configuration no longer asks for.
    let dir = scratch("installed_module_version_raised");
    initialized_root(&dir, "acme/gpu-asg/aws");
    let main = std::fs::read_to_string(dir.join("infra/main.tf")).unwrap();
    assert!(main.contains("version = \"~> 2.0\""), "{main}");
    write(
        &dir,
        "infra/main.tf",
        &main.replace("version = \"~> 2.0\"", "version = \"~> 3.0\""),
    );
    let o = run_in(&dir, &["check", "infra", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json_lines(&o), CALL_NOT_FOLLOWED);
    assert!(
        stdout(&o).contains("`module.gpu_asg` (`acme/gpu-asg/aws`; `.terraform/modules` holds version `2.1.0`, which `~> 3.0` does not allow: run `terraform init` again)"),
        "{}",
        stdout(&o)
    );
}

/// A module manifest that is not one is reported at its line (exit 2); everything else is checked.
#[test]
fn a_broken_module_manifest_is_reported_and_the_rest_is_checked() {
    let dir = scratch("broken_manifest");
    initialized_root(&dir, "acme/gpu-asg/aws");
    write(
        &dir,
        "infra/.terraform/modules/modules.json",
        "{\"Modules\": [\n  {\"Key\": \"gpu_asg\",\n",
    );
    let o = run_in(&dir, &["check", "infra", "--format", "json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("infra/.terraform/modules/modules.json:3:1: "),
        "{}",
        stderr(&o)
    );
    assert_eq!(json_lines(&o), CALL_NOT_FOLLOWED);
}

/// `check --parse-only` (the benchmark's floor) walks as `check` does: the folders `check` skips
/// (`.terraform/`, `.git/`, `.terragrunt-cache/`) and what an ignore file hides are skipped by
/// both, so both read the same files.
#[test]
fn parse_only_skips_what_check_skips() {
    let dir = scratch("parse_only_skips");
    write(&dir, "main.tf", "variable \"a\" {}\n");
    write(&dir, "sub/x.tf", "locals {}\n");
    for skipped in [
        ".terragrunt-cache/abc/def/main.tf",
        ".terraform/modules/m/main.tf",
        ".git/main.tf",
        "generated/main.tf",
    ] {
        write(&dir, skipped, "resource {\n");
    }
    write(&dir, ".gitignore", "generated/\n");
    let o = run_in(&dir, &["check", "--parse-only", "."]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "parsed 2 files, 26 bytes, 0 errors\n");
    let o = run_in(&dir, &["check", "."]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "0 errors, 0 warnings, 0 infos in 2 files\n");
}

/// Two root modules checked in one run that use the same names (a staging and a prod copy of one
/// stack): a name links within its own root first, so each copy gets every finding it gets
/// alone. Names known at plan time (a cluster's, a family) once made the links ambiguous across
/// the copies, and the fit rules (GPU107 here) went quiet on both.
#[test]
fn two_copies_of_one_stack_each_get_their_findings() {
    let example = root().join("examples/broken-gpu-chain");
    let dir = scratch("two-copies");
    for copy in ["staging", "prod"] {
        for entry in std::fs::read_dir(&example).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "tf") {
                let text = std::fs::read_to_string(&path).unwrap();
                write(
                    &dir,
                    &format!("{copy}/{}", path.file_name().unwrap().to_string_lossy()),
                    &text,
                );
            }
        }
    }
    let mut alone = rules_of(&run_in(&dir, &["check", "staging", "--format", "json"]));
    alone.sort();
    assert!(alone.contains(&"GPU107".to_string()), "{alone:?}");
    let mut both = rules_of(&run_in(&dir, &["check", ".", "--format", "json"]));
    both.sort();
    let mut twice: Vec<String> = alone.iter().chain(&alone).cloned().collect();
    twice.sort();
    assert_eq!(both, twice);
}
