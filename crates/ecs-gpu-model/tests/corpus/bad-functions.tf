locals {
  a = range(0, 100000000)
  b = indent(100000000, "a\nb")
  c = format("%999999999d", 1)
  d = substr("abc", 999999999999, 999999999999)
  e = pow(10, 400)
  f = parseint("zzzzzzzzzzzzzzzzzzzzzzzzzz", 36)
  g = element([], 0)
  h = regex("(", "x")
  i = jsondecode("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[")
  j = templatefile("/etc/passwd", {})
  k = file("/dev/zero")
  l = flatten(local.l)
  m = 1e308 * 10
  n = -0
}
resource "t" "t" {
  x = [local.a, local.b, local.c, local.d, local.e, local.f, local.g, local.h, local.i, local.j, local.k, local.l, local.m, local.n]
}
