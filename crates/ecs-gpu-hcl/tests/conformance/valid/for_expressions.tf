variable "services" {
  type = map(object({
    gpus    = number
    enabled = bool
    group   = string
  }))
  default = {
    train = { gpus = 4, enabled = true, group = "batch" }
    infer = { gpus = 1, enabled = false, group = "online" }
  }
}

locals {
  names      = [for k in keys(var.services) : k]
  names_idx  = [for i, k in keys(var.services) : "${i}:${k}"]
  filtered   = [for k, v in var.services : k if v.enabled]
  to_object  = { for k, v in var.services : k => v.gpus }
  grouped    = { for k, v in var.services : v.group => k... }
  grouped_if = { for k, v in var.services : v.group => v.gpus... if v.gpus > 0 }

  # The value continues over several lines
  multi_and = { for k in ["a"] : k =>
    true &&
    false
  }
  multi_conditional = { for k in ["a"] : k =>
    true
    ? 1
    : 2
  }
  multi_tuple = [for k, v in var.services :
    v.gpus
    * 2
    if v.enabled
    || v.gpus > 1
  ]
  multi_key = {
    for k, v in var.services :
    upper(k) => {
      gpus  = v.gpus
      group = v.group
    }
    if v.enabled
  }
  nested = [for k, v in var.services : [for i in range(v.gpus) : "${k}-${i}"]]
  in_jsonencode = jsonencode({ for k, v in var.services : k =>
    v.enabled
    ? "on"
    : "off"
  })
  parenthesized = { for k in ["a"] : k => (
    true &&
    false
  ) }
}

output "all" {
  value = [local.names, local.filtered, local.multi_and, local.multi_conditional, local.multi_tuple, local.multi_key]
}
