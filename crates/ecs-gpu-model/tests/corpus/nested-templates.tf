locals {
  t = "%{ for a in [1,2] }%{ for b in [3,4] }%{ if a < b }${a}${b}%{ else }x%{ endif }%{ endfor }%{ endfor }"
}
