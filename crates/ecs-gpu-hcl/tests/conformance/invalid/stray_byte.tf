locals {
  x = 1
}
@
