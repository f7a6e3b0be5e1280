//! The placement diagnosis of an Amazon ECS GPU task that never starts.
//!
//! Pure logic over typed AWS API data: no network and no printing. The inputs are the outputs of
//! read-only ECS and Auto Scaling calls in the shape the AWS CLI prints them ([`api`]), read from a
//! directory of saved files ([`Inputs::from_dir`]) or filled by the live client (`ecs-gpu-aws`). The
//! diagnosis checks each link in order — `task-definition`, `capacity`, `gpu-registration`,
//! `gpus-available`, `placement-constraint`, `cpu-memory` — and the [`Report`] names the first broken
//! one with the fix. The cluster query language of `memberOf` constraints is parsed and evaluated by
//! `ecs-gpu-query`, the same crate the checker's rules use.
//!
//! ```
//! use ecs_gpu_diagnose::{diagnose, api::*, Inputs, Target, StepId, Status};
//!
//! let json = r#"{"taskDefinition": {"family": "train", "requiresCompatibilities": ["FARGATE"],
//!     "containerDefinitions": [{"name": "main",
//!         "resourceRequirements": [{"type": "GPU", "value": "1"}]}]}}"#;
//! let inputs = Inputs {
//!     task_definition: Some(serde_json::from_str(json).unwrap()),
//!     ..Inputs::default()
//! };
//! let report = diagnose(&inputs, &Target::default()).unwrap();
//! assert_eq!(report.verdict.step, "task-definition");
//! assert_eq!(report.step(StepId::Capacity).unwrap().status, Status::Unknown);
//! ```

pub mod api;
pub mod aws_json;
mod inputs;
pub mod render;
mod report;
mod steps;

pub use inputs::{FilesError, Inputs};
pub use report::{Outcome, Report, Status, Step, StepId, Verdict};
pub use steps::{diagnose, task_size, DiagnoseError, GpuNeed, Target};
