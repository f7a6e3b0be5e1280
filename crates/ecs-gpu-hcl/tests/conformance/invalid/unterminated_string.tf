locals {
  x = "abc
}
