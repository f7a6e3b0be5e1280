use ecs_gpu_model::{LoadNoteKind, Model};

use crate::{declare_rule, Findings};

declare_rule! {
    /// ## What it checks
    ///
    /// Module calls whose `source` is remote (the Terraform Registry, Git, S3, HTTP...). The checker
    /// works offline and never fetches them, so what they create is not checked, and what they output
    /// is unknown. It says so once per call.
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
    /// Nothing is wrong. To check the module too, vendor it and call it with a local path
    /// (`source = "./modules/gpu-capacity"`), or run `ecs-gpu check` on its source tree.
    pub static RULE = {
        id: "GPU003",
        name: "remote-module-not-followed",
        severity: Info,
        summary: "a remote module call is not followed",
        check: check,
    }
}

fn check(model: &Model, report: &mut Findings<'_>) {
    for note in model
        .notes
        .iter()
        .filter(|n| n.kind == LoadNoteKind::RemoteModules)
    {
        report
            .add(note.loc, note.message.clone())
            .help("vendor the module and call it with a local `source` path to check it too");
    }
}
