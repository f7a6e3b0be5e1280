use ecs_gpu_model::{LoadNote, LoadNoteKind, Model};

use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Module calls whose `source` is remote (the Terraform Registry, Git, S3, HTTP...) and that
    /// `terraform init` has not installed. The checker works offline and never fetches a module,
    /// so what such a call creates is not checked, and what it outputs is unknown. It says so once
    /// per folder, at the first such call, naming up to five calls ("and N more") with a note at
    /// each other call's own place. Any of them may create ECS or GPU resources.
    ///
    /// A call that `terraform init` installed is followed like a local one: the root module's
    /// `.terraform/modules/modules.json` says which folder under `.terraform/modules` holds each
    /// call's code, and its findings point at that copy (or at the root's arguments that set the
    /// values), with the module address. The copy is used only when the manifest records the
    /// source the call is written with (a registry address with or without its host), a version
    /// the call's `version` constraint allows (read as Terraform reads it: `~> 8.0` allows 8.x
    /// from 8.0), and its folder is inside the root module's folder; otherwise the call is listed
    /// here, with the reason. `terraform plan` refuses such a copy too ("Module source has
    /// changed", "Module version requirements have changed"): it is not the code the
    /// configuration asks for.
    ///
    /// ## Why it matters
    ///
    /// A GPU service whose capacity comes from a remote module cannot be followed to its instance
    /// types; rules that need them stay silent rather than guess. Knowing that keeps a clean run from
    /// being read as "everything was checked".
    ///
    /// ## Example
    ///
    /// ```hcl
    /// module "gpu_capacity" {
    ///   source  = "terraform-aws-modules/autoscaling/aws"
    ///   version = "~> 8.0"
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Nothing is wrong. To check the module too, run `terraform get` (or `terraform init`) in the
    /// root module before `ecs-gpu check`: it downloads the module sources into
    /// `.terraform/modules`, with no backend, providers or AWS account. Or vendor the module and
    /// call it with a local path (`source = "./modules/gpu-capacity"`), or run `ecs-gpu check` on
    /// its source tree.
    pub static RULE = {
        id: "GPU003",
        name: "remote-module-not-followed",
        severity: Info,
        summary: "a remote module call is not followed",
        reads: {},
        check: check,
    }
}

/// How many calls a message names before "and N more".
const NAMED: usize = 5;

fn check(model: &Model, report: &mut Findings<'_>) {
    // The calls of each folder, in the order they were met.
    let mut folders: Vec<(std::path::PathBuf, Vec<&LoadNote>)> = Vec::new();
    for note in model
        .notes
        .iter()
        .filter(|n| n.kind == LoadNoteKind::RemoteModules)
    {
        let folder = note
            .loc
            .and_then(|l| model.file(l.file).path.parent().map(|p| p.to_path_buf()))
            .unwrap_or_default();
        match folders.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, notes)) => notes.push(note),
            None => folders.push((folder, vec![note])),
        }
    }
    for (_, notes) in folders {
        let mut named: Vec<&str> = notes
            .iter()
            .take(NAMED)
            .map(|n| n.message.as_str())
            .collect();
        let more = notes.len().saturating_sub(NAMED);
        let list = if more > 0 {
            let last = named.pop().unwrap_or_default();
            format!("{}, {last} and {more} more", named.join(", "))
        } else {
            named.join(", ")
        };
        let (what, help) = if notes.len() == 1 {
            ("a module call with a remote source is not followed", "it may create ECS or GPU resources that are not checked: run `terraform get` in the root to install it (its copy in `.terraform/modules` is followed), or vendor it and call it with a local `source` path")
        } else {
            ("module calls with remote sources are not followed", "any of them may create ECS or GPU resources that are not checked: run `terraform get` in the root to install them (their copies in `.terraform/modules` are followed), or vendor them and call them with a local `source` path")
        };
        let mut finding = report
            .add(notes[0].loc, format!("{what}: {list}"))
            .help(help);
        for n in &notes[1..] {
            if let Some(loc) = n.loc {
                finding = finding.label(Some(loc), "not followed either");
            }
        }
    }
}
