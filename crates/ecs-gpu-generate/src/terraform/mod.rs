//! The Terraform modules read with the project's parser (`ecs-gpu-hcl`): their `variable`,
//! `output` and `module` blocks, and the one-line form of a type or a default that the README
//! tables show and the pass-through check compares.

pub mod copies;
pub mod docs;
pub mod inputs;

use ecs_gpu_hcl::{Attribute, BinaryOp, Block, Expr, ExprKind, Item, ObjectKey, UnaryOp};

use crate::tree::{Error, Hcl};

/// The top-level blocks of a kind (`variable`, `module`) with their one label.
pub fn blocks<'a>(hcl: &'a Hcl, kind: &'a str) -> Result<Vec<(&'a str, &'a Block)>, Error> {
    let mut out = Vec::new();
    for item in &hcl.file.body.items {
        let Item::Block(block) = item else { continue };
        if block.kind.name != kind {
            continue;
        }
        match block.labels.as_slice() {
            [label] => out.push((label.name.as_str(), block)),
            _ => return Err(hcl.error(block.span, format!("a `{kind}` block takes one label"))),
        }
    }
    Ok(out)
}

/// A top-level attribute of a block.
pub fn attribute<'a>(block: &'a Block, name: &str) -> Option<&'a Attribute> {
    block.body.items.iter().find_map(|item| match item {
        Item::Attribute(a) if a.name.name == name => Some(a),
        _ => None,
    })
}

/// The nested blocks of a kind (`validation`).
pub fn nested<'a>(block: &'a Block, kind: &'a str) -> impl Iterator<Item = &'a Block> + 'a {
    block.body.items.iter().filter_map(move |item| match item {
        Item::Block(b) if b.kind.name == kind => Some(b),
        _ => None,
    })
}

/// A `description`'s text as a table shows it: a heredoc's lines trimmed and joined by spaces.
/// `None` without a description.
pub fn description(hcl: &Hcl, block: &Block) -> Result<Option<String>, Error> {
    let Some(attr) = attribute(block, "description") else {
        return Ok(None);
    };
    let ExprKind::Template(template) = &attr.value.kind else {
        return Err(hcl.error(attr.span, "a description must be a string"));
    };
    let Some(text) = template.as_literal() else {
        return Err(hcl.error(attr.span, "a description must be a literal string"));
    };
    Ok(Some(if template.heredoc {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        text.to_string()
    }))
}

/// An expression on one line, as `terraform fmt` would write it there: `{ a = 1, b = [2, 3] }`,
/// `object({ x = optional(string, "a") })`. Strings and numbers keep their source text; a heredoc is
/// `(text)`.
pub fn one_line(hcl: &Hcl, expr: &Expr) -> Result<String, Error> {
    let r = |e: &Expr| one_line(hcl, e);
    Ok(match &expr.kind {
        ExprKind::Null => "null".to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Number(_) => hcl.slice(expr.span).to_string(),
        ExprKind::Template(t) if t.heredoc => "(text)".to_string(),
        ExprKind::Template(_) => hcl.slice(expr.span).to_string(),
        ExprKind::Variable(name) => name.name.clone(),
        ExprKind::Call {
            name,
            args,
            expand_final,
        } => {
            let args = args.iter().map(r).collect::<Result<Vec<_>, _>>()?;
            let dots = if *expand_final { "..." } else { "" };
            format!("{}({}{dots})", name.name, args.join(", "))
        }
        ExprKind::Tuple(items) => {
            let items = items.iter().map(r).collect::<Result<Vec<_>, _>>()?;
            format!("[{}]", items.join(", "))
        }
        ExprKind::Object(items) if items.is_empty() => "{}".to_string(),
        ExprKind::Object(items) => {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                let key = match &item.key {
                    ObjectKey::Name(name) => name.name.clone(),
                    ObjectKey::Expr(e) => r(e)?,
                };
                parts.push(format!("{key} = {}", r(&item.value)?));
            }
            format!("{{ {} }}", parts.join(", "))
        }
        ExprKind::GetAttr { target, name } => format!("{}.{}", r(target)?, name.name),
        ExprKind::Index { target, index } => format!("{}[{}]", r(target)?, r(index)?),
        ExprKind::Unary { op, operand } => {
            let op = match op {
                UnaryOp::Not => "!",
                UnaryOp::Negate => "-",
            };
            format!("{op}{}", r(operand)?)
        }
        ExprKind::Binary { op, left, right } => {
            format!("{} {} {}", r(left)?, binary(*op), r(right)?)
        }
        ExprKind::Conditional {
            condition,
            then,
            otherwise,
        } => format!("{} ? {} : {}", r(condition)?, r(then)?, r(otherwise)?),
        ExprKind::Parens(inner) => format!("({})", r(inner)?),
        ExprKind::Splat { .. }
        | ExprKind::SplatItem
        | ExprKind::ForTuple { .. }
        | ExprKind::ForObject { .. } => {
            return Err(hcl.error(
                expr.span,
                "a splat or `for` expression in a type or default is not written on one line here",
            ))
        }
    })
}

fn binary(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Or => "||",
        BinaryOp::And => "&&",
        BinaryOp::Eq => "==",
        BinaryOp::NotEq => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Mod => "%",
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::tree::Tree;

    fn variable(text: &str) -> (Hcl, String) {
        let tree = Tree::in_memory([("m/variables.tf", text)]);
        let hcl = tree.parse(Path::new("m/variables.tf")).unwrap();
        let name = blocks(&hcl, "variable").unwrap()[0].0.to_string();
        (hcl, name)
    }

    #[test]
    fn types_and_defaults_are_written_on_one_line() {
        let (hcl, _) = variable(
            r#"variable "rules" {
  type = map(object({
    description = string # what it is for
    from_port   = number
    ip_protocol = optional(string, "tcp")
    nested      = optional(object({ a = list(string) }), {})
  }))
  default = {
    https = { description = "HTTPS", from_port = 443, ports = [1, -2] }
  }
}
"#,
        );
        let (_, block) = blocks(&hcl, "variable").unwrap()[0];
        let ty = one_line(&hcl, &attribute(block, "type").unwrap().value).unwrap();
        assert_eq!(
            ty,
            r#"map(object({ description = string, from_port = number, ip_protocol = optional(string, "tcp"), nested = optional(object({ a = list(string) }), {}) }))"#
        );
        let default = one_line(&hcl, &attribute(block, "default").unwrap().value).unwrap();
        assert_eq!(
            default,
            r#"{ https = { description = "HTTPS", from_port = 443, ports = [1, -2] } }"#
        );
    }

    #[test]
    fn a_heredoc_description_is_joined_and_a_quoted_one_unescaped() {
        let (hcl, _) = variable(
            "variable \"a\" {\n  description = <<-EOT\n    One line,\n\n    and \"another\".\n  EOT\n}\nvariable \"b\" {\n  description = \"Say \\\"hi\\\" \\\\ there.\"\n}\n",
        );
        let found = blocks(&hcl, "variable").unwrap();
        assert_eq!(
            description(&hcl, found[0].1).unwrap().as_deref(),
            Some("One line, and \"another\".")
        );
        assert_eq!(
            description(&hcl, found[1].1).unwrap().as_deref(),
            Some("Say \"hi\" \\ there.")
        );
    }

    #[test]
    fn an_interpolated_description_is_refused_with_its_line() {
        let (hcl, _) = variable("variable \"a\" {\n  description = \"${var.b}\"\n}\n");
        let (_, block) = blocks(&hcl, "variable").unwrap()[0];
        let error = description(&hcl, block).unwrap_err().to_string();
        assert_eq!(
            error,
            "m/variables.tf:2: a description must be a literal string"
        );
    }
}
