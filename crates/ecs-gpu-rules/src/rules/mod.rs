//! One module per rule, named `gpuNNN_kebab_name_in_snake_case`.

pub mod gpu001_suppression_without_reason;
pub mod gpu002_unused_suppression;
pub mod gpu003_remote_module_not_followed;
pub mod gpu101_gpu_task_on_fargate;
pub mod gpu102_gpu_requirement_misplaced;
pub mod gpu103_gpu_value_invalid;
pub mod gpu104_gpu_task_on_windows;
pub mod gpu105_nvidia_driver_capabilities;
pub mod gpu106_gpu_count_exceeds_instance;
pub mod gpu107_task_size_exceeds_instance;
pub mod gpu108_container_definition_duplicate_key;
pub mod gpu201_instance_type_without_gpu;
pub mod gpu202_gpu_family_unsupported;
pub mod gpu203_ami_not_gpu_optimized;
pub mod gpu204_gpu_support_disabled;
pub mod gpu205_ecs_cluster_not_set;
pub mod gpu206_shared_gpu_runtime_with_reservations;
pub mod gpu207_instance_profile_missing;
pub mod gpu208_imdsv1_allowed;
pub mod gpu209_ami_end_of_life;
