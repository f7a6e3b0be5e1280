# A hash comment
// A double-slash comment
/* A block comment
   over several lines */

locals {
  list = [
    1, # after an item
    2, // another
    /* inline */ 3,
  ]
  object = {
    # before a key
    a = 1 # after a value
    /* between */
    b = 2
  }
  call = max(
    1, # first
    /* second */ 2,
  )
  interp = "sum: ${/* inside an interpolation */ 1 + 1}"
  for_expr = [for x in [1, 2] : x # the value
  ]
  # ecs-gpu:ignore GPU303 capacity is refreshed by the platform team
  suppressed = true
}

output "list" {
  value = local.list
}
