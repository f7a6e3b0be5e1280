data "aws_partition" "current" {}
