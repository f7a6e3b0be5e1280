//! Sensitive values are marked through evaluation, as Terraform marks them, and never shown.

mod common;

use common::*;

const SECRET: &str = r#"
variable "token" {
  type      = string
  sensitive = true
  default   = "S3CRET"
}
variable "plain" {
  default = "visible"
}
"#;

#[test]
fn sensitive_values_are_marked_through_evaluation() {
    for expr in [
        "var.token",
        "upper(var.token)",
        "\"prefix-${var.token}\"",
        "var.token == \"x\"",
        "var.token != \"\" ? \"a\" : \"b\"",
        "sensitive(\"literal\")",
        "[var.plain, var.token]",
        "{ a = var.token }",
        "jsonencode({ a = var.token })",
        "join(\",\", [var.token, \"x\"])",
        // A `for` over a sensitive collection, or decided by a sensitive condition or key, is
        // sensitive as a whole, and so is every element taken from it.
        "{ (var.token) = 1 }",
        "[for c in [var.token] : \"x\"]",
        "[for k, v in { (var.token) = 1 } : k][0]",
        "[for s in [\"a\", \"b\"] : s if s == var.token]",
        "[for s in [\"a\", \"b\"] : s if s != var.token][0]",
        "{ for s in [\"a\"] : s => var.token == s }",
        "{ for s in [\"a\"] : \"${s}${var.token}\" => s }",
        // What a sensitive key selects.
        "{ S3CRET = \"x\" }[var.token]",
        "{ a = 1, b = 2 }[var.token == \"S3CRET\" ? \"a\" : \"b\"]",
    ] {
        let v = eval_with(SECRET, expr);
        assert!(v.is_sensitive(), "{expr}");
        assert_eq!(v.shown(), "(sensitive)", "{expr}");
    }
    for expr in [
        "var.plain",
        "upper(var.plain)",
        "nonsensitive(var.token)",
        "length([var.plain])",
        "[for s in [var.plain] : upper(s)]",
        "{ a = 1 }[var.plain == \"visible\" ? \"a\" : \"b\"]",
    ] {
        let v = eval_with(SECRET, expr);
        assert!(!v.is_sensitive(), "{expr}");
    }
    // Inside a jsonencode, only the sensitive part is marked: the rest may still be quoted.
    let v = eval_with(SECRET, "jsonencode({ a = var.token, b = var.plain })");
    let inner = v.json().unwrap();
    assert!(inner.get("a").unwrap().is_sensitive());
    assert_eq!(inner.get("b").unwrap().shown(), "visible");
}

/// Whatever gives a sensitive variable its value (default, tfvars, `--var`), the value is marked,
/// and its place is the reference, never the line that holds the secret.
#[test]
fn sensitive_variables_from_tfvars_and_the_command_line() {
    let main = "variable \"token\" {\n  sensitive = true\n}\nvariable \"other\" {\n  sensitive = true\n}\nresource \"t\" \"t\" {\n  x = var.token\n  y = var.other\n}\n";
    let dir = write(&[
        ("main.tf", main),
        ("terraform.tfvars", "token = \"FROM-TFVARS\"\n"),
    ]);
    let m = ecs_gpu_model::load(&ecs_gpu_model::LoadOptions {
        paths: vec![dir.path().to_path_buf()],
        vars: vec![("other".into(), "FROM-CLI".into())],
        ..Default::default()
    });
    let r = find(&m, "t", "t");
    let x = r.body.attr("x").unwrap();
    assert_eq!(x.as_str().as_deref(), Some("FROM-TFVARS"));
    assert!(x.is_sensitive());
    let loc = x.loc.expect("the reference");
    assert_eq!(&main[loc.span.start as usize..loc.span.end as usize], "var");
    let y = r.body.attr("y").unwrap();
    assert!(y.is_sensitive());
    assert_eq!(y.shown(), "(sensitive)");
}

/// A child module's output declared `sensitive` (or given a sensitive value), one or two levels
/// down, is sensitive where it is used, as Terraform marks it; an `ephemeral` variable or output
/// is ephemeral. Either points at the reference, not at the value's own line.
#[test]
fn module_outputs_and_ephemeral_values_are_marked() {
    let main = "module \"m\" {\n  source = \"./m\"\n}\nvariable \"e\" {\n  ephemeral = true\n  default = \"E\"\n}\nresource \"t\" \"t\" {\n  a = module.m.a\n  b = module.m.b\n  c = module.m.c\n  d = module.m.plain\n  e = \"x-${var.e}\"\n  f = module.m.f\n}\n";
    let child = "module \"inner\" {\n  source = \"./inner\"\n}\nvariable \"v\" {\n  sensitive = true\n  default = \"V\"\n}\noutput \"a\" {\n  value = \"A\"\n  sensitive = true\n}\noutput \"b\" {\n  value = var.v\n}\noutput \"c\" {\n  value = module.inner.c\n}\noutput \"plain\" {\n  value = \"P\"\n}\noutput \"f\" {\n  value = \"F\"\n  ephemeral = true\n}\n";
    let inner = "output \"c\" {\n  value = \"C\"\n  sensitive = true\n}\n";
    let dir = write(&[
        ("main.tf", main),
        ("m/main.tf", child),
        ("m/inner/main.tf", inner),
    ]);
    let m = load_dir(dir.path());
    let r = root_resource(&m, "t", "t");
    for (name, shown) in [
        ("a", "(sensitive)"),
        ("b", "(sensitive)"),
        ("c", "(sensitive)"),
        ("d", "P"),
        ("e", "(ephemeral)"),
        ("f", "(ephemeral)"),
    ] {
        let v = r.body.attr(name).unwrap();
        assert_eq!(v.shown(), shown, "{name}");
        if shown != "P" {
            let loc = v.loc.expect("a place");
            assert_eq!(
                m.file(loc.file).path.file_name().unwrap(),
                "main.tf",
                "{name}"
            );
        }
    }
}

/// Terraform refuses a `for_each` whose value is sensitive as a whole (its keys would be
/// instance addresses): its instances are unknown here, so no key is known. A map whose values
/// only are sensitive keeps its keys.
#[test]
fn a_sensitive_for_each_gives_no_instance_keys() {
    let main = "variable \"s\" {\n  sensitive = true\n  type = set(string)\n  default = [\"K\"]\n}\nvariable \"v\" {\n  sensitive = true\n  default = \"V\"\n}\nresource \"t\" \"set\" {\n  for_each = var.s\n}\nresource \"t\" \"for\" {\n  for_each = { for k in var.s : k => k }\n}\nresource \"t\" \"toset\" {\n  for_each = toset([var.v])\n}\nresource \"t\" \"values\" {\n  for_each = { k = var.v }\n  x = each.value\n}\n";
    let (_d, m) = load(&[("main.tf", main)]);
    for name in ["set", "for", "toset"] {
        let r = find(&m, "t", name);
        assert!(r.instances_unknown && r.key.is_none(), "{name}: {r:?}");
    }
    let r = find(&m, "t", "values");
    assert!(!r.instances_unknown, "{r:?}");
    assert_eq!(m.local_address(r), "t.values[\"k\"]");
    assert_eq!(r.body.attr("x").unwrap().shown(), "(sensitive)");
}
