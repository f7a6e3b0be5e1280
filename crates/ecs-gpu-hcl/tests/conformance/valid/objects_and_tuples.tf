variable "k" {
  type    = string
  default = "dyn"
}

locals {
  empty_obj   = {}
  empty_tuple = []
  one_line    = { a = 1, b = "two", c = [3] }
  colons      = { "a" : 1, b : 2 }
  trailing    = { a = 1, b = 2, }
  newlines = {
    a = 1
    b = 2
  }
  mixed = {
    a = 1,
    b = 2
    c = 3,
  }
  key_forms = {
    bare          = 1
    "quoted"      = 2
    (var.k)       = 3
    "${var.k}-x"  = 4
    "with spaces" = 5
    null          = 6
    true          = 7
  }
  tuple_trailing = [
    1,
    2,
  ]
  nested = {
    list = [{ a = 1 }, { b = [2, { c = 3 }] }]
  }
  access = local.nested.list[1].b[1].c
  legacy = local.tuple_trailing.0
}

output "o" {
  value = local.key_forms
}
