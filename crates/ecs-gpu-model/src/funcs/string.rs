//! String functions.

use super::format::sprintf;
use super::*;
use crate::eval::{add_fragments, MAX_STRING};
use crate::value::Entry;

pub(super) fn format(args: &[Node]) -> Outcome {
    let Some((spec, values)) = args.split_first() else {
        return Err(Fail::Error);
    };
    let spec = to_str(spec)?;
    if values.iter().any(|x| matches!(x.value, Value::Null)) {
        // Terraform's handling of null arguments is not modelled.
        return Err(unsupported());
    }
    new_string(sprintf(&spec, values)?)
}

/// `formatlist(spec, ...)`: `format` over the lists' elements side by side (the other arguments
/// repeat).
pub(super) fn formatlist(args: &[Node]) -> Outcome {
    let Some((spec, values)) = args.split_first() else {
        return Err(Fail::Error);
    };
    let spec = to_str(spec)?;
    let mut rows: Option<usize> = None;
    for value in values {
        if let Value::List(items) = &value.value {
            match rows {
                Some(n) if n != items.len() => return Err(Fail::Error),
                _ => rows = Some(items.len()),
            }
        }
    }
    let rows = rows.unwrap_or(1);
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        let row: Vec<Node> = values
            .iter()
            .map(|x| match &x.value {
                Value::List(items) => items[i].clone(),
                _ => x.clone(),
            })
            .collect();
        out.push(string_node(sprintf(&spec, &row)?));
    }
    new_value(Value::List(out))
}

/// `join(separator, lists...)`. With unknown elements, the result keeps its known text as
/// fragments.
pub(super) fn join(args: &[Node]) -> Outcome {
    if args.len() < 2 {
        return Err(Fail::Error);
    }
    let separator = to_str(&args[0])?;
    let mut parts: Vec<Result<String, Fail>> = Vec::new();
    for list in &args[1..] {
        for item in as_list(list)? {
            if matches!(item.value, Value::Null) {
                return Err(Fail::Error);
            }
            parts.push(to_str(item));
        }
    }
    let mut text = String::new();
    let mut fragments = Vec::new();
    // The known text since the last unknown part.
    let mut known_run = String::new();
    let mut unknown: Option<Box<Unknown>> = None;
    for (i, part) in parts.into_iter().enumerate() {
        if text.len() > MAX_STRING {
            return Err(unsupported());
        }
        if i > 0 {
            text.push_str(&separator);
            known_run.push_str(&separator);
        }
        match part {
            Ok(t) => {
                text.push_str(&t);
                known_run.push_str(&t);
            }
            Err(Fail::Unknown(part)) => {
                if !known_run.is_empty() {
                    let run = std::mem::take(&mut known_run);
                    add_fragments(&mut fragments, [&run]);
                }
                add_fragments(&mut fragments, &part.fragments);
                let joined = unknown.get_or_insert_with(|| {
                    Box::new(Unknown {
                        reason: part.reason,
                        ..Unknown::default()
                    })
                });
                merge_refs(&mut joined.refs, part.refs);
            }
            Err(Fail::Error) => return Err(Fail::Error),
        }
    }
    match unknown {
        None => new_string(text),
        Some(mut joined) => {
            add_fragments(&mut fragments, [&known_run]);
            joined.fragments = fragments;
            Err(Fail::Unknown(joined))
        }
    }
}

pub(super) fn split(args: &[Node]) -> Outcome {
    let [separator, text] = exactly(args)?;
    let separator = to_str(separator)?;
    let text = to_str(text)?;
    if text.len() > 1 << 20
        && (separator.is_empty() || text.matches(separator.as_str()).count() > 1 << 20)
    {
        return Err(unsupported());
    }
    let parts: Vec<Node> = if separator.is_empty() {
        text.chars().map(|c| string_node(c.to_string())).collect()
    } else {
        let parts = text.split(separator.as_str());
        parts.map(|p| string_node(p.to_string())).collect()
    };
    new_value(Value::List(parts))
}

pub(super) fn upper(args: &[Node]) -> Outcome {
    let [text] = exactly(args)?;
    new_string(to_str(text)?.to_uppercase())
}

pub(super) fn lower(args: &[Node]) -> Outcome {
    let [text] = exactly(args)?;
    new_string(to_str(text)?.to_lowercase())
}

pub(super) fn title(args: &[Node]) -> Outcome {
    let [text] = exactly(args)?;
    let mut out = String::new();
    let mut word_start = true;
    for c in to_str(text)?.chars() {
        if word_start && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        word_start = !(c.is_alphanumeric() || c == '_' || c == '\'');
    }
    new_string(out)
}

pub(super) fn trimspace(args: &[Node]) -> Outcome {
    let [text] = exactly(args)?;
    new_string(to_str(text)?.trim().to_string())
}

pub(super) fn trim(args: &[Node]) -> Outcome {
    let [text, cut] = exactly(args)?;
    let text = to_str(text)?;
    let cut = to_str(cut)?;
    new_string(text.trim_matches(|c| cut.contains(c)).to_string())
}

pub(super) fn trimprefix(args: &[Node]) -> Outcome {
    let [text, prefix] = exactly(args)?;
    let text = to_str(text)?;
    let prefix = to_str(prefix)?;
    new_string(
        text.strip_prefix(prefix.as_str())
            .unwrap_or(&text)
            .to_string(),
    )
}

pub(super) fn trimsuffix(args: &[Node]) -> Outcome {
    let [text, suffix] = exactly(args)?;
    let text = to_str(text)?;
    let suffix = to_str(suffix)?;
    new_string(
        text.strip_suffix(suffix.as_str())
            .unwrap_or(&text)
            .to_string(),
    )
}

pub(super) fn chomp(args: &[Node]) -> Outcome {
    let [text] = exactly(args)?;
    let mut text = to_str(text)?;
    while text.ends_with('\n') || text.ends_with('\r') {
        text.pop();
    }
    new_string(text)
}

pub(super) fn indent(args: &[Node]) -> Outcome {
    let [spaces, text] = exactly(args)?;
    let spaces = to_int(spaces)?;
    let text = to_str(text)?;
    let pad = " ".repeat(
        usize::try_from(spaces)
            .map_err(|_| Fail::Error)?
            .min(10_000),
    );
    let lines = text.matches('\n').count();
    if lines.saturating_mul(pad.len()).saturating_add(text.len()) > MAX_STRING {
        return Err(unsupported());
    }
    new_string(text.replace('\n', &format!("\n{pad}")))
}

/// `replace(text, from, to)`; `from` between slashes is a regular expression.
pub(super) fn replace(args: &[Node]) -> Outcome {
    let [text, from, to] = exactly(args)?;
    let text = to_str(text)?;
    let from = to_str(from)?;
    let to = to_str(to)?;
    if from.len() > 1 && from.starts_with('/') && from.ends_with('/') {
        let re = compile_regex(&from[1..from.len() - 1])?;
        return new_string(re.replace_all(&text, to.as_str()).into_owned());
    }
    let count = if from.is_empty() {
        text.chars().count() + 1
    } else {
        text.matches(from.as_str()).count()
    };
    if count.saturating_mul(to.len()).saturating_add(text.len()) > MAX_STRING {
        return Err(unsupported());
    }
    if from.is_empty() {
        // Go's strings.Replace inserts between every character.
        let mut out = to.clone();
        for c in text.chars() {
            out.push(c);
            out.push_str(&to);
        }
        return new_string(out);
    }
    new_string(text.replace(&from, &to))
}

pub(super) fn substr(args: &[Node]) -> Outcome {
    let [text, offset, length] = exactly(args)?;
    let chars: Vec<char> = to_str(text)?.chars().collect();
    let len = chars.len() as i64;
    let mut offset = to_int(offset)?;
    let mut length = to_int(length)?;
    let from_end = offset < 0;
    if offset < 0 {
        offset = (offset + len).max(0);
    }
    if offset > len {
        return new_string(String::new());
    }
    // Terraform's quirk: a length of 0 from a negative offset takes the rest.
    if length < 0 || offset + length > len || (from_end && length == 0) {
        length = len - offset;
    }
    new_string(
        chars[offset as usize..(offset + length) as usize]
            .iter()
            .collect(),
    )
}

pub(super) fn strrev(args: &[Node]) -> Outcome {
    let [text] = exactly(args)?;
    new_string(to_str(text)?.chars().rev().collect())
}

pub(super) fn startswith(args: &[Node]) -> Outcome {
    let [text, prefix] = exactly(args)?;
    new_value(Value::Bool(
        to_str(text)?.starts_with(to_str(prefix)?.as_str()),
    ))
}

pub(super) fn endswith(args: &[Node]) -> Outcome {
    let [text, suffix] = exactly(args)?;
    new_value(Value::Bool(
        to_str(text)?.ends_with(to_str(suffix)?.as_str()),
    ))
}

pub(super) fn strcontains(args: &[Node]) -> Outcome {
    let [text, part] = exactly(args)?;
    new_value(Value::Bool(to_str(text)?.contains(to_str(part)?.as_str())))
}

/// `regex(pattern, text)`: the first match.
pub(super) fn regex(args: &[Node]) -> Outcome {
    let [pattern, text] = exactly(args)?;
    let re = compile_regex(&to_str(pattern)?)?;
    let text = to_str(text)?;
    let captures = re.captures(&text).ok_or(Fail::Error)?;
    Ok(match_value(&re, captures))
}

/// `regexall(pattern, text)`: every match.
pub(super) fn regexall(args: &[Node]) -> Outcome {
    let [pattern, text] = exactly(args)?;
    let re = compile_regex(&to_str(pattern)?)?;
    let text = to_str(text)?;
    if re.find_iter(&text).take(100_000).count() >= 100_000 {
        return Err(unsupported());
    }
    let matches = re.captures_iter(&text).map(|c| match_value(&re, c));
    new_value(Value::List(matches.collect()))
}

/// A regular expression in RE2 syntax (Terraform's); one this engine rejects is unsupported.
fn compile_regex(pattern: &str) -> Result<regex::Regex, Fail> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|_| unsupported())
}

/// One match as Terraform gives it: the matched text without groups, an object of the named
/// groups, or a list of the numbered groups.
fn match_value(re: &regex::Regex, captures: regex::Captures<'_>) -> Node {
    let group = |i: usize| {
        captures.get(i).map_or(Node::new(Value::Null, None), |m| {
            string_node(m.as_str().to_string())
        })
    };
    let names: Vec<Option<&str>> = re.capture_names().skip(1).collect();
    let value = if names.is_empty() {
        Value::String(
            captures
                .get(0)
                .map_or("", |m| m.as_str())
                .to_string()
                .into(),
        )
    } else if names.iter().any(Option::is_some) {
        let mut object = Object::default();
        for (i, name) in names.iter().enumerate() {
            if let Some(name) = name {
                object
                    .entries
                    .push(Entry::new((*name).to_string(), group(i + 1)));
            }
        }
        object.entries.sort_by(|x, y| x.key.cmp(&y.key));
        Value::Object(object)
    } else {
        Value::List((1..=names.len()).map(group).collect())
    };
    Node::new(value, None)
}
