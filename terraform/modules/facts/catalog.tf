# Generated from crates/ecs-gpu-catalog/data/catalog.json by `scripts/generate.sh`.
# Do not edit: `scripts/generate.sh --check` fails when this file drifts.
# Sources: instance facts karpenter-preview / ecs-doc-gpu / ecs-doc-gpu-specifying (per type in
# catalog.json); family status ECS-GPU, AMI; AMI parameters AMI, CDK; capabilities NCT; memory ECS-MEM;
# EFA karpenter-preview-efa, BOTO; vGPU AMI-GRID-KMOD, AMI-GRIDD, AMI-README-G6F, AGENT-MPS-VGPU.

locals {
  # GPU instance types: whole GPUs (0 on fractional types), fraction, vCPUs, memory (MiB, EC2),
  # memory the agent can register at most (MiB), ECS status of the family, EFA support (null:
  # the sources do not say).
  ecs_gpu_instance_types = {
    "p2.xlarge"          = { family = "p2", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA Tesla K80", gpu_memory_mib = 12288, vcpus = 4, memory_mib = 62464, max_task_memory_mib = 62257, architecture = "x86_64", ecs_status = "restricted", efa = null }
    "p2.8xlarge"         = { family = "p2", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA Tesla K80", gpu_memory_mib = 12288, vcpus = 32, memory_mib = 499712, max_task_memory_mib = 499505, architecture = "x86_64", ecs_status = "restricted", efa = null }
    "p2.16xlarge"        = { family = "p2", gpus = 16, gpu_fraction = null, gpu_model = "NVIDIA Tesla K80", gpu_memory_mib = 12288, vcpus = 64, memory_mib = 749568, max_task_memory_mib = 749361, architecture = "x86_64", ecs_status = "restricted", efa = null }
    "p3.2xlarge"         = { family = "p3", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA V100", gpu_memory_mib = 16384, vcpus = 8, memory_mib = 62464, max_task_memory_mib = 62257, architecture = "x86_64", ecs_status = "supported", efa = null }
    "p3.8xlarge"         = { family = "p3", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA V100", gpu_memory_mib = 16384, vcpus = 32, memory_mib = 249856, max_task_memory_mib = 249649, architecture = "x86_64", ecs_status = "supported", efa = null }
    "p3.16xlarge"        = { family = "p3", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA V100", gpu_memory_mib = 16384, vcpus = 64, memory_mib = 499712, max_task_memory_mib = 499505, architecture = "x86_64", ecs_status = "supported", efa = null }
    "p3dn.24xlarge"      = { family = "p3dn", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA V100", gpu_memory_mib = 32768, vcpus = 96, memory_mib = 786432, max_task_memory_mib = 786225, architecture = "x86_64", ecs_status = "supported", efa = true }
    "p4d.24xlarge"       = { family = "p4d", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA A100", gpu_memory_mib = 40960, vcpus = 96, memory_mib = 1179648, max_task_memory_mib = 1179441, architecture = "x86_64", ecs_status = "supported", efa = true }
    "p4de.24xlarge"      = { family = "p4de", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA A100", gpu_memory_mib = 81920, vcpus = 96, memory_mib = 1179648, max_task_memory_mib = 1179441, architecture = "x86_64", ecs_status = "supported", efa = true }
    "p5.4xlarge"         = { family = "p5", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA H100", gpu_memory_mib = 81920, vcpus = 16, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "supported", efa = true }
    "p5.48xlarge"        = { family = "p5", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA H100", gpu_memory_mib = 81920, vcpus = 192, memory_mib = 2097152, max_task_memory_mib = 2096945, architecture = "x86_64", ecs_status = "supported", efa = true }
    "p5e.48xlarge"       = { family = "p5e", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA H200", gpu_memory_mib = 144384, vcpus = 192, memory_mib = 2097152, max_task_memory_mib = 2096945, architecture = "x86_64", ecs_status = "unverified", efa = true }
    "p5en.48xlarge"      = { family = "p5en", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA H200", gpu_memory_mib = 144384, vcpus = 192, memory_mib = 2097152, max_task_memory_mib = 2096945, architecture = "x86_64", ecs_status = "unverified", efa = true }
    "p6-b200.48xlarge"   = { family = "p6-b200", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA B200", gpu_memory_mib = 183359, vcpus = 192, memory_mib = 2097152, max_task_memory_mib = 2096945, architecture = "x86_64", ecs_status = "supported", efa = true }
    "p6-b300.48xlarge"   = { family = "p6-b300", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA B300", gpu_memory_mib = 275040, vcpus = 192, memory_mib = 4194304, max_task_memory_mib = 4194097, architecture = "x86_64", ecs_status = "unverified", efa = true }
    "p6e-gb200.36xlarge" = { family = "p6e-gb200", gpus = null, gpu_fraction = null, gpu_model = null, gpu_memory_mib = null, vcpus = null, memory_mib = null, max_task_memory_mib = null, architecture = null, ecs_status = "no-ecs-gpu-ami", efa = null }
    "g3.4xlarge"         = { family = "g3", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA Tesla M60", gpu_memory_mib = 8192, vcpus = 16, memory_mib = 124928, max_task_memory_mib = 124721, architecture = "x86_64", ecs_status = "supported", efa = null }
    "g3.8xlarge"         = { family = "g3", gpus = 2, gpu_fraction = null, gpu_model = "NVIDIA Tesla M60", gpu_memory_mib = 8192, vcpus = 32, memory_mib = 249856, max_task_memory_mib = 249649, architecture = "x86_64", ecs_status = "supported", efa = null }
    "g3.16xlarge"        = { family = "g3", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA Tesla M60", gpu_memory_mib = 8192, vcpus = 64, memory_mib = 499712, max_task_memory_mib = 499505, architecture = "x86_64", ecs_status = "supported", efa = null }
    "g3s.xlarge"         = { family = "g3s", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA Tesla M60", gpu_memory_mib = 8192, vcpus = 4, memory_mib = 31232, max_task_memory_mib = 31025, architecture = "x86_64", ecs_status = "supported", efa = null }
    "g4dn.xlarge"        = { family = "g4dn", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 4, memory_mib = 16384, max_task_memory_mib = 16177, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g4dn.2xlarge"       = { family = "g4dn", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 8, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g4dn.4xlarge"       = { family = "g4dn", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 16, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g4dn.8xlarge"       = { family = "g4dn", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 32, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g4dn.12xlarge"      = { family = "g4dn", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 48, memory_mib = 196608, max_task_memory_mib = 196401, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g4dn.16xlarge"      = { family = "g4dn", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 64, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g4dn.metal"         = { family = "g4dn", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA T4", gpu_memory_mib = 16384, vcpus = 96, memory_mib = 393216, max_task_memory_mib = 393009, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g4ad.xlarge"        = { family = "g4ad", gpus = 1, gpu_fraction = null, gpu_model = "AMD Radeon Pro V520", gpu_memory_mib = 8192, vcpus = 4, memory_mib = 16384, max_task_memory_mib = 16177, architecture = "x86_64", ecs_status = "not-nvidia", efa = false }
    "g4ad.2xlarge"       = { family = "g4ad", gpus = 1, gpu_fraction = null, gpu_model = "AMD Radeon Pro V520", gpu_memory_mib = 8192, vcpus = 8, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "not-nvidia", efa = false }
    "g4ad.4xlarge"       = { family = "g4ad", gpus = 1, gpu_fraction = null, gpu_model = "AMD Radeon Pro V520", gpu_memory_mib = 8192, vcpus = 16, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "not-nvidia", efa = false }
    "g4ad.8xlarge"       = { family = "g4ad", gpus = 2, gpu_fraction = null, gpu_model = "AMD Radeon Pro V520", gpu_memory_mib = 8192, vcpus = 32, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "not-nvidia", efa = false }
    "g4ad.16xlarge"      = { family = "g4ad", gpus = 4, gpu_fraction = null, gpu_model = "AMD Radeon Pro V520", gpu_memory_mib = 8192, vcpus = 64, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "not-nvidia", efa = false }
    "g5.xlarge"          = { family = "g5", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 4, memory_mib = 16384, max_task_memory_mib = 16177, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g5.2xlarge"         = { family = "g5", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 8, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g5.4xlarge"         = { family = "g5", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 16, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g5.8xlarge"         = { family = "g5", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 32, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g5.12xlarge"        = { family = "g5", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 48, memory_mib = 196608, max_task_memory_mib = 196401, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g5.16xlarge"        = { family = "g5", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 64, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g5.24xlarge"        = { family = "g5", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 96, memory_mib = 393216, max_task_memory_mib = 393009, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g5.48xlarge"        = { family = "g5", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA A10G", gpu_memory_mib = 22888, vcpus = 192, memory_mib = 786432, max_task_memory_mib = 786225, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g5g.xlarge"         = { family = "g5g", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4G", gpu_memory_mib = 16384, vcpus = 4, memory_mib = 8192, max_task_memory_mib = 7985, architecture = "arm64", ecs_status = "no-ecs-gpu-ami", efa = false }
    "g5g.2xlarge"        = { family = "g5g", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4G", gpu_memory_mib = 16384, vcpus = 8, memory_mib = 16384, max_task_memory_mib = 16177, architecture = "arm64", ecs_status = "no-ecs-gpu-ami", efa = false }
    "g5g.4xlarge"        = { family = "g5g", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4G", gpu_memory_mib = 16384, vcpus = 16, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "arm64", ecs_status = "no-ecs-gpu-ami", efa = false }
    "g5g.8xlarge"        = { family = "g5g", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA T4G", gpu_memory_mib = 16384, vcpus = 32, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "arm64", ecs_status = "no-ecs-gpu-ami", efa = false }
    "g5g.16xlarge"       = { family = "g5g", gpus = 2, gpu_fraction = null, gpu_model = "NVIDIA T4G", gpu_memory_mib = 16384, vcpus = 64, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "arm64", ecs_status = "no-ecs-gpu-ami", efa = false }
    "g5g.metal"          = { family = "g5g", gpus = 2, gpu_fraction = null, gpu_model = "NVIDIA T4G", gpu_memory_mib = 16384, vcpus = 64, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "arm64", ecs_status = "no-ecs-gpu-ami", efa = false }
    "g6.xlarge"          = { family = "g6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 4, memory_mib = 16384, max_task_memory_mib = 16177, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6.2xlarge"         = { family = "g6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 8, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6.4xlarge"         = { family = "g6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 16, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6.8xlarge"         = { family = "g6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 32, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6.12xlarge"        = { family = "g6", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 48, memory_mib = 196608, max_task_memory_mib = 196401, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6.16xlarge"        = { family = "g6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 64, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6.24xlarge"        = { family = "g6", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 96, memory_mib = 393216, max_task_memory_mib = 393009, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6.48xlarge"        = { family = "g6", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 192, memory_mib = 786432, max_task_memory_mib = 786225, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6e.xlarge"         = { family = "g6e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 4, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6e.2xlarge"        = { family = "g6e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 8, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6e.4xlarge"        = { family = "g6e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 16, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6e.8xlarge"        = { family = "g6e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 32, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6e.12xlarge"       = { family = "g6e", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 48, memory_mib = 393216, max_task_memory_mib = 393009, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6e.16xlarge"       = { family = "g6e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 64, memory_mib = 524288, max_task_memory_mib = 524081, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6e.24xlarge"       = { family = "g6e", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 96, memory_mib = 786432, max_task_memory_mib = 786225, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6e.48xlarge"       = { family = "g6e", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA L40S", gpu_memory_mib = 45776, vcpus = 192, memory_mib = 1572864, max_task_memory_mib = 1572657, architecture = "x86_64", ecs_status = "supported", efa = true }
    "g6f.large"          = { family = "g6f", gpus = 0, gpu_fraction = 0.125, gpu_model = "NVIDIA L4", gpu_memory_mib = 2861, vcpus = 2, memory_mib = 8192, max_task_memory_mib = 7985, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6f.xlarge"         = { family = "g6f", gpus = 0, gpu_fraction = 0.125, gpu_model = "NVIDIA L4", gpu_memory_mib = 2861, vcpus = 4, memory_mib = 16384, max_task_memory_mib = 16177, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6f.2xlarge"        = { family = "g6f", gpus = 0, gpu_fraction = 0.25, gpu_model = "NVIDIA L4", gpu_memory_mib = 5722, vcpus = 8, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g6f.4xlarge"        = { family = "g6f", gpus = 0, gpu_fraction = 0.5, gpu_model = "NVIDIA L4", gpu_memory_mib = 11444, vcpus = 16, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "supported", efa = false }
    "gr6.4xlarge"        = { family = "gr6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 16, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "supported", efa = false }
    "gr6.8xlarge"        = { family = "gr6", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA L4", gpu_memory_mib = 22888, vcpus = 32, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "supported", efa = true }
    "gr6f.4xlarge"       = { family = "gr6f", gpus = 0, gpu_fraction = 0.5, gpu_model = "NVIDIA L4", gpu_memory_mib = 11444, vcpus = 16, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "supported", efa = false }
    "g7.2xlarge"         = { family = "g7", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-4500", gpu_memory_mib = 32768, vcpus = 8, memory_mib = 32768, max_task_memory_mib = 32561, architecture = "x86_64", ecs_status = "no-ecs-gpu-ami-driver", efa = false }
    "g7.4xlarge"         = { family = "g7", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-4500", gpu_memory_mib = 32768, vcpus = 16, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "no-ecs-gpu-ami-driver", efa = false }
    "g7.8xlarge"         = { family = "g7", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-4500", gpu_memory_mib = 32768, vcpus = 32, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "no-ecs-gpu-ami-driver", efa = true }
    "g7.12xlarge"        = { family = "g7", gpus = 2, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-4500", gpu_memory_mib = 32768, vcpus = 48, memory_mib = 196608, max_task_memory_mib = 196401, architecture = "x86_64", ecs_status = "no-ecs-gpu-ami-driver", efa = true }
    "g7.24xlarge"        = { family = "g7", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-4500", gpu_memory_mib = 32768, vcpus = 96, memory_mib = 393216, max_task_memory_mib = 393009, architecture = "x86_64", ecs_status = "no-ecs-gpu-ami-driver", efa = true }
    "g7.48xlarge"        = { family = "g7", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-4500", gpu_memory_mib = 32768, vcpus = 192, memory_mib = 786432, max_task_memory_mib = 786225, architecture = "x86_64", ecs_status = "no-ecs-gpu-ami-driver", efa = true }
    "g7e.2xlarge"        = { family = "g7e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-server-6000", gpu_memory_mib = 98304, vcpus = 8, memory_mib = 65536, max_task_memory_mib = 65329, architecture = "x86_64", ecs_status = "unverified", efa = false }
    "g7e.4xlarge"        = { family = "g7e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-server-6000", gpu_memory_mib = 98304, vcpus = 16, memory_mib = 131072, max_task_memory_mib = 130865, architecture = "x86_64", ecs_status = "unverified", efa = false }
    "g7e.8xlarge"        = { family = "g7e", gpus = 1, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-server-6000", gpu_memory_mib = 98304, vcpus = 32, memory_mib = 262144, max_task_memory_mib = 261937, architecture = "x86_64", ecs_status = "unverified", efa = true }
    "g7e.12xlarge"       = { family = "g7e", gpus = 2, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-server-6000", gpu_memory_mib = 98304, vcpus = 48, memory_mib = 524288, max_task_memory_mib = 524081, architecture = "x86_64", ecs_status = "unverified", efa = true }
    "g7e.24xlarge"       = { family = "g7e", gpus = 4, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-server-6000", gpu_memory_mib = 98304, vcpus = 96, memory_mib = 1048576, max_task_memory_mib = 1048369, architecture = "x86_64", ecs_status = "unverified", efa = true }
    "g7e.48xlarge"       = { family = "g7e", gpus = 8, gpu_fraction = null, gpu_model = "NVIDIA rtx-pro-server-6000", gpu_memory_mib = 98304, vcpus = 192, memory_mib = 2097152, max_task_memory_mib = 2096945, architecture = "x86_64", ecs_status = "unverified", efa = true }
  }

  # Why a family is not plainly supported.
  ecs_gpu_family_status = {
    "p2"        = { status = "restricted", reason = "only ECS GPU-optimized AMIs earlier than 20230912 (last: 20230906) support p2; newer AMIs ship NVIDIA 535+ and CUDA 12" }
    "p3"        = { status = "supported", reason = null }
    "p3dn"      = { status = "supported", reason = null }
    "p4d"       = { status = "supported", reason = null }
    "p4de"      = { status = "supported", reason = "not in the ECS GPU instance table; the ECS guide's Managed Instances GPU page names `p4de.24xlarge` in its example of GPU instance types" }
    "p5"        = { status = "supported", reason = null }
    "p5e"       = { status = "unverified", reason = "not in the ECS GPU instance tables, and no ECS document names P5e; the AL2023 ECS GPU AMI's boot script loads the open NVIDIA kernel module for it, which is code, not a documented statement" }
    "p5en"      = { status = "unverified", reason = "not in the ECS GPU instance tables, and no ECS document names P5en; the AL2023 ECS GPU AMI's boot script loads the open NVIDIA kernel module for it, which is code, not a documented statement" }
    "p6-b200"   = { status = "supported", reason = "not in the ECS GPU instance table; the ECS GPU AMI's release notes (release 20250626) add support for P6 instances to the AL2023 GPU AMI" }
    "p6-b300"   = { status = "unverified", reason = "not in the ECS GPU instance tables, and no ECS document names P6-B300 (the AMI's release notes of 20250626 name the P6 instances of that time, P6-B200); the AL2023 ECS GPU AMI's boot script loads the open NVIDIA kernel module for it, which is code, not a documented statement" }
    "p6e-gb200" = { status = "no-ecs-gpu-ami", reason = "arm64 (NVIDIA Grace CPU): every ECS GPU-optimized AMI recipe is x86_64 and no arm64 GPU SSM parameter exists; its GPU count, memory and vCPUs are in no source read" }
    "g3"        = { status = "supported", reason = null }
    "g3s"       = { status = "supported", reason = null }
    "g4dn"      = { status = "supported", reason = null }
    "g4ad"      = { status = "not-nvidia", reason = "AMD Radeon Pro V520: ECS GPU support is for NVIDIA GPUs only" }
    "g5"        = { status = "supported", reason = null }
    "g5g"       = { status = "no-ecs-gpu-ami", reason = "arm64 (Graviton2): every ECS GPU-optimized AMI recipe is x86_64 and no arm64 GPU SSM parameter exists" }
    "g6"        = { status = "supported", reason = null }
    "g6e"       = { status = "supported", reason = null }
    "g6f"       = { status = "supported", reason = null }
    "gr6"       = { status = "supported", reason = null }
    "gr6f"      = { status = "supported", reason = null }
    "g7"        = { status = "no-ecs-gpu-ami-driver", reason = "needs NVIDIA driver 595 or later, and every ECS GPU-optimized AMI release ships an older driver (the AL2023 GPU AMI pins the 580 branch): the instance starts and its GPU is not usable" }
    "g7e"       = { status = "unverified", reason = "not in the ECS GPU instance tables, and no G7e handling in the ECS GPU AMI seen" }
    "g2"        = { status = "deprecated", reason = "ECS GPU support for g2 is deprecated" }
    "p6e-gb300" = { status = "no-ecs-gpu-ami", reason = "arm64 (NVIDIA Grace CPU): every ECS GPU-optimized AMI recipe is x86_64 and no arm64 GPU SSM parameter exists; its sizes and numbers are in no source read" }
  }

  # ECS GPU-optimized AMI SSM parameters (the .../recommended form; sub-parameters such as /image_id belong to it).
  ecs_gpu_ami_parameters = {
    "al2023"          = { parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended", end_of_life = null }
    "al2"             = { parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2/gpu/recommended", end_of_life = "2026-06-30" }
    "al2-kernel-5.10" = { parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2/kernel-5.10/gpu/recommended", end_of_life = "2026-06-30" }
  }
  ecs_gpu_ami_recommended_parameter = "/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id"

  # NVIDIA_DRIVER_CAPABILITIES names the NVIDIA container toolkit accepts.
  nvidia_driver_capability_names = ["compute", "compat32", "graphics", "utility", "video", "display", "ngx", "all", "none"]

  # The fractional GPU (vGPU) families on ECS on EC2: only the AMI variants with the NVIDIA GRID
  # driver, from this release (YYYYMMDD) on; no MPS; the types that need memory overcommit in
  # their user data (`<setting> = <value>`).
  ecs_gpu_vgpu = {
    families                         = ["g6f", "gr6f"]
    ami_variants                     = ["al2023"]
    min_ami_release                  = "20260323"
    mps                              = false
    memory_overcommit_instance_types = ["g6f.large"]
    memory_overcommit_setting        = "vm.overcommit_memory"
    memory_overcommit_value          = "1"
  }
}
