locals {
  x = max(1, 2
}
