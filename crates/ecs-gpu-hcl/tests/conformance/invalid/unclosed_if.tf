locals {
  x = "%{ if true }yes"
}
