//! Templates with unknown parts read as JSON with holes: the task definition a heredoc or a
//! `templatefile` writes stays known where its text is.

mod common;

use common::*;
use ecs_gpu_model::{Model, Node, TaskDefinition};

fn task<'m>(m: &'m Model, name: &str) -> &'m TaskDefinition {
    let r = find(m, "aws_ecs_task_definition", name);
    m.task_definition_of(r.id).expect("task definition")
}

fn first_container(td: &TaskDefinition) -> &Node {
    &td.containers()
        .and_then(Node::as_list)
        .unwrap_or_else(|| panic!("containers not known: {:?}", td.container_definitions))[0]
}

#[test]
fn a_heredoc_with_a_computed_image_keeps_the_rest_of_the_container_known() {
    let main = r#"
resource "aws_ecr_repository" "x" {
  name = "app"
}
resource "aws_ecs_task_definition" "t" {
  family                = "t"
  container_definitions = <<EOF
[{"name": "app", "image": "${aws_ecr_repository.x.repository_url}:1",
  "resourceRequirements": [{"type": "GPU", "value": "1"}]}]
EOF
}
"#;
    let (_d, m) = load(&[("main.tf", main)]);
    let c = first_container(task(&m, "t"));
    assert_eq!(c.get("name").unwrap().as_str().unwrap(), "app");
    let image = c.get("image").unwrap();
    assert!(image.is_unknown());
    assert_eq!(image.refs()[0].address, "aws_ecr_repository.x");
    assert_eq!(fragments(image), [":1"]);
    assert_eq!(
        json(c.get("resourceRequirements").unwrap()),
        r#"[{"type":"GPU","value":"1"}]"#
    );
}

#[test]
fn a_local_heredoc_spliced_into_another_keeps_its_holes() {
    // The shape of chexov/ecs-gpu-cluster: a container in a local heredoc, spliced into the task's
    // heredoc beside a sidecar, with a partly unknown `jsonencode` as its environment.
    let main = r#"
variable "image" {}
data "aws_arn" "q" {
  arn = "arn:aws:sqs:us-east-1:1:q"
}
locals {
  env = [{ name = "QUEUE", value = data.aws_arn.q.resource }, { name = "A", value = "b" }]
  container = <<EOF
{
  "name": "worker",
  "image": "${var.image}",
  "environment": ${jsonencode(local.env)},
  "resourceRequirements": [{"type": "GPU", "value": "1"}]
}
EOF
}
resource "aws_ecs_task_definition" "t" {
  family                = "t"
  container_definitions = <<EOF
[
 ${local.container},
 {"name": "sidecar", "image": "amazon/cloudwatch-agent:latest"}
]
EOF
}
"#;
    let (_d, m) = load(&[("main.tf", main)]);
    let list = task(&m, "t").containers().and_then(Node::as_list).unwrap();
    assert_eq!(list.len(), 2);
    assert!(list[0].get("image").unwrap().is_unknown());
    let env = list[0].get("environment").unwrap().as_list().unwrap();
    assert!(env[0].get("value").unwrap().is_unknown());
    assert_eq!(env[1].get("value").unwrap().as_str().unwrap(), "b");
    assert_eq!(list[1].get("name").unwrap().as_str().unwrap(), "sidecar");
}

#[test]
fn templatefile_with_a_computed_variable_and_a_for_directive() {
    let tpl = r#"[
  {
    "name": "app",
    "image": "${image}",
    "cpu": ${cpu},
    "environment": [
%{ for k, v in env ~}
      {"name": "${k}", "value": "${v}"},
%{ endfor ~}
      {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "utility"}
    ],
    "resourceRequirements": [{"type": "GPU", "value": "1"}]
  }
]
"#;
    let main = r#"
variable "env" {
  type = map(string)
}
resource "aws_ecr_repository" "x" {
  name = "app"
}
resource "aws_ecs_task_definition" "t" {
  family = "t"
  container_definitions = templatefile("${path.module}/task.json.tpl", {
    image = aws_ecr_repository.x.repository_url
    cpu   = 1024
    env   = var.env
  })
}
"#;
    let (_d, m) = load(&[("main.tf", main), ("task.json.tpl", tpl)]);
    assert!(m.problems.is_empty(), "{:?}", m.problems);
    let c = first_container(task(&m, "t"));
    assert!(c.get("image").unwrap().is_unknown());
    assert_eq!(c.get("cpu").unwrap().as_f64(), Some(1024.0));
    let env = c.get("environment").unwrap().as_list().unwrap();
    // The unknown `for` is one unknown element; the known one after it stays.
    assert_eq!(env.len(), 2);
    assert!(env[0].is_unknown());
    assert_eq!(env[1].get("value").unwrap().as_str().unwrap(), "utility");
}

#[test]
fn a_computed_value_in_value_position_and_jsondecode() {
    let main = r#"
variable "cpu" {
  type = number
}
locals {
  doc = <<EOF
{"cpu": ${var.cpu}, "memory": 2048}
EOF
}
resource "t" "t" {
  x = jsondecode(local.doc)
  y = jsondecode(upper(local.doc))
}
"#;
    let (_d, m) = load(&[("main.tf", main)]);
    let r = find(&m, "t", "t");
    let x = r.body.attr("x").unwrap();
    assert!(x.get("cpu").unwrap().is_unknown());
    assert_eq!(x.get("memory").unwrap().as_f64(), Some(2048.0));
    // A function of the text is another text: nothing of the template is kept.
    assert!(r.body.attr("y").unwrap().is_unknown());
}

#[test]
fn text_that_is_not_json_stays_wholly_unknown() {
    let main = r#"
variable "image" {}
resource "aws_ecs_task_definition" "t" {
  family                = "t"
  container_definitions = <<EOF
[{"name": "app", "image": "${var.image}",
  "resourceRequirements": [{"type": "GPU", "value": "0"}],}]
EOF
}
"#;
    let (_d, m) = load(&[("main.tf", main)]);
    let td = task(&m, "t");
    assert!(td.containers().unwrap().is_unknown());
}

#[test]
fn a_sensitive_interpolation_makes_the_decoded_task_sensitive() {
    let main = r#"
variable "token" {
  sensitive = true
  default   = "S3CRET"
}
variable "image" {}
resource "aws_ecs_task_definition" "t" {
  family                = "t"
  container_definitions = <<EOF
[{"name": "app", "image": "${var.image}", "environment": [{"name": "T", "value": "${var.token}"}]}]
EOF
}
resource "aws_ecs_task_definition" "k" {
  family                = "k"
  container_definitions = <<EOF
[{"name": "app", "environment": [{"name": "T", "value": "${var.token}"}]}]
EOF
}
"#;
    let (_d, m) = load(&[("main.tf", main)]);
    for name in ["t", "k"] {
        let c = first_container(task(&m, name));
        assert_eq!(c.get("name").unwrap().shown(), "(sensitive)", "{name}");
        let mut texts = Vec::new();
        c.sensitive_texts(&mut texts);
        assert!(texts.iter().any(|t| t.0 == "S3CRET"), "{name}: {texts:?}");
    }
}

/// The file name, line and column (1-based) where a node's place starts.
fn line_col(m: &Model, n: &Node) -> (String, u32, u32) {
    let loc = n.loc.expect("a place");
    let file = m.file(loc.file);
    let (line, col) = file.lines.line_col(loc.span.start);
    let name = file
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    (name, line, col)
}

#[test]
fn values_point_at_their_own_line_or_at_the_template() {
    // A heredoc copied as written: the GPU value's own line.
    let main = r#"
resource "aws_ecr_repository" "x" {
  name = "x"
}
resource "aws_ecs_task_definition" "heredoc" {
  family                = "heredoc"
  container_definitions = <<EOF
[{"name": "app", "image": "${aws_ecr_repository.x.repository_url}",
  "resourceRequirements": [{"type": "GPU", "value": "0"}]}]
EOF
}
data "template_file" "task" {
  template = file("${path.module}/task.json.tpl")
  vars = {
    image = aws_ecr_repository.x.repository_url
  }
}
resource "aws_ecs_task_definition" "rendered" {
  family                = "rendered"
  container_definitions = data.template_file.task.rendered
}
"#;
    let tpl = "[{\"name\": \"app\", \"image\": \"${image}\",\n  \"resourceRequirements\": [{\"type\": \"GPU\", \"value\": \"0\"}]}]\n";
    let (_d, m) = load(&[("main.tf", main), ("task.json.tpl", tpl)]);
    let gpu = |name| {
        first_container(task(&m, name))
            .get("resourceRequirements")
            .unwrap()
            .as_list()
            .unwrap()[0]
            .get("value")
            .unwrap()
            .clone()
    };
    assert_eq!(line_col(&m, &gpu("heredoc")), ("main.tf".into(), 9, 53));
    // A template read from a string has no place of its own: the reference to it.
    assert_eq!(line_col(&m, &gpu("rendered")), ("main.tf".into(), 20, 27));
}
