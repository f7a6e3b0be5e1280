//! Terraform's JSON syntax (`.tf.json`) mapped onto the native syntax tree, so one evaluator serves
//! both. Strings are templates (`${...}` is parsed in them); objects whose key is a nested block
//! type of the resources the rules read become blocks, everything else is an attribute.

use ecs_gpu_hcl::ast::{
    Attribute, Block, Body, Expr, ExprKind, File, Ident, Item, ObjectItem, ObjectKey, Span,
    Template, TemplatePart,
};
use ecs_gpu_hcl::json::{Json, JsonMember, JsonValue};
use ecs_gpu_hcl::ParseError;

/// Keys that are nested blocks (not attributes) inside a resource, data, module or dynamic body.
const BLOCK_TYPES: &[&str] = &[
    "metadata_options",
    "instance_refresh",
    "preferences",
    "launch_template",
    "mixed_instances_policy",
    "launch_template_specification",
    "override",
    "tag",
    "capacity_provider_strategy",
    "default_capacity_provider_strategy",
    "placement_constraints",
    "ordered_placement_strategy",
    "network_configuration",
    "deployment_circuit_breaker",
    "auto_scaling_group_provider",
    "managed_scaling",
    "runtime_platform",
    "iam_instance_profile",
    "lifecycle",
    "load_balancer",
    "block_device_mappings",
    "ebs",
    "target_tracking_scaling_policy_configuration",
    "predefined_metric_specification",
    "instances_distribution",
    "volume",
    "filter",
    "setting",
    "configuration",
    "service_connect_configuration",
    "deployment_controller",
    "ephemeral_storage",
    "proxy_configuration",
    "inference_accelerator",
    "instance_requirements",
    "warm_pool",
    "initial_lifecycle_hook",
    "precondition",
    "postcondition",
    "tag_specifications",
    "network_interfaces",
    "monitoring",
    "placement",
    "credit_specification",
    "cpu_options",
    "customized_metric_specification",
    "step_scaling_policy_configuration",
    "validation",
];

/// What a conversion reads and what went wrong in it.
struct Cx<'a> {
    /// The file text (to map template spans).
    source: &'a str,
    /// The first string that is not a valid template (Terraform refuses the file for it).
    error: std::cell::RefCell<Option<ParseError>>,
}

/// Converts a parsed `.tf.json` document. `source` is the file text (to map template spans). A
/// string that is not a valid template (one nested past the parser's limit included) refuses the
/// file, as Terraform refuses it: read as literal text, it would be a value the configuration
/// does not have.
pub(crate) fn to_file(json: &Json, source: &str) -> Result<File, ParseError> {
    let JsonValue::Object(members) = &json.value else {
        return Err(ParseError {
            message: "a Terraform JSON file must hold an object".into(),
            span: Span::new(0, 0),
        });
    };
    let cx = Cx {
        source,
        error: std::cell::RefCell::new(None),
    };
    let source = &cx;
    let mut body = Body {
        items: Vec::new(),
        span: json.span,
    };
    for m in members {
        match m.key.as_str() {
            "resource" | "data" => labeled_blocks(m, 2, source, &mut body.items, true),
            "variable" | "output" | "module" | "provider" => {
                labeled_blocks(m, 1, source, &mut body.items, false)
            }
            "locals" => {
                for obj in objects(&m.value) {
                    let inner = attributes_body(obj, source, false);
                    body.items.push(Item::Block(Block {
                        kind: ident(&m.key, m.key_span),
                        labels: Vec::new(),
                        body: inner,
                        span: m.key_span.to(obj.span),
                    }));
                }
            }
            _ => {}
        }
    }
    if let Some(e) = cx.error.into_inner() {
        return Err(e);
    }
    Ok(File {
        body,
        comments: Vec::new(),
    })
}

fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

/// An object, or every object of an array of objects (Terraform JSON allows both at label levels).
fn objects(json: &Json) -> Vec<&Json> {
    match &json.value {
        JsonValue::Object(_) => vec![json],
        JsonValue::Array(items) => items
            .iter()
            .filter(|i| matches!(i.value, JsonValue::Object(_)))
            .collect(),
        _ => Vec::new(),
    }
}

fn members(json: &Json) -> &[JsonMember] {
    match &json.value {
        JsonValue::Object(m) => m,
        _ => &[],
    }
}

/// `{"type": {"name": {body}}}` with `depth` labels.
fn labeled_blocks(
    m: &JsonMember,
    depth: usize,
    source: &Cx<'_>,
    out: &mut Vec<Item>,
    nested: bool,
) {
    fn walk(
        kind: &Ident,
        json: &Json,
        labels: &mut Vec<Ident>,
        depth: usize,
        source: &Cx<'_>,
        out: &mut Vec<Item>,
        nested: bool,
    ) {
        for obj in objects(json) {
            if labels.len() == depth {
                let body = if kind.name == "variable" {
                    variable_body(obj, source)
                } else {
                    attributes_body(obj, source, nested)
                };
                out.push(Item::Block(Block {
                    kind: kind.clone(),
                    labels: labels.clone(),
                    body,
                    span: kind.span.to(obj.span),
                }));
                continue;
            }
            for member in members(obj) {
                labels.push(ident(&member.key, member.key_span));
                walk(kind, &member.value, labels, depth, source, out, nested);
                labels.pop();
            }
        }
    }
    let kind = ident(&m.key, m.key_span);
    walk(&kind, &m.value, &mut Vec::new(), depth, source, out, nested);
}

fn variable_body(obj: &Json, source: &Cx<'_>) -> Body {
    let mut body = Body {
        items: Vec::new(),
        span: obj.span,
    };
    for m in members(obj) {
        let value = match m.key.as_str() {
            // A variable's default is a literal value; its type is a type expression in a string.
            "default" => literal_expr(&m.value),
            "type" => match &m.value.value {
                JsonValue::String(s) => match crate::parse::expression(s) {
                    Some(mut e) => {
                        respan_expr(&mut e, &|_| m.value.span);
                        e
                    }
                    None => continue,
                },
                _ => continue,
            },
            _ => value_expr(&m.value, source),
        };
        body.items.push(Item::Attribute(Attribute {
            name: ident(&m.key, m.key_span),
            span: m.key_span.to(m.value.span),
            value,
        }));
    }
    body
}

/// A body: nested block types become blocks, everything else attributes.
fn attributes_body(obj: &Json, source: &Cx<'_>, nested: bool) -> Body {
    let mut body = Body {
        items: Vec::new(),
        span: obj.span,
    };
    for m in members(obj) {
        if m.key == "//" {
            continue;
        }
        if nested && m.key == "dynamic" {
            // {"dynamic": {"label": {"for_each": ..., "content": {...}}}}
            for o in objects(&m.value) {
                for label in members(o) {
                    for inner in objects(&label.value) {
                        let mut b = Body {
                            items: Vec::new(),
                            span: inner.span,
                        };
                        for im in members(inner) {
                            if im.key == "content" {
                                for c in objects(&im.value) {
                                    b.items.push(Item::Block(Block {
                                        kind: ident("content", im.key_span),
                                        labels: Vec::new(),
                                        body: attributes_body(c, source, true),
                                        span: im.key_span.to(c.span),
                                    }));
                                }
                            } else {
                                b.items.push(Item::Attribute(Attribute {
                                    name: ident(&im.key, im.key_span),
                                    value: value_expr(&im.value, source),
                                    span: im.key_span.to(im.value.span),
                                }));
                            }
                        }
                        body.items.push(Item::Block(Block {
                            kind: ident("dynamic", m.key_span),
                            labels: vec![ident(&label.key, label.key_span)],
                            body: b,
                            span: m.key_span.to(inner.span),
                        }));
                    }
                }
            }
            continue;
        }
        let is_block = nested
            && BLOCK_TYPES.contains(&m.key.as_str())
            && match &m.value.value {
                JsonValue::Object(_) => true,
                JsonValue::Array(items) => {
                    !items.is_empty()
                        && items
                            .iter()
                            .all(|i| matches!(i.value, JsonValue::Object(_)))
                }
                _ => false,
            };
        if is_block {
            for o in objects(&m.value) {
                body.items.push(Item::Block(Block {
                    kind: ident(&m.key, m.key_span),
                    labels: Vec::new(),
                    body: attributes_body(o, source, true),
                    span: m.key_span.to(o.span),
                }));
            }
        } else {
            body.items.push(Item::Attribute(Attribute {
                name: ident(&m.key, m.key_span),
                value: value_expr(&m.value, source),
                span: m.key_span.to(m.value.span),
            }));
        }
    }
    body
}

/// A JSON value as an expression: strings are templates.
fn value_expr(json: &Json, source: &Cx<'_>) -> Expr {
    let kind = match &json.value {
        JsonValue::Null => ExprKind::Null,
        JsonValue::Bool(b) => ExprKind::Bool(*b),
        JsonValue::Number(n) => ExprKind::Number(n.clone()),
        JsonValue::String(s) => return string_template(s, json.span, source),
        JsonValue::Array(items) => {
            ExprKind::Tuple(items.iter().map(|i| value_expr(i, source)).collect())
        }
        JsonValue::Object(members) => ExprKind::Object(
            members
                .iter()
                .filter(|m| m.key != "//")
                .map(|m| ObjectItem {
                    key: ObjectKey::Expr(string_template(&m.key, m.key_span, source)),
                    value: value_expr(&m.value, source),
                })
                .collect(),
        ),
    };
    Expr {
        kind,
        span: json.span,
    }
}

/// A JSON value taken literally (no templates).
fn literal_expr(json: &Json) -> Expr {
    let kind = match &json.value {
        JsonValue::Null => ExprKind::Null,
        JsonValue::Bool(b) => ExprKind::Bool(*b),
        JsonValue::Number(n) => ExprKind::Number(n.clone()),
        JsonValue::String(s) => ExprKind::Template(Template {
            parts: vec![TemplatePart::Literal {
                text: s.clone(),
                span: json.span,
            }],
            heredoc: false,
        }),
        JsonValue::Array(items) => ExprKind::Tuple(items.iter().map(literal_expr).collect()),
        JsonValue::Object(members) => ExprKind::Object(
            members
                .iter()
                .map(|m| ObjectItem {
                    key: ObjectKey::Expr(Expr {
                        kind: ExprKind::Template(Template {
                            parts: vec![TemplatePart::Literal {
                                text: m.key.clone(),
                                span: m.key_span,
                            }],
                            heredoc: false,
                        }),
                        span: m.key_span,
                    }),
                    value: literal_expr(&m.value),
                })
                .collect(),
        ),
    };
    Expr {
        kind,
        span: json.span,
    }
}

/// A JSON string parsed as a template. When the source text between the quotes is the string
/// itself (no escapes), spans point inside the string; otherwise at the whole string.
fn string_template(s: &str, span: Span, source: &Cx<'_>) -> Expr {
    let literal = || Expr {
        kind: ExprKind::Template(Template {
            parts: vec![TemplatePart::Literal {
                text: s.to_string(),
                span,
            }],
            heredoc: false,
        }),
        span,
    };
    if !s.contains("${") && !s.contains("%{") {
        return literal();
    }
    let mut t = match crate::parse::template_result(s) {
        Ok(t) => t,
        Err(e) => {
            source.error.borrow_mut().get_or_insert(ParseError {
                message: e.message,
                span,
            });
            return literal();
        }
    };
    let start = span.start as usize + 1;
    let raw = source
        .source
        .get(start..(span.end as usize).saturating_sub(1));
    if raw == Some(s) {
        let offset = span.start + 1;
        respan_template(&mut t, &|sp| Span {
            start: sp.start.saturating_add(offset),
            end: sp.end.saturating_add(offset),
        });
    } else {
        respan_template(&mut t, &|_| span);
    }
    Expr {
        kind: ExprKind::Template(t),
        span,
    }
}

pub(crate) fn respan_template(t: &mut Template, f: &dyn Fn(Span) -> Span) {
    for p in &mut t.parts {
        match p {
            TemplatePart::Literal { span, .. } => *span = f(*span),
            TemplatePart::Interpolation(e) => respan_expr(e, f),
            TemplatePart::If {
                condition,
                then,
                otherwise,
                span,
            } => {
                *span = f(*span);
                respan_expr(condition, f);
                respan_template(then, f);
                if let Some(o) = otherwise {
                    respan_template(o, f);
                }
            }
            TemplatePart::For {
                key_var,
                value_var,
                collection,
                body,
                span,
            } => {
                *span = f(*span);
                if let Some(k) = key_var {
                    k.span = f(k.span);
                }
                value_var.span = f(value_var.span);
                respan_expr(collection, f);
                respan_template(body, f);
            }
        }
    }
}

pub(crate) fn respan_expr(mut e: &mut Expr, f: &dyn Fn(Span) -> Span) {
    // Down the left side of an operator chain in a loop: a chain is as deep as it is long.
    loop {
        e.span = f(e.span);
        match &mut e.kind {
            ExprKind::Binary { left, right, .. } => {
                respan_expr(right, f);
                e = left;
            }
            kind => return respan_kind(kind, f),
        }
    }
}

fn respan_kind(kind: &mut ExprKind, f: &dyn Fn(Span) -> Span) {
    match kind {
        ExprKind::Null | ExprKind::Bool(_) | ExprKind::Number(_) | ExprKind::SplatItem => {}
        ExprKind::Template(t) => respan_template(t, f),
        ExprKind::Variable(i) => i.span = f(i.span),
        ExprKind::Call { name, args, .. } => {
            name.span = f(name.span);
            for a in args {
                respan_expr(a, f);
            }
        }
        ExprKind::Tuple(items) => {
            for a in items {
                respan_expr(a, f);
            }
        }
        ExprKind::Object(items) => {
            for it in items {
                match &mut it.key {
                    ObjectKey::Name(i) => i.span = f(i.span),
                    ObjectKey::Expr(k) => respan_expr(k, f),
                }
                respan_expr(&mut it.value, f);
            }
        }
        ExprKind::GetAttr { target, name } => {
            respan_expr(target, f);
            name.span = f(name.span);
        }
        ExprKind::Index { target, index } => {
            respan_expr(target, f);
            respan_expr(index, f);
        }
        ExprKind::Splat { target, each, .. } => {
            respan_expr(target, f);
            respan_expr(each, f);
        }
        ExprKind::ForTuple {
            key_var,
            value_var,
            collection,
            value,
            condition,
        } => {
            if let Some(k) = key_var {
                k.span = f(k.span);
            }
            value_var.span = f(value_var.span);
            respan_expr(collection, f);
            respan_expr(value, f);
            if let Some(c) = condition {
                respan_expr(c, f);
            }
        }
        ExprKind::ForObject {
            key_var,
            value_var,
            collection,
            key,
            value,
            condition,
            ..
        } => {
            if let Some(k) = key_var {
                k.span = f(k.span);
            }
            value_var.span = f(value_var.span);
            respan_expr(collection, f);
            respan_expr(key, f);
            respan_expr(value, f);
            if let Some(c) = condition {
                respan_expr(c, f);
            }
        }
        ExprKind::Conditional {
            condition,
            then,
            otherwise,
        } => {
            respan_expr(condition, f);
            respan_expr(then, f);
            respan_expr(otherwise, f);
        }
        ExprKind::Unary { operand, .. } => respan_expr(operand, f),
        ExprKind::Binary { .. } => {}
        ExprKind::Parens(inner) => respan_expr(inner, f),
    }
}
