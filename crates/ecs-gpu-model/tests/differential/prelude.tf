locals {
  m      = { a = 1, b = 2 }
  m2     = { x = "y" }
  l      = ["x", "y", "z"]
  nested = { x = [{ y = "deep" }] }
  objs   = [{ name = "a", gpus = 1 }, { name = "b", gpus = 0 }]
  single = { name = "only" }
  heredoc = <<EOT
line one
  line two
EOT
  heredoc_indented = <<-EOT
    indented
      more
    EOT
  heredoc_json = <<EOF
{"a": [1, 2]}
EOF
}
