# The cluster (optional) and the Managed Instances capacity provider. ECS launches, patches and
# terminates the instances (with the infrastructure role); the module chooses which types it may
# launch: NVIDIA GPU types from `instance_types`, each large enough for the task.

resource "aws_ecs_cluster" "this" {
  count = var.create_cluster ? 1 : 0

  name = var.cluster_name
  tags = local.tags

  setting {
    name  = "containerInsights"
    value = "enabled"
  }
}

resource "aws_ecs_capacity_provider" "this" {
  name = local.unique_name
  # A Managed Instances capacity provider belongs to its cluster and is associated with it on
  # creation; PutClusterCapacityProviders (aws_ecs_cluster_capacity_providers) refuses it
  # (hashicorp/terraform-provider-aws issue 44783).
  cluster = local.cluster_name
  tags    = local.tags

  managed_instances_provider {
    infrastructure_role_arn = aws_iam_role.infrastructure.arn
    propagate_tags          = "CAPACITY_PROVIDER"

    instance_launch_template {
      ec2_instance_profile_arn = aws_iam_instance_profile.instance.arn
      capacity_option_type     = var.capacity_option_type

      dynamic "capacity_reservations" {
        for_each = var.capacity_reservations == null ? [] : [var.capacity_reservations]
        content {
          reservation_group_arn  = capacity_reservations.value.reservation_group_arn
          reservation_preference = capacity_reservations.value.reservation_preference
        }
      }

      network_configuration {
        subnets         = var.subnet_ids
        security_groups = [aws_security_group.instance.id]
      }

      dynamic "storage_configuration" {
        for_each = var.storage_size_gib == null ? [] : [var.storage_size_gib]
        content {
          storage_size_gib = storage_configuration.value
        }
      }

      # Attribute-based selection (ECS-MI-GPU, BOTO `InstanceRequirementsRequest`), narrowed to the
      # listed types: NVIDIA GPUs, and at least the task's GPUs, vCPUs and memory.
      instance_requirements {
        allowed_instance_types    = var.instance_types
        accelerator_types         = [local.accelerator_type]
        accelerator_manufacturers = [local.accelerator_maker]

        vcpu_count {
          min = local.vcpu_min
        }

        memory_mib {
          min = var.task_memory
        }

        dynamic "accelerator_count" {
          for_each = local.accelerator_count == null ? [] : [local.accelerator_count]
          content {
            min = accelerator_count.value
          }
        }

        dynamic "accelerator_total_memory_mib" {
          for_each = var.gpu_memory_min_mib == null ? [] : [var.gpu_memory_min_mib]
          content {
            min = accelerator_total_memory_mib.value
          }
        }
      }
    }
  }

  lifecycle {
    # The plan-time refusals of a type the task can never run on.
    precondition {
      condition     = length(local.unknown_types) == 0
      error_message = "instance type(s) ${join(", ", local.unknown_types)} not in the module's catalog: ${join("; ", [for t in local.unknown_types : "for ${t} the catalog has ${join(", ", local.types[t].nearest_types)}"])}. Fix a typo, or describe a type the catalog lacks in instance_type_facts (its GPUs, vCPUs and memory)."
    }
    precondition {
      condition     = length(local.refused_types) == 0
      error_message = "instance type(s) cannot run ECS GPU tasks: ${join("; ", [for t, r in local.refused_types : "${t}: ${r}"])}."
    }
    precondition {
      condition     = length(local.wrong_architecture_types) == 0
      error_message = "instance type(s) ${join(", ", local.wrong_architecture_types)} are not x86_64: the module's task definition runs Linux on X86_64."
    }
    # The fit of the task on every listed type: a type that cannot hold it would never be chosen
    # for it, and a list where none can leaves the task pending forever.
    precondition {
      condition = length(local.gpu_misfits) == 0
      error_message = (
        local.is_fractional_task
        ? "the task asks for a GPU fraction of ${var.gpu_count}: every type must be a g6f/gr6f type offering exactly that partition, and ${join(", ", [for t in local.gpu_misfits : "${t} offers ${coalesce(local.known_types[t].gpus_per_instance, 0)}"])}: remove those from instance_types."
        : "the task asks for ${var.gpu_count} whole GPU(s): ${join(", ", [for t in local.gpu_misfits : local.known_types[t].gpu_fraction != null ? "${t} offers only a GPU fraction of ${local.known_types[t].gpu_fraction}" : "${t} has ${coalesce(local.known_types[t].gpus, 0)}"])}: remove those from instance_types, or lower gpu_count."
      )
    }
    precondition {
      condition     = var.mps == null || var.gpu_count == 1
      error_message = "`mps` and `gpu_count` ${var.gpu_count} both set: ECS takes either a GPU count or an MPS sharing strategy for a container, not both; with `mps` leave `gpu_count` unset."
    }
    precondition {
      condition     = length(local.mps_misfits) == 0
      error_message = "`mps.memory_mib` ${try(var.mps.memory_mib, 0)} MiB cannot be shared on ${join(", ", [for t in local.mps_misfits : local.known_types[t].gpu_fraction != null ? "${t} (a g6f/gr6f GPU partition: MPS is not offered on partitions)" : "${t} (${coalesce(local.known_types[t].gpu_memory_mib, 0)} MiB per GPU: an MPS container pins its memory on one GPU)"])}: remove those from instance_types, or lower mps.memory_mib."
    }
    precondition {
      condition     = length(local.cpu_misfits) == 0
      error_message = "task_cpu ${var.task_cpu} is more than ${join(", ", [for t in local.cpu_misfits : "${t} registers (${local.known_types[t].vcpus} vCPUs = ${local.known_types[t].max_task_cpu} CPU units)"])}: the task would never be placed there; remove those from instance_types, or lower task_cpu."
    }
    precondition {
      condition     = length(local.memory_misfits) == 0
      error_message = "task_memory ${var.task_memory} MiB is more than the module allows on ${join(", ", [for t in local.memory_misfits : "${t} (${local.known_types[t].max_task_memory} MiB: the ${local.known_types[t].max_task_memory_mib} MiB the agent can register at most, minus a margin of ${local.known_types[t].memory_margin_mib} MiB; see memory_margin_mib)"])}."
    }
    precondition {
      condition     = (var.capacity_option_type == "RESERVED") == (var.capacity_reservations != null)
      error_message = var.capacity_option_type == "RESERVED" ? "capacity_option_type \"RESERVED\" launches into Capacity Reservations: set capacity_reservations (the reservations' resource group)." : "capacity_reservations are used with capacity_option_type \"RESERVED\" only (it is \"${var.capacity_option_type}\")."
    }
    precondition {
      condition     = length(local.gpu_memory_misfits) == 0
      error_message = "gpu_memory_min_mib ${coalesce(var.gpu_memory_min_mib, 0)} is more than the GPU memory of ${join(", ", local.gpu_memory_misfits)}: EC2 would never choose them; remove those from instance_types."
    }
  }

  depends_on = [
    data.aws_ecs_clusters.all,
    aws_iam_role_policy_attachment.infrastructure,
    aws_iam_role_policy.infrastructure_pass_instance_role,
    aws_iam_role_policy_attachment.instance,
  ]
}

# The cluster must exist before a capacity provider is created in it. The list is read once the gate
# exists, so that a cluster created in the same apply (here, or by the caller, whose name then flows
# in by reference) is read after its creation; later plans read it at plan time.
resource "terraform_data" "cluster" {
  input = local.cluster_name
}

data "aws_ecs_clusters" "all" {
  depends_on = [terraform_data.cluster]

  lifecycle {
    postcondition {
      condition     = contains([for arn in self.cluster_arns : element(split("/", arn), length(split("/", arn)) - 1)], var.cluster_name)
      error_message = "ECS cluster `${var.cluster_name}` does not exist in this account and region (ListClusters): the capacity provider and the service could not be created in it. Fix cluster_name, create the cluster first, or let this module create it (create_cluster = true)."
    }
  }
}
