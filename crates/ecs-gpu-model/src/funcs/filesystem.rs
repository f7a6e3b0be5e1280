//! Filesystem functions. Files are read relative to the root module's folder, only inside the
//! checked tree.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;

use super::*;

pub(super) fn file(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let real = resolve_argument(ev, cx, loc, args)?;
    let bytes = ev.read_by_function(&real)?;
    new_string(String::from_utf8(bytes).map_err(|_| Fail::Error)?)
}

pub(super) fn filebase64(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let real = resolve_argument(ev, cx, loc, args)?;
    let bytes = ev.read_by_function(&real)?;
    new_string(BASE64.encode(&bytes))
}

pub(super) fn fileexists(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let real = resolve_argument(ev, cx, loc, args)?;
    new_value(Value::Bool(real.is_file()))
}

/// The real path of a function's one argument, a file path.
fn resolve_argument(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Result<PathBuf, Fail> {
    let [path] = exactly(args)?;
    ev.resolve_file(cx, &to_str(path)?, path.hidden(), loc)
}

/// `templatefile(path, vars)`: the template rendered with `vars` as its only names.
pub(super) fn templatefile(
    ev: &mut dyn Filesystem,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let [path, vars] = exactly(args)?;
    if let Value::Unknown(u) = &path.value {
        return Err(Fail::Unknown(u.clone()));
    }
    let mark = path.hidden();
    let path = to_str(path)?;
    let vars = match &vars.value {
        Value::Object(o) => o.clone(),
        Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
        _ => return Err(Fail::Error),
    };
    ev.render_template(cx, &path, mark, vars, loc)
}

pub(super) fn basename(args: &[Node]) -> Outcome {
    let [path] = exactly(args)?;
    let path = to_str(path)?;
    let name = Path::new(&path).file_name();
    new_string(name.map_or_else(|| root_or_dot(&path), |n| n.to_string_lossy().into_owned()))
}

pub(super) fn dirname(args: &[Node]) -> Outcome {
    let [path] = exactly(args)?;
    let path = to_str(path)?;
    let parent = Path::new(&path)
        .parent()
        .map(|d| d.to_string_lossy().into_owned());
    new_string(match parent {
        Some(parent) if parent.is_empty() => ".".into(),
        Some(parent) => parent,
        None => root_or_dot(&path),
    })
}

/// What is left of a path with no name or no parent: the root, or the current folder.
fn root_or_dot(path: &str) -> String {
    if path.starts_with('/') { "/" } else { "." }.into()
}
