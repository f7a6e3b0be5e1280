resource "t" "bom" { x = 1 }
