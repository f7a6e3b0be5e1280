//! The `types` and `route` commands as a user runs them: output shapes and exit statuses.

use std::process::{Command, Output};

fn ecs_gpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
        .args(args)
        .output()
        .expect("ecs-gpu runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn types_json_lists_all_81_entries_with_the_documented_fields() {
    let o = ecs_gpu(&["types", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = v["instance_types"].as_array().unwrap();
    assert_eq!(rows.len(), 81);
    for key in [
        "instance_type",
        "family",
        "gpu_count",
        "gpu_fraction",
        "gpu_model",
        "gpu_memory_mib",
        "vcpus",
        "memory_mib",
        "architecture",
        "ecs_status",
    ] {
        assert!(rows.iter().all(|r| r.get(key).is_some()), "missing {key}");
    }
    let g6f = rows
        .iter()
        .find(|r| r["instance_type"] == "g6f.large")
        .unwrap();
    assert_eq!(g6f["gpu_count"], 0);
    assert_eq!(g6f["gpu_fraction"], "0.125");
    let gb200 = rows
        .iter()
        .find(|r| r["instance_type"] == "p6e-gb200.36xlarge")
        .unwrap();
    assert!(gb200["gpu_count"].is_null() && gb200["vcpus"].is_null());
    assert_eq!(gb200["ecs_status"], "no-ecs-gpu-ami");
}

/// A vGPU type says what ECS on EC2 needs of it: the AMI with the GRID driver, its release, no MPS,
/// and memory overcommit on `g6f.large` only.
#[test]
fn types_of_a_vgpu_type_names_what_ecs_on_ec2_needs() {
    let o = ecs_gpu(&["types", "g6f.large", "gr6f.4xlarge"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out.matches("needs the `al2023` ECS GPU AMI (its GRID driver), release 20260323 or later")
            .count(),
        2,
        "{out}"
    );
    assert_eq!(
        out.matches("user data must set `vm.overcommit_memory = 1`")
            .count(),
        1,
        "{out}"
    );
    assert!(out.contains("AMI-README-G6F"), "{out}");
}

/// The newest types (G7e, Blackwell) are known by their numbers, with no ECS claim.
#[test]
fn types_shows_the_newest_types_as_unverified_for_ecs() {
    let o = ecs_gpu(&["types", "g7e.2xlarge"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("g7e.2xlarge: 1 × NVIDIA rtx-pro-server-6000"),
        "{out}"
    );
    assert!(out.contains("98304 MiB per GPU"), "{out}");
    assert!(out.contains("ECS status      unverified: "), "{out}");
    let o = ecs_gpu(&["types", "--supported", "--family", "g7"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("0 instance types"), "{}", stdout(&o));
}

/// G7's GPU needs driver 595; `types` says it does not run on the ECS GPU AMI, why, and what
/// each AMI variant ships (the field notes' repro, 2026-12: it said only "unverified").
#[test]
fn types_says_g7_does_not_run_on_the_ecs_gpu_ami_and_why() {
    let o = ecs_gpu(&["types", "g7.2xlarge"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let row = out.lines().nth(1).unwrap();
    assert!(row.ends_with("no-ecs-gpu-ami-driver"), "{out}");
    assert!(
        out.contains("ECS status      no-ecs-gpu-ami-driver: needs NVIDIA driver 595 or later"),
        "{out}"
    );
    assert!(
        out.contains("NVIDIA driver   needs NVIDIA driver 595 or later: "),
        "{out}"
    );
    assert!(
        out.contains("al2023 580.178.04 (20261113, CUDA 13.0, drives it: no)"),
        "{out}"
    );
    assert!(out.contains("available       2026-06-18"), "{out}");
    assert!(out.contains("EKS-G7-DOC"), "{out}");
    let o = ecs_gpu(&["types", "g7.2xlarge", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let t = &v["instance_types"][0];
    assert_eq!(t["ecs_status"], "no-ecs-gpu-ami-driver");
    assert_eq!(
        t["driver_needs"]["summary"],
        "needs NVIDIA driver 595 or later"
    );
    assert_eq!(t["ecs_gpu_ami_drivers"][0]["variant"], "al2023");
    assert_eq!(t["ecs_gpu_ami_drivers"][0]["drives"], "no");
    // A family with no recorded need shows the AMIs' drivers, with no verdict.
    let o = ecs_gpu(&["types", "g5.xlarge", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["instance_types"][0]["driver_needs"],
        serde_json::Value::Null
    );
    assert_eq!(
        v["instance_types"][0]["ecs_gpu_ami_drivers"][0]["drives"],
        "unknown"
    );
    // A family with no type listed yet: the family's status.
    let o = ecs_gpu(&["types", "p6e-gb300.36xlarge"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("family p6e-gb300 is no-ecs-gpu-ami"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn types_by_name_shows_the_gpus_of_that_size() {
    let o = ecs_gpu(&["types", "g5.12xlarge"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("g5.12xlarge: 4 × NVIDIA A10G"), "{out}");
    let header = out.lines().next().unwrap();
    let row = out.lines().nth(1).unwrap();
    // Aligned table: the ECS STATUS column starts at the same place in header and row.
    assert_eq!(header.find("ECS STATUS"), row.find("supported"), "{out}");
    let o = ecs_gpu(&["types", "g5.xlarge", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["instance_types"][0]["gpu_count"], 1);
}

#[test]
fn unknown_type_exits_2_with_a_suggestion() {
    let o = ecs_gpu(&["types", "g5.xlarg"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("did you mean g5.xlarge"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn types_filters_combine() {
    let o = ecs_gpu(&[
        "types",
        "--gpu-model",
        "l4",
        "--min-gpus",
        "4",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = v["instance_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["instance_type"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["g6.12xlarge", "g6.24xlarge", "g6.48xlarge"]);
    let o = ecs_gpu(&[
        "types",
        "--arch",
        "arm64",
        "--supported",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["instance_types"], serde_json::json!([]));
    let o = ecs_gpu(&["types", "--min-gpu-memory", "80", "--supported"]);
    assert!(stdout(&o).contains("p5.48xlarge") && !stdout(&o).contains("p4d.24xlarge"));
    let o = ecs_gpu(&["types", "--family", "g9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown GPU family `g9`"));
}

#[test]
fn types_of_a_type_without_gpu_or_a_deprecated_family_say_so() {
    let o = ecs_gpu(&["types", "m5.large"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("without a GPU"), "{}", stderr(&o));
    let o = ecs_gpu(&["types", "g2.2xlarge"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("deprecated"), "{}", stderr(&o));
}

#[test]
fn route_gpu_fargate_is_not_fargate_and_says_why() {
    let o = ecs_gpu(&["route", "--gpu", "--fargate", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 7);
    assert_ne!(v["home"], "fargate");
    assert_eq!(v["module"], "terraform/ecs-gpu-task");
    let reasons: Vec<&str> = v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(reasons[0].contains("no GPU dimension"), "{reasons:?}");
    assert!(v["guardrails"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g.as_str().unwrap().contains("ecs-managed-instances")));
}

#[test]
fn route_reads_a_workload_file_and_reports_its_errors_with_the_line() {
    let dir = std::env::temp_dir().join(format!("ecs-gpu-route-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("workload.toml");
    std::fs::write(
        &good,
        "accelerator = \"gpu\"\nkubernetes = [\"karpenter\"]\n",
    )
    .unwrap();
    let o = ecs_gpu(&[
        "route",
        "--from",
        good.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["home"], "eks");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "accelerator = \"gpu\"\naccelerators = 2\n").unwrap();
    let o = ecs_gpu(&["route", "--from", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.toml:2:1"), "{}", stderr(&o));
    let o = ecs_gpu(&[
        "route",
        "--from",
        dir.join("missing.toml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.toml"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(
        ecs_gpu(&["types", "--min-gpus", "many"]).status.code(),
        Some(2)
    );
    assert_eq!(
        ecs_gpu(&["route", "--gpu", "--neuron"]).status.code(),
        Some(2)
    );
    assert_eq!(ecs_gpu(&["nonsense"]).status.code(), Some(2));
    let o = ecs_gpu(&["types", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("--min-gpu-memory"));
}

/// `route --from` refuses a device, a directory or a FIFO (without waiting on it) and a
/// file past the documented size, with one clear line.
#[test]
fn route_from_refuses_special_and_huge_files() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("route-special-files");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let big = dir.join("big.toml");
    std::fs::write(&big, "#".repeat(1024 * 1024 + 1)).unwrap();
    for (path, want) in [
        ("/dev/zero".to_string(), "not a regular file"),
        (dir.display().to_string(), "not a regular file"),
        (fifo.display().to_string(), "not a regular file"),
        (big.display().to_string(), "larger than 1024 KiB"),
    ] {
        let o = ecs_gpu(&["route", "--from", &path]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{path}: {err}");
        assert!(err.contains(want), "{path}: {err}");
        assert_eq!(err.lines().count(), 1, "{path}: {err}");
    }
}

/// `route` names the module that builds the home it recommends, or says why none does,
/// in the human and the JSON output.
#[test]
fn route_names_the_module_of_each_home_in_every_format() {
    for (args, home, module) in [
        (&["--gpu"][..], "ecs-ec2", Some("terraform/ecs-gpu-task")),
        (
            &["--gpu", "--ec2-lifecycle", "aws"][..],
            "ecs-managed-instances",
            Some("terraform/ecs-gpu-managed-instances"),
        ),
        (&["--neuron"][..], "ecs-managed-instances", None),
        (&["--gpu", "--k8s", "karpenter"][..], "eks", None),
        (&["--gpu", "--managed-ml"][..], "sagemaker", None),
        (&["--gpu", "--managed-model-api"][..], "bedrock", None),
        (&["--gpu", "--on-premises"][..], "ecs-anywhere", None),
        (&[][..], "fargate", None),
    ] {
        let mut json = vec!["route", "--format", "json"];
        json.extend_from_slice(args);
        let o = ecs_gpu(&json);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["home"], home, "{args:?}");
        assert_eq!(v["module"].as_str(), module, "{args:?}");
        assert!(!v["module_note"].as_str().unwrap().is_empty(), "{args:?}");

        let mut human = vec!["route"];
        human.extend_from_slice(args);
        let text = stdout(&ecs_gpu(&human));
        let line = text.lines().nth(1).unwrap();
        assert!(
            line.starts_with(&format!("module: {} (", module.unwrap_or("none"))),
            "{args:?}: {line}"
        );
    }
}

#[test]
fn route_human_output_for_managed_instances() {
    let o = ecs_gpu(&["route", "--gpu", "--ec2-lifecycle", "aws"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}
