resource "t" "a" {
  count = length(t.a)
}
data "x" "d" {
  count = data.x.d[0].n
  n = 1
}
resource "t" "b" { x = data.x.d[0].n }
