locals {
  x = "bad \q escape"
}
