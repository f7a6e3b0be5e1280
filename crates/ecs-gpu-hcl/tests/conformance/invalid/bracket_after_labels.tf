resource "aws_ecs_cluster" "this" ]
