locals {
  x = <<EOT
  hello
}
