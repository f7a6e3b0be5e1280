resource "aws_ecs_service" "this" {
  name          = "a"
  desired_count = 1
  name          = "b"
}
