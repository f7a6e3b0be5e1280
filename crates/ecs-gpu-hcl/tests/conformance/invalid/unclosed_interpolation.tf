locals {
  x = "${var.a"
}
