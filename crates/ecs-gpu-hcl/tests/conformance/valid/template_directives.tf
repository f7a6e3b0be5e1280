variable "names" {
  type    = list(string)
  default = ["a", "b"]
}

variable "env" {
  type    = map(string)
  default = { NVIDIA_DRIVER_CAPABILITIES = "compute,utility" }
}

locals {
  simple_if    = "%{if length(var.names) > 1}many%{else}one%{endif}"
  no_else      = "x%{if true} and y%{endif}"
  for_list     = "%{for n in var.names}${n},%{endfor}"
  for_map      = "%{for k, v in var.env}${k}=${v} %{endfor}"
  nested       = "%{for n in var.names}%{if n == "a"}[${n}]%{else}(${n})%{endif}%{endfor}"
  strip_before = "a   %{~if true}b%{endif}"
  strip_after  = "%{if true~}   b%{endif}"
  interp_strip = "x ${~"y"~} z"
  escaped      = "literal $${x} and %%{y} and 100% and $5"
  in_interp    = "outer ${"nested ${"quotes"}"}"
  multi_line = "prefix ${
    upper("a")
  }"
}

output "rendered" {
  value = [local.simple_if, local.for_list, local.for_map, local.nested]
}
