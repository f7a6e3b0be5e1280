resource "t" "t" { x = "ÿþ" }
