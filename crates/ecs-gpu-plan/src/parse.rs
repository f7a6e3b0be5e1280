//! One streaming pass over `terraform show -json` output that keeps only GPU-stack resources.
//!
//! Plans of 100 MB are mostly resources this crate does not care about. Every resource object is
//! visited key by key: once its `type` is known and is not one of [`GPU_STACK_TYPES`], the rest of
//! the object is skipped with [`IgnoredAny`], which never builds a value.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use crate::json_tree::{Map, Str, Value};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// The resource types whose changes reach running GPU tasks and instances.
pub const GPU_STACK_TYPES: &[&str] = &[
    "aws_ecs_service",
    "aws_ecs_task_definition",
    "aws_launch_template",
    "aws_launch_configuration",
    "aws_autoscaling_group",
    "aws_ecs_capacity_provider",
    "aws_ecs_cluster",
    "aws_ecs_cluster_capacity_providers",
    "aws_appautoscaling_target",
];

/// The data sources an AMI comes from: read from `prior_state` (where Terraform writes what it read
/// while planning), to say which AMI a launch template's new image is. Managed resources of these
/// types are not part of the GPU stack.
pub const AMI_DATA_SOURCE_TYPES: &[&str] = &["aws_ssm_parameter", "aws_ami"];

/// A resource object (from any section) of a GPU-stack type, fields as found.
pub(crate) type Object = Map;

/// What one pass over the input found, before any interpretation.
#[derive(Debug, Default)]
pub(crate) struct Raw {
    /// The JSON type at the top, when it is not an object (`"an array"`, ...).
    pub not_object: Option<&'static str>,
    /// Top-level keys, in order, for saying what a non-plan document is.
    pub keys: Vec<String>,
    /// `format_version`: absent, a string, or present with a value that is not a string.
    pub format_version: FormatVersion,
    pub terraform_version: Option<String>,
    /// `errored`, `applyable` and `complete` (plan format 1.2, Terraform 1.5 and 1.8 on), when
    /// present and boolean.
    pub errored: Option<bool>,
    pub applyable: Option<bool>,
    pub complete: Option<bool>,
    pub resource_changes: Vec<Object>,
    /// Every entry of `resource_changes`, GPU stack or not.
    pub resource_change_count: usize,
    /// The entries of `resource_changes`, GPU stack or not, whose actions change something: not
    /// `["no-op"]` and not `["read"]`, the entries Terraform's own summary does not count.
    pub resource_changes_changing: usize,
    pub resource_drift: Vec<Object>,
    pub planned: Vec<Object>,
    pub prior: Vec<Object>,
    /// Configuration resources, each with the module path it is declared in (`module.gpu`, or "").
    pub config: Vec<(String, Object)>,
    /// The module calls of the configuration, by the path of the module they call.
    pub calls: Vec<ModuleCallInfo>,
}

/// `format_version` as found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) enum FormatVersion {
    #[default]
    Absent,
    Text(String),
    /// A number, `null`, or any other value that is not a string.
    NotText,
}

/// One module call of the configuration: what it calls, and the references of each input's
/// expression (only `var.` references are kept: they say which input of the caller sets it).
#[derive(Debug, Clone, Default)]
pub(crate) struct ModuleCallInfo {
    /// The configuration path of the called module (`module.gpu.module.service`).
    pub path: String,
    /// Input name -> the `var.` references of its expression (empty: a constant or other references).
    pub inputs: BTreeMap<String, Vec<String>>,
}

impl Raw {
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }
}

/// Reads the whole document from `de` in one pass.
pub(crate) fn read<'de, D: Deserializer<'de>>(de: D) -> Result<Raw, D::Error> {
    de.deserialize_any(TopVisitor)
}

struct TopVisitor;

impl TopVisitor {
    fn read_fields<'de, A: MapAccess<'de>>(self, map: &mut A) -> Result<Raw, A::Error> {
        let mut raw = Raw::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format_version" => {
                    raw.format_version = match map.next_value::<Value>()? {
                        Value::String(s) => FormatVersion::Text(s.to_string()),
                        _ => FormatVersion::NotText,
                    }
                }
                "terraform_version" => {
                    raw.terraform_version = map.next_value::<Option<Scalar>>()?.map(|s| s.0);
                }
                "errored" => raw.errored = map.next_value::<Value>()?.as_bool(),
                "applyable" => raw.applyable = map.next_value::<Value>()?.as_bool(),
                "complete" => raw.complete = map.next_value::<Value>()?.as_bool(),
                "resource_changes" => {
                    let list = map
                        .next_value_seed(OptionalList {
                            section: "resource_changes",
                        })?
                        .unwrap_or_default();
                    raw.resource_change_count = list.total;
                    raw.resource_changes_changing = list.changing;
                    raw.resource_changes = list.kept;
                    // Memory: a resource whose change gives both sides never reads its planned
                    // values (read before, in Terraform's order) or its prior state (read after).
                    let (after_known, both_known) = change_sides(&raw.resource_changes);
                    raw.planned.retain(|o| {
                        !o.get("address")
                            .and_then(Value::as_str)
                            .is_some_and(|a| after_known.contains(a))
                    });
                    PRIOR_NOT_NEEDED.with(|s| *s.borrow_mut() = both_known);
                }
                "resource_drift" => {
                    raw.resource_drift = map
                        .next_value_seed(OptionalList {
                            section: "resource_drift",
                        })?
                        .unwrap_or_default()
                        .kept;
                }
                "planned_values" => {
                    if let Some(v) = map.next_value::<Option<StateValues>>()? {
                        v.flatten_into(&mut raw.planned);
                    }
                }
                "prior_state" => {
                    let prior = map.next_value::<Option<PriorState>>();
                    PRIOR_NOT_NEEDED.with(|s| s.borrow_mut().clear());
                    if let Some(s) = prior? {
                        if let Some(v) = s.values {
                            v.flatten_into(&mut raw.prior);
                        }
                    }
                }
                "configuration" => {
                    if let Some(c) = map.next_value::<Option<Configuration>>()? {
                        if let Some(m) = c.root_module {
                            m.flatten_into("", &mut raw.config, &mut raw.calls);
                        }
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if raw.keys.len() < 64 {
                raw.keys.push(key);
            }
        }
        Ok(raw)
    }
}

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        // Whatever a previous read on this thread left (an error mid-way), this read starts empty.
        PRIOR_NOT_NEEDED.with(|s| s.borrow_mut().clear());
        let raw = self.read_fields(&mut map);
        PRIOR_NOT_NEEDED.with(|s| s.borrow_mut().clear());
        raw
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Raw {
            not_object: Some("a JSON array"),
            ..Raw::default()
        })
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Raw, E> {
        Ok(Raw {
            not_object: Some("a JSON string"),
            ..Raw::default()
        })
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Raw, E> {
        Ok(Raw {
            not_object: Some("a JSON boolean"),
            ..Raw::default()
        })
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Raw, E> {
        Ok(Raw {
            not_object: Some("a JSON number"),
            ..Raw::default()
        })
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Raw, E> {
        Ok(Raw {
            not_object: Some("a JSON number"),
            ..Raw::default()
        })
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Raw, E> {
        Ok(Raw {
            not_object: Some("a JSON number"),
            ..Raw::default()
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw {
            not_object: Some("JSON null"),
            ..Raw::default()
        })
    }
}

thread_local! {
    /// While `prior_state` is read: the addresses whose prior values the model never reads (the
    /// change has a `before` and an `after`), so their `values` are skipped without being built. Set
    /// and cleared around that one field by [`TopVisitor`]; a thread-local because serde's derived
    /// visitors of the state tree take no seed.
    static PRIOR_NOT_NEEDED: std::cell::RefCell<std::collections::HashSet<String>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

/// The addresses of the (current, not deposed) changes whose `after` the model takes from the
/// change (it is not a delete only), and of those whose `before` is also there.
fn change_sides(
    changes: &[Object],
) -> (
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
) {
    let mut after = std::collections::HashSet::new();
    let mut both = std::collections::HashSet::new();
    for o in changes {
        if o.get("deposed").is_some() {
            continue;
        }
        let Some(address) = o.get("address").and_then(Value::as_str) else {
            continue;
        };
        let Some(c) = o.get("change") else { continue };
        let has = |a: &str| {
            c.get("actions")
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(|x| x.as_str() == Some(a)))
        };
        if has("delete") && !has("create") {
            continue;
        }
        after.insert(address.to_string());
        if c.get("before").is_some_and(|b| !b.is_null()) {
            both.insert(address.to_string());
        }
    }
    (after, both)
}

/// `null` or a [`GpuList`].
struct OptionalList {
    section: &'static str,
}

impl<'de> DeserializeSeed<'de> for OptionalList {
    type Value = Option<GpuObjects>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptionalList {
    type Value = Option<GpuObjects>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of resource objects")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        GpuList {
            section: self.section,
            kind: Kind::Change,
        }
        .deserialize(de)
        .map(Some)
    }
}

/// A version string; a number (`"terraform_version": 1.11` in a hand-edited file) is accepted too.
struct Scalar(String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        match Value::deserialize(de)? {
            Value::String(s) => Ok(Scalar(s.to_string())),
            Value::Number(n) => Ok(Scalar(n.to_string())),
            _ => Err(de::Error::custom("expected a version string")),
        }
    }
}

/// A list of resource objects, of which only the GPU-stack ones are kept.
#[derive(Debug, Default)]
struct GpuObjects {
    kept: Vec<Object>,
    total: usize,
    /// Entries (GPU stack or not) whose `change.actions` change something.
    changing: usize,
}

impl<'de> Deserialize<'de> for GpuObjects {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        GpuList {
            section: "resources",
            kind: Kind::State,
        }
        .deserialize(de)
    }
}

/// The resources of a configuration module, of which only the GPU-stack ones are kept, each with
/// the references of its `expressions` in place of them (see [`Kind::Config`]).
#[derive(Debug, Default)]
struct ConfigObjects(GpuObjects);

impl<'de> Deserialize<'de> for ConfigObjects {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        GpuList {
            section: "resources",
            kind: Kind::Config,
        }
        .deserialize(de)
        .map(ConfigObjects)
    }
}

/// Which list a resource object is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `resource_changes` or `resource_drift`: the entry must have a `change` of the plan format's
    /// shape.
    Change,
    /// `planned_values` or `prior_state`.
    State,
    /// `configuration`: only the references of the `expressions` are read, so the object keeps them
    /// (a list of strings, under `references`) and not the expressions.
    Config,
}

/// A list of resource objects.
struct GpuList {
    /// The JSON path of the list, for errors.
    section: &'static str,
    kind: Kind,
}

impl<'de> DeserializeSeed<'de> for GpuList {
    type Value = GpuObjects;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<GpuObjects, D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for GpuList {
    type Value = GpuObjects;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of resource objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GpuObjects, A::Error> {
        let mut list = GpuObjects::default();
        while let Some(obj) = seq.next_element_seed(GpuObjectSeed {
            section: self.section,
            index: list.total,
            kind: self.kind,
        })? {
            list.total += 1;
            if obj.changing {
                list.changing += 1;
            }
            if let Some(obj) = obj.kept {
                list.kept.push(obj);
            }
        }
        Ok(list)
    }
}

/// The prefix of the messages of a resource object that does not have the plan format's shape;
/// `Error::from_json` keeps these messages whole (they hold no value from the input but the
/// address).
pub(crate) const WRONG_SHAPE: &str = "wrong shape: ";

/// A wrong-shape error naming the entry and the path inside it.
fn wrong_shape<E: de::Error>(
    (section, index): (&str, usize),
    address: Option<&str>,
    what: &str,
) -> E {
    let at = match address {
        Some(a) => format!("`{section}[{index}]` (`{a}`)"),
        None => format!("`{section}[{index}]`"),
    };
    E::custom(format!("{WRONG_SHAPE}{at}: {what}"))
}

/// Checks the fields of a `change` the effects read: `actions` a list of strings, `replace_paths` a
/// list of lists.
fn check_change<E: de::Error>(
    index: (&str, usize),
    address: Option<&str>,
    change: &Value,
) -> Result<(), E> {
    let Some(c) = change.as_object() else {
        return Err(wrong_shape(index, address, "`change` must be an object"));
    };
    match c.get("actions") {
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
        _ => {
            return Err(wrong_shape(
                index,
                address,
                "`change.actions` must be a list of strings",
            ))
        }
    }
    match c.get("replace_paths") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) if a.iter().all(Value::is_array) => {}
        Some(_) => {
            return Err(wrong_shape(
                index,
                address,
                "`change.replace_paths` must be a list of lists",
            ))
        }
    }
    Ok(())
}

/// One resource object: `Some` when its `type` is in the GPU stack, `None` (nothing built) otherwise.
struct GpuObjectSeed {
    /// Its list and place in it, for errors.
    section: &'static str,
    index: usize,
    kind: Kind,
}

/// What the pass keeps of one resource object.
struct Seen {
    /// The object, when its type is in the GPU stack.
    kept: Option<Object>,
    /// Whether its `change.actions` change something (a change entry only).
    changing: bool,
}

/// Whether a `change` of an entry of another type changes something: only its `actions` are read,
/// the rest is skipped unread, and a shape this crate does not read is not an error (the entry is
/// not counted).
struct ChangesSomething(bool);

impl<'de> Deserialize<'de> for ChangesSomething {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ChangesSomething;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a change")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut changing = false;
                while let Some(key) = map.next_key::<Str>()? {
                    if &*key == "actions" {
                        let actions: Value = map.next_value()?;
                        changing = actions.as_array().is_some_and(changes_something);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ChangesSomething(changing))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ChangesSomething(false))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ChangesSomething(false))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ChangesSomething(false))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ChangesSomething(false))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ChangesSomething(false))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ChangesSomething(false))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ChangesSomething(false))
            }
        }
        de.deserialize_any(V)
    }
}

/// Whether a list of actions changes something: Terraform counts neither `no-op` nor `read`.
fn changes_something(actions: &[Value]) -> bool {
    !actions.is_empty()
        && !actions
            .iter()
            .all(|a| matches!(a.as_str(), Some("no-op" | "read")))
}

impl<'de> DeserializeSeed<'de> for GpuObjectSeed {
    type Value = Seen;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for GpuObjectSeed {
    type Value = Seen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a resource object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Terraform writes `type` before the large fields (`change`, `values`, `expressions`); in a
        // reordered file the fields before `type` are kept until it is known.
        let mut keep: Option<bool> = None;
        let mut fields: Vec<(Str, Value)> = Vec::new();
        let mut address: Option<String> = None;
        let mut changing = false;
        while let Some(key) = map.next_key::<Str>()? {
            if &*key == "type" {
                // A second `type` would make the resource whichever type came last: refuse it.
                if keep.is_some() {
                    return Err(wrong_shape(
                        (self.section, self.index),
                        address.as_deref(),
                        "a second `type` key",
                    ));
                }
                let value: Value = map.next_value()?;
                let Some(t) = value.as_str() else {
                    return Err(wrong_shape(
                        (self.section, self.index),
                        address.as_deref(),
                        "`type` must be a string",
                    ));
                };
                let gpu = GPU_STACK_TYPES.contains(&t) || AMI_DATA_SOURCE_TYPES.contains(&t);
                keep = Some(gpu);
                if gpu {
                    fields.push((key, value));
                } else {
                    fields = Vec::new();
                }
                continue;
            }
            if keep == Some(false) {
                if self.kind == Kind::Change && &*key == "change" {
                    changing = map.next_value::<ChangesSomething>()?.0;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
                continue;
            }
            if self.kind == Kind::Config && &*key == "references" {
                // Not a field of the format; the name holds the references of `expressions`.
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if self.kind == Kind::Config && &*key == "args" {
                // Not a field of the format either: the name holds the arguments of `expressions`.
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if self.kind == Kind::Config && &*key == "expressions" {
                // One resource's expressions are built, read and dropped: all of them at once cost
                // several times the configuration's text.
                let expressions: serde_json::Value = map.next_value()?;
                let mut found = References::default();
                collect_references(&expressions, &mut found);
                let found = found
                    .list
                    .into_iter()
                    .map(|r| Value::String(r.as_str().into()));
                fields.push(("references".into(), Value::Array(found.collect())));
                let mut args = Vec::new();
                collect_arguments(&expressions, "", &mut args);
                let args = args.into_iter().map(|(path, vars)| {
                    let vars = vars.into_iter().map(|v| Value::String(v.as_str().into()));
                    (Str::from(path.as_str()), Value::Array(vars.collect()))
                });
                fields.push((
                    "args".into(),
                    Value::Object(Map::from_entries(args.collect())),
                ));
                continue;
            }
            let state_values =
                self.kind == Kind::State && (&*key == "values" || &*key == "sensitive_values");
            if state_values
                && address
                    .as_deref()
                    .is_some_and(|a| PRIOR_NOT_NEEDED.with(|s| s.borrow().contains(a)))
            {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if state_values {
                // State values stay JSON text until the model takes them: a tree of values is
                // about twice the size of its text, and most entries are never read.
                let raw: Box<serde_json::value::RawValue> = map.next_value()?;
                fields.push((key, Value::String(raw.get().into())));
                continue;
            }
            let value: Value = map.next_value()?;
            if &*key == "address" {
                address = value.as_str().map(str::to_string);
            }
            fields.push((key, value));
        }
        if keep != Some(true) {
            // A reordered entry whose `type` came after its `change`: the change was kept until then.
            if let Some((_, c)) = fields.iter().find(|(k, _)| &**k == "change") {
                changing = c
                    .get("actions")
                    .and_then(Value::as_array)
                    .is_some_and(changes_something);
            }
            return Ok(Seen {
                kept: None,
                changing,
            });
        }
        let obj = Object::from_entries(fields);
        if obj.get("address").is_some_and(|a| !a.is_string()) {
            return Err(wrong_shape(
                (self.section, self.index),
                None,
                "`address` must be a string",
            ));
        }
        if self.kind == Kind::Change {
            let change = obj.get("change").unwrap_or(&Value::Null);
            check_change((self.section, self.index), address.as_deref(), change)?;
            changing = change
                .get("actions")
                .and_then(Value::as_array)
                .is_some_and(changes_something);
        }
        Ok(Seen {
            kept: Some(obj),
            changing,
        })
    }
}

/// `planned_values` and `prior_state.values`.
#[derive(Debug, Deserialize)]
struct StateValues {
    #[serde(default)]
    root_module: Option<StateModule>,
}

impl StateValues {
    fn flatten_into(self, out: &mut Vec<Object>) {
        if let Some(m) = self.root_module {
            m.flatten_into(out);
        }
    }
}

#[derive(Debug, Deserialize)]
struct PriorState {
    #[serde(default)]
    values: Option<StateValues>,
}

#[derive(Debug, Deserialize)]
struct StateModule {
    #[serde(default)]
    resources: Option<GpuObjects>,
    #[serde(default)]
    child_modules: Option<Vec<StateModule>>,
}

impl StateModule {
    fn flatten_into(self, out: &mut Vec<Object>) {
        if let Some(r) = self.resources {
            out.extend(r.kept);
        }
        for c in self.child_modules.unwrap_or_default() {
            c.flatten_into(out);
        }
    }
}

#[derive(Debug, Deserialize)]
struct Configuration {
    #[serde(default)]
    root_module: Option<ConfigModule>,
}

#[derive(Debug, Deserialize)]
struct ConfigModule {
    #[serde(default)]
    resources: Option<ConfigObjects>,
    #[serde(default)]
    module_calls: Option<BTreeMap<String, ModuleCall>>,
}

#[derive(Debug, Deserialize)]
struct ModuleCall {
    /// Each input's expression, reduced to its `var.` references as it is read.
    #[serde(default)]
    expressions: Option<CallInputs>,
    #[serde(default)]
    module: Option<ConfigModule>,
}

/// The inputs of a module call: name -> the `var.` references of its expression.
#[derive(Debug, Default)]
struct CallInputs(BTreeMap<String, Vec<String>>);

impl<'de> Deserialize<'de> for CallInputs {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let raw: BTreeMap<String, serde_json::Value> = BTreeMap::deserialize(de)?;
        Ok(CallInputs(
            raw.into_iter()
                .map(|(name, expr)| {
                    let mut refs = References::default();
                    collect_references(&expr, &mut refs);
                    (name, refs.vars)
                })
                .collect(),
        ))
    }
}

impl ConfigModule {
    fn flatten_into(
        self,
        path: &str,
        out: &mut Vec<(String, Object)>,
        calls: &mut Vec<ModuleCallInfo>,
    ) {
        if let Some(r) = self.resources {
            out.extend(r.0.kept.into_iter().map(|o| (path.to_string(), o)));
        }
        for (name, call) in self.module_calls.unwrap_or_default() {
            let child = if path.is_empty() {
                format!("module.{name}")
            } else {
                format!("{path}.module.{name}")
            };
            calls.push(ModuleCallInfo {
                path: child.clone(),
                inputs: call.expressions.unwrap_or_default().0,
            });
            if let Some(m) = call.module {
                m.flatten_into(&child, out, calls);
            }
        }
    }
}

/// The references of an expression tree: resource addresses (indexes dropped) and `var.` names.
#[derive(Debug, Default)]
struct References {
    /// Resource addresses, in order of first appearance, each once.
    list: Vec<String>,
    seen: HashSet<String>,
    /// The `var.NAME` references, as `NAME`, in order of first appearance, each once.
    vars: Vec<String>,
    vars_seen: HashSet<String>,
}

impl References {
    fn add(&mut self, r: &str) {
        let first = r.split('.').next().unwrap_or("");
        if first == "var" {
            let name = strip_indexes(r.split('.').nth(1).unwrap_or(""));
            // A set here too: an expression may reference a hundred thousand variables.
            if !name.is_empty() && self.vars_seen.insert(name.clone()) {
                self.vars.push(name);
            }
            return;
        }
        let skip = [
            "local",
            "module",
            "data",
            "each",
            "count",
            "path",
            "terraform",
            "self",
        ];
        if skip.contains(&first) {
            return;
        }
        let r = strip_indexes(r);
        // A set, not a scan of the list: a configuration may hold a hundred thousand references.
        if self.seen.insert(r.clone()) {
            self.list.push(r);
        }
    }
}

/// Every resource address in `references` lists (`aws_ecs_task_definition.app.arn` →
/// `aws_ecs_task_definition.app.arn` kept whole; the caller matches by prefix), and the variables.
fn collect_references(v: &serde_json::Value, out: &mut References) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("constant_value", _) => {}
                    ("references", serde_json::Value::Array(refs)) => {
                        for r in refs.iter().filter_map(serde_json::Value::as_str) {
                            out.add(r);
                        }
                    }
                    _ => collect_references(v, out),
                }
            }
        }
        serde_json::Value::Array(a) => {
            for v in a {
                collect_references(v, out);
            }
        }
        _ => {}
    }
}

/// Every argument of a resource's `expressions`, as a dotted path without block indexes
/// (`instance_refresh.preferences.min_healthy_percentage`), with the variables its expression
/// references. An argument the configuration does not set is not in the list.
fn collect_arguments(v: &serde_json::Value, prefix: &str, out: &mut Vec<(String, Vec<String>)>) {
    let serde_json::Value::Object(o) = v else {
        return;
    };
    for (k, v) in o {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let is_expression = |x: &serde_json::Value| {
            x.get("references").is_some() || x.get("constant_value").is_some()
        };
        match v {
            serde_json::Value::Object(_) if is_expression(v) => {
                let mut refs = References::default();
                collect_references(v, &mut refs);
                out.push((path, refs.vars));
            }
            serde_json::Value::Object(_) => collect_arguments(v, &path, out),
            serde_json::Value::Array(blocks) => {
                // A block appears as a list of objects; its arguments are merged under one path.
                out.push((path.clone(), Vec::new()));
                for b in blocks {
                    collect_arguments(b, &path, out);
                }
            }
            _ => {}
        }
    }
}

/// `aws_launch_template.gpu[0].id` → `aws_launch_template.gpu.id`.
fn strip_indexes(r: &str) -> String {
    let mut out = String::with_capacity(r.len());
    let mut depth = 0u32;
    for c in r.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_gpu_stack_resources_and_counts_all() {
        let json = r#"{"format_version":"1.2","resource_changes":[
            {"address":"aws_s3_bucket.b","type":"aws_s3_bucket","change":{"after":{"x":[1,2,{"y":"z"}]}}},
            {"address":"aws_ecs_service.app","type":"aws_ecs_service","change":{"actions":["update"]}}
        ]}"#;
        let raw = read(&mut serde_json::Deserializer::from_str(json)).unwrap();
        assert_eq!(raw.resource_change_count, 2);
        assert_eq!(raw.resource_changes.len(), 1);
        let address = raw.resource_changes[0]
            .get("address")
            .and_then(Value::as_str);
        assert_eq!(address, Some("aws_ecs_service.app"));
    }

    #[test]
    fn a_type_after_the_change_is_still_filtered() {
        let json = r#"{"resource_changes":[{"change":{"after":{}},"type":"aws_s3_bucket"}]}"#;
        let raw = read(&mut serde_json::Deserializer::from_str(json)).unwrap();
        assert!(raw.resource_changes.is_empty());
    }

    #[test]
    fn configuration_module_paths_nest() {
        let json = r#"{"configuration":{"root_module":{"module_calls":{"gpu":{"module":{
            "resources":[{"address":"aws_ecs_service.app","type":"aws_ecs_service"}],
            "module_calls":{"inner":{"module":{"resources":[{"address":"aws_ecs_cluster.c","type":"aws_ecs_cluster"}]}}}
        }}}}}}"#;
        let raw = read(&mut serde_json::Deserializer::from_str(json)).unwrap();
        let paths: Vec<&str> = raw.config.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["module.gpu", "module.gpu.module.inner"]);
    }

    #[test]
    fn references_drop_indexes_and_non_resources() {
        let e = serde_json::json!({
            "launch_template": [{"id": {"references": ["aws_launch_template.gpu[0].id", "aws_launch_template.gpu"]}}],
            "name": {"references": ["var.name"]},
            "tags": {"constant_value": {"references": ["aws_x.y"]}}
        });
        let mut out = References::default();
        collect_references(&e, &mut out);
        assert_eq!(
            out.list,
            ["aws_launch_template.gpu.id", "aws_launch_template.gpu"]
        );
        assert_eq!(out.vars, ["name"]);
    }
}
