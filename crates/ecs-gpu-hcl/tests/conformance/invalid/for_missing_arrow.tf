locals {
  x = { for k in ["a"] : k }
}
