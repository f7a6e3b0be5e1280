variable "lists" {
  type    = list(list(string))
  default = [["a"], ["b", "c"]]
}

locals {
  no_args   = timestamp()
  nested    = upper(lower(trimspace(" A ")))
  expanded  = concat(var.lists...)
  expanded2 = concat(["x"], var.lists...)
  multi_line = merge(
    { a = 1 },
    { b = 2 },
  )
  trailing_comma = format("%s-%s", "a", "b", )
  try_call       = try(local.nested.missing, "fallback")
  json_call      = jsonencode({ a = [1, 2], b = null })
  after_call     = split(",", "a,b")[0]
  cidr           = cidrsubnet("10.0.0.0/16", 8, 1)
}

output "f" {
  value = local.expanded
}
