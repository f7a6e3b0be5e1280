locals {
  # Terraform keeps the last value: { a = 3, b = 2 }
  x = { a = 1, b = 2, a = 3 }

  multi_line = {
    image = "first"
    cpu   = 1024
    image = "second"
  }

  quoted_and_bare = {
    name   = "bare"
    "name" = "quoted"
  }

  nested = {
    outer = { inner = 1 }
    outer = { inner = 2, inner = 3 }
  }

  in_jsonencode = jsonencode({
    environment = []
    environment = [{ name = "A", value = "1" }]
  })
}

output "x" {
  value = local.x
}
