locals {
  crlf = "windows line endings"
  list = [
    1,
    2,
  ]
  doc = <<EOT
line
EOT
}
