//! Type conversion functions: `try`, `can`, the `to*` conversions, `sensitive`, `nonsensitive`
//! and `type`.

use super::*;
use crate::eval::{error_value, to_bool};
use crate::value::Entry;

/// `try(...)`: the first argument that evaluates without an error.
pub(super) fn try_(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Expr],
) -> Node {
    for arg in args {
        let value = ev.eval(cx, arg);
        if has_error(&value) {
            continue;
        }
        if let Some(mut unknown) = deep_unknown(&value) {
            unknown.derived();
            return Node::new(Value::Unknown(unknown), loc);
        }
        return value;
    }
    Node::new(error_value(), loc)
}

/// `can(x)`: whether `x` evaluates without an error.
pub(super) fn can(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Expr],
) -> Node {
    let Some(arg) = args.first() else {
        return Node::new(error_value(), loc);
    };
    let value = ev.eval(cx, arg);
    let result = if has_error(&value) {
        Value::Bool(false)
    } else if let Some(mut unknown) = deep_unknown(&value) {
        unknown.derived();
        Value::Unknown(unknown)
    } else {
        Value::Bool(true)
    };
    Node::new(result, loc)
}

pub(super) fn tostring(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    match &arg.value {
        Value::Null => new_value(Value::Null),
        Value::String(_) => Ok(arg.clone()),
        _ => new_value(Value::String(to_str(arg)?.into())),
    }
}

pub(super) fn tonumber(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    match &arg.value {
        Value::Null => new_value(Value::Null),
        Value::Number(_) => Ok(arg.clone()),
        _ => new_value(Value::Number(to_num(arg)?)),
    }
}

pub(super) fn tobool(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    match &arg.value {
        Value::Null => new_value(Value::Null),
        Value::Bool(_) => Ok(arg.clone()),
        _ => new_value(Value::Bool(to_bool(arg)?)),
    }
}

pub(super) fn tolist(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    match &arg.value {
        Value::Null => new_value(Value::Null),
        _ => new_value(Value::List(unify(as_list(arg)?.to_vec()))),
    }
}

pub(super) fn toset(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    match &arg.value {
        Value::Null => new_value(Value::Null),
        _ => new_value(Value::List(set_of(as_list(arg)?.to_vec()))),
    }
}

pub(super) fn tomap(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    if let Value::Null = arg.value {
        return new_value(Value::Null);
    }
    let object = as_object(arg)?;
    let values = unify(object.entries.iter().map(|e| e.value.clone()).collect());
    let entries = object
        .entries
        .iter()
        .zip(values)
        .map(|(e, value)| Entry {
            key: e.key.clone(),
            key_loc: e.key_loc,
            value,
        })
        .collect();
    new_value(Value::Object(Object {
        entries,
        discarded: object.discarded.clone(),
    }))
}

/// `sensitive(x)` and `nonsensitive(x)`: `x` itself; [`super::call`] sets or clears the mark.
pub(super) fn sensitivity(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    Ok(arg.clone())
}

/// `type(x)`: a type, which the evaluator does not model.
pub(super) fn type_(_args: &[Node]) -> Outcome {
    Err(unsupported())
}
