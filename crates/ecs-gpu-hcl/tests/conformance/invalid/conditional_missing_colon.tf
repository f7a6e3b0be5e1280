locals {
  x = true ? 1
}
