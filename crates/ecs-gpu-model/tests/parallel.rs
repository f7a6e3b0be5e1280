//! Loading runs on several threads; the model must not depend on how many, nor on which thread
//! took which folder.

use std::path::PathBuf;

use ecs_gpu_model::{load, LoadOptions, Texts};

/// Fails, showing the first lines where they differ, when two models (as `{:#?}`) differ.
fn assert_same_model(expected: &str, got: &str, what: &str) {
    if expected == got {
        return;
    }
    let line = expected
        .lines()
        .zip(got.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    let from = |m: &str| m.lines().skip(line).take(8).collect::<Vec<_>>().join("\n");
    panic!(
        "{what} gives another model, from line {line}:\n{}\n---\n{}",
        from(expected),
        from(got)
    );
}

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Loads `paths` on `threads` threads.
fn load_with(paths: Vec<PathBuf>, threads: usize) -> ecs_gpu_model::Model {
    load(&LoadOptions {
        paths,
        threads: Some(threads),
        ..Default::default()
    })
}

/// Writes a file at `rel` under `dir`, with the folders it needs.
fn write_under(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn the_model_is_the_same_with_one_thread_or_many() {
    // The project's module and examples (module calls across folders, a module folder that is
    // also a root), every rule fixture (hundreds of folders and JSON files), and the evaluator's
    // own test inputs.
    let paths = vec![
        repo("terraform"),
        repo("examples"),
        repo("crates/ecs-gpu-rules/tests/fixtures"),
        repo("crates/ecs-gpu-model/tests"),
    ];
    let with = |threads| {
        let m = load_with(paths.clone(), threads);
        (format!("{m:#?}"), m.resources.len(), m.files.len())
    };
    let (one, resources, files) = with(1);
    assert!(
        resources > 500,
        "{resources} resources: the corpus was not loaded"
    );
    assert!(files > 150, "{files} files");
    for threads in [2, 3, 8] {
        let (many, _, _) = with(threads);
        assert_same_model(&one, &many, &format!("{threads} threads instead of one"));
    }
}

/// Without the texts (`Texts::Drop`, what `check` does for every format but `human`), the model
/// is the same but for the texts themselves: module folders called again once their declarations
/// were freed are read again instead of parsed from a kept text, on one thread or several.
#[test]
fn the_model_is_the_same_without_the_texts() {
    let paths = vec![
        repo("terraform"),
        repo("examples"),
        repo("crates/ecs-gpu-rules/tests/fixtures"),
    ];
    for threads in [1, 2] {
        let with = |texts| {
            load(&LoadOptions {
                paths: paths.clone(),
                threads: Some(threads),
                texts,
                ..Default::default()
            })
        };
        let mut kept = with(Texts::Keep);
        assert!(kept.files.iter().all(|f| f.text.is_some()));
        for f in &mut kept.files {
            f.text = None;
        }
        let dropped = with(Texts::Drop);
        assert!(dropped.files.len() > 150, "{} files", dropped.files.len());
        assert_same_model(
            &format!("{kept:#?}"),
            &format!("{dropped:#?}"),
            &format!("dropping the texts on {threads} threads"),
        );
    }
}

/// A module call reads a walked folder before its own unit does (or after): its problems are
/// reported once, by its own unit, and its files counted once, either way, on any number of
/// threads.
#[test]
fn a_called_folder_the_walk_finds_is_reported_by_its_own_unit() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| write_under(dir.path(), rel, text);
    // `a-caller` comes before the module in unit order, `z-caller` after it.
    for caller in ["a-caller", "z-caller"] {
        write(
            &format!("{caller}/main.tf"),
            "module \"m\" {\n  source = \"../mod\"\n}\n",
        );
    }
    write(
        "mod/ok.tf",
        "resource \"aws_ecs_cluster\" \"c\" {\n  name = \"c\"\n}\n",
    );
    write(
        "mod/bad.tf",
        "resource \"aws_ecs_cluster\" \"d\" {\n  name = \n}\n",
    );
    // Between the first caller and the module in unit order: the problems' order shows who
    // reported the module's.
    write("b/broken.tf", "locals {\n  x = [\n}\n");
    let root = dir.path().to_path_buf();
    let first = load_with(vec![root.clone()], 1);
    assert_eq!(first.problems.len(), 2, "{:?}", first.problems);
    assert!(first.problems[0].path.ends_with("b/broken.tf"));
    assert!(first.problems[1].path.ends_with("mod/bad.tf"));
    assert_eq!(first.files_checked, 5);
    // The folder named twice is walked once.
    let twice = load_with(vec![root.clone(), root.clone()], 2);
    assert_eq!(format!("{twice:#?}"), format!("{first:#?}"));
    for threads in [2, 5] {
        let many = load_with(vec![root.clone()], threads);
        assert_eq!(
            format!("{many:#?}"),
            format!("{first:#?}"),
            "{threads} threads"
        );
    }
}

/// A symlinked folder and the folder it points to are one folder, checked once.
#[cfg(unix)]
#[test]
fn a_symlinked_folder_is_checked_once() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(
        real.join("main.tf"),
        "resource \"aws_ecs_cluster\" \"c\" {\n  name = \"c\"\n}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
    let m = load(&LoadOptions {
        paths: vec![dir.path().to_path_buf()],
        ..Default::default()
    });
    assert_eq!(m.files_checked, 1, "{:?}", m.files);
    assert_eq!(m.resources.len(), 1);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
}

/// Variable files are read whether `.gitignore` lists them or not (Terraform reads them; they are
/// often ignored for their secrets).
#[test]
fn ignored_variable_files_still_set_variables() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| write_under(dir.path(), rel, text);
    write(".gitignore", "terraform.tfvars\n*.auto.tfvars\n");
    write(
        "main.tf",
        "variable \"a\" {}\nvariable \"b\" {}\nresource \"aws_ecs_cluster\" \"c\" {\n  name = \"${var.a}-${var.b}\"\n}\n",
    );
    write("terraform.tfvars", "a = \"from-tfvars\"\n");
    write("x.auto.tfvars", "b = \"from-auto\"\n");
    let m = load_with(vec![dir.path().to_path_buf()], 2);
    let name = m.resources[0].body.attr("name").unwrap();
    assert_eq!(name.as_str().as_deref(), Some("from-tfvars-from-auto"));
}

/// Roots whose remote calls `terraform init` installed (one with a manifest, one whose manifest
/// names another source, one without): the same model with any number of threads.
#[test]
fn installed_module_calls_load_the_same_whichever_way() {
    let dir = tempfile::tempdir().expect("tempdir");
    let module = "variable \"n\" { default = 1 }\nresource \"t\" \"m\" { x = var.n }\noutput \"o\" { value = var.n }\n";
    let root = |n: u32| {
        format!("module \"m\" {{\n  source = \"acme/m/aws\"\n  n = {n}\n}}\nresource \"t\" \"r\" {{ x = module.m.o }}\n")
    };
    let manifest = |source: &str| {
        format!(
            r#"{{"Modules":[{{"Key":"","Source":"","Dir":"."}},{{"Key":"m","Source":"{source}","Dir":".terraform/modules/m"}}]}}"#
        )
    };
    for (i, source) in [
        Some("registry.terraform.io/acme/m/aws"),
        Some("registry.terraform.io/acme/other/aws"),
        None,
    ]
    .into_iter()
    .enumerate()
    {
        let at = dir.path().join(format!("root{i}"));
        std::fs::create_dir_all(at.join(".terraform/modules/m")).unwrap();
        std::fs::write(at.join("main.tf"), root(u32::try_from(i).unwrap() + 2)).unwrap();
        std::fs::write(at.join(".terraform/modules/m/main.tf"), module).unwrap();
        if let Some(source) = source {
            std::fs::write(at.join(".terraform/modules/modules.json"), manifest(source)).unwrap();
        }
    }
    let with = |paths: Vec<PathBuf>, threads| {
        let m = load_with(paths, threads);
        let followed = m
            .resources
            .iter()
            .filter(|r| r.name == "m" && m.module_address(r) == Some("module.m"))
            .count();
        (format!("{m:#?}"), followed)
    };
    let root = dir.path().to_path_buf();
    let (first, followed) = with(vec![root.clone()], 1);
    assert_eq!(followed, 1, "only root0's call is followed");
    for threads in [2, 3] {
        let (many, _) = with(vec![root.clone()], threads);
        assert_same_model(&first, &many, &format!("{threads} threads"));
    }
}

/// A module folder is a root of its own, and its `examples/` call it (`source = "../.."`): the
/// call reads every Terraform file of the folder, a file `.gitignore` hides from the walk too,
/// and the root only what the walk found.
#[test]
fn a_call_reads_every_file_of_its_folder_and_the_root_what_the_walk_found() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| write_under(dir.path(), rel, text);
    let cluster = |name: &str| {
        format!("resource \"aws_ecs_cluster\" \"{name}\" {{\n  name = \"{name}\"\n}}\n")
    };
    for module in ["open", "hiding"] {
        write(&format!("{module}/main.tf"), &cluster("shown"));
        write(&format!("{module}/extra.tf"), &cluster("extra"));
        for example in ["a", "b"] {
            write(
                &format!("{module}/examples/{example}/main.tf"),
                "module \"m\" {\n  source = \"../..\"\n}\n",
            );
        }
    }
    write("hiding/.gitignore", "extra.tf\n");
    let root = dir.path().to_path_buf();
    let first = load_with(vec![root.clone()], 1);
    for threads in [1, 2] {
        let m = load_with(vec![root.clone()], threads);
        assert_same_model(
            &format!("{first:#?}"),
            &format!("{m:#?}"),
            &format!("{threads} threads"),
        );
        // The seven files the walk found, and the one only the calls read, each once.
        assert_eq!(m.files_checked, 8, "{threads} threads");
        let clusters = |module: &str, address: Option<&str>| {
            let mut names: Vec<&str> = m
                .resources
                .iter()
                .filter(|r| {
                    let dir = &m.modules[r.module.0 as usize].dir;
                    m.module_address(r) == address
                        && dir.ends_with(module)
                        && r.kind == "aws_ecs_cluster"
                })
                .map(|r| r.name.as_str())
                .collect();
            names.sort_unstable();
            names
        };
        // The roots: what the walk found.
        assert_eq!(clusters("open", None), ["extra", "shown"]);
        assert_eq!(clusters("hiding", None), ["shown"]);
        // The calls, twice each: every file of the folder.
        assert_eq!(
            clusters("open", Some("module.m")),
            ["extra", "extra", "shown", "shown"]
        );
        assert_eq!(
            clusters("hiding", Some("module.m")),
            ["extra", "extra", "shown", "shown"],
            "{threads} threads: a call reads the file .gitignore hides from the walk"
        );
    }
}

/// A unit's evaluation has budgets of its own, kept by the thread that loads it: a load gives the
/// same model alone, or several times at once on threads of their own beside loads of hundreds of
/// units, whose threads reuse their budgets unit after unit.
#[test]
fn a_load_is_the_same_whatever_runs_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    write_under(
        dir.path(),
        "gpu/main.tf",
        r#"
resource "aws_ecs_cluster" "gpu" {
  name = "gpu"
}

resource "aws_launch_template" "gpu" {
  instance_type = "g6f.large"
  user_data = base64encode(<<-EOT
    #!/bin/bash
    echo ECS_CLUSTER=${aws_ecs_cluster.gpu.name} >> /etc/ecs/ecs.config
  EOT
  )
}
"#,
    );
    let load_small = || load_with(vec![dir.path().join("gpu")], 1);
    let small = || format!("{:#?}", load_small());
    // The cluster's name as written is known: the whole user data is.
    let model = load_small();
    let template = model.resources_of("aws_launch_template").next().unwrap();
    let user_data = template.body.attr("user_data").unwrap().as_str();
    assert_eq!(
        user_data.as_deref(),
        Some("IyEvYmluL2Jhc2gKZWNobyBFQ1NfQ0xVU1RFUj1ncHUgPj4gL2V0Yy9lY3MvZWNzLmNvbmZpZwo=")
    );
    let alone = format!("{model:#?}");
    let corpus = vec![
        repo("terraform"),
        repo("examples"),
        repo("crates/ecs-gpu-rules/tests/fixtures"),
    ];
    let beside: Vec<String> = std::thread::scope(|s| {
        let busy: Vec<_> = [1, 2]
            .map(|threads| {
                let corpus = corpus.clone();
                s.spawn(move || load_with(corpus, threads).resources.len())
            })
            .into();
        let loads: Vec<_> = (0..4)
            .map(|_| s.spawn(|| (0..5).map(|_| small()).collect::<Vec<_>>()))
            .collect();
        for b in busy {
            assert!(b.join().unwrap() > 500);
        }
        loads.into_iter().flat_map(|l| l.join().unwrap()).collect()
    });
    for got in &beside {
        assert_same_model(&alone, got, "a load beside others");
    }
}
