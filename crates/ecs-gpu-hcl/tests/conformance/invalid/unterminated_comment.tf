locals {
  /* never closed
  x = 1
}
