//! One module per rule, named `gpuNNN_kebab_name_in_snake_case`.

pub mod gpu001_suppression_without_reason;
pub mod gpu002_unused_suppression;
pub mod gpu003_remote_module_not_followed;
pub mod gpu101_gpu_task_on_fargate;
