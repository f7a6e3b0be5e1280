locals {
  escapes     = "tab\there\nnewline \"quoted\" back\\slash"
  unicode     = "\u00e9\u4e2d \U0001F600"
  dollar      = "$ alone, $${escaped}, $5"
  percent     = "50% and %%{escaped}"
  empty       = ""
  only_interp = "${local.empty}!"
  json_inline = "{\"key\": \"value\"}"
  numbers     = [0, 1, 1.5, 1e3, 2.5E-7, 1000000, 0.001]
  literals    = [true, false, null]
}

output "s" {
  value = local.escapes
}
