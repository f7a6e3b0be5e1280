terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

resource "aws_ecs_cluster" "this" {
  count = 2
  name  = "gpu-${count.index}"
}

locals {
  full_splat      = aws_ecs_cluster.this[*].arn
  attr_splat      = aws_ecs_cluster.this.*.arn
  nested_splat    = aws_ecs_cluster.this[*].setting[*].name
  splat_then_idx  = aws_ecs_cluster.this[*].arn[0]
  legacy_index    = aws_ecs_cluster.this.0.arn
  index_then_attr = aws_ecs_cluster.this[1].name
  whole_splat     = aws_ecs_cluster.this[*]
  splat_on_list   = [{ a = 1 }, { a = 2 }][*].a
}

output "arns" {
  value = local.full_splat
}
