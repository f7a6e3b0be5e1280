locals {
  x = true &&
    false
}
