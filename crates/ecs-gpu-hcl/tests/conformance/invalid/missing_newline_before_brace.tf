locals {
  x = {
    a = 1
  } }
