//! Collection functions: lists, sets and maps.

use super::*;
use crate::eval::to_bool;
use crate::json::sorted_entries;
use crate::value::Entry;

pub(super) fn length(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    let length = match &arg.value {
        Value::List(items) => items.len(),
        Value::Object(o) => o.entries.len(),
        Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
        // Only strings and collections have a length.
        Value::Null | Value::Number(_) | Value::Bool(_) => return Err(Fail::Error),
        _ => to_str(arg)?.chars().count(),
    };
    new_value(Value::Number(length as f64))
}

pub(super) fn concat(args: &[Node]) -> Outcome {
    let mut out = Vec::new();
    for list in args {
        out.extend(as_list(list)?.iter().cloned());
    }
    new_value(Value::List(out))
}

/// `merge(objects...)`: a later argument wins. With an unknown argument the result is unknown
/// (its keys are not known), but the entries of the arguments after the last unknown one are in
/// it, with their values. They are kept as the unknown's entries (a container definition's
/// `merge(var.defaults, { resourceRequirements = [...] })` still reserves GPUs). An entry written
/// before an unknown argument may be replaced by it: dropped.
pub(super) fn merge(args: &[Node]) -> Outcome {
    let mut merged = Object::default();
    // Where each key is in `merged`.
    let mut at: crate::FastMap<&str, usize> = crate::FastMap::default();
    let mut unknown: Option<Box<Unknown>> = None;
    for arg in args {
        let entries = match &arg.value {
            Value::Null => continue,
            Value::Unknown(u) => {
                unknown = Some(Box::new(Unknown {
                    reason: u.reason,
                    ..Unknown::default()
                }));
                merged.entries.clear();
                at.clear();
                // A partly known object (an inner `merge`): its known entries are in.
                &u.entries
            }
            _ => &as_object(arg)?.entries,
        };
        for e in entries {
            match at.entry(e.key.as_str()) {
                std::collections::hash_map::Entry::Occupied(pos) => {
                    merged.entries[*pos.get()] = e.clone();
                }
                std::collections::hash_map::Entry::Vacant(pos) => {
                    pos.insert(merged.entries.len());
                    merged.entries.push(e.clone());
                }
            }
        }
    }
    match unknown {
        None => new_value(Value::Object(merged)),
        Some(mut u) => {
            // What it depends on: every argument, as for any unknown result.
            u.refs = refs_of(args);
            u.entries = merged.entries;
            new_value(Value::Unknown(u))
        }
    }
}

pub(super) fn flatten(args: &[Node]) -> Outcome {
    fn flatten_into(items: &[Node], out: &mut Vec<Node>, depth: usize) -> Result<(), Fail> {
        if depth > 256 {
            return Err(Fail::Error);
        }
        for item in items {
            match &item.value {
                Value::List(inner) => flatten_into(inner, out, depth + 1)?,
                Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
                _ => out.push(item.clone()),
            }
        }
        Ok(())
    }
    let [list] = exactly(args)?;
    let mut out = Vec::new();
    flatten_into(as_list(list)?, &mut out, 0)?;
    new_value(Value::List(out))
}

/// `lookup(map, key, default)`; without a default, a missing key is an error.
pub(super) fn lookup(args: &[Node]) -> Outcome {
    arity(args, 2, 3)?;
    let key = to_str(&args[1])?;
    match as_object(&args[0])?.get(&key) {
        Some(value) => Ok(value.clone()),
        None => args.get(2).cloned().ok_or(Fail::Error),
    }
}

pub(super) fn element(args: &[Node]) -> Outcome {
    let [list, index] = exactly(args)?;
    let items = as_list(list)?;
    let index = to_int(index)?;
    if items.is_empty() {
        return Err(Fail::Error);
    }
    // A negative index wraps for a list and fails for a tuple; the two are not told apart here,
    // so it stays unknown.
    let wrapped = index % items.len() as i64;
    if wrapped < 0 {
        return Err(unsupported());
    }
    Ok(items[wrapped as usize].clone())
}

pub(super) fn index(args: &[Node]) -> Outcome {
    let [list, value] = exactly(args)?;
    let items = as_list(list)?;
    match items
        .iter()
        .position(|x| values_equal(x, value) == Some(true))
    {
        Some(i) => new_value(Value::Number(i as f64)),
        None => Err(Fail::Error),
    }
}

pub(super) fn keys(args: &[Node]) -> Outcome {
    let [map] = exactly(args)?;
    let entries = sorted_entries(as_object(map)?).into_iter();
    let keys = entries.map(|e| Node::new(Value::String(e.key.clone().into()), e.key_loc));
    new_value(Value::List(keys.collect()))
}

pub(super) fn values(args: &[Node]) -> Outcome {
    let [map] = exactly(args)?;
    let entries = sorted_entries(as_object(map)?).into_iter();
    new_value(Value::List(entries.map(|e| e.value.clone()).collect()))
}

pub(super) fn contains(args: &[Node]) -> Outcome {
    let [list, value] = exactly(args)?;
    let mut unknown = false;
    for item in as_list(list)? {
        match values_equal(item, value) {
            Some(true) => return new_value(Value::Bool(true)),
            Some(false) => {}
            None => unknown = true,
        }
    }
    if unknown {
        return Err(Fail::Unknown(unknown_of(args).unwrap_or_default()));
    }
    new_value(Value::Bool(false))
}

pub(super) fn distinct(args: &[Node]) -> Outcome {
    let [list] = exactly(args)?;
    new_value(Value::List(distinct_values(as_list(list)?.to_vec())))
}

/// `compact(list)`: without nulls and empty strings.
pub(super) fn compact(args: &[Node]) -> Outcome {
    let [list] = exactly(args)?;
    let mut out = Vec::new();
    for item in as_list(list)? {
        match &item.value {
            Value::Null => {}
            Value::String(t) if t.is_empty() => {}
            Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
            _ => out.push(Node::new(Value::String(to_str(item)?.into()), item.loc)),
        }
    }
    new_value(Value::List(out))
}

/// `coalesce(values...)`: the first that is not null or an empty string.
pub(super) fn coalesce(args: &[Node]) -> Outcome {
    for arg in args {
        match &arg.value {
            Value::Null => {}
            Value::String(t) if t.is_empty() => {}
            Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
            _ => {
                let any_string = args.iter().any(|o| matches!(o.value, Value::String(_)));
                if any_string && matches!(arg.value, Value::Number(_) | Value::Bool(_)) {
                    return Ok(Node::new(Value::String(to_str(arg)?.into()), arg.loc));
                }
                return Ok(arg.clone());
            }
        }
    }
    Err(Fail::Error)
}

/// `coalescelist(lists...)`: the first list that is not empty.
pub(super) fn coalescelist(args: &[Node]) -> Outcome {
    for arg in args {
        match &arg.value {
            Value::List(items) if items.is_empty() => {}
            Value::List(_) => return Ok(arg.clone()),
            Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
            _ => return Err(Fail::Error),
        }
    }
    Err(Fail::Error)
}

/// `one(list)`: its one element, or null when it is empty.
pub(super) fn one(args: &[Node]) -> Outcome {
    let [list] = exactly(args)?;
    if matches!(list.value, Value::Null) {
        return new_value(Value::Null);
    }
    match as_list(list)? {
        [] => new_value(Value::Null),
        [item] => Ok(item.clone()),
        _ => Err(Fail::Error),
    }
}

/// `range(end)`, `range(start, end)`, `range(start, end, step)`.
pub(super) fn range(args: &[Node]) -> Outcome {
    arity(args, 1, 3)?;
    let numbers: Vec<f64> = args.iter().map(to_num).collect::<Result<_, _>>()?;
    let (start, end, step) = match numbers.as_slice() {
        [end] => (0.0, *end, 1.0),
        [start, end] => (*start, *end, if end >= start { 1.0 } else { -1.0 }),
        [start, end, step] => (*start, *end, *step),
        _ => return Err(Fail::Error),
    };
    if step == 0.0 || (step > 0.0 && start > end) || (step < 0.0 && start < end) {
        if step == 0.0 && start != end {
            return Err(Fail::Error);
        }
        return new_value(Value::List(Vec::new()));
    }
    let mut out = Vec::new();
    let mut x = start;
    while (step > 0.0 && x < end) || (step < 0.0 && x > end) {
        out.push(Node::new(Value::Number(x), None));
        if out.len() > 1024 {
            return Err(Fail::Error);
        }
        x += step;
    }
    new_value(Value::List(out))
}

/// `zipmap(keys, values)`: a later repeated key wins, at the end.
pub(super) fn zipmap(args: &[Node]) -> Outcome {
    let [keys, values] = exactly(args)?;
    let keys_list = as_list(keys)?;
    let values = as_list(values)?;
    if keys_list.len() != values.len() {
        return Err(Fail::Error);
    }
    let keys: Vec<String> = keys_list.iter().map(to_str).collect::<Result<_, _>>()?;
    // A repeated key's last pair, at the place of that last one.
    let mut last: crate::FastMap<&str, usize> = crate::FastMap::default();
    for (i, key) in keys.iter().enumerate() {
        last.insert(key, i);
    }
    let mut object = Object::default();
    for (i, (key, value)) in keys.iter().zip(values).enumerate() {
        if last.get(key.as_str()) == Some(&i) {
            object.entries.push(Entry {
                key: key.clone(),
                key_loc: keys_list[i].loc,
                value: value.clone(),
            });
        }
    }
    new_value(Value::Object(object))
}

/// `sort(list)`: strings, bytewise.
pub(super) fn sort(args: &[Node]) -> Outcome {
    let [list] = exactly(args)?;
    let mut strings: Vec<(String, Option<Loc>)> = Vec::new();
    for item in as_list(list)? {
        if matches!(item.value, Value::Null) {
            return Err(Fail::Error);
        }
        strings.push((to_str(item)?, item.loc));
    }
    strings.sort_by(|x, y| x.0.as_bytes().cmp(y.0.as_bytes()));
    let sorted = strings.into_iter();
    new_value(Value::List(
        sorted
            .map(|(t, loc)| Node::new(Value::String(t.into()), loc))
            .collect(),
    ))
}

pub(super) fn reverse(args: &[Node]) -> Outcome {
    let [list] = exactly(args)?;
    let mut items = as_list(list)?.to_vec();
    items.reverse();
    new_value(Value::List(items))
}

pub(super) fn slice(args: &[Node]) -> Outcome {
    let [list, start, end] = exactly(args)?;
    let items = as_list(list)?;
    let start = to_int(start)?;
    let end = to_int(end)?;
    if start < 0 || end < start || end as usize > items.len() {
        return Err(Fail::Error);
    }
    new_value(Value::List(items[start as usize..end as usize].to_vec()))
}

pub(super) fn sum(args: &[Node]) -> Outcome {
    let [list] = exactly(args)?;
    let items = as_list(list)?;
    if items.is_empty() {
        return Err(Fail::Error);
    }
    let mut total = 0.0;
    for item in items {
        total += to_num(item)?;
    }
    new_value(Value::Number(total))
}

pub(super) fn alltrue(args: &[Node]) -> Outcome {
    new_value(Value::Bool(bools(args)?.iter().all(|b| *b)))
}

pub(super) fn anytrue(args: &[Node]) -> Outcome {
    new_value(Value::Bool(bools(args)?.iter().any(|b| *b)))
}

/// The elements of a function's one argument, a list of bools.
fn bools(args: &[Node]) -> Result<Vec<bool>, Fail> {
    let [list] = exactly(args)?;
    as_list(list)?.iter().map(to_bool).collect()
}

pub(super) fn setunion(args: &[Node]) -> Outcome {
    new_value(Value::List(set_of(sets(args)?.concat())))
}

pub(super) fn setintersection(args: &[Node]) -> Outcome {
    let sets = sets(args)?;
    let others: Vec<ValueSet<'_>> = sets[1..].iter().map(|s| ValueSet::new(s)).collect();
    let in_all = sets[0]
        .iter()
        .filter(|x| others.iter().all(|s| s.contains(x)));
    new_value(Value::List(set_of(in_all.cloned().collect())))
}

pub(super) fn setsubtract(args: &[Node]) -> Outcome {
    if args.len() != 2 {
        return Err(Fail::Error);
    }
    let sets = sets(args)?;
    let second = ValueSet::new(&sets[1]);
    let only_first = sets[0].iter().filter(|x| !second.contains(x));
    new_value(Value::List(set_of(only_first.cloned().collect())))
}

/// The sets a set function takes, at least one, with their element types unified across all of
/// them.
fn sets(args: &[Node]) -> Result<Vec<Vec<Node>>, Fail> {
    if args.is_empty() {
        return Err(Fail::Error);
    }
    let mut all = Vec::new();
    let mut sizes = Vec::new();
    for list in args {
        let items = as_list(list)?;
        sizes.push(items.len());
        all.extend(items.iter().cloned());
    }
    let all = unify(all);
    let mut sets = Vec::new();
    let mut rest = all.as_slice();
    for size in sizes {
        let (head, tail) = rest.split_at(size);
        sets.push(head.to_vec());
        rest = tail;
    }
    Ok(sets)
}
