use ecs_gpu_model::{LoadNoteKind, Model};

use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Inputs the checker could not follow, other than remote modules (GPU003): a local module call
    /// whose folder is missing, whose `source` is not a literal, that calls itself or nests too deep;
    /// a `file()` or `templatefile()` path outside the checked folders, which the checker never
    /// reads; a `count` or `for_each` of more than 1,000 instances, which the checker does not
    /// expand; and values that pass the evaluator's memory budget (128 MiB, and 64 KiB more per
    /// file, for a root module with the modules it calls).
    ///
    /// ## Why it matters
    ///
    /// What such a module creates is not checked, and a value read from such a file is unknown: the
    /// rules that need it stay silent rather than guess. A typo in a module `source` or a template
    /// path outside the tree would otherwise make a clean run look complete.
    ///
    /// ## Example
    ///
    /// ```hcl
    /// module "gpu" {
    ///   source = "./modules/gpu-capcity" # the folder is ./modules/gpu-capacity
    /// }
    ///
    /// resource "aws_launch_template" "gpu" {
    ///   user_data = base64encode(file("/etc/shared/user-data.sh"))
    /// }
    /// ```
    ///
    /// ## How to fix
    ///
    /// Correct the module `source`, or check the folder that holds the module and the file too
    /// (`ecs-gpu check infra/ shared/`). Nothing is wrong when the input is deliberately outside.
    pub static RULE = {
        id: "GPU004",
        name: "input-not-followed",
        severity: Info,
        summary: "a local module call or a file the checker could not follow",
        reads: {},
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for note in &model.notes {
        let help = match note.kind {
            LoadNoteKind::RemoteModules => continue,
            LoadNoteKind::ModuleNotFollowed => {
                "make the `source` a literal path to a folder of `.tf` files that exists"
            }
            LoadNoteKind::FileOutsideTree => {
                "check the folder that holds the file as well, or keep the file inside the module"
            }
            LoadNoteKind::InstanceLimit => {
                "nothing is wrong if the number is meant; the rules read the resource as one instance"
            }
            LoadNoteKind::MemoryBudget => {
                "look for a `for` expression or a `join` that repeats a large value; the rules that need it stay silent"
            }
        };
        report.add(note.loc, note.message.clone()).help(help);
    }
}
