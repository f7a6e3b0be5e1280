locals {
  x = {
    a = true
    ? 1 : 2
  }
}
