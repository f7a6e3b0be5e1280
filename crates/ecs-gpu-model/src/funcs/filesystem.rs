//! Filesystem functions. Files are read relative to the root module's folder, only inside the
//! checked tree.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;

use super::*;
use crate::eval::{Evaluate as _, Scope};

pub(super) fn file(
    ev: &mut Loader,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let real = resolve_argument(ev, cx, loc, args)?;
    let bytes = ev.read_by_function(&real)?;
    new_string(String::from_utf8(bytes).map_err(|_| Fail::Error)?)
}

pub(super) fn filebase64(
    ev: &mut Loader,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let real = resolve_argument(ev, cx, loc, args)?;
    let bytes = ev.read_by_function(&real)?;
    new_string(BASE64.encode(&bytes))
}

pub(super) fn fileexists(
    ev: &mut Loader,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let real = resolve_argument(ev, cx, loc, args)?;
    new_value(Value::Bool(real.is_file()))
}

/// The real path of a function's one argument, a file path.
fn resolve_argument(
    ev: &mut Loader,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Result<PathBuf, Fail> {
    let [path] = exactly(args)?;
    ev.resolve_file(cx, &to_str(path)?, loc)
}

/// `templatefile(path, vars)`: the template rendered with `vars` as its only names.
pub(super) fn templatefile(
    ev: &mut Loader,
    cx: &EvalContext<'_>,
    loc: Option<Loc>,
    args: &[Node],
) -> Outcome {
    let [path, vars] = exactly(args)?;
    if let Value::Unknown(u) = &path.value {
        return Err(Fail::Unknown(u.clone()));
    }
    let path = to_str(path)?;
    let vars = match &vars.value {
        Value::Object(o) => o.clone(),
        Value::Unknown(u) => return Err(Fail::Unknown(u.clone())),
        _ => return Err(Fail::Error),
    };
    ev.render_template(cx, &path, vars, loc)
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

impl Loader {
    /// The bytes of a file `file()` or `filebase64()` reads, opened once and checked on that
    /// handle (a regular file, at most [`crate::MAX_FILE_BYTES`]) as every file is
    /// ([`crate::walk::read_bytes`]). A file that cannot be read is a problem with its place,
    /// said once, and the call fails.
    fn read_by_function(&mut self, real: &Path) -> Result<Vec<u8>, Fail> {
        let read = crate::walk::read_bytes_inside(real, &|p| self.may_read(p));
        match read {
            Ok(bytes) => {
                self.read_by_functions
                    .insert(real.as_os_str().to_os_string());
                Ok(bytes)
            }
            Err(read_error) => {
                let display = crate::walk::display_path(real, &self.cwd);
                if !self.problems.iter().any(|p| p.path == display) {
                    self.problems.push(read_error.problem(display));
                }
                Err(Fail::Error)
            }
        }
    }

    /// A `file()` path: relative to the root module's folder (where Terraform runs), and only
    /// inside the checked tree.
    fn resolve_file(
        &mut self,
        cx: &EvalContext<'_>,
        path: &str,
        loc: Option<Loc>,
    ) -> Result<PathBuf, Fail> {
        let base = match self.instances.get(cx.inst) {
            Some(inst) => inst.root_dir.clone(),
            None => self.cwd.clone(),
        };
        let joined = base.join(path);
        let real = std::fs::canonicalize(&joined).map_err(|_| Fail::Error)?;
        if !self.may_read(&real) {
            self.notes.push(crate::model::LoadNote {
                kind: crate::model::LoadNoteKind::FileOutsideTree,
                message: format!("`{path}` is outside the checked folders and is not read"),
                loc,
            });
            // Terraform would read it: unknown, not an error (`try` must not take its fallback).
            return Err(unsupported());
        }
        Ok(real)
    }

    /// The `templatefile` template at `path`, read and parsed once, evaluated with `vars`.
    fn render_template(
        &mut self,
        cx: &EvalContext<'_>,
        path: &str,
        vars: Object,
        loc: Option<Loc>,
    ) -> Outcome {
        let real = self.resolve_file(cx, path, loc)?;
        if self.template_stack.contains(&real) || self.template_stack.len() > 8 {
            return Err(Fail::Error);
        }
        let entry = match self.templates.get(real.as_os_str()) {
            Some(entry) => entry.clone(),
            None => {
                let display = crate::walk::display_path(&real, &self.cwd);
                let read = crate::walk::read_text_inside(&real, &|p| self.may_read(p));
                let entry = match read {
                    Ok(text) => match crate::parse::template_result(&text) {
                        Ok(template) => {
                            let fid = self.add_file(&real, display, text, Vec::new());
                            Some((fid, std::rc::Rc::new(template)))
                        }
                        Err(err) => {
                            self.parse_problem(display, &text, &err);
                            None
                        }
                    },
                    Err(read_error) => {
                        self.problems.push(read_error.problem(display));
                        None
                    }
                };
                self.templates
                    .insert(real.as_os_str().to_os_string(), entry.clone());
                entry
            }
        };
        self.read_by_functions
            .insert(real.as_os_str().to_os_string());
        let Some((fid, template)) = entry else {
            return Err(Fail::Error);
        };
        let scope = Scope {
            vars: vars.entries.into_iter().map(|e| (e.key, e.value)).collect(),
            parent: None,
        };
        let template_cx = EvalContext {
            inst: cx.inst,
            file: fid,
            scope: &scope,
            closed: true,
        };
        self.template_stack.push(real);
        let span = Span::new(
            0,
            self.files
                .get(fid.0 as usize)
                .map_or(0, |f| f.lines.text_len()),
        );
        let node = self.eval_template(&template_cx, &template, span);
        self.template_stack.pop();
        Ok(node)
    }
}
