//! What a saved AWS CLI output may hold before it is parsed, and the few fields only the
//! simulation reads, taken out of it without building the rest.
//!
//! The typed inputs ([`crate::api`]) build a struct of a few hundred bytes for every object of a
//! list, so a small file of empty objects became a large memory (figures in bench/README.md).
//! [`check_shape`] walks the text once, before
//! any parse, and refuses what AWS CLI output never holds: more items in one list than a live run
//! reads ([`MAX_SAVED_ITEMS`]), more objects and lists than one per [`MIN_BYTES_PER_CONTAINER`]
//! bytes, more values than one per [`MIN_BYTES_PER_VALUE`] bytes, nesting deeper than
//! [`MAX_NESTING`]. Within those, what a parse builds stays within a small multiple of the text
//! (`docs/limits.md` gives the figures).

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The most items of one list a saved output may hold (container instances, tasks, services,
/// groups...), in one file or in all the files of one call together: as many as live `diagnose`
/// reads of one list. ECS's own quotas are below it (5,000 container instances per cluster).
pub const MAX_SAVED_ITEMS: usize = 10_000;

/// The fewest bytes an object or a list of AWS CLI output takes, on average over a file, that a
/// saved output may have: real output, even minified, takes about 60 (an attribute
/// `{"name":"ecs.os-type","value":"linux"}` is 38); `{}` takes 3.
pub const MIN_BYTES_PER_CONTAINER: usize = 24;

/// The fewest bytes a value (a string, number, boolean or null) takes on average: real output
/// takes about 25 (`"integerValue": 4096`); `[1,1,...]` takes 2.
pub const MIN_BYTES_PER_VALUE: usize = 8;

/// What the averages above allow at least, whatever the file's size: a small file of a few empty
/// lists is real output.
const SMALL: usize = 4_096;

/// The deepest nesting of objects and lists a saved output may have (AWS CLI output is a few
/// levels deep).
pub const MAX_NESTING: usize = 64;

/// Why a saved output is not read: it is not what the AWS CLI prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapeError {
    /// A list with more items than [`MAX_SAVED_ITEMS`].
    ManyItems {
        key: String,
    },
    /// More objects and lists than one per [`MIN_BYTES_PER_CONTAINER`] bytes.
    Dense {
        containers: usize,
        bytes: usize,
    },
    /// More values than one per [`MIN_BYTES_PER_VALUE`] bytes.
    ManyValues {
        values: usize,
        bytes: usize,
    },
    Deep,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeError::ManyItems { key } => write!(
                f,
                "{key} lists more than {MAX_SAVED_ITEMS} items, more than `diagnose` reads of one list live"
            ),
            ShapeError::Dense { containers, bytes } => write!(
                f,
                "{containers} objects and lists in {bytes} bytes, more than one per {MIN_BYTES_PER_CONTAINER} bytes: not AWS CLI output (it takes about 60 bytes per object)"
            ),
            ShapeError::ManyValues { values, bytes } => write!(
                f,
                "{values} values in {bytes} bytes, more than one per {MIN_BYTES_PER_VALUE} bytes: not AWS CLI output"
            ),
            ShapeError::Deep => write!(
                f,
                "objects and lists nested more than {MAX_NESTING} deep: not AWS CLI output"
            ),
        }
    }
}

/// The first `n` characters of `s`, with `…` when it is longer.
fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Checks the shape of a saved output's text in one pass, before any parse (see the module's
/// doc). Text that is not JSON passes: the parse says what is wrong with it.
///
/// # Errors
/// What the text holds past the bounds.
pub fn check_shape(text: &str) -> Result<(), ShapeError> {
    let bytes = text.as_bytes();
    let mut containers = 0usize;
    let mut values = 0usize;
    // Per open container: whether it is a list, and the items counted in it so far.
    let mut stack: Vec<(bool, usize)> = Vec::new();
    // The key of the top object's member being read, for the message.
    let mut key: &str = "";
    // Whether the next token starts a value (after `[`, `,` in a list, `:`).
    let mut expect_value = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if stack.len() == 1 && !stack[0].0 && !expect_value {
                    key = text.get(start..i.min(bytes.len())).unwrap_or("");
                }
                if expect_value {
                    values += 1;
                    count_item(&mut stack, key)?;
                }
                expect_value = false;
            }
            b'{' | b'[' => {
                if expect_value {
                    count_item(&mut stack, key)?;
                }
                containers += 1;
                stack.push((b == b'[', 0));
                if stack.len() > MAX_NESTING {
                    return Err(ShapeError::Deep);
                }
                expect_value = b == b'[';
            }
            b'}' | b']' => {
                stack.pop();
                expect_value = false;
            }
            b',' => expect_value = stack.last().is_some_and(|(list, _)| *list),
            b':' => expect_value = true,
            b if b.is_ascii_whitespace() => {}
            _ => {
                // A number, `true`, `false`, `null`: one value, up to its end.
                if expect_value {
                    values += 1;
                    count_item(&mut stack, key)?;
                }
                expect_value = false;
                while i + 1 < bytes.len()
                    && !matches!(bytes[i + 1], b',' | b']' | b'}' | b':' | b'"')
                    && !bytes[i + 1].is_ascii_whitespace()
                {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    let len = bytes.len();
    if containers > SMALL + len / MIN_BYTES_PER_CONTAINER {
        return Err(ShapeError::Dense {
            containers,
            bytes: len,
        });
    }
    if values > SMALL + len / MIN_BYTES_PER_VALUE {
        return Err(ShapeError::ManyValues { values, bytes: len });
    }
    Ok(())
}

/// Counts an item of the list at the top of `stack`, when it is a list of the top object (a
/// member's list: `services`, `containerInstances`) or the top list itself.
fn count_item(stack: &mut [(bool, usize)], key: &str) -> Result<(), ShapeError> {
    let depth = stack.len();
    let top_list = depth == 1 || (depth == 2 && !stack[0].0);
    if let Some((true, n)) = stack.last_mut() {
        if top_list {
            *n += 1;
            if *n > MAX_SAVED_ITEMS {
                return Err(ShapeError::ManyItems {
                    key: if depth == 1 {
                        "the top list".to_string()
                    } else {
                        format!("`{}`", cut(key, 64))
                    },
                });
            }
        }
    }
    Ok(())
}

/// A scalar as it was written (a string, a number, a boolean), or nothing for `null` and for what
/// is not a scalar (skipped without being built): the simulation reads these fields leniently,
/// a wrong type is as absent.
#[derive(Debug, Default)]
struct Scalar(Option<Value>);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(serde_json::Number::from_f64(v).map(Value::Number)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.into())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// An object of the named fields (`T`), or nothing for what is not an object.
#[derive(Debug)]
struct Lenient<T>(Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lenient<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Lenient<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Lenient(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lenient<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Lenient<T>, E> {
                Ok(Lenient(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A list of at most `MAX` `T` objects (an item that is not an object is skipped), or nothing for
/// what is not a list. `FIRST`: only the first item is kept, the others are skipped unread.
#[derive(Debug)]
struct List<T, const MAX: usize, const FIRST: bool = false>(Option<Vec<T>>);

impl<T, const MAX: usize, const FIRST: bool> Default for List<T, MAX, FIRST> {
    fn default() -> Self {
        List(None)
    }
}

impl<'de, T: Deserialize<'de>, const MAX: usize, const FIRST: bool> Deserialize<'de>
    for List<T, MAX, FIRST>
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T, const MAX: usize, const FIRST: bool>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const MAX: usize, const FIRST: bool> Visitor<'de>
            for V<T, MAX, FIRST>
        {
            type Value = List<T, MAX, FIRST>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                let mut n = 0usize;
                loop {
                    if FIRST && n > 0 {
                        if seq.next_element::<IgnoredAny>()?.is_none() {
                            break;
                        }
                        continue;
                    }
                    let Some(Lenient(item)) = seq.next_element::<Lenient<T>>()? else {
                        break;
                    };
                    n += 1;
                    if n > MAX {
                        return Err(de::Error::custom(format!(
                            "a list of more than {MAX} items where the AWS API accepts {MAX}"
                        )));
                    }
                    out.extend(item);
                }
                Ok(List(Some(out)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(List(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(List(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(List(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(List(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(List(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(List(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(List(None))
            }
        }
        d.deserialize_any(V::<T, MAX, FIRST>(std::marker::PhantomData))
    }
}

/// The most instance types (overrides) of one Auto Scaling group: "The maximum number of
/// instance types that can be associated with an Auto Scaling group is 40" (the AWS CDK's
/// `MixedInstancesPolicy.launchTemplateOverrides`, quoting EC2 Auto Scaling).
const MAX_OVERRIDES: usize = 40;

/// An object of the fields read, in the AWS CLI's shape: each field that is there.
fn object(fields: Vec<(&str, Option<Value>)>) -> Value {
    let mut m = Map::new();
    for (k, v) in fields {
        if let Some(v) = v {
            m.insert(k.to_string(), v);
        }
    }
    Value::Object(m)
}

fn list<T, const MAX: usize, const FIRST: bool>(
    items: List<T, MAX, FIRST>,
    f: impl Fn(T) -> Value,
) -> Option<Value> {
    items
        .0
        .map(|l| Value::Array(l.into_iter().map(f).collect()))
}

fn inner<T>(o: Lenient<T>, f: impl FnOnce(T) -> Value) -> Option<Value> {
    o.0.map(f)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ServiceExtra {
    #[serde(default)]
    service_name: Scalar,
    #[serde(default)]
    deployment_configuration: Lenient<DeploymentConfigurationExtra>,
    #[serde(default)]
    deployment_controller: Lenient<TypeExtra>,
    /// The simulation reads the first strategy only (the one that decides among instances).
    #[serde(default)]
    placement_strategy: List<PlacementStrategyExtra, 1, true>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeploymentConfigurationExtra {
    #[serde(default)]
    strategy: Scalar,
    #[serde(default)]
    bake_time_in_minutes: Scalar,
}

#[derive(Deserialize)]
struct TypeExtra {
    #[serde(default, rename = "type")]
    type_: Scalar,
}

#[derive(Deserialize)]
struct PlacementStrategyExtra {
    #[serde(default, rename = "type")]
    type_: Scalar,
    #[serde(default)]
    field: Scalar,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProviderExtra {
    #[serde(default)]
    name: Scalar,
    #[serde(default)]
    auto_scaling_group_provider: Lenient<AsgProviderExtra>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AsgProviderExtra {
    #[serde(default)]
    managed_scaling: Lenient<ManagedScalingExtra>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ManagedScalingExtra {
    #[serde(default)]
    minimum_scaling_step_size: Scalar,
    #[serde(default)]
    maximum_scaling_step_size: Scalar,
    #[serde(default)]
    instance_warmup_period: Scalar,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GroupExtra {
    #[serde(default)]
    auto_scaling_group_name: Scalar,
    #[serde(default)]
    mixed_instances_policy: Lenient<MixedExtra>,
    #[serde(default)]
    warm_pool_configuration: Lenient<WarmPoolExtra>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MixedExtra {
    #[serde(default)]
    launch_template: Lenient<LaunchTemplateExtra>,
    #[serde(default)]
    instances_distribution: Lenient<DistributionExtra>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct LaunchTemplateExtra {
    #[serde(default)]
    overrides: List<OverrideExtra, MAX_OVERRIDES>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct OverrideExtra {
    #[serde(default)]
    instance_type: Scalar,
    #[serde(default)]
    weighted_capacity: Scalar,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DistributionExtra {
    #[serde(default)]
    on_demand_base_capacity: Scalar,
    #[serde(default)]
    on_demand_percentage_above_base_capacity: Scalar,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WarmPoolExtra {
    #[serde(default)]
    pool_state: Scalar,
    #[serde(default)]
    min_size: Scalar,
    #[serde(default)]
    max_group_prepared_capacity: Scalar,
}

#[derive(Deserialize)]
struct Services {
    #[serde(default)]
    services: List<ServiceExtra, MAX_SAVED_ITEMS>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Providers {
    #[serde(default)]
    capacity_providers: List<ProviderExtra, MAX_SAVED_ITEMS>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Groups {
    #[serde(default)]
    auto_scaling_groups: List<GroupExtra, MAX_SAVED_ITEMS>,
}

/// The services of a `describe-services` output with only the fields the simulation reads
/// (`serviceName`, the deployment configuration's strategy and bake time, the deployment
/// controller, the first placement strategy), in the AWS CLI's shape.
pub(crate) fn services(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    let s: Services = serde_json::from_str(text)?;
    Ok(s.services
        .0
        .unwrap_or_default()
        .into_iter()
        .map(|s| {
            object(vec![
                ("serviceName", s.service_name.0),
                (
                    "deploymentConfiguration",
                    inner(s.deployment_configuration, |d| {
                        object(vec![
                            ("strategy", d.strategy.0),
                            ("bakeTimeInMinutes", d.bake_time_in_minutes.0),
                        ])
                    }),
                ),
                (
                    "deploymentController",
                    inner(s.deployment_controller, |c| {
                        object(vec![("type", c.type_.0)])
                    }),
                ),
                (
                    "placementStrategy",
                    list(s.placement_strategy, |p| {
                        object(vec![("type", p.type_.0), ("field", p.field.0)])
                    }),
                ),
            ])
        })
        .collect())
}

/// The capacity providers of a `describe-capacity-providers` output with only their name and
/// managed scaling's step sizes and warmup.
pub(crate) fn capacity_providers(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    let p: Providers = serde_json::from_str(text)?;
    Ok(p.capacity_providers
        .0
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            object(vec![
                ("name", p.name.0),
                (
                    "autoScalingGroupProvider",
                    inner(p.auto_scaling_group_provider, |a| {
                        object(vec![(
                            "managedScaling",
                            inner(a.managed_scaling, |m| {
                                object(vec![
                                    ("minimumScalingStepSize", m.minimum_scaling_step_size.0),
                                    ("maximumScalingStepSize", m.maximum_scaling_step_size.0),
                                    ("instanceWarmupPeriod", m.instance_warmup_period.0),
                                ])
                            }),
                        )])
                    }),
                ),
            ])
        })
        .collect())
}

/// The groups of a `describe-auto-scaling-groups` output with only their name, mixed instances
/// policy (instance types, weights, On-Demand share) and warm pool.
pub(crate) fn auto_scaling_groups(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    let g: Groups = serde_json::from_str(text)?;
    Ok(g.auto_scaling_groups
        .0
        .unwrap_or_default()
        .into_iter()
        .map(|g| {
            object(vec![
                ("AutoScalingGroupName", g.auto_scaling_group_name.0),
                (
                    "MixedInstancesPolicy",
                    inner(g.mixed_instances_policy, |m| {
                        object(vec![
                            (
                                "LaunchTemplate",
                                inner(m.launch_template, |l| {
                                    object(vec![(
                                        "Overrides",
                                        list(l.overrides, |o| {
                                            object(vec![
                                                ("InstanceType", o.instance_type.0),
                                                ("WeightedCapacity", o.weighted_capacity.0),
                                            ])
                                        }),
                                    )])
                                }),
                            ),
                            (
                                "InstancesDistribution",
                                inner(m.instances_distribution, |d| {
                                    object(vec![
                                        ("OnDemandBaseCapacity", d.on_demand_base_capacity.0),
                                        (
                                            "OnDemandPercentageAboveBaseCapacity",
                                            d.on_demand_percentage_above_base_capacity.0,
                                        ),
                                    ])
                                }),
                            ),
                        ])
                    }),
                ),
                (
                    "WarmPoolConfiguration",
                    inner(g.warm_pool_configuration, |w| {
                        object(vec![
                            ("PoolState", w.pool_state.0),
                            ("MinSize", w.min_size.0),
                            ("MaxGroupPreparedCapacity", w.max_group_prepared_capacity.0),
                        ])
                    }),
                ),
            ])
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_output_passes_and_empty_objects_by_the_million_do_not() {
        let real = r#"{"containerInstances":[{"attributes":[{"name":"ecs.os-type","value":"linux"}],"status":"ACTIVE"}],"failures":[]}"#;
        assert_eq!(check_shape(real), Ok(()));
        let many = format!(
            "{{\"containerInstances\":[{}]}}",
            vec!["{}"; 20_000].join(",")
        );
        assert!(matches!(
            check_shape(&many),
            Err(ShapeError::ManyItems { .. })
        ));
        let dense = format!(
            "{{\"containerInstances\":[{{\"attributes\":[{}]}}]}}",
            vec!["{}"; 100_000].join(",")
        );
        assert!(
            matches!(check_shape(&dense), Err(ShapeError::Dense { .. })),
            "{:?}",
            check_shape(&dense)
        );
        let values = format!(
            "{{\"services\":[{{\"x\":[{}]}}]}}",
            vec!["1"; 100_000].join(",")
        );
        assert!(matches!(
            check_shape(&values),
            Err(ShapeError::ManyValues { .. })
        ));
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(check_shape(&deep), Err(ShapeError::Deep));
        // Brackets and quotes inside strings are text.
        let text = format!(
            "{{\"services\":[{{\"serviceName\":\"{}\\\"\"}}]}}",
            "[{".repeat(10_000)
        );
        assert_eq!(check_shape(&text), Ok(()));
    }

    #[test]
    fn extras_keep_only_what_the_simulation_reads() {
        let text = r#"{"services":[{"serviceName":"train","desiredCount":2,"deploymentConfiguration":{"strategy":"BLUE_GREEN","bakeTimeInMinutes":5,"maximumPercent":200},"placementStrategy":[{"type":"binpack","field":"memory"}],"events":[{"message":"x"}]}, 7]}"#;
        let got = services(text).unwrap();
        let many = format!(
            "{{\"AutoScalingGroups\":[{{\"MixedInstancesPolicy\":{{\"LaunchTemplate\":{{\"Overrides\":[{}]}}}}}}]}}",
            vec!["{\"InstanceType\":\"g5.xlarge\"}"; 41].join(",")
        );
        assert!(auto_scaling_groups(&many).is_err());
        assert_eq!(
            got,
            vec![
                serde_json::json!({"serviceName":"train","deploymentConfiguration":{"strategy":"BLUE_GREEN","bakeTimeInMinutes":5},"placementStrategy":[{"type":"binpack","field":"memory"}]})
            ]
        );
        // A wrong type is as absent, never an error.
        let odd = r#"{"services":[{"serviceName":["x"],"deploymentConfiguration":[1,2],"placementStrategy":{"type":"x"}}]}"#;
        assert_eq!(services(odd).unwrap(), vec![serde_json::json!({})]);
    }
}
