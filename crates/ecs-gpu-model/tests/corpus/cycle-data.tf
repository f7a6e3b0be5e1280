data "aws_x" "a" { name = data.aws_x.b.name }
data "aws_x" "b" { name = data.aws_x.a.name }
resource "t" "t" { x = data.aws_x.a.name }
