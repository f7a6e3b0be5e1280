//! `ecs-gpu check` never prints a sensitive value: a variable with `sensitive = true` (from its
//! default, a tfvars file or `--var`) used as a GPU value is quoted as `(sensitive)` in every
//! format, as `plan` is tested.

use std::process::Command;

const SECRETS: [&str; 3] = ["S3CRET-DEFAULT", "S3CRET-TFVARS", "S3CRET-CLI"];

const MAIN: &str = r#"
variable "from_default" {
  type      = string
  sensitive = true
  default   = "S3CRET-DEFAULT"
}
variable "from_tfvars" {
  type      = string
  sensitive = true
}
variable "from_cli" {
  sensitive = true
}
locals {
  values = { a = var.from_default, b = upper(var.from_tfvars), c = "${var.from_cli}" }
}
resource "aws_ecs_task_definition" "t" {
  for_each                 = toset(["a", "b", "c"])
  family                   = "t-${each.key}"
  requires_compatibilities = ["EC2"]
  container_definitions = jsonencode([{
    name                 = "model"
    image                = "nvcr.io/nvidia/tritonserver:24.08-py3"
    memory               = 1024
    essential            = true
    resourceRequirements = [{ type = "GPU", value = local.values[each.key] }]
  }])
}
"#;

#[test]
fn a_sensitive_gpu_value_is_printed_by_no_format() {
    let dir = std::env::temp_dir().join(format!("ecs-gpu-sensitive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.tf"), MAIN).unwrap();
    std::fs::write(
        dir.join("terraform.tfvars"),
        "from_tfvars = \"s3cret-tfvars\"\n",
    )
    .unwrap();
    let mut seen = 0;
    for format in ["human", "json", "sarif", "github", "gitlab"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ecs-gpu"))
            .args(["check", "--format", format, "--var", "from_cli=S3CRET-CLI"])
            .arg(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{format}: {stdout}{stderr}");
        for s in SECRETS {
            assert!(!stdout.contains(s), "{format}: {s} on stdout:\n{stdout}");
            assert!(!stderr.contains(s), "{format}: {s} on stderr");
        }
        // Each of the three findings says what is wrong, without the value.
        assert!(stdout.contains("GPU103"), "{format}: {stdout}");
        // Only the value is hidden: the container's name is not sensitive.
        assert!(stdout.contains("model"), "{format}: {stdout}");
        seen += stdout.matches("(sensitive)").count().min(3);
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(seen >= 15, "every format quotes `(sensitive)` three times");
}
