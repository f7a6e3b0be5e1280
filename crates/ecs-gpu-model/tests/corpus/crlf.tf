resource "t" "crlf" {
  x = <<EOT
line
EOT
}
