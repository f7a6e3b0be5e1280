//! A compact, span-free rendering of the tree as S-expressions, for tests and debugging:
//! `(attr x (object (a 1) (a 2)))`. Two trees of the same shape render the same text.

use crate::ast::*;
use std::fmt::Write;

/// Renders a file's body.
pub fn file(f: &File) -> String {
    let mut out = String::new();
    body(&mut out, &f.body);
    out
}

/// Renders one expression.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

/// Renders a template.
pub fn template(t: &Template) -> String {
    let mut out = String::new();
    write_template(&mut out, t);
    out
}

fn body(out: &mut String, b: &Body) {
    let mut first = true;
    for item in &b.items {
        if !first {
            out.push(' ');
        }
        first = false;
        match item {
            Item::Attribute(a) => {
                let _ = write!(out, "(attr {} ", a.name.name);
                write_expr(out, &a.value);
                out.push(')');
            }
            Item::Block(bl) => {
                let _ = write!(out, "(block {}", bl.kind.name);
                for l in &bl.labels {
                    let _ = write!(out, " {:?}", l.name);
                }
                if !bl.body.items.is_empty() {
                    out.push(' ');
                    body(out, &bl.body);
                }
                out.push(')');
            }
        }
    }
}

fn list(out: &mut String, head: &str, items: &[Expr]) {
    out.push('(');
    out.push_str(head);
    for i in items {
        out.push(' ');
        write_expr(out, i);
    }
    out.push(')');
}

fn for_vars(out: &mut String, key_var: Option<&Ident>, value_var: &Ident) {
    if let Some(k) = key_var {
        let _ = write!(out, "{} ", k.name);
    }
    out.push_str(&value_var.name);
}

fn write_expr(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Null => out.push_str("null"),
        ExprKind::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        ExprKind::Number(n) => out.push_str(n),
        ExprKind::Template(t) => write_template(out, t),
        ExprKind::Variable(v) => out.push_str(&v.name),
        ExprKind::Call {
            name,
            args,
            expand_final,
        } => {
            let head = if *expand_final {
                format!("call... {}", name.name)
            } else {
                format!("call {}", name.name)
            };
            list(out, &head, args);
        }
        ExprKind::Tuple(items) => list(out, "tuple", items),
        ExprKind::Object(items) => {
            out.push_str("(object");
            for it in items {
                out.push_str(" (");
                match &it.key {
                    ObjectKey::Name(n) => out.push_str(&n.name),
                    ObjectKey::Expr(k) => write_expr(out, k),
                }
                out.push(' ');
                write_expr(out, &it.value);
                out.push(')');
            }
            out.push(')');
        }
        ExprKind::GetAttr { target, name } => {
            out.push_str("(. ");
            write_expr(out, target);
            let _ = write!(out, " {})", name.name);
        }
        ExprKind::Index { target, index } => {
            out.push_str("([] ");
            write_expr(out, target);
            out.push(' ');
            write_expr(out, index);
            out.push(')');
        }
        ExprKind::Splat { target, each, full } => {
            out.push_str(if *full { "([*] " } else { "(.* " });
            write_expr(out, target);
            out.push(' ');
            write_expr(out, each);
            out.push(')');
        }
        ExprKind::SplatItem => out.push('_'),
        ExprKind::ForTuple {
            key_var,
            value_var,
            collection,
            value,
            condition,
        } => {
            out.push_str("(for-tuple ");
            for_vars(out, key_var.as_deref(), value_var);
            out.push(' ');
            write_expr(out, collection);
            out.push(' ');
            write_expr(out, value);
            if let Some(c) = condition {
                out.push_str(" if ");
                write_expr(out, c);
            }
            out.push(')');
        }
        ExprKind::ForObject {
            key_var,
            value_var,
            collection,
            key,
            value,
            grouping,
            condition,
        } => {
            out.push_str("(for-object ");
            for_vars(out, key_var.as_deref(), value_var);
            out.push(' ');
            write_expr(out, collection);
            out.push(' ');
            write_expr(out, key);
            out.push_str(" => ");
            write_expr(out, value);
            if *grouping {
                out.push_str("...");
            }
            if let Some(c) = condition {
                out.push_str(" if ");
                write_expr(out, c);
            }
            out.push(')');
        }
        ExprKind::Conditional {
            condition,
            then,
            otherwise,
        } => {
            out.push_str("(? ");
            write_expr(out, condition);
            out.push(' ');
            write_expr(out, then);
            out.push(' ');
            write_expr(out, otherwise);
            out.push(')');
        }
        ExprKind::Unary { op, operand } => {
            out.push_str(match op {
                UnaryOp::Not => "(! ",
                UnaryOp::Negate => "(neg ",
            });
            write_expr(out, operand);
            out.push(')');
        }
        ExprKind::Binary { op, left, right } => {
            let _ = write!(out, "({} ", binary_op_str(*op));
            write_expr(out, left);
            out.push(' ');
            write_expr(out, right);
            out.push(')');
        }
        ExprKind::Parens(inner) => {
            out.push_str("(paren ");
            write_expr(out, inner);
            out.push(')');
        }
    }
}

/// The operator as written in HCL.
pub fn binary_op_str(op: BinaryOp) -> &'static str {
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

fn write_template(out: &mut String, t: &Template) {
    if let Some(lit) = t.as_literal() {
        let _ = write!(out, "{lit:?}");
        return;
    }
    out.push_str("(tpl");
    for p in &t.parts {
        out.push(' ');
        match p {
            TemplatePart::Literal { text, .. } => {
                let _ = write!(out, "{text:?}");
            }
            TemplatePart::Interpolation(e) => {
                out.push_str("${");
                write_expr(out, e);
                out.push('}');
            }
            TemplatePart::If {
                condition,
                then,
                otherwise,
                ..
            } => {
                out.push_str("(%if ");
                write_expr(out, condition);
                out.push(' ');
                write_template(out, then);
                if let Some(o) = otherwise {
                    out.push_str(" else ");
                    write_template(out, o);
                }
                out.push(')');
            }
            TemplatePart::For {
                key_var,
                value_var,
                collection,
                body,
                ..
            } => {
                out.push_str("(%for ");
                for_vars(out, key_var.as_deref(), value_var);
                out.push(' ');
                write_expr(out, collection);
                out.push(' ');
                write_template(out, body);
                out.push(')');
            }
        }
    }
    out.push(')');
}
