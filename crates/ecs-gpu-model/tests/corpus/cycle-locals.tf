locals {
  a = local.b
  b = local.c
  c = [local.a]
}
resource "t" "t" { x = local.a }
