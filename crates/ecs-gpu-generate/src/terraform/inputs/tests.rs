use super::*;
use crate::tree::Change;

const SUB: &str = r#"variable "name" {
  description = "Name."
  type        = string
}

variable "size" {
  description = "How many."
  type        = number
  default     = 2

  # Whole numbers only.
  validation {
    condition     = var.size >= 1
    error_message = "`size` must be 1 or more."
  }
}

variable "mode" {
  description = "The mode."
  type        = string
  default     = "a"
}
"#;

const ROOT: Root = Root {
    dir: "r",
    new_inputs: "variables.tf",
    validations: false,
};

fn tree(main: &str, variables: &str) -> Tree {
    Tree::in_memory([
        ("m/variables.tf", SUB),
        ("r/main.tf", main),
        ("r/variables.tf", variables),
    ])
}

const CALL: &str = r#"module "sub" {
  source = "../m"
  # Not set: mode: the default suits this root.

  name = var.name
  size = var.size
}
"#;

fn run(tree: &mut Tree, root: &Root) -> Result<Vec<Change>, String> {
    one_root(tree, root).map_err(|e| e.to_string())?;
    Ok(tree.changes().unwrap())
}

#[test]
fn a_missing_input_is_added_without_its_validations_and_a_copy_is_left_alone() {
    let variables = "variable \"name\" {\n  description = \"Name.\"\n  type        = string\n}\n";
    let mut t = tree(CALL, variables);
    let changes = run(&mut t, &ROOT).unwrap();
    assert_eq!(
        changes,
        [Change::Write(
            "r/variables.tf".into(),
            format!("{variables}\nvariable \"size\" {{\n  description = \"How many.\"\n  type        = number\n  default     = 2\n}}\n")
        )]
    );
    // Written, the same run changes nothing.
    let Change::Write(_, text) = &changes[0] else {
        unreachable!()
    };
    let mut again = tree(CALL, text);
    assert_eq!(run(&mut again, &ROOT).unwrap(), []);
}

#[test]
fn a_root_that_keeps_validations_copies_them() {
    let root = Root {
        validations: true,
        ..ROOT
    };
    let mut t = tree(CALL, "");
    let changes = run(&mut t, &root).unwrap();
    let Change::Write(_, text) = &changes[0] else {
        panic!("{changes:?}")
    };
    assert!(
        text.contains("  # Whole numbers only.\n  validation {"),
        "{text}"
    );
}

#[test]
fn an_undeclared_difference_is_overwritten_by_the_copy() {
    let variables = "variable \"name\" {\n  description = \"The name, edited by hand.\"\n  type        = string\n}\n";
    let mut t = tree(CALL, variables);
    let changes = run(&mut t, &ROOT).unwrap();
    let Change::Write(path, text) = &changes[0] else {
        panic!("{changes:?}")
    };
    assert_eq!(path, Path::new("r/variables.tf"));
    assert!(
        text.starts_with("variable \"name\" {\n  description = \"Name.\"\n"),
        "{text}"
    );
}

#[test]
fn a_declared_difference_is_kept_when_it_is_exactly_what_differs() {
    let variables = "variable \"name\" {\n  # Differs from m in description: the root says more.\n  description = \"The name of everything.\"\n  type        = string\n}\n\nvariable \"size\" {\n  description = \"How many.\"\n  type        = number\n  default     = 2\n}\n";
    let mut t = tree(CALL, variables);
    assert_eq!(run(&mut t, &ROOT).unwrap(), []);
}

#[test]
fn a_declared_difference_that_is_not_the_real_one_is_refused() {
    let size = "\n\nvariable \"size\" {\n  description = \"How many.\"\n  type        = number\n  default     = 2\n}\n";
    let cases = [
        (
            "variable \"name\" {\n  # Differs from m in description: the root says more.\n  description = \"Name.\"\n  type        = string\n}",
            "r/variables.tf:2: `name` is declared as in m: remove the `# Differs from ...` comment, and the declaration is copied from there",
        ),
        (
            "variable \"name\" {\n  # Differs from m in description: the root says more.\n  description = \"Other.\"\n  type        = any\n}",
            "r/variables.tf:2: `name` differs from m in description, type; its comment says description: say exactly what differs, and why",
        ),
        (
            "variable \"name\" {\n  # Differs from elsewhere in description: the root says more.\n  description = \"Other.\"\n  type        = string\n}",
            "r/variables.tf:2: `name` is copied from m (the first module call that passes it through), not elsewhere",
        ),
        (
            "variable \"name\" {\n  # Differs from m in description.\n  description = \"Other.\"\n  type        = string\n}",
            "r/variables.tf:2: write `# Differs from modules/<name> in <field>, <field>: <why>`",
        ),
        (
            "variable \"name\" {\n  # Differs from m in colour: why.\n  description = \"Other.\"\n  type        = string\n}",
            "r/variables.tf:2: `colour` is not a field the check compares: description, type, default, nullable, sensitive, ephemeral, validation",
        ),
    ];
    for (name, want) in cases {
        let mut t = tree(CALL, &format!("{name}{size}"));
        assert_eq!(run(&mut t, &ROOT).unwrap_err(), want);
    }
}

#[test]
fn a_validation_the_root_adds_is_a_difference_to_declare() {
    let variables = "variable \"name\" {\n  # Differs from m in validation: the root refuses more.\n  description = \"Name.\"\n  type        = string\n\n  validation {\n    condition     = var.name != \"\"\n    error_message = \"No.\"\n  }\n}\n";
    let mut t = tree(CALL, variables);
    let changes = run(&mut t, &ROOT).unwrap();
    // Only `size` is added; `name` is kept.
    let Change::Write(_, text) = &changes[0] else {
        panic!("{changes:?}")
    };
    assert!(text.starts_with(variables), "{text}");
}

#[test]
fn every_input_of_a_submodule_is_set_or_said_not_to_be() {
    let unset =
        "module \"sub\" {\n  source = \"../m\"\n\n  name = var.name\n  size = var.size\n}\n";
    let mut t = tree(unset, "");
    assert_eq!(
        run(&mut t, &ROOT).unwrap_err(),
        "r/main.tf:1: module \"sub\" sets no value for `mode`, an input of m: pass it, or name it in a `# Not set: mode: <why>` comment in the block"
    );
    let set_and_said = "module \"sub\" {\n  source = \"../m\"\n  # Not set: mode and size: no\n  # reason continued here.\n\n  name = var.name\n  size = var.size\n  mode = \"b\"\n}\n";
    let mut t = tree(set_and_said, "");
    assert_eq!(
        run(&mut t, &ROOT).unwrap_err(),
        "r/main.tf:3: module \"sub\" sets `mode`, which its `# Not set:` comment names"
    );
    let unknown = "module \"sub\" {\n  source = \"../m\"\n  # Not set: mode, colour: why\n\n  name = var.name\n  size = var.size\n}\n";
    let mut t = tree(unknown, "");
    assert_eq!(
        run(&mut t, &ROOT).unwrap_err(),
        "r/main.tf:3: `colour` is not an input of m"
    );
}

#[test]
fn an_input_set_by_an_expression_is_the_roots_own() {
    let call = "module \"sub\" {\n  source = \"../m\"\n  # Not set: mode: the default.\n\n  name = var.name\n  size = var.other != null ? var.other : 3\n}\n";
    let variables = "variable \"name\" {\n  description = \"Name.\"\n  type        = string\n}\n\nvariable \"other\" {\n  type = number\n}\n";
    let mut t = tree(call, variables);
    assert_eq!(run(&mut t, &ROOT).unwrap(), []);
}

#[test]
fn two_submodules_that_declare_an_input_differently_are_refused() {
    let mut t = Tree::in_memory([
        ("m/variables.tf", SUB),
        (
            "n/variables.tf",
            "variable \"name\" {\n  description = \"Another name.\"\n  type        = string\n}\n",
        ),
        (
            "r/main.tf",
            "module \"sub\" {\n  source = \"../m\"\n  # Not set: mode, size: no.\n  name = var.name\n}\n\nmodule \"other\" {\n  source = \"./../n\"\n  name   = var.name\n}\n",
        ),
        ("r/variables.tf", ""),
    ]);
    assert_eq!(
        run(&mut t, &ROOT).unwrap_err(),
        "n/variables.tf:1: `name` is passed through to m and n, which declare it differently (description): make them agree"
    );
}
