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
//! let dir = std::env::temp_dir().join(format!("ecs-gpu-stack-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("main.tf"), r#"
//! resource "aws_ecs_task_definition" "infer" {
//!   family                = "infer"
//!   container_definitions = jsonencode([{
//!     name = "infer", image = "vllm", memory = 8192
//!     resourceRequirements = [{ type = "GPU", value = "1" }]
//!   }])
//! }
//! resource "aws_ecs_service" "infer" {
//!   task_definition = aws_ecs_task_definition.infer.arn
//!   launch_type     = "FARGATE"
//! }
//! "#).unwrap();
//! let model = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
//!     paths: vec![dir.clone()],
//!     ..Default::default()
//! });
//! std::fs::remove_dir_all(&dir).unwrap();
//!
//! let svc = model.resources_of("aws_ecs_service").next().unwrap();
//! let td = ecs_gpu_stack::capacity::service_task(&model, svc).unwrap();
//! assert!(ecs_gpu_stack::task::is_gpu_task(td));
//! let capacity = ecs_gpu_stack::capacity::service_capacity(&model, svc);
//! assert_eq!(capacity.placement, ecs_gpu_stack::capacity::Placement::Fargate);
//!
//! // One scenario per root module, for the simulator.
//! let roots = ecs_gpu_stack::terraform_root::scenarios(&model);
//! assert_eq!(roots[0].scenario.services[0].task.known().unwrap().gpus, 1);
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
