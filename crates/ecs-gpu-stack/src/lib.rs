//! The GPU stack as Terraform describes it: what a task reserves ([`task`]), what a service can
//! run on and what launches it (the capacity trace, [`capacity`]: service → capacity provider →
//! Auto Scaling group → launch template → instance types, AMI and user data), and a Terraform
//! root read as the simulator's input ([`terraform_root`]). The rules of `ecs-gpu-rules` and the
//! `simulate` command read a [`Model`](ecs_gpu_model::Model) through it.
//!
//! Every answer is only what is known: a link that cannot be followed, a value known only after
//! apply, makes the step unknown, and nothing is concluded from it.
//!
//! ```
//! use ecs_gpu_stack::{capacity, task, terraform_root};
//!
//! let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/broken-gpu-chain");
//! let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
//!     paths: vec![example.into()],
//!     ..Default::default()
//! });
//! let svc = model.resources_of("aws_ecs_service").next().unwrap();
//! assert!(task::is_gpu_task(capacity::service_task(&model, svc).unwrap()));
//! let cap = capacity::service_capacity(&model, svc);
//! assert_eq!(cap.instance_types().unwrap()[0].name, "g5.xlarge");
//! // One scenario per root module, for the simulator.
//! let roots = terraform_root::scenarios(&model);
//! assert_eq!(roots[0].scenario.groups[0].max_size.known(), Some(&4));
//! ```

#![warn(missing_docs)]

pub mod capacity;
mod reads;
pub mod task;
pub mod terraform_root;

pub use reads::{load_filters, Reads};

/// Names in backticks, separated by commas: "`GPU303`, `GPU304`".
pub fn backticked<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|c| format!("`{}`", c.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
