//! Saved-output scenarios in the exact shape the AWS CLI prints: one directory per scenario under
//! `tests/scenarios/`. A directory named `<step-id>-...` must fail at that step and at no other;
//! one named `healthy...` must pass every step. The JSON report of each is pinned with insta.

use std::fs;
use std::path::{Path, PathBuf};

use ecs_gpu_diagnose::aws_json::Extras;
use ecs_gpu_diagnose::{diagnose, Inputs, Outcome, Status, StepId, Target};

fn scenarios() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

/// The step a scenario is named after, if any.
fn step_of(name: &str) -> Option<StepId> {
    StepId::ALL
        .into_iter()
        .filter(|s| name.starts_with(&format!("{}-", s.as_str())) || name == s.as_str())
        .max_by_key(|s| s.as_str().len())
}

#[test]
fn each_failure_scenario_fails_at_its_own_step_and_only_there() {
    for dir in scenarios() {
        let name = name(&dir);
        let Some(step) = step_of(&name) else { continue };
        let inputs = Inputs::from_dir(&dir).unwrap();
        let report = diagnose(&inputs, &Target::default()).unwrap();
        assert_eq!(report.outcome(), Outcome::Failing, "{name}");
        assert_eq!(report.verdict.step, step.as_str(), "{name}: verdict");
        assert!(report.verdict.fix.is_some(), "{name}: a failure has a fix");
        for s in &report.steps {
            if s.id == step {
                assert_eq!(s.status, Status::Fail, "{name}: {}", s.id);
            } else {
                assert_ne!(s.status, Status::Fail, "{name}: {} fails too", s.id);
            }
            assert!(!s.evidence.is_empty(), "{name}: {} has no evidence", s.id);
        }
    }
}

#[test]
fn healthy_scenarios_pass_every_step() {
    let healthy: Vec<PathBuf> = scenarios()
        .into_iter()
        .filter(|d| name(d).starts_with("healthy"))
        .collect();
    assert!(
        healthy.len() >= 2,
        "a healthy service and a healthy standalone task"
    );
    for dir in healthy {
        let report = diagnose(&Inputs::from_dir(&dir).unwrap(), &Target::default()).unwrap();
        let name = name(&dir);
        assert_eq!(report.outcome(), Outcome::Healthy, "{name}");
        assert_eq!(report.verdict.step, "healthy", "{name}");
        assert_eq!(report.verdict.status, Status::Pass, "{name}");
        assert_eq!(report.verdict.fix, None, "{name}");
        for s in &report.steps {
            assert_eq!(s.status, Status::Pass, "{name}: {}: {:?}", s.id, s.evidence);
        }
    }
}

/// Every step has at least one scenario where it fails (a new step without one fails here).
#[test]
fn every_step_has_a_failure_scenario() {
    let names: Vec<String> = scenarios().iter().map(|d| name(d)).collect();
    for step in StepId::ALL {
        assert!(
            names.iter().any(|n| step_of(n) == Some(step)),
            "no scenario fails {step}"
        );
    }
}

#[test]
fn reports_match_snapshots() {
    for dir in scenarios() {
        let name = name(&dir);
        let inputs = Inputs::from_dir(&dir).unwrap();
        let target = Target {
            service: (name == "services-only").then(|| "train".to_string()),
        };
        let report = diagnose(&inputs, &target).unwrap();
        // The `--format json` document, as the command writes it.
        let mut text = Vec::new();
        ecs_gpu_diagnose::render::json(&mut text, &report).unwrap();
        let document: serde_json::Value = serde_json::from_slice(&text).unwrap();
        insta::assert_json_snapshot!(name, document);
    }
}

#[test]
fn several_services_need_a_choice() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/services-only");
    let inputs = Inputs::from_dir(&dir).unwrap();
    let err = diagnose(&inputs, &Target::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the input holds 2 services (train, infer); pick one with --service"
    );
    let err = diagnose(
        &inputs,
        &Target {
            service: Some("trian".into()),
        },
    )
    .unwrap_err();
    assert!(err
        .to_string()
        .contains("service `trian` is not in the input"));
    // By ARN too.
    let arn = "arn:aws:ecs:us-east-1:123456789012:service/gpu/infer";
    let report = diagnose(
        &inputs,
        &Target {
            service: Some(arn.into()),
        },
    )
    .unwrap();
    assert_eq!(report.verdict.step, "healthy");
}

/// A subset of files: the steps without their inputs are unknown, never guessed.
#[test]
fn missing_inputs_make_steps_unknown() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/services-only");
    let inputs = Inputs::from_dir(&dir).unwrap();
    let report = diagnose(
        &inputs,
        &Target {
            service: Some("train".into()),
        },
    )
    .unwrap();
    assert_eq!(report.outcome(), Outcome::Inconclusive);
    for id in [
        StepId::TaskDefinition,
        StepId::Capacity,
        StepId::GpuRegistration,
        StepId::GpusAvailable,
        StepId::PlacementConstraint,
        StepId::CpuMemory,
    ] {
        assert_eq!(report.step(id).unwrap().status, Status::Unknown, "{id}");
    }
}

#[test]
fn save_then_read_back_is_the_same_input() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-save-roundtrip");
    let _ = fs::remove_dir_all(&out);
    for dir in scenarios() {
        let inputs = Inputs::from_dir(&dir).unwrap();
        let target = out.join(name(&dir));
        inputs.save(&target, &Default::default()).unwrap();
        let back = Inputs::from_dir(&target).unwrap();
        // Where "no instance" came from (an empty file) is a note on the input, not the input.
        let inputs = Inputs {
            no_instances_because: back.no_instances_because.clone(),
            ..inputs
        };
        assert_eq!(back, inputs, "{}", name(&dir));
    }
}

#[test]
fn unusable_files_name_the_file() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-bad-json");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).unwrap();
    let err = Inputs::from_dir(&out).unwrap_err();
    assert!(
        err.to_string()
            .contains("no AWS CLI output found; expected describe-services.json"),
        "{err}"
    );
    fs::write(out.join("describe-services.json"), "{\"services\": 3}").unwrap();
    let err = Inputs::from_dir(&out).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("describe-services.json"), "{msg}");
    assert!(msg.contains("aws ecs describe-services"), "{msg}");
}

fn report_of(name: &str) -> ecs_gpu_diagnose::Report {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios")
        .join(name);
    diagnose(&Inputs::from_dir(&dir).unwrap(), &Target::default()).unwrap()
}

/// Every GPU held by the service's own running tasks is a packed cluster, not a fault;
/// the headroom for the next deployment is a note that follows from the group and the deployment
/// configuration.
#[test]
fn a_fully_packed_steady_service_is_healthy_with_a_headroom_note() {
    let one = report_of("healthy-packed-one-instance");
    assert_eq!(one.outcome(), Outcome::Healthy);
    let notes = one.verdict.notes.join("\n");
    assert!(notes.contains("cannot add an instance"), "{notes}");
    assert!(notes.contains("at its max size (1)"), "{notes}");
    assert!(notes.contains("`minimumHealthyPercent` 100"), "{notes}");
    let four = report_of("healthy-packed-g5-12xlarge");
    assert_eq!(four.outcome(), Outcome::Healthy);
    let notes = four.verdict.notes.join("\n");
    assert!(notes.contains("can add an instance"), "{notes}");
    // A service with room to spare has no headroom note.
    assert!(report_of("healthy").verdict.notes.is_empty());
}

/// The same packed cluster while the service is short of its desired count still fails.
#[test]
fn a_packed_cluster_with_a_service_short_of_its_count_still_fails() {
    let r = report_of("gpus-available-pinned");
    assert_eq!(r.outcome(), Outcome::Failing);
    assert!(r.verdict.notes.is_empty());
}

/// A connected CPU instance does not hide the disconnected GPU instance.
#[test]
fn a_connected_cpu_instance_does_not_hide_a_disconnected_gpu_instance() {
    let r = report_of("capacity-mixed-cpu-instance-connected");
    assert_eq!(r.verdict.step, "capacity");
    assert!(
        r.verdict.message.contains("disconnected"),
        "{}",
        r.verdict.message
    );
    let ev = r.step(StepId::Capacity).unwrap().evidence.join("\n");
    assert!(ev.contains("m5.large"), "{ev}");
    assert!(ev.contains("without GPUs"), "{ev}");
}

/// A real instance type in a constraint is a choice, never a typo to "correct".
#[test]
fn no_typo_suggestion_for_a_real_instance_type() {
    let r = report_of("placement-constraint-real-type-not-a-typo");
    assert_eq!(r.verdict.step, "placement-constraint");
    let all = format!("{:?}", r);
    assert!(!all.contains("did you mean"), "{all}");
    // A real typo still gets one.
    let typo = report_of("placement-constraint-typo");
    assert!(typo
        .verdict
        .fix
        .unwrap()
        .contains("did you mean `g5.xlarge`"));
}

/// Each help line follows from the evidence: no "turn on managed scaling" when it is
/// ENABLED, no "lower `cpu`" when only memory is short, the AMI the instances report instead of a
/// placeholder.
#[test]
fn help_lines_follow_from_the_evidence() {
    let r = report_of("capacity-desired-zero-managed-scaling");
    assert_eq!(r.verdict.step, "capacity");
    let fix = r.verdict.fix.unwrap();
    assert!(!fix.contains("turn on managed scaling"), "{fix}");
    assert!(fix.contains("is ENABLED"), "{fix}");
    let fix = report_of("gpu-registration-off").verdict.fix.unwrap();
    assert!(!fix.contains("<ecs.ami-id>"), "{fix}");
    assert!(fix.contains("--image-ids ami-"), "{fix}");

    // The cpu-memory scenario with the task's CPU lowered to what the instance has left: only
    // memory is short, and the help says so.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/cpu-memory");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-cpu-fits-memory-short");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for e in fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let name = dir.join("describe-task-definition.json");
    let mut td: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&name).unwrap()).unwrap();
    td["taskDefinition"]["cpu"] = "2048".into();
    fs::write(&name, td.to_string()).unwrap();
    let r = diagnose(&Inputs::from_dir(&dir).unwrap(), &Target::default()).unwrap();
    assert_eq!(r.verdict.step, "cpu-memory");
    let fix = r.verdict.fix.unwrap();
    assert!(fix.starts_with("lower the task's `memory`"), "{fix}");
    assert!(!fix.contains("`cpu`"), "{fix}");
}

/// Input files as people have them: any name (known by content), a UTF-8 BOM, UTF-16
/// from PowerShell, the `--query taskDefinition` output, several describe-container-instances files
/// (the API describes at most 100 a call), YAML named as such, and the files found when nothing
/// matches.
#[test]
fn input_files_as_people_have_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/healthy");
    let want = diagnose(&Inputs::from_dir(&src).unwrap(), &Target::default()).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagnose-files-as-people-have-them");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let read = |n: &str| fs::read_to_string(src.join(n)).unwrap();
    // Another name, recognized by content; a UTF-8 BOM.
    fs::write(
        dir.join("services.json"),
        format!("\u{feff}{}", read("describe-services.json")),
    )
    .unwrap();
    // UTF-16 LE with a BOM, as PowerShell 5's `>` writes.
    let mut utf16 = vec![0xFF, 0xFE];
    for u in read("describe-tasks.json").encode_utf16() {
        utf16.extend(u.to_le_bytes());
    }
    fs::write(dir.join("tasks.json"), utf16).unwrap();
    // `aws ecs describe-task-definition --query taskDefinition`.
    let td: serde_json::Value =
        serde_json::from_str(&read("describe-task-definition.json")).unwrap();
    fs::write(dir.join("td.json"), td["taskDefinition"].to_string()).unwrap();
    // The container instances split over two files.
    let ci: serde_json::Value =
        serde_json::from_str(&read("describe-container-instances.json")).unwrap();
    let all = ci["containerInstances"].as_array().unwrap();
    for (k, part) in all.chunks(1).enumerate() {
        let v = serde_json::json!({"containerInstances": part, "failures": []});
        fs::write(
            dir.join(format!("describe-container-instances-{k}.json")),
            v.to_string(),
        )
        .unwrap();
    }
    for f in [
        "describe-capacity-providers.json",
        "describe-auto-scaling-groups.json",
        "describe-scaling-activities.json",
    ] {
        fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let got = diagnose(&Inputs::from_dir(&dir).unwrap(), &Target::default()).unwrap();
    assert_eq!(got, want);

    // YAML (or text) output says to ask for JSON.
    fs::write(
        dir.join("describe-services.json"),
        "services:\n- serviceName: train\n",
    )
    .unwrap();
    let err = Inputs::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("use") || err.contains("--output json"),
        "{err}"
    );
    assert!(err.contains("--output json"), "{err}");

    // Nothing usable: the expected names and what is there.
    let empty = dir.join("empty");
    fs::create_dir_all(&empty).unwrap();
    fs::write(empty.join("notes.txt"), "x").unwrap();
    let err = Inputs::from_dir(&empty).unwrap_err().to_string();
    assert!(err.contains("expected describe-services.json"), "{err}");
    assert!(err.ends_with("found notes.txt"), "{err}");
}

/// The simulation's scenario of saved output in `dir`, as `simulate --from` builds it.
fn simulated(dir: &Path) -> String {
    let inputs = Inputs::from_dir(dir).unwrap();
    let extras = Extras::from_dir(dir).unwrap();
    format!(
        "{:#?}",
        ecs_gpu_diagnose::aws_json::scenario(&inputs, &extras)
    )
}

/// `diagnose --save` keeps the fields only the simulation reads (deployment and placement
/// strategies, managed scaling's step sizes and warmup, mixed instances policy, warm pool):
/// `simulate --from` on what it saved sees the cluster it would see on the AWS CLI's own output.
#[test]
fn save_keeps_what_the_simulation_reads() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulate-save-roundtrip");
    let _ = fs::remove_dir_all(&out);
    let mut differs_without = 0;
    for dir in scenarios() {
        let inputs = Inputs::from_dir(&dir).unwrap();
        let extras = Extras::from_dir(&dir).unwrap();
        let target = out.join(name(&dir));
        inputs.save(&target, &extras).unwrap();
        assert_eq!(simulated(&target), simulated(&dir), "{}", name(&dir));
        // Without the extras the scenario is another one: the test can fail.
        let bare = out.join(format!("{}-bare", name(&dir)));
        inputs.save(&bare, &Extras::default()).unwrap();
        if simulated(&bare) != simulated(&dir) {
            differs_without += 1;
        }
    }
    assert!(differs_without > 10, "{differs_without}");
}

/// The simulation's extra fields are read from the same files the diagnosis reads: by content
/// under any name, several files of one call adding up.
#[test]
fn the_simulation_reads_files_by_content_and_in_parts() {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios/gpus-available-managed-scaling-adds");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulate-renamed");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).unwrap();
    for entry in fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        let renamed = match path.file_name().unwrap().to_str().unwrap() {
            "describe-services.json" => "services.json".to_string(),
            "describe-capacity-providers.json" => "providers.json".to_string(),
            other => other.to_string(),
        };
        fs::copy(&path, out.join(renamed)).unwrap();
    }
    // The groups in two files: one group each (and an empty second list).
    let groups: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(from.join("describe-auto-scaling-groups.json")).unwrap(),
    )
    .unwrap();
    let list = groups["AutoScalingGroups"].as_array().unwrap();
    assert!(!list.is_empty());
    let (first, rest) = list.split_at(1);
    fs::write(
        out.join("describe-auto-scaling-groups.json"),
        serde_json::json!({ "AutoScalingGroups": first }).to_string(),
    )
    .unwrap();
    fs::write(
        out.join("describe-auto-scaling-groups-2.json"),
        serde_json::json!({ "AutoScalingGroups": rest }).to_string(),
    )
    .unwrap();
    let sc = simulated(&out);
    assert_eq!(sc, simulated(&from));
    // What only the renamed files say: the service's binpack strategy, the provider's steps.
    assert!(sc.contains("Binpack"), "{sc}");
    assert!(sc.contains("max_step: 10000"), "{sc}");
}

/// A saved file that is a FIFO is refused with what it is, never opened (opening one waits for
/// a writer).
#[cfg(unix)]
#[test]
fn the_simulation_refuses_a_fifo_for_a_saved_file() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulate-fifo");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).unwrap();
    let fifo = out.join("describe-services.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let err = Extras::from_dir(&out).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
}
