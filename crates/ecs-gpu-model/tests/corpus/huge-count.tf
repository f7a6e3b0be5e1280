resource "t" "many" {
  count = 100000000
}
resource "t" "neg" {
  count = -1
}
resource "t" "frac" {
  count = 1.5
}
