variable "cluster_name" {
  type    = string
  default = "gpu"
}

variable "ports" {
  type    = list(number)
  default = [80, 443]
}

locals {
  plain = <<EOT
#!/bin/bash
echo "no interpolation here"
EOT

  indented = <<-EOT
    #!/bin/bash
    cat <<'EOF' >> /etc/ecs/ecs.config
    ECS_CLUSTER=${var.cluster_name}
    ECS_ENABLE_GPU_SUPPORT=true
      nested indentation is kept
    EOF
    EOT

  with_directives = <<-EOT
    %{~for p in var.ports~}
    port ${p}
    %{~endfor~}
    %{if var.cluster_name != ""}named%{else}default%{endif}
  EOT

  escapes_are_literal = <<EOT
a backslash \n stays, $${not_interpolated} and %%{not_a_directive}
EOT

  empty = <<EOT
EOT

  in_call = upper(<<EOT
shout
EOT
  )

  in_list = [
    <<-EOT
    first
    EOT
    ,
    "second",
  ]
}

output "user_data" {
  value = base64encode(local.indented)
}
