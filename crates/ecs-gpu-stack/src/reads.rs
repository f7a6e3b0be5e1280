//! What an analysis or a rule reads of the model, declared beside it ([`Reads`], [`reads!`]), and
//! what a set of them loads together ([`load_filters`]).

use std::collections::{BTreeMap, BTreeSet};

/// What a rule reads of the model, or an analysis that several rules share, as a tflint rule passes
/// the `BodySchema` it reads. `check` loads only what its rules read ([`load_filters`]); the model
/// panics in a debug build when asked for a type or an argument it did not load, so a rule's tests
/// catch one its reads forget.
#[derive(Debug)]
pub struct Reads {
    /// Resource and data source types read whole (data sources are always evaluated whole).
    pub whole: &'static [&'static str],
    /// Managed resource types, each with the top-level arguments and nested block types read
    /// (`lifecycle` is always evaluated).
    pub arguments: &'static [(&'static str, &'static [&'static str])],
    /// The analyses used: what they read is read too.
    pub analyses: &'static [&'static Reads],
}

/// A [`Reads`], written as a tflint rule's `BodySchema` is. Each part may be left out.
///
/// ```ignore
/// reads! {
///     whole: ["aws_ami"],
///     arguments: { "aws_autoscaling_group": ["tags", "warm_pool"] },
///     analyses: [GROUPS, TASK_DEFINITIONS],
/// }
/// ```
#[macro_export]
macro_rules! reads {
    (
        $(whole: [$($whole:literal),* $(,)?] $(,)?)?
        $(arguments: { $($kind:literal: [$($arg:literal),* $(,)?]),* $(,)? } $(,)?)?
        $(analyses: [$($analysis:ident),* $(,)?] $(,)?)?
    ) => {
        $crate::Reads {
            whole: &[$($($whole),*)?],
            arguments: &[$($(($kind, &[$($arg),*])),*)?],
            analyses: &[$($(&$analysis),*)?],
        }
    };
}

/// What `reads` read together, with their analyses, as [`ecs_gpu_model::LoadOptions`] takes it: the
/// types, and of each type not read whole, the arguments.
pub fn load_filters(reads: &[&Reads]) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    // By type, the arguments read; `None` for a type read whole.
    let mut types: BTreeMap<&str, Option<BTreeSet<&str>>> = BTreeMap::new();
    let mut todo = reads.to_vec();
    while let Some(r) = todo.pop() {
        for kind in r.whole {
            types.insert(kind, None);
        }
        for (kind, names) in r.arguments {
            if let Some(read) = types.entry(kind).or_insert_with(|| Some(BTreeSet::new())) {
                read.extend(names.iter().copied());
            }
        }
        todo.extend(r.analyses);
    }
    let arguments = types
        .iter()
        .filter_map(|(kind, names)| {
            let names = names.as_ref()?.iter().map(|n| n.to_string()).collect();
            Some((kind.to_string(), names))
        })
        .collect();
    (types.into_keys().map(str::to_string).collect(), arguments)
}
