//! Several root modules checked in one run (a monorepo's `envs/a` and `envs/b`, the examples of a
//! module): each is its own Terraform configuration, and gets exactly the findings and the
//! simulation it gets alone, whatever the others hold: the same resource addresses, the same names,
//! a local module they both call.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ecs_gpu_model::{LoadOptions, Model};
use ecs_gpu_rules::{Settings, RULES};
use ecs_gpu_sim::{Event, Scenario};

fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        std::fs::create_dir_all(to).unwrap();
        std::fs::copy(from, to.join(from.file_name().unwrap())).unwrap();
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Whether a fixture case is Terraform only: a task-definition JSON file is in no root module
/// (a task it describes may be placed on any capacity), so it is not part of this property.
fn terraform_only(case: &Path) -> bool {
    let is_task_json = |p: &Path| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.ends_with(".json") && !name.ends_with(".tf.json") && !name.ends_with(".tfvars.json")
    };
    if case.is_file() {
        return !is_task_json(case);
    }
    let mut todo = vec![case.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if is_task_json(&path) {
                return false;
            }
        }
    }
    true
}

fn load(paths: Vec<PathBuf>) -> Model {
    // As `ecs-gpu check` loads.
    ecs_gpu_model::load(&LoadOptions {
        paths,
        only_types: Some(ecs_gpu_rules::load_types()),
        only_arguments: Some(ecs_gpu_rules::load_arguments()),
        ..Default::default()
    })
}

/// The findings of a run, each as the text of what it says and where, without the module
/// instances it was merged from (one place reached through the calls of several roots is one
/// finding for all of them).
fn findings(model: &Model) -> BTreeSet<String> {
    ecs_gpu_rules::check(model, &Settings::default())
        .into_iter()
        .map(|mut d| {
            d.module = None;
            d.instances.clear();
            format!("{d:?}")
        })
        .collect()
}

/// Every service of a scenario deploys, every group refreshes.
fn events(sc: &Scenario) -> Vec<Event> {
    let deploys = sc.services.iter().map(|s| Event::Deploy {
        service: s.name.clone(),
        task: None,
    });
    let refreshes = sc.groups.iter().map(|g| Event::Refresh {
        group: g.name.clone(),
    });
    deploys.chain(refreshes).collect()
}

/// The simulation of each root module with a scenario, by the root's folder: the answers as JSON.
fn simulations(model: &Model) -> BTreeMap<String, String> {
    ecs_gpu_stack::terraform_root::scenarios(model)
        .into_iter()
        .map(|root| {
            let report = ecs_gpu_sim::simulate(&root.scenario, &events(&root.scenario), None);
            let mut json = Vec::new();
            ecs_gpu_sim::render::json(&mut json, &report).unwrap();
            let dir = model.module(root.root).dir.display().to_string();
            (dir, String::from_utf8(json).unwrap())
        })
        .collect()
}

/// A small GPU stack with its names taken from `name` (cluster, group, provider, family).
fn stack(name: &str) -> String {
    let folder = common::crate_path("tests/fixtures/GPU406/clean/fits");
    let mut text = String::new();
    for file in ["capacity.tf", "service.tf"] {
        text += &std::fs::read_to_string(folder.join(file)).unwrap();
    }
    text.replace("= \"gpu\"", &format!("= \"{name}\""))
        .replace("ECS_CLUSTER=gpu ", &format!("ECS_CLUSTER={name} "))
        .replace("= \"train\"", &format!("= \"train-{name}\""))
}

/// The same stack as a local module, called by two roots with other names.
const MODULE: &str = r##"
variable "name" {
  type = string
}

variable "max_size" {
  type = number
}

resource "aws_ecs_cluster" "this" {
  name = var.name
}

resource "aws_launch_template" "this" {
  name_prefix   = "${var.name}-"
  image_id      = "resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"
  instance_type = "g5.12xlarge"
  user_data     = base64encode("#!/bin/bash\necho ECS_CLUSTER=${var.name} >> /etc/ecs/ecs.config\n")
}

resource "aws_autoscaling_group" "this" {
  name     = var.name
  min_size = 0
  max_size = var.max_size
  launch_template {
    id      = aws_launch_template.this.id
    version = aws_launch_template.this.latest_version
  }
}

resource "aws_ecs_capacity_provider" "this" {
  name = var.name
  auto_scaling_group_provider {
    auto_scaling_group_arn = aws_autoscaling_group.this.arn
    managed_scaling {
      status          = "ENABLED"
      target_capacity = 100
    }
  }
}

resource "aws_ecs_cluster_capacity_providers" "this" {
  cluster_name       = aws_ecs_cluster.this.name
  capacity_providers = [aws_ecs_capacity_provider.this.name]
}

resource "aws_ecs_task_definition" "this" {
  family = "train"
  container_definitions = jsonencode([{
    name                 = "train"
    image                = "nvcr.io/nvidia/pytorch:24.08-py3"
    memory               = 16384
    resourceRequirements = [{ type = "GPU", value = "4" }]
  }])
}

resource "aws_ecs_service" "this" {
  name            = "train"
  cluster         = aws_ecs_cluster.this.id
  task_definition = aws_ecs_task_definition.this.family
  desired_count   = 2
  capacity_provider_strategy {
    capacity_provider = aws_ecs_capacity_provider.this.name
    weight            = 1
  }
}
"##;

fn call(name: &str, max_size: u32) -> String {
    format!(
        "module \"gpu\" {{\n  source   = \"../../modules/gpu\"\n  name     = \"{name}\"\n  max_size = {max_size}\n}}\n"
    )
}

/// Every Terraform case of every rule's fixtures, each a folder of its own, beside copies of one
/// stack (with other names and with the same ones) and two roots that call one local module: the
/// findings and simulations of the run over all of them are those of each folder run alone.
#[test]
fn every_root_module_gets_what_it_gets_alone() {
    // GPU209 says whether an end of life has passed: one day for both runs.
    std::env::set_var("SOURCE_DATE_EPOCH", "1796083200");
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("roots-alone-and-together");
    let _ = std::fs::remove_dir_all(&base);
    let mut folders = Vec::new();
    for rule in RULES {
        for (_, case) in common::cases(rule.id) {
            let case = common::crate_path(&case.to_string_lossy());
            if terraform_only(&case) {
                let folder = base.join(format!("{:03}", folders.len()));
                copy_tree(&case, &folder);
                folders.push(folder);
            }
        }
    }
    for (env, name) in [("a", "gpu"), ("b", "gpu-b"), ("c", "gpu")] {
        let folder = base.join("copies").join(env);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("main.tf"), stack(name)).unwrap();
        folders.push(folder);
    }
    let shared = base.join("shared");
    std::fs::create_dir_all(shared.join("modules/gpu")).unwrap();
    std::fs::write(shared.join("modules/gpu/main.tf"), MODULE).unwrap();
    for (env, name, max_size) in [("a", "gpu-a", 3), ("b", "gpu-b", 3)] {
        let folder = shared.join("envs").join(env);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("main.tf"), call(name, max_size)).unwrap();
        folders.push(folder);
    }
    folders.push(shared.join("modules/gpu"));

    let (mut alone, mut alone_simulations) = (BTreeSet::new(), BTreeMap::new());
    for folder in &folders {
        let model = load(vec![folder.clone()]);
        alone.extend(findings(&model));
        alone_simulations.extend(simulations(&model));
    }
    let together = load(vec![base.clone()]);
    let roots = together.modules.iter().filter(|m| m.parent.is_none());
    assert!(roots.count() > 300, "the fixtures give hundreds of roots");

    let found = findings(&together);
    let lost: Vec<&String> = alone.difference(&found).collect();
    let added: Vec<&String> = found.difference(&alone).collect();
    assert!(
        lost.is_empty() && added.is_empty(),
        "alone but not together: {lost:#?}\ntogether but not alone: {added:#?}"
    );
    let simulated = simulations(&together);
    assert!(simulated.len() > 50, "{}", simulated.len());
    for (root, answers) in &simulated {
        assert_eq!(Some(answers), alone_simulations.get(root), "{root}");
    }
    assert_eq!(simulated.len(), alone_simulations.len());
    let _ = std::fs::remove_dir_all(&base);
}

/// The work of `check` and of the root modules' simulations over `n` copies of one GPU stack, each
/// a root module of its own with the same names and a suppression of its own: the resources the
/// model's lookups hand out.
fn work(n: usize) -> u64 {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("roots-work-{n}"));
    let _ = std::fs::remove_dir_all(&base);
    for i in 0..n {
        let folder = base.join(format!("env-{i}"));
        std::fs::create_dir_all(&folder).unwrap();
        let text = stack("gpu").replace(
            "resource \"aws_autoscaling_group\"",
            "# ecs-gpu:ignore GPU303 refreshed by the release pipeline\nresource \"aws_autoscaling_group\"",
        );
        std::fs::write(folder.join("main.tf"), text).unwrap();
    }
    let model = load(vec![base.clone()]);
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    let before = model.handed_out();
    let found = ecs_gpu_rules::check(&model, &Settings::default());
    assert_eq!(
        found.len(),
        3 * n,
        "each copy has its 3 findings (GPU218's info among them): {found:#?}"
    );
    assert_eq!(ecs_gpu_stack::terraform_root::scenarios(&model).len(), n);
    let _ = std::fs::remove_dir_all(&base);
    model.handed_out() - before
}

/// Linear in root modules: four times the copies, four times the work (with some slack for what
/// is done once). An analysis that looks every copy's names up in every other copy (a name linked
/// across roots, a service placed on every root's capacity), or a finding compared with every
/// copy's suppression, is quadratic: sixteen times the work.
#[test]
fn the_work_grows_linearly_with_the_root_modules() {
    let (small, large) = (work(25), work(100));
    assert!(small > 0);
    assert!(
        large <= 5 * small,
        "25 roots: {small} resources handed out; 100 roots: {large} ({:.1}×)",
        large as f64 / small as f64
    );
}
