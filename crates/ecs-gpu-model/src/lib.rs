//! The resource model of ecs-gpu: Terraform configurations and ECS task-definition JSON, loaded,
//! statically evaluated the way Terraform would, and linked by their references.
//!
//! `load` reads every file, parses it with `ecs-gpu-hcl`, follows local module calls with their
//! inputs, evaluates each argument, and returns a [`Model`]. What cannot be known before apply is
//! [`Value::Unknown`], carrying the references it depends on.
//!
//! It loads the folders in parallel, each on its own (read, parse, evaluate, free the syntax
//! trees), and merges their results in a fixed order: the model is the same whatever the number
//! of threads. [`LoadOptions::only_types`] limits evaluation to the resource types a caller
//! reads.
//!
//! Locations: a value points at the expression that wrote it. A value that came through a
//! variable, a local or a module output keeps the location where it was written (a `default`, a
//! `.tfvars` entry, the module call's argument); an unknown value points at the reference.
//!
//! # Modules
//!
//! Every folder with `.tf`/`.tf.json` files (or OpenTofu's `.tofu`/`.tofu.json`, each read in
//! place of its `.tf` twin as OpenTofu does) is a root module, evaluated with its variables'
//! defaults, `TF_VAR_*`, its `terraform.tfvars(.json)` and `*.auto.tfvars(.json)`, then
//! [`LoadOptions::var_files`] and [`LoadOptions::vars`]. A local module call (`./`, `../`) is
//! followed with its arguments as an instance of its own (`module.NAME`, `module.a.module.b`,
//! `module.m["k"]`), even when the called folder is also loaded as a root. So is a remote call
//! (registry, Git...) that `terraform init` installed: the root's `.terraform/modules/modules.json`
//! names the folder holding its code, which is used when it records the call's source and a
//! version the call's `version` constraint allows (as `terraform plan` checks them). Override
//! files (`override.tf`, `*_override.tf`) are merged as Terraform merges them.
//!
//! # What is unknown on purpose
//!
//! - A managed resource's attributes (`aws_x.y.arn`): [`UnknownReason::AfterApply`], with a
//!   [`Reference`]; `Model::referenced` follows it.
//! - A data source's results ([`UnknownReason::DataSource`]); its own arguments are known
//!   (`data.aws_ssm_parameter.x.name`), and so is `data.template_file`'s `rendered`.
//! - A variable with no value anywhere ([`UnknownReason::NoValue`]).
//! - The outputs of remote module calls not installed ([`UnknownReason::RemoteModule`]).
//! - What the evaluator does not model ([`UnknownReason::Unsupported`]): functions it does not
//!   know, hashes, time, `base64gzip` (its input is kept as a fragment), `file()` outside the
//!   checked folders, an infinity, the cases where Terraform's list/tuple, set/list or map/object
//!   distinction decides the result (equal collections compared with `==`, a negative `element`
//!   index), nesting past the evaluator's limits.
//! - What Terraform would refuse ([`UnknownReason::Error`]): type errors, missing keys, cycles,
//!   references to undeclared objects. An error anywhere in a function's or operator's arguments
//!   makes its result an error, as in Terraform (`try` and `can` see it); `jsonencode` keeps its
//!   structure around an error so rules still read the rest of a container definition.
//!
//! A template (heredoc, quoted template, `templatefile`) with unknown parts is an unknown string,
//! but its JSON is still read where its text is known: [`Node::json`] reads it with each unknown
//! part as a hole, unknown only as far as the hole's place allows (a string, a value, an array
//! element, the members after it), so a task definition with a computed image stays known.
//!
//! Sets are lists (sorted as Terraform sorts them); `for` over a set call and `dynamic` blocks
//! over one use the elements as keys.
//!
//! ```no_run
//! let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
//!     paths: vec!["examples/broken-gpu-chain".into()],
//!     ..Default::default()
//! });
//! for svc in model.resources_of("aws_ecs_service") {
//!     let tds = model.referenced(svc.body.attr("task_definition").unwrap(), "aws_ecs_task_definition");
//!     println!("{} -> {} task definition(s)", model.local_address(svc), tds.len());
//! }
//! ```

mod budget;
mod decl;
mod driver;
mod emit;
mod eval;
mod files;
mod funcs;
mod ignore_files;
mod installed;
mod instances;
mod json;
mod json_holes;
mod loader;
mod model;
mod parse;
mod references;
mod taskdef;
mod tfjson;
mod types;
mod value;
mod vars;
mod version;
mod walk;

pub use budget::{MEMORY_BUDGET_BASE, MEMORY_BUDGET_PER_FILE};
pub use instances::MAX_INSTANCES;
pub use model::*;
pub use value::*;

/// The loader's maps, keyed by paths and names: loading looks them up hundreds of thousands of
/// times, and the standard hasher (SipHash, built against hash flooding by an attacker who picks
/// the keys; here the keys come from the user's own files) is the slow part of it.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
/// A set of paths or names (see [`FastMap`]).
pub(crate) type FastSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;

/// Loads everything under the given paths, on every core. Never fails as a whole: unreadable or
/// unparsable files are in [`Model::problems`], and everything else is loaded.
pub fn load(options: &LoadOptions) -> Model {
    driver::load(options)
}

pub use walk::{file_kind, parse_only, ParseOnly, ReadError, MAX_FILE_BYTES};

/// Reads a file as UTF-8 text as `check` reads every file: without blocking on a FIFO, refusing
/// what is not a regular file and files over [`MAX_FILE_BYTES`], with the place of the first byte
/// that is not UTF-8. For readers outside the model (the configuration file).
pub fn read_text(path: &std::path::Path) -> Result<String, ReadError> {
    walk::read_text(path)
}
