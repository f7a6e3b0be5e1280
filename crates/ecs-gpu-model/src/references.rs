//! The module expansion's answers to the evaluator ([`Data`]): what `var.`, `local.`, `path.`,
//! `terraform.`, `module.`, `data.` and resource references name in a module instance, and which
//! function a call runs.

use ecs_gpu_hcl::ast::{Expr, Ident, Span};

use crate::eval::{
    apply_steps, apply_steps_ref, instance_key, to_str, Data, EvalContext, Evaluate as _, Fail,
    Scope, Step,
};
use crate::loader::{Children, Loader};
use crate::value::{
    add_fragments, error_value, merge_refs, unknown, Entry, Hole, HoledText, InstanceKey, Node,
    Object, Reference, Unknown, UnknownReason, Value,
};

impl Data for Loader {
    fn reference(&mut self, cx: &EvalContext<'_>, id: &Ident, steps: &[Step<'_>]) -> Node {
        let attr = |i: usize| match steps.get(i) {
            Some(Step::Attr(a)) => Some(*a),
            _ => None,
        };
        match id.name.as_str() {
            "var" => match attr(0) {
                Some(name) => {
                    let v = self.get_var(cx.inst, name);
                    let mut n = apply_steps(v, &steps[1..]);
                    if n.is_sensitive() {
                        // Never point a finding at the default or tfvars line holding the secret.
                        n.relocate(cx.loc(id.span));
                    }
                    n
                }
                None => Node::new(error_value(), None),
            },
            "local" => match attr(0) {
                Some(name) => match self.local_ref(cx.inst, name) {
                    Some(v) => apply_steps_ref(v, &steps[1..]),
                    None => Node::new(error_value(), None),
                },
                None => Node::new(error_value(), None),
            },
            "path" => {
                let v = match attr(0) {
                    Some("module") => Value::String(self.instances[cx.inst].rel_dir.clone().into()),
                    Some("root") => Value::String(".".into()),
                    Some("cwd") => Value::String(
                        self.instances[cx.inst]
                            .root_dir
                            .display()
                            .to_string()
                            .into(),
                    ),
                    _ => error_value(),
                };
                apply_steps(Node::new(v, None), steps.get(1..).unwrap_or(&[]))
            }
            "terraform" => match attr(0) {
                Some("workspace") => apply_steps(
                    Node::new(
                        Value::String(self.instances[cx.inst].workspace.clone().into()),
                        None,
                    ),
                    &steps[1..],
                ),
                _ => Node::new(unknown(UnknownReason::Unsupported, Vec::new()), None),
            },
            "count" | "each" => Node::new(error_value(), None),
            "self" => Node::new(unknown(UnknownReason::AfterApply, Vec::new()), None),
            // Ephemeral resources (Terraform 1.10) are opened during the run: never known here.
            "ephemeral" => match (attr(0), attr(1)) {
                (Some(t), Some(n)) => {
                    let (key, rest) = split_key(&steps[2..]);
                    let reference = Reference {
                        address: format!("ephemeral.{t}.{n}"),
                        key,
                        attribute: attribute_path(rest),
                        module: self.instances[cx.inst].id,
                    };
                    Node::new(unknown(UnknownReason::DataSource, vec![reference]), None)
                }
                _ => Node::new(error_value(), None),
            },
            "module" => match attr(0) {
                Some(name) => {
                    let mut n = self.module_ref(cx, name, &steps[1..]);
                    if n.is_sensitive() {
                        // As for a variable: not at the output's value, which may be a literal.
                        n.relocate(cx.loc(id.span));
                    }
                    n
                }
                None => Node::new(error_value(), None),
            },
            "data" => match (attr(0), attr(1)) {
                (Some(t), Some(n)) => self.data_ref(cx, t, n, &steps[2..]),
                _ => Node::new(error_value(), None),
            },
            kind => match attr(0) {
                Some(name) => {
                    let address = format!("{kind}.{name}");
                    let declared = self.instances[cx.inst].decl.has_resource(&address);
                    if let Some(known) = self.configured_argument(cx, kind, &address, &steps[1..]) {
                        return known;
                    }
                    let (key, rest) = split_key(&steps[1..]);
                    let reference = Reference {
                        address,
                        key,
                        attribute: attribute_path(rest),
                        module: self.instances[cx.inst].id,
                    };
                    let reason = if declared {
                        UnknownReason::AfterApply
                    } else {
                        UnknownReason::Error
                    };
                    Node::new(unknown(reason, vec![reference]), None)
                }
                None => Node::new(error_value(), None),
            },
        }
    }

    fn call_function(
        &mut self,
        cx: &EvalContext<'_>,
        span: Span,
        name: &Ident,
        args: &[Expr],
        expand_final: bool,
    ) -> Node {
        crate::funcs::call(self, cx, span, name, args, expand_final)
    }

    fn depth(&mut self) -> &mut usize {
        &mut self.depth
    }
}

/// Arguments of managed resources whose configured value is what AWS gets, unchanged by the
/// provider: a reference to one is known at plan time when its value in the configuration is
/// (`aws_ecs_cluster.main.name` with `name = "gpu"` is `"gpu"`, as `terraform plan` shows it).
/// Names that the provider completes (`name_prefix`) or computes (`id`, `arn`) are not here.
const CONFIGURED_AS_WRITTEN: &[(&str, &str)] = &[
    ("aws_autoscaling_group", "name"),
    ("aws_ecs_capacity_provider", "name"),
    ("aws_ecs_cluster", "name"),
    ("aws_ecs_cluster_capacity_providers", "capacity_providers"),
    ("aws_ecs_cluster_capacity_providers", "cluster_name"),
    ("aws_ecs_service", "name"),
    ("aws_ecs_task_definition", "family"),
    ("aws_iam_instance_profile", "name"),
    ("aws_launch_template", "name"),
];

impl Loader {
    /// `kind.name.attribute` (with the instance key of a block with `count` or `for_each`) of an
    /// argument in [`CONFIGURED_AS_WRITTEN`] whose value in the block is known: a string, or a
    /// set of strings (`capacity_providers`, in a set's order). `None` otherwise: the reference
    /// stays an unknown that points at the resource.
    fn configured_argument(
        &mut self,
        cx: &EvalContext<'_>,
        kind: &str,
        address: &str,
        steps: &[Step<'_>],
    ) -> Option<Node> {
        let (key, rest) = split_key(steps);
        let [Step::Attr(attr)] = rest else {
            return None;
        };
        if !CONFIGURED_AS_WRITTEN.contains(&(kind, *attr)) {
            return None;
        }
        let decl = self.instances[cx.inst].decl.clone();
        let block = decl.resource_block(address)?;
        let binding = match (&key, block.repeated) {
            (None, false) => None,
            (Some(k), true) => Some(self.instance_binding(cx.inst, block.block, block.file, k)?),
            _ => return None,
        };
        let arg = block.block.body.items.iter().find_map(|i| match i {
            ecs_gpu_hcl::Item::Attribute(a) if a.name.name == *attr => Some(a),
            _ => None,
        })?;
        // A name that refers to itself (through another resource's name) is Terraform's cycle
        // error: unknown here.
        let guard = (cx.inst, address.to_string(), attr.to_string(), key.clone());
        if self.evaluating_data.contains(&guard) {
            return None;
        }
        self.evaluating_data.push(guard);
        let scope = Scope {
            vars: binding.into_iter().collect(),
            parent: None,
        };
        let block_cx = EvalContext::new(cx.inst, block.file, &scope, false);
        let mut value = self.eval(&block_cx, &arg.value);
        self.evaluating_data.pop();
        // The value is where the reference is written, as a resource's other attributes are.
        value.relocate(None);
        match &value.value {
            Value::String(_) => Some(value),
            Value::List(items) if items.iter().all(|i| matches!(i.value, Value::String(_))) => {
                let items = crate::funcs::set_of(items.clone());
                Some(Node::new(Value::List(items), None))
            }
            _ => None,
        }
    }

    fn data_ref(
        &mut self,
        cx: &EvalContext<'_>,
        kind: &str,
        name: &str,
        steps: &[Step<'_>],
    ) -> Node {
        let address = format!("data.{kind}.{name}");
        let (key, rest) = split_key(steps);
        let reference = Reference {
            address: address.clone(),
            key: key.clone(),
            attribute: attribute_path(rest),
            module: self.instances[cx.inst].id,
        };
        let unknown_node = |reason| Node::new(unknown(reason, vec![reference.clone()]), None);
        let decl = self.instances[cx.inst].decl.clone();
        let Some(block) = decl.resource_block(&address) else {
            return unknown_node(UnknownReason::Error);
        };
        let Some(Step::Attr(attr)) = rest.first() else {
            return unknown_node(UnknownReason::DataSource);
        };
        let find_arg = |name: &str| {
            block.block.body.items.iter().find_map(|i| match i {
                ecs_gpu_hcl::Item::Attribute(a)
                    if a.name.name == name
                        && !matches!(name, "count" | "for_each" | "depends_on" | "provider") =>
                {
                    Some(a)
                }
                _ => None,
            })
        };
        // Data sources whose result is computed from their arguments alone.
        let computed = matches!(
            (kind, *attr),
            ("template_file", "rendered") | ("cloudinit_config", "rendered")
        );
        // The data block's own arguments are known: they are written in the configuration.
        let arg = find_arg(attr);
        if arg.is_none() && !computed {
            return unknown_node(UnknownReason::DataSource);
        }
        let repeated = block.repeated;
        let has_index = steps.len() > rest.len();
        // Which instance: with count/for_each, only a known key says which.
        let binding = if repeated {
            match &key {
                Some(k) => match self.instance_binding(cx.inst, block.block, block.file, k) {
                    Some(b) => Some(b),
                    None => return unknown_node(UnknownReason::DataSource),
                },
                None => return unknown_node(UnknownReason::DataSource),
            }
        } else if has_index {
            return unknown_node(UnknownReason::Error);
        } else {
            None
        };
        let guard = (cx.inst, address.clone(), attr.to_string(), key.clone());
        if self.evaluating_data.contains(&guard) {
            return unknown_node(UnknownReason::Error);
        }
        self.evaluating_data.push(guard);
        let scope = Scope {
            vars: binding.into_iter().collect(),
            parent: None,
        };
        let cx2 = EvalContext::new(cx.inst, block.file, &scope, false);
        let v = match (kind, arg) {
            (_, Some(arg)) => self.eval(&cx2, &arg.value),
            ("template_file", None) => {
                let template =
                    find_arg("template").map(|a| (self.eval(&cx2, &a.value), a.value.span));
                let vars = find_arg("vars").map(|a| self.eval(&cx2, &a.value));
                self.render_template_file(cx, template, vars, &reference)
            }
            _ => {
                // cloudinit_config: the parts' contents are known to be in what the instance
                // reads, whatever the encoding; in order, one after the other, each a script or
                // file of its own lines. What a part holds that is not known (a `dynamic` part, a
                // content that is not a string) is a hole at the start of a line: any lines.
                let mut fragments = Vec::new();
                let mut refs = vec![reference.clone()];
                let mut lines = HoledText {
                    base64: true,
                    ..HoledText::default()
                };
                let unknown_part = |lines: &mut HoledText| {
                    lines.holes.push(Hole {
                        at: lines.text.len(),
                        node: Node::new(unknown(UnknownReason::DataSource, Vec::new()), None),
                    });
                    lines.text.push('\n');
                };
                for item in &block.block.body.items {
                    let part = match item {
                        ecs_gpu_hcl::Item::Block(b) if b.kind.name == "part" => b,
                        ecs_gpu_hcl::Item::Block(b)
                            if b.kind.name == "dynamic"
                                && b.labels.first().map(|l| l.name.as_str()) == Some("part") =>
                        {
                            unknown_part(&mut lines);
                            continue;
                        }
                        _ => continue,
                    };
                    let content = part.body.items.iter().find_map(|i| match i {
                        ecs_gpu_hcl::Item::Attribute(a) if a.name.name == "content" => Some(a),
                        _ => None,
                    });
                    let Some(c) = content else {
                        unknown_part(&mut lines);
                        continue;
                    };
                    let n = self.eval(&cx2, &c.value);
                    match &n.value {
                        Value::String(t) => {
                            add_fragments(&mut fragments, [t]);
                            lines.text.push_str(t);
                            lines.text.push('\n');
                        }
                        Value::Unknown(u) => {
                            add_fragments(&mut fragments, &u.fragments);
                            merge_refs(&mut refs, u.refs.clone());
                            match u.text.as_deref().filter(|t| !t.base64) {
                                Some(t) => {
                                    let base = lines.text.len();
                                    lines.text.push_str(&t.text);
                                    lines.holes.extend(t.holes.iter().map(|h| Hole {
                                        at: base + h.at,
                                        node: h.node.clone(),
                                    }));
                                    lines.text.push('\n');
                                }
                                None => unknown_part(&mut lines),
                            }
                        }
                        _ => unknown_part(&mut lines),
                    }
                }
                let text = Some(std::sync::Arc::new(lines));
                Node::new(
                    Value::Unknown(Box::new(Unknown {
                        reason: UnknownReason::DataSource,
                        refs,
                        fragments,
                        entries: Vec::new(),
                        text,
                    })),
                    None,
                )
            }
        };
        self.evaluating_data.pop();
        apply_steps(v, &rest[1..])
    }

    /// `data "template_file"`'s `rendered`: its `template` evaluated with its `vars`.
    fn render_template_file(
        &mut self,
        cx: &EvalContext<'_>,
        template: Option<(Node, Span)>,
        vars: Option<Node>,
        reference: &Reference,
    ) -> Node {
        let unknown_node = |u: Option<Box<Unknown>>| {
            let mut u = u.unwrap_or_default();
            u.reason = UnknownReason::DataSource;
            u.derived();
            merge_refs(&mut u.refs, vec![reference.clone()]);
            Node::new(Value::Unknown(u), None)
        };
        let Some((tnode, span)) = template else {
            return unknown_node(None);
        };
        let text = match to_str(&tnode) {
            Ok(t) => t,
            Err(Fail::Unknown(u)) => return unknown_node(Some(u)),
            Err(Fail::Error) => return Node::new(error_value(), None),
        };
        let vars = match vars.map(|v| v.value) {
            None | Some(Value::Null) => Object::default(),
            Some(Value::Object(o)) => o,
            Some(Value::Unknown(u)) => return unknown_node(Some(u)),
            Some(_) => return Node::new(error_value(), None),
        };
        let Some(mut t) = crate::parse::template(&text) else {
            return Node::new(error_value(), None);
        };
        // The template text came from a string: its places are the `template` argument.
        crate::tfjson::respan_template(&mut t, &|_| span);
        let scope = Scope {
            vars: vars.entries.into_iter().map(|e| (e.key, e.value)).collect(),
            parent: None,
        };
        let tcx = EvalContext::new(cx.inst, cx.file, &scope, true);
        self.eval_template(&tcx, &t, span)
    }

    fn module_ref(&mut self, cx: &EvalContext<'_>, name: &str, steps: &[Step<'_>]) -> Node {
        let (key, rest) = split_key(steps);
        let reference = Reference {
            address: format!("module.{name}"),
            key: key.clone(),
            attribute: attribute_path(rest),
            module: self.instances[cx.inst].id,
        };
        let children = self.ensure_children(cx.inst, name);
        let fail = |reason| Node::new(unknown(reason, vec![reference.clone()]), None);
        match children {
            Children::Missing => fail(UnknownReason::Error),
            Children::Remote => fail(UnknownReason::RemoteModule),
            Children::Failed => fail(UnknownReason::Unsupported),
            Children::Instances {
                repeated,
                unknown_instances,
                list,
            } => {
                if unknown_instances {
                    return fail(UnknownReason::AfterApply);
                }
                if !repeated {
                    if steps.len() > rest.len() {
                        return fail(UnknownReason::Error);
                    }
                    let Some(&(_, child)) = list.first() else {
                        return fail(UnknownReason::Error);
                    };
                    return self.outputs_through(child, rest, &reference);
                }
                if steps.len() > rest.len() {
                    let Some(k) = key else {
                        return fail(UnknownReason::AfterApply);
                    };
                    let Some(&(_, child)) = list.iter().find(|(ik, _)| ik.as_ref() == Some(&k))
                    else {
                        return fail(UnknownReason::Error);
                    };
                    return self.outputs_through(child, rest, &reference);
                }
                // `module.m` with count/for_each, as a whole: a list or map of output objects.
                let mut items = Vec::new();
                for (k, child) in list {
                    let obj = self.all_outputs(child);
                    items.push((k, obj));
                }
                let v = if items
                    .iter()
                    .all(|(k, _)| matches!(k, Some(InstanceKey::Key(_))))
                    && !items.is_empty()
                {
                    let mut obj = Object::default();
                    for (k, n) in items {
                        if let Some(InstanceKey::Key(k)) = k {
                            obj.entries.push(Entry::new(k, n));
                        }
                    }
                    Value::Object(obj)
                } else {
                    Value::List(items.into_iter().map(|(_, n)| n).collect())
                };
                apply_steps(Node::new(v, None), rest)
            }
        }
    }

    fn outputs_through(&mut self, child: usize, rest: &[Step<'_>], reference: &Reference) -> Node {
        match rest.first() {
            Some(Step::Attr(out)) => {
                if !self.instances[child].decl.outputs.contains_key(*out) {
                    return Node::new(unknown(UnknownReason::Error, vec![reference.clone()]), None);
                }
                let v = self.get_output(child, out);
                apply_steps(v, &rest[1..])
            }
            Some(Step::Index(_)) => Node::new(error_value(), None),
            None => self.all_outputs(child),
        }
    }

    fn all_outputs(&mut self, child: usize) -> Node {
        let mut names: Vec<String> = self.instances[child].decl.outputs.keys().cloned().collect();
        names.sort();
        let mut obj = Object::default();
        for n in names {
            let v = self.get_output(child, &n);
            obj.entries.push(Entry::new(n, v));
        }
        Node::new(Value::Object(obj), None)
    }
}

/// Splits a leading index step off (the instance key of a resource, data source or module).
fn split_key<'s, 'e>(steps: &'s [Step<'e>]) -> (Option<InstanceKey>, &'s [Step<'e>]) {
    match steps.first() {
        Some(Step::Index(n)) => (instance_key(n), &steps[1..]),
        _ => (None, steps),
    }
}

fn attribute_path(steps: &[Step<'_>]) -> Vec<String> {
    steps
        .iter()
        .map(|s| match s {
            Step::Attr(a) => (*a).to_string(),
            Step::Index(n) => to_str(n).unwrap_or_else(|_| "*".into()),
        })
        .collect()
}
