//! The GPU-stack resources of a plan, each with its change, drift, planned and prior values and
//! configuration, and the references between them.

use std::collections::{BTreeSet, HashMap};

use crate::json_tree::{Map, Value};
use crate::parse::{ModuleCallInfo, Object, Raw, AMI_DATA_SOURCE_TYPES};
use crate::value::Side;

static NULL: Value = Value::Null;

/// A change (`resource_changes` or `resource_drift` entry).
#[derive(Debug)]
pub(crate) struct Change {
    pub actions: Vec<String>,
    pub before: Value,
    pub after: Value,
    pub after_unknown: Value,
    pub before_sensitive: Value,
    pub after_sensitive: Value,
    /// Attribute paths that force the replacement, as dotted text (`network_configuration.0.subnets`).
    pub replace_paths: Vec<String>,
    pub action_reason: Option<String>,
}

impl Change {
    fn from_object(obj: &mut Object) -> Self {
        let mut change = match obj.take("change") {
            Some(Value::Object(c)) => c,
            _ => Map::default(),
        };
        let mut take = |k: &str| change.take(k).unwrap_or(Value::Null);
        let actions = match take("actions") {
            Value::Array(a) => a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        let replace_paths = match take("replace_paths") {
            Value::Array(paths) => paths
                .iter()
                .map(|p| match p {
                    Value::Array(segs) => segs
                        .iter()
                        .map(|s| match s {
                            Value::String(s) => s.to_string(),
                            other => other.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("."),
                    Value::String(s) => s.to_string(),
                    other => other.to_string(),
                })
                .collect(),
            _ => Vec::new(),
        };
        Change {
            actions,
            before: take("before"),
            after: take("after"),
            after_unknown: take("after_unknown"),
            before_sensitive: take("before_sensitive"),
            after_sensitive: take("after_sensitive"),
            replace_paths,
            action_reason: obj
                .get("action_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }

    pub fn has(&self, action: &str) -> bool {
        self.actions.iter().any(|a| a == action)
    }

    pub fn is_replace(&self) -> bool {
        self.has("delete") && self.has("create")
    }

    pub fn is_delete_only(&self) -> bool {
        self.has("delete") && !self.has("create")
    }

    pub fn is_update(&self) -> bool {
        self.has("update")
    }

    pub fn before(&self) -> Side<'_> {
        Side {
            values: &self.before,
            sensitive: &self.before_sensitive,
            unknown: &NULL,
        }
    }

    pub fn after(&self) -> Side<'_> {
        Side {
            values: &self.after,
            sensitive: &self.after_sensitive,
            unknown: &self.after_unknown,
        }
    }

    /// Top-level attributes whose value changes or becomes known only after apply.
    pub fn changed_attributes(&self) -> BTreeSet<String> {
        let mut keys = BTreeSet::new();
        let empty = Map::default();
        let before = self.before.as_object().unwrap_or(&empty);
        let after = self.after.as_object().unwrap_or(&empty);
        for k in before.keys().chain(after.keys()) {
            let b = before.get(k).filter(|v| !v.is_null());
            let a = after.get(k).filter(|v| !v.is_null());
            if b != a && !self.after().is_unknown(&[k]) {
                keys.insert(k.to_string());
            }
        }
        if let Some(u) = self.after_unknown.as_object() {
            for (k, v) in u.iter() {
                if crate::value::any_true(v) {
                    keys.insert(k.to_string());
                }
            }
        }
        keys
    }

    /// Whether the attribute at `path` changes: different known values, or unknown after.
    pub fn changes(&self, path: &[&str]) -> bool {
        self.after().is_unknown(path) || self.before().raw(path) != self.after().raw(path)
    }
}

/// One GPU-stack resource instance.
#[derive(Debug)]
pub(crate) struct Resource {
    pub address: String,
    pub type_: String,
    /// The module instance it lives in (`module.gpu["a"]`), or "" for the root module.
    pub module: String,
    /// The address without its own instance key (`module.gpu["a"].aws_ecs_service.app`).
    pub base: String,
    /// The configuration address (`module.gpu.aws_ecs_service.app`).
    pub config_address: String,
    pub change: Option<Change>,
    pub drift: Option<Change>,
    pub planned: Option<(Value, Value)>,
    pub prior: Option<(Value, Value)>,
    /// Resource addresses (configuration form, module-relative) its expressions reference.
    pub references: Vec<String>,
    /// The arguments its configuration sets.
    pub args: Vec<Argument>,
}

/// An argument a resource's configuration sets: its dotted path without block indexes, and the
/// variables of its module that the expression references.
pub(crate) type Argument = (String, Vec<String>);

impl Resource {
    /// The values before the apply: the change's `before`, else the prior state.
    pub fn before(&self) -> Side<'_> {
        if let Some(c) = &self.change {
            if !c.before.is_null() {
                return c.before();
            }
        }
        match &self.prior {
            Some((v, s)) => Side {
                values: v,
                sensitive: s,
                unknown: &NULL,
            },
            None => Side::empty(),
        }
    }

    /// The values after the apply: the change's `after`, else the planned values, else the prior
    /// state (an unchanged resource).
    pub fn after(&self) -> Side<'_> {
        if let Some(c) = &self.change {
            if !c.has("delete") || c.has("create") {
                return c.after();
            }
        }
        match (&self.planned, &self.prior) {
            (Some((v, s)), _) | (None, Some((v, s))) => Side {
                values: v,
                sensitive: s,
                unknown: &NULL,
            },
            (None, None) => Side::empty(),
        }
    }

    /// The values now (after apply when it stays, else before): for matching neighbours.
    pub fn current(&self) -> Side<'_> {
        match &self.change {
            Some(c) if c.is_delete_only() => self.before(),
            _ => self.after(),
        }
    }

    fn is_managed_mode(obj: &Object) -> bool {
        obj.get("mode").and_then(Value::as_str).unwrap_or("managed") == "managed"
            && !obj
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| AMI_DATA_SOURCE_TYPES.contains(&t))
    }

    fn is_ami_data_source(obj: &Object) -> bool {
        obj.get("mode").and_then(Value::as_str) == Some("data")
            && obj
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| AMI_DATA_SOURCE_TYPES.contains(&t))
    }
}

/// A data source an AMI comes from (`aws_ssm_parameter`, `aws_ami`), as the plan read it.
#[derive(Debug)]
pub(crate) struct DataSource {
    pub address: String,
    pub type_: String,
    /// The module instance it lives in, or "" for the root module.
    pub module: String,
    pub values: Value,
    pub sensitive: Value,
}

impl DataSource {
    pub fn side(&self) -> Side<'_> {
        Side {
            values: &self.values,
            sensitive: &self.sensitive,
            unknown: &NULL,
        }
    }
}

/// Edges between GPU-stack resources, both ways (`effects::relations` finds them).
#[derive(Debug, Default)]
pub(crate) struct Relations {
    pub uses: Vec<Vec<usize>>,
    pub used_by: Vec<Vec<usize>>,
}

impl Relations {
    pub fn uses(&self, m: &Model, from: usize, type_: &str) -> Vec<usize> {
        self.uses[from]
            .iter()
            .copied()
            .filter(|&t| m.resources[t].type_ == type_)
            .collect()
    }

    pub fn used_by(&self, m: &Model, to: usize, type_: &str) -> Vec<usize> {
        self.used_by[to]
            .iter()
            .copied()
            .filter(|&t| m.resources[t].type_ == type_)
            .collect()
    }
}

/// The GPU-stack resources of one plan.
#[derive(Debug, Default)]
pub(crate) struct Model {
    pub resources: Vec<Resource>,
    by_address: HashMap<String, usize>,
    /// Resource indexes by address without instance key, for resolving references.
    by_base: HashMap<String, Vec<usize>>,
    /// Indexes of the resources, in the order of `resource_changes`.
    pub changed: Vec<usize>,
    pub relations: Relations,
    /// Whether the plan holds every change the configuration needs.
    pub completeness: Completeness,
    /// `errored: true`: planning stopped at an error.
    pub errored: bool,
    /// `applyable`, when the plan says (Terraform 1.8 and later).
    pub applyable: Option<bool>,
    /// The module calls of the configuration, by the path of the module they call.
    pub calls: HashMap<String, ModuleCallInfo>,
    /// The AMI data sources of `prior_state`.
    pub data: Vec<DataSource>,
}

/// Where a help line can set an argument of a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Setting {
    /// The resource is in the root module: on the resource itself.
    Root,
    /// Through `input` of the module call `call` (in the root module).
    Input { call: String, input: String },
    /// The resource is in the module of `call`, which sets the argument (or leaves it unset) with
    /// no input the caller can change.
    NotExposed { call: String },
}

/// Whether a plan holds every change: a resource missing from `resource_changes` is unchanged only
/// in a complete plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Completeness {
    #[default]
    Complete,
    /// `errored: true`: Terraform stopped planning at an error.
    Errored,
    /// `complete: false` (a `-target` plan, or deferred changes).
    Partial,
}

impl Model {
    /// The model of a plan, its resources related by `relate`.
    pub fn build(raw: Raw, relate: fn(&Model) -> Relations) -> Self {
        // Only `errored` says planning failed: `applyable: false` alone is a plan with nothing
        // to apply (Terraform's internal/plans/plan.go; the JSON format's documentation).
        let errored = raw.errored == Some(true);
        let mut m = Model {
            completeness: if errored {
                Completeness::Errored
            } else if raw.complete == Some(false) {
                Completeness::Partial
            } else {
                Completeness::Complete
            },
            errored,
            applyable: raw.applyable,
            calls: raw.calls.into_iter().map(|c| (c.path.clone(), c)).collect(),
            ..Model::default()
        };
        for mut obj in raw.resource_changes {
            if !Resource::is_managed_mode(&obj) {
                continue;
            }
            let Some(i) = m.entry(&obj) else { continue };
            // A deposed object (an old copy kept by create_before_destroy) has the same address;
            // the current object's change is the one that says what the apply does.
            if obj.get("deposed").is_some() && m.resources[i].change.is_some() {
                continue;
            }
            if m.resources[i].change.is_none() {
                m.changed.push(i);
            }
            m.resources[i].change = Some(Change::from_object(&mut obj));
        }
        for mut obj in raw.resource_drift {
            if !Resource::is_managed_mode(&obj) {
                continue;
            }
            if let Some(i) = m.entry(&obj) {
                m.resources[i].drift = Some(Change::from_object(&mut obj));
            }
        }
        for (list, prior) in [(raw.planned, false), (raw.prior, true)] {
            for mut obj in list {
                // The parser keeps state values as their JSON text (see parse.rs).
                let tree = |v: Option<Value>| match v {
                    Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::Null),
                    Some(other) => other,
                    None => Value::Null,
                };
                if prior && Resource::is_ami_data_source(&obj) {
                    let address = obj
                        .get("address")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let segs = split_address(address);
                    let module = segs[..segs.len().saturating_sub(3)].join(".");
                    m.data.push(DataSource {
                        address: address.to_string(),
                        type_: obj
                            .get("type")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        module,
                        values: tree(obj.take("values")),
                        sensitive: tree(obj.take("sensitive_values")),
                    });
                    continue;
                }
                if !Resource::is_managed_mode(&obj) {
                    continue;
                }
                let Some(i) = m.entry(&obj) else { continue };
                let values = tree(obj.take("values"));
                let sensitive = tree(obj.take("sensitive_values"));
                if prior {
                    m.resources[i].prior = Some((values, sensitive));
                } else {
                    m.resources[i].planned = Some((values, sensitive));
                }
            }
        }
        let mut refs: HashMap<String, (Vec<String>, Vec<Argument>)> = HashMap::new();
        for (path, obj) in &raw.config {
            if !Resource::is_managed_mode(obj) {
                continue;
            }
            let Some(addr) = obj.get("address").and_then(Value::as_str) else {
                continue;
            };
            let full = if path.is_empty() {
                addr.to_string()
            } else {
                format!("{path}.{addr}")
            };
            // The parser keeps the references of `expressions` (see parse.rs).
            let found = obj
                .get("references")
                .and_then(Value::as_array)
                .unwrap_or_default()
                .iter()
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect();
            let args = obj
                .get("args")
                .and_then(Value::as_object)
                .map(|a| {
                    a.iter()
                        .map(|(path, vars)| {
                            let vars = vars
                                .as_array()
                                .unwrap_or_default()
                                .iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect();
                            (path.to_string(), vars)
                        })
                        .collect()
                })
                .unwrap_or_default();
            refs.insert(full, (found, args));
        }
        for r in &mut m.resources {
            if let Some((found, args)) = refs.get(&r.config_address) {
                r.references.clone_from(found);
                r.args.clone_from(args);
            }
        }
        for (i, r) in m.resources.iter().enumerate() {
            m.by_base.entry(r.base.clone()).or_default().push(i);
        }
        m.relations = relate(&m);
        m
    }

    fn entry(&mut self, obj: &Object) -> Option<usize> {
        let address = obj.get("address")?.as_str()?;
        if let Some(&i) = self.by_address.get(address) {
            return Some(i);
        }
        let type_ = obj.get("type").and_then(Value::as_str)?.to_string();
        let segs = split_address(address);
        // The last two segments are `type.name[key]`; the ones before are the module instance.
        let n = segs.len();
        if n < 2 {
            return None;
        }
        let module = segs[..n - 2].join(".");
        let name = strip_key(&segs[n - 1]);
        let base = if module.is_empty() {
            format!("{}.{name}", segs[n - 2])
        } else {
            format!("{module}.{}.{name}", segs[n - 2])
        };
        let config_address = segs[..n - 1]
            .iter()
            .map(|s| strip_key(s))
            .chain([name])
            .collect::<Vec<_>>()
            .join(".");
        self.resources.push(Resource {
            address: address.to_string(),
            type_,
            module,
            base,
            config_address,
            change: None,
            drift: None,
            planned: None,
            prior: None,
            references: Vec::new(),
            args: Vec::new(),
        });
        let i = self.resources.len() - 1;
        self.by_address.insert(address.to_string(), i);
        Some(i)
    }

    /// Resources of `type_` that `from` references in its configuration, resolved in its own module
    /// instance.
    pub fn referenced(&self, from: usize, type_: &str) -> Vec<usize> {
        let r = &self.resources[from];
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for a in self.references_of_type(from, type_) {
            // `aws_ecs_task_definition.app.arn` -> `aws_ecs_task_definition.app`
            let base: String = a.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
            let full = if r.module.is_empty() {
                base
            } else {
                format!("{}.{base}", r.module)
            };
            for &t in self.by_base.get(&full).into_iter().flatten() {
                if seen.insert(t) {
                    out.push(t);
                }
            }
        }
        out
    }

    /// Whether `from`'s configuration references any resource of `type_`.
    pub fn references_type(&self, from: usize, type_: &str) -> bool {
        self.references_of_type(from, type_).next().is_some()
    }

    fn references_of_type<'a>(
        &'a self,
        from: usize,
        type_: &'a str,
    ) -> impl Iterator<Item = &'a String> + 'a {
        self.resources[from]
            .references
            .iter()
            .filter(move |a| a.starts_with(type_) && a[type_.len()..].starts_with('.'))
    }

    /// The attribute through which `from` references `to` (`family` in
    /// `aws_ecs_task_definition.app.family`), when the configuration says.
    pub fn referenced_attribute(&self, from: usize, to: usize) -> Option<String> {
        let r = &self.resources[from];
        let t = &self.resources[to];
        let name = t.base.rsplit_once('.').map_or(t.base.as_str(), |(_, n)| n);
        let prefix = format!("{}.{name}.", t.type_);
        r.references
            .iter()
            .find_map(|a| a.strip_prefix(&prefix).map(str::to_string))
    }

    /// Where the argument at `path` (dotted, without block indexes) of resource `i` can be set.
    pub fn setting(&self, i: usize, path: &str) -> Setting {
        let r = &self.resources[i];
        let module = config_module(&r.config_address);
        if module.is_empty() {
            return Setting::Root;
        }
        let top = top_call(module).to_string();
        let Some(vars) = r.args.iter().find(|(p, _)| p == path).map(|(_, v)| v) else {
            return Setting::NotExposed { call: top };
        };
        let Some(mut input) = single(vars) else {
            return Setting::NotExposed { call: top };
        };
        let mut module = module.to_string();
        loop {
            let parent = parent_module(&module).to_string();
            let set_by_caller = self.calls.get(&module).and_then(|c| c.inputs.get(&input));
            if parent.is_empty() {
                // The root module calls this one: its input is the user's to set.
                return Setting::Input {
                    call: module,
                    input,
                };
            }
            match set_by_caller.and_then(|vars| single(vars)) {
                Some(outer) => {
                    input = outer;
                    module = parent;
                }
                None => return Setting::NotExposed { call: top },
            }
        }
    }

    pub fn of_type<'m>(&'m self, type_: &'m str) -> impl Iterator<Item = usize> + 'm {
        self.resources
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.type_ == type_)
            .map(|(i, _)| i)
    }
}

/// The one variable an expression references, when it references exactly one.
fn single(vars: &[String]) -> Option<String> {
    match vars {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// `module.a.module.b.aws_x.y` -> `module.a.module.b`; a root resource -> "".
fn config_module(config_address: &str) -> &str {
    let mut dots = config_address.rmatch_indices('.').map(|(i, _)| i);
    let _name = dots.next();
    match dots.next() {
        Some(i) => &config_address[..i],
        None => "",
    }
}

/// `module.a.module.b` -> `module.a`.
fn top_call(module: &str) -> &str {
    match module.match_indices(".module.").next() {
        Some((i, _)) => &module[..i],
        None => module,
    }
}

/// `module.a.module.b` -> `module.a`; `module.a` -> "".
fn parent_module(module: &str) -> &str {
    match module.rfind(".module.") {
        Some(i) => &module[..i],
        None => "",
    }
}

/// Splits an address at the dots outside `[...]` and quotes.
fn split_address(address: &str) -> Vec<String> {
    let mut segs = Vec::new();
    let mut cur = String::new();
    let (mut depth, mut quoted, mut escaped) = (0u32, false, false);
    for c in address.chars() {
        if quoted {
            cur.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                cur.push(c);
            }
            '[' => {
                depth += 1;
                cur.push(c);
            }
            ']' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            '.' if depth == 0 => segs.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    segs.push(cur);
    // A data resource's `data.` prefix belongs to its type segment.
    segs
}

fn strip_key(seg: &str) -> &str {
    seg.split_once('[').map_or(seg, |(s, _)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_split_outside_keys() {
        assert_eq!(
            split_address(r#"module.gpu["a.b"].aws_ecs_service.app[0]"#),
            [r#"module"#, r#"gpu["a.b"]"#, "aws_ecs_service", "app[0]"]
        );
    }
}
