//! Type conversion: a value converted to a variable's type constraint, as Terraform converts it.

use ecs_gpu_hcl::ast::{self, Expr, ExprKind};

use crate::eval::{to_str, EvalContext, Evaluate};
use crate::value::{error_value, Entry, Node, Object, Value};

/// Converts values to a variable's type constraint where Terraform would (primitive
/// conversions, collection elements, object attributes with `optional` defaults, evaluated by
/// `ev` where the variable is declared). A converted value keeps the value's mark.
pub(crate) struct Conversion<'a, E> {
    pub ev: &'a mut E,
    pub cx: EvalContext<'a>,
}

impl<E: Evaluate> Conversion<'_, E> {
    pub(crate) fn convert(&mut self, v: Node, ty: &Expr, depth: usize) -> Node {
        let mark = v.mark;
        let mut converted = self.convert_inner(v, ty, depth);
        converted.mark = converted.mark.max(mark);
        converted
    }

    fn convert_inner(&mut self, v: Node, ty: &Expr, depth: usize) -> Node {
        if depth > 64 || v.is_unknown() || matches!(v.value, Value::Null) {
            return v;
        }
        let loc = v.loc;
        match &ty.kind {
            ExprKind::Variable(i) => match i.name.as_str() {
                "string" => match &v.value {
                    Value::Number(_) | Value::Bool(_) => match to_str(&v) {
                        Ok(s) => Node::new(Value::String(s.into()), loc),
                        Err(_) => v,
                    },
                    _ => v,
                },
                "number" => match &v.value {
                    Value::String(s) => match crate::eval::parse_number(s) {
                        Some(n) => Node::new(Value::Number(n), loc),
                        None => Node::new(error_value(), loc),
                    },
                    _ => v,
                },
                "bool" => match &v.value {
                    Value::String(s) if s == "true" => Node::new(Value::Bool(true), loc),
                    Value::String(s) if s == "false" => Node::new(Value::Bool(false), loc),
                    _ => v,
                },
                _ => v,
            },
            ExprKind::Call { name, args, .. } => match (name.name.as_str(), args.as_slice()) {
                ("list" | "set", [elem]) => match v.value {
                    Value::List(items) => {
                        let mut out: Vec<Node> = items
                            .into_iter()
                            .map(|i| self.convert(i, elem, depth + 1))
                            .collect();
                        if name.name == "set" {
                            out = crate::funcs::set_of(out);
                        }
                        Node::new(Value::List(out), loc)
                    }
                    other => Node::new(other, loc),
                },
                ("map", [elem]) => match v.value {
                    Value::Object(o) => {
                        let mut obj = Object {
                            entries: Vec::new(),
                            discarded: o.discarded,
                        };
                        for e in o.entries {
                            obj.entries.push(Entry {
                                value: self.convert(e.value, elem, depth + 1),
                                ..e
                            });
                        }
                        Node::new(Value::Object(obj), loc)
                    }
                    other => Node::new(other, loc),
                },
                ("tuple", [spec]) => match (&spec.kind, v.value) {
                    (ExprKind::Tuple(types), Value::List(items)) if types.len() == items.len() => {
                        let out = items
                            .into_iter()
                            .zip(types)
                            .map(|(i, t)| self.convert(i, t, depth + 1))
                            .collect();
                        Node::new(Value::List(out), loc)
                    }
                    (_, other) => Node::new(other, loc),
                },
                ("object", [spec]) => match (&spec.kind, v.value) {
                    (ExprKind::Object(attrs), Value::Object(o)) => {
                        let mut obj = Object {
                            entries: Vec::new(),
                            discarded: o.discarded.clone(),
                        };
                        for item in attrs {
                            let key = match &item.key {
                                ast::ObjectKey::Name(i) => i.name.clone(),
                                ast::ObjectKey::Expr(e) => match &e.kind {
                                    ExprKind::Template(t) => match t.as_literal() {
                                        Some(s) => s.to_string(),
                                        None => continue,
                                    },
                                    ExprKind::Variable(i) => i.name.clone(),
                                    _ => continue,
                                },
                            };
                            let (aty, default) = match &item.value.kind {
                                ExprKind::Call { name, args, .. } if name.name == "optional" => {
                                    (args.first(), args.get(1))
                                }
                                _ => (Some(&item.value), None),
                            };
                            let existing = o.entries.iter().find(|e| e.key == key).cloned();
                            let entry = match existing {
                                Some(e) if !matches!(e.value.value, Value::Null) => Some(e),
                                other => match default {
                                    Some(d) => {
                                        let value = self.ev.eval(&self.cx, d);
                                        Some(Entry {
                                            key: key.clone(),
                                            key_loc: other.as_ref().and_then(|e| e.key_loc),
                                            value,
                                        })
                                    }
                                    None => Some(other.unwrap_or(Entry::new(
                                        key.clone(),
                                        Node::new(Value::Null, None),
                                    ))),
                                },
                            };
                            if let Some(mut e) = entry {
                                if let Some(t) = aty {
                                    e.value = self.convert(e.value, t, depth + 1);
                                }
                                obj.entries.push(e);
                            }
                        }
                        Node::new(Value::Object(obj), loc)
                    }
                    (_, other) => Node::new(other, loc),
                },
                _ => v,
            },
            _ => v,
        }
    }
}
