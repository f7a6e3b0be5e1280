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
          min = local.requirement_memory
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
      error_message = "instance type(s) ${join(", ", local.unknown_types)} not in the module's catalog: ${join("; ", [for t in local.unknown_types : "for ${t} the catalog has ${join(", ", local.nearest_types[t])}"])}. Fix a typo, or describe a type the catalog lacks in instance_type_facts (its GPUs, vCPUs and memory)."
    }
    precondition {
      condition     = length(local.refused_types) == 0
      error_message = "instance type(s) cannot run ECS GPU tasks: ${join("; ", [for t, r in local.refused_types : "${t}: ${r}"])}."
    }
    precondition {
      condition     = length(local.wrong_architecture_types) == 0
      error_message = "instance type(s) ${join(", ", local.wrong_architecture_types)} are not x86_64: the module's task definition runs Linux on X86_64."
    }
  }

  depends_on = [
    aws_iam_role_policy_attachment.infrastructure,
    aws_iam_role_policy.infrastructure_pass_instance_role,
    aws_iam_role_policy_attachment.instance,
  ]
}
