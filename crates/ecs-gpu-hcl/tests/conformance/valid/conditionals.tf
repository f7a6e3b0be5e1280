variable "gpu" {
  type    = bool
  default = true
}

variable "count_gpus" {
  type    = number
  default = 1
}

locals {
  one_line = var.gpu ? "g5.xlarge" : "m5.large"
  chained  = var.count_gpus > 4 ? "p4d" : var.count_gpus > 1 ? "g5.12xlarge" : "g5.xlarge"
  in_parens = (
    var.gpu
    ? "gpu"
    : "cpu"
  )
  in_tuple = [
    var.gpu
    ? 1
    : 0,
  ]
  in_call = max(
    var.gpu ?
    var.count_gpus :
    0,
    1,
  )
  in_object = {
    a = var.gpu ? 1 : 0
    b = (var.gpu
    ? 2 : 3)
  }
  precedence = !var.gpu || var.count_gpus >= 2 && var.count_gpus % 2 == 0 ? "even" : "odd"
  arithmetic = -var.count_gpus + 2 * 3 - 10 / 5
  comparison = [1 < 2, 2 <= 2, 3 > 2, 3 >= 3, 1 != 2, "a" == "a"]
}

output "values" {
  value = [local.one_line, local.chained, local.in_parens, local.in_tuple, local.in_call, local.precedence]
}
