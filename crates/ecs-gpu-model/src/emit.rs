//! Resource emission: each resource of a module instance (and of the instances it calls), one per
//! `count` or `for_each` instance, its body evaluated with `dynamic` blocks expanded.

use std::rc::Rc;
use std::sync::Arc;

use ecs_gpu_hcl::ast::{self, Expr, ExprKind, Item};

use crate::decl::{attr, ModuleDecl};
use crate::eval::{to_str, EvalContext, Evaluate as _, Scope};
use crate::instances::{binding, header_span};
use crate::loader::{Children, Loader};
use crate::model::*;
use crate::value::{Entry, Loc, Value};

impl Loader {
    /// Evaluates a folder as a root module, with its module calls.
    pub(crate) fn evaluate_root(&mut self, decl: Rc<ModuleDecl>) {
        let inst = self.new_root(decl);
        self.emit(inst);
    }

    /// Creates the resources of a module instance and of the module instances it calls.
    fn emit(&mut self, inst: usize) {
        if self.instances[inst].emitted {
            return;
        }
        self.instances[inst].emitted = true;
        let decl = self.instances[inst].decl.clone();
        for at in decl.resources.clone() {
            let Some((block, fid)) = decl.block(at) else {
                continue;
            };
            self.emit_resource(inst, block, fid);
        }
        let mut names: Vec<(usize, String)> = decl
            .call_index
            .iter()
            .map(|(n, i)| (*i, n.clone()))
            .collect();
        names.sort();
        for (_, name) in names {
            if let Children::Instances { list, .. } = self.ensure_children(inst, &name) {
                for (_, child) in list {
                    self.emit(child);
                }
            }
        }
    }

    fn emit_resource(&mut self, inst: usize, block: &ast::Block, fid: FileId) {
        let mode = if block.kind.name == "data" {
            Mode::Data
        } else {
            Mode::Managed
        };
        let (Some(kind), Some(name)) = (block.labels.first(), block.labels.get(1)) else {
            return;
        };
        if !self.keeps_type(&kind.name) {
            return;
        }
        let (list, mut instances_unknown) = match self.expand(inst, &block.body, fid) {
            Some(l) => (l, false),
            None => (vec![(None, Self::unknown_binding(&block.body))], true),
        };
        instances_unknown |= self.instances[inst].instances_unknown;
        let ignore_changes = ignore_changes(&block.body);
        for (key, binding) in list {
            let scope = Scope {
                vars: binding.into_iter().collect(),
                parent: None,
            };
            let cx = EvalContext::new(inst, fid, &scope, false);
            let evaluated = match mode {
                Mode::Managed => self.shared.evaluated.get(&kind.name).cloned(),
                Mode::Data => None,
            };
            let body = self.eval_body(&cx, &block.body, true, evaluated);
            let id = ResourceId(u32::try_from(self.resources.len()).unwrap_or(u32::MAX));
            self.resources.push(Resource {
                id,
                module: self.instances[inst].id,
                mode,
                kind: kind.name.clone(),
                name: name.name.clone(),
                key,
                instances_unknown,
                loc: Loc {
                    file: fid,
                    span: header_span(block),
                },
                body,
                ignore_changes: ignore_changes.clone(),
            });
        }
    }

    /// Evaluates a block body: attributes, nested blocks, `dynamic` blocks expanded. `evaluated`
    /// (a resource's body only): the arguments and block types to evaluate, the others left out.
    pub(crate) fn eval_body(
        &mut self,
        cx: &EvalContext<'_>,
        body: &ast::Body,
        top: bool,
        evaluated: Option<Arc<Evaluated>>,
    ) -> Body {
        let skipped = |name: &str| evaluated.as_ref().is_some_and(|e| !e.lists(name));
        let mut out = Body {
            loc: cx.loc(body.span),
            ..Body::default()
        };
        if self.depth >= crate::value::MAX_DEPTH {
            return out;
        }
        self.depth += 1;
        let attributes = body
            .items
            .iter()
            .filter(|i| matches!(i, Item::Attribute(_)))
            .count();
        out.attributes.reserve_exact(attributes);
        out.blocks.reserve_exact(body.items.len() - attributes);
        for item in &body.items {
            match item {
                Item::Attribute(a) => {
                    if top
                        && matches!(
                            a.name.name.as_str(),
                            "count" | "for_each" | "depends_on" | "provider"
                        )
                    {
                        continue;
                    }
                    if skipped(&a.name.name) {
                        continue;
                    }
                    let value = self.eval(cx, &a.value);
                    out.attributes.push(Attribute {
                        name: a.name.name.clone(),
                        name_loc: cx.loc(a.name.span),
                        value,
                    });
                }
                Item::Block(b) => match b.kind.name.as_str() {
                    "dynamic" if b.labels.first().is_some_and(|l| skipped(&l.name)) => {}
                    "dynamic" => self.expand_dynamic(cx, b, &mut out),
                    "lifecycle" if top => {
                        let mut lb = Body {
                            loc: cx.loc(b.body.span),
                            ..Body::default()
                        };
                        // `replace_triggered_by` is a list of references: evaluated, its
                        // items are unknowns that carry them.
                        for a in [
                            "create_before_destroy",
                            "prevent_destroy",
                            "replace_triggered_by",
                        ] {
                            if let Some(at) = attr(&b.body, a) {
                                let value = self.eval(cx, &at.value);
                                lb.attributes.push(Attribute {
                                    name: a.into(),
                                    name_loc: cx.loc(at.name.span),
                                    value,
                                });
                            }
                        }
                        out.blocks.push(Block {
                            kind: "lifecycle".into(),
                            labels: Vec::new(),
                            loc: cx.loc(b.span),
                            body: lb,
                        });
                    }
                    "provisioner" | "connection" if top => {}
                    kind if skipped(kind) => {}
                    _ => {
                        let inner = self.eval_body(cx, &b.body, false, None);
                        out.blocks.push(Block {
                            kind: b.kind.name.clone(),
                            labels: b.labels.iter().map(|l| l.name.clone()).collect(),
                            loc: cx.loc(b.span),
                            body: inner,
                        });
                    }
                },
            }
        }
        self.depth -= 1;
        out.attributes.shrink_to_fit();
        out.blocks.shrink_to_fit();
        out.evaluated = evaluated;
        out
    }

    fn expand_dynamic(&mut self, cx: &EvalContext<'_>, b: &ast::Block, out: &mut Body) {
        let Some(kind) = b.labels.first() else { return };
        let iterator = attr(&b.body, "iterator")
            .and_then(|a| match &a.value.kind {
                ExprKind::Variable(i) => Some(i.name.clone()),
                _ => None,
            })
            .unwrap_or_else(|| kind.name.clone());
        let Some(content) = b.body.items.iter().find_map(|i| match i {
            Item::Block(c) if c.kind.name == "content" => Some(c),
            _ => None,
        }) else {
            return;
        };
        let Some(fe) = attr(&b.body, "for_each") else {
            out.unknown_blocks.push(kind.name.clone());
            return;
        };
        let coll = self.eval(cx, &fe.value);
        let pairs = match crate::eval::iterate(&coll) {
            Ok(p) => p,
            Err(_) => {
                if !out.unknown_blocks.contains(&kind.name) {
                    out.unknown_blocks.push(kind.name.clone());
                }
                return;
            }
        };
        for (k, v) in pairs {
            // A set's elements are their own keys, a list's keys are its indexes. Sets are lists
            // here, so the expression says which: `toset(...)` (or `setunion`...) is a set.
            let is_set = crate::eval::is_set_expr(&fe.value);
            let key = if is_set { v.clone() } else { k };
            let entries = vec![Entry::new("key".into(), key), Entry::new("value".into(), v)];
            let scope = Scope::child(cx.scope, vec![binding(&iterator, entries)]);
            let cx2 = cx.with_scope(&scope);
            let labels = match attr(&b.body, "labels") {
                Some(l) => match self.eval(&cx2, &l.value).value {
                    Value::List(items) => items.iter().filter_map(|i| to_str(i).ok()).collect(),
                    _ => Vec::new(),
                },
                None => Vec::new(),
            };
            let inner = self.eval_body(&cx2, &content.body, false, None);
            out.blocks.push(Block {
                kind: kind.name.clone(),
                labels,
                loc: cx.loc(b.span),
                body: inner,
            });
        }
    }
}

/// `lifecycle { ignore_changes = ... }` as written.
fn ignore_changes(body: &ast::Body) -> IgnoreChanges {
    let mut out = IgnoreChanges::None;
    for item in &body.items {
        let Item::Block(b) = item else { continue };
        if b.kind.name != "lifecycle" {
            continue;
        }
        let Some(a) = attr(&b.body, "ignore_changes") else {
            continue;
        };
        match &a.value.kind {
            ExprKind::Variable(i) if i.name == "all" => return IgnoreChanges::All,
            ExprKind::Template(t) if t.as_literal() == Some("all") => return IgnoreChanges::All,
            ExprKind::Tuple(items) => {
                let mut v = match out {
                    IgnoreChanges::Attributes(v) => v,
                    _ => Vec::new(),
                };
                v.extend(items.iter().filter_map(render_traversal));
                out = IgnoreChanges::Attributes(v);
            }
            _ => {}
        }
    }
    out
}

fn render_traversal(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Variable(i) => Some(i.name.clone()),
        ExprKind::GetAttr { target, name } => {
            Some(format!("{}.{}", render_traversal(target)?, name.name))
        }
        ExprKind::Index { target, index } => {
            let t = render_traversal(target)?;
            let k = match &index.kind {
                ExprKind::Number(n) => n.clone(),
                ExprKind::Template(tp) => {
                    let mut s = String::new();
                    crate::json::write_json_string(tp.as_literal()?, &mut s);
                    s
                }
                _ => return None,
            };
            Some(format!("{t}[{k}]"))
        }
        ExprKind::Template(t) => t.as_literal().map(str::to_string),
        ExprKind::Parens(inner) => render_traversal(inner),
        _ => None,
    }
}
