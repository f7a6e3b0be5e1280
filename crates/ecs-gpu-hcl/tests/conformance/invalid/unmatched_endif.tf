locals {
  x = "a%{ endif }"
}
