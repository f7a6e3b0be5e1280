resource "aws_${x}" "this" {
}
