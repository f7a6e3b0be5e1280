//! Variable binding: a root module's values (`TF_VAR_*`, `.tfvars` files, `-var`), a call's
//! arguments and defaults, each variable converted to its type on first use; locals and outputs.

use std::path::{Path, PathBuf};

use ecs_gpu_hcl::ast::{self, ExprKind, Item};

use crate::decl::{attr, ModuleDecl};
use crate::eval::{EvalContext, Evaluate as _, Scope, EMPTY};
use crate::json::{json_value_to_node, JsonLocs};
use crate::loader::{Loader, Slot, VarSource};
use crate::model::*;
use crate::types::Conversion;
use crate::value::{error_value, unknown, Mark, Node, UnknownReason, Value};
use crate::walk;
use crate::FastMap;

impl Loader {
    /// Binds the variables of root instance `inst` of `decl`, with its folder's variable files
    /// (`terraform.tfvars(.json)`, then `*.auto.tfvars(.json)`, each in lexical order). Terraform's
    /// precedence: defaults < TF_VAR_ environment variables < terraform.tfvars <
    /// terraform.tfvars.json < *.auto.tfvars(.json) < -var-file in order < -var in order.
    pub(crate) fn bind_root_vars(
        &mut self,
        inst: usize,
        decl: &ModuleDecl,
        mut files: Vec<PathBuf>,
    ) {
        let mut values: FastMap<String, Node> = FastMap::default();
        if !self.shared.tf_vars.is_empty() {
            for name in decl.variable_order.clone() {
                if let Some(raw) = self.shared.tf_vars.get(&name).cloned() {
                    let v = self.cli_var(inst, &name, &raw);
                    values.insert(name, v);
                }
            }
        }
        let listed = files.len();
        files.extend(self.shared.var_files.clone());
        for (i, f) in files.into_iter().enumerate() {
            // A variable file of the folder that links outside the checked folders is not read,
            // as no file there is; a `--var-file` is named by the user.
            if i < listed && !self.link_inside(&f, None) {
                self.problems.push(LoadProblem {
                    path: walk::display_path(&f, &self.cwd),
                    line: None,
                    column: None,
                    message: walk::LINK_OUTSIDE.to_string(),
                });
                continue;
            }
            self.read_tfvars(inst, &f, &mut values);
        }
        for (name, raw) in self.shared.vars.clone() {
            if decl.variables.contains_key(&name) {
                self.unit_declared_vars.push(name.clone());
            }
            let v = self.cli_var(inst, &name, &raw);
            values.insert(name, v);
        }
        for name in decl.variable_order.clone() {
            let source = match values.remove(&name) {
                Some(v) => VarSource::Value(v),
                None => VarSource::Default,
            };
            self.instances[inst]
                .vars
                .insert(name, Slot::Pending(source));
        }
    }

    /// `-var name=value`: a literal string for primitive-typed (or untyped) variables, otherwise
    /// an HCL expression, as Terraform parses it.
    fn cli_var(&mut self, inst: usize, name: &str, raw: &str) -> Node {
        let decl = self.instances[inst].decl.clone();
        let complex = decl
            .variables
            .get(name)
            .and_then(|at| decl.block(*at))
            .and_then(|(b, _)| attr(&b.body, "type"))
            .is_some_and(|t| {
                !matches!(&t.value.kind, ExprKind::Variable(i) if matches!(i.name.as_str(), "string" | "number" | "bool"))
            });
        if complex {
            if let Some(e) = crate::parse::expression(raw) {
                let cx = EvalContext::new(inst, FileId(u32::MAX), &EMPTY, true).for_variable_file();
                let mut n = self.eval(&cx, &e);
                strip_locs(&mut n);
                return n;
            }
        }
        Node::new(Value::String(raw.to_string().into()), None)
    }

    fn read_tfvars(&mut self, inst: usize, path: &Path, values: &mut FastMap<String, Node>) {
        let display = walk::display_path(path, &self.cwd);
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let text = match walk::read_text(&real) {
            Ok(t) => t,
            Err(e) => {
                self.problems.push(e.problem(display));
                return;
            }
        };
        let text_len = text.len();
        // Values for variables the module does not declare are not read (Terraform only warns
        // of them): they would take memory for nothing. The others are held while the unit is
        // evaluated, as its syntax trees are, and charged to the same budget: four hundred
        // variable files of dense lists must not hold gigabytes.
        let decl = self.instances[inst].decl.clone();
        let mut read: Vec<(String, Node)> = Vec::new();
        let is_json = path.extension().is_some_and(|e| e == "json");
        if is_json {
            match crate::parse::transient_json(&text) {
                Ok(j) => {
                    let fid = self.add_file(&real, display.clone(), text, Vec::new());
                    if let ecs_gpu_hcl::json::JsonValue::Object(members) = j.value {
                        for m in members {
                            if decl.variables.contains_key(&m.key) {
                                let v = json_value_to_node(m.value, JsonLocs::File(fid));
                                read.push((m.key, v));
                            }
                        }
                    }
                }
                Err(e) => {
                    self.parse_problem(display, &text, &e);
                    return;
                }
            }
        } else {
            match crate::parse::transient_file(&text) {
                Ok(file) => {
                    let fid = self.add_file(&real, display.clone(), text, Vec::new());
                    let cx = EvalContext::new(inst, fid, &EMPTY, true).for_variable_file();
                    for item in &file.body.items {
                        if let Item::Attribute(a) = item {
                            if decl.variables.contains_key(&a.name.name) {
                                let v = self.eval(&cx, &a.value);
                                read.push((a.name.name.clone(), v));
                            }
                        }
                    }
                }
                Err(e) => {
                    self.parse_problem(display, &text, &e);
                    return;
                }
            }
        }
        let limit = u64::MAX / crate::budget::NODE_SIZE;
        let nodes: u64 = read
            .iter()
            .map(|(_, v)| crate::budget::node_count(v, limit))
            .sum();
        let bytes =
            usize::try_from(nodes.saturating_mul(crate::budget::NODE_SIZE)).unwrap_or(usize::MAX);
        if let Err(why) = crate::parse::charge_values(text_len, bytes) {
            self.problems.push(LoadProblem {
                path: display,
                line: None,
                column: None,
                message: format!(
                    "values over their memory budget for one root module with the modules it \
                     calls ({} MiB, plus {} bytes per byte of their files): {why}, so its values \
                     are not used",
                    ecs_gpu_hcl::TREE_BUDGET_BASE >> 20,
                    ecs_gpu_hcl::TREE_BUDGET_PER_BYTE
                ),
            });
            return;
        }
        values.extend(read);
    }

    pub(crate) fn get_var(&mut self, inst: usize, name: &str) -> Node {
        let slot = match self.instances[inst].vars.get_mut(name) {
            None => return Node::new(error_value(), None),
            Some(s) => std::mem::replace(s, Slot::Evaluating),
        };
        let source = match slot {
            Slot::Done(n) => {
                let copy = if crate::budget::charge_copy(&n) {
                    n.clone()
                } else {
                    Node::new(unknown(UnknownReason::Unsupported, Vec::new()), n.loc)
                };
                self.instances[inst]
                    .vars
                    .insert(name.to_string(), Slot::Done(n));
                return copy;
            }
            Slot::Evaluating => return Node::new(error_value(), None),
            Slot::Pending(s) => s,
        };
        let decl = self.instances[inst].decl.clone();
        let var_block = decl.variables.get(name).and_then(|at| decl.block(*at));
        let given = match source {
            VarSource::Value(n) => Some(n),
            VarSource::Default => None,
            VarSource::Call {
                parent,
                call,
                binds,
            } => {
                let pdecl = self.instances[parent].decl.clone();
                pdecl.block(call).and_then(|(b, fid)| {
                    attr(&b.body, name).map(|a| {
                        let scope = Scope {
                            vars: binds,
                            parent: None,
                        };
                        let cx = EvalContext::new(parent, fid, &scope, false);
                        self.eval(&cx, &a.value)
                    })
                })
            }
        };
        let default = |ev: &mut Loader| -> Option<Node> {
            let (b, fid) = var_block?;
            let d = attr(&b.body, "default")?;
            let cx = EvalContext::new(inst, fid, &EMPTY, true).for_variable_file();
            Some(ev.eval(&cx, &d.value))
        };
        let nullable = var_block
            .and_then(|(b, _)| attr(&b.body, "nullable"))
            .is_none_or(|a| !matches!(a.value.kind, ExprKind::Bool(false)));
        let mut value = match given {
            Some(v) if matches!(v.value, Value::Null) && !nullable => default(self).unwrap_or(v),
            Some(v) => v,
            None => default(self)
                .unwrap_or_else(|| Node::new(unknown(UnknownReason::NoValue, Vec::new()), None)),
        };
        if let Some((b, fid)) = var_block {
            if let Some(t) = attr(&b.body, "type") {
                let cx = EvalContext::new(inst, fid, &EMPTY, true).for_variable_file();
                value = Conversion { ev: self, cx }.convert(value, &t.value, 0);
            }
            value.raise_mark(declared_mark(&b.body));
        }
        self.instances[inst]
            .vars
            .insert(name.to_string(), Slot::Done(value.clone()));
        value
    }

    /// A local's value, evaluated on first use (`None`: no such local, or it depends on itself).
    pub(crate) fn local_ref(&mut self, inst: usize, name: &str) -> Option<&Node> {
        if !self.instances[inst].locals.contains_key(name) {
            self.get_local(inst, name);
        }
        self.instances[inst]
            .locals
            .get(name)
            .and_then(Option::as_ref)
    }

    pub(crate) fn get_local(&mut self, inst: usize, name: &str) -> Node {
        match self.instances[inst].locals.get(name) {
            Some(Some(n)) => return n.clone(),
            Some(None) => return Node::new(error_value(), None),
            None => {}
        }
        let decl = self.instances[inst].decl.clone();
        let Some((a, fid)) = decl.local(name) else {
            return Node::new(error_value(), None);
        };
        self.instances[inst].locals.insert(name.to_string(), None);
        let cx = EvalContext::new(inst, fid, &EMPTY, false);
        let v = self.eval(&cx, &a.value);
        self.instances[inst]
            .locals
            .insert(name.to_string(), Some(v.clone()));
        v
    }

    pub(crate) fn get_output(&mut self, inst: usize, name: &str) -> Node {
        match self.instances[inst].outputs.get(name) {
            Some(Some(n)) => {
                if !crate::budget::charge_copy(n) {
                    return Node::new(unknown(UnknownReason::Unsupported, Vec::new()), n.loc);
                }
                return n.clone();
            }
            Some(None) => return Node::new(error_value(), None),
            None => {}
        }
        let decl = self.instances[inst].decl.clone();
        let Some((b, fid)) = decl.outputs.get(name).and_then(|at| decl.block(*at)) else {
            return Node::new(error_value(), None);
        };
        let Some(a) = attr(&b.body, "value") else {
            return Node::new(error_value(), None);
        };
        self.instances[inst].outputs.insert(name.to_string(), None);
        let cx = EvalContext::new(inst, fid, &EMPTY, false);
        let mut v = self.eval(&cx, &a.value);
        v.raise_mark(declared_mark(&b.body));
        self.instances[inst]
            .outputs
            .insert(name.to_string(), Some(v.clone()));
        v
    }
}

/// How a `variable` or `output` block declares its value hidden: `sensitive = true`,
/// `ephemeral = true` (Terraform 1.10), or both.
fn declared_mark(body: &ast::Body) -> Mark {
    let set =
        |name: &str| attr(body, name).is_some_and(|a| matches!(a.value.kind, ExprKind::Bool(true)));
    if set("ephemeral") {
        Mark::Ephemeral
    } else if set("sensitive") {
        Mark::Sensitive
    } else {
        Mark::None
    }
}

/// Removes locations (a value from the command line comes from no file).
fn strip_locs(n: &mut Node) {
    n.loc = None;
    match &mut n.value {
        Value::List(items) => items.iter_mut().for_each(strip_locs),
        Value::Object(o) => o.entries.iter_mut().for_each(|e| {
            e.key_loc = None;
            strip_locs(&mut e.value)
        }),
        Value::Json(inner) => strip_locs(std::sync::Arc::make_mut(inner)),
        Value::Unknown(u) => u.entries.iter_mut().for_each(|e| {
            e.key_loc = None;
            strip_locs(&mut e.value)
        }),
        _ => {}
    }
}
