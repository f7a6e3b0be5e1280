//! What the functions need of the loader: the files `file()`, `filebase64()`, `fileexists()` and
//! `templatefile()` read, inside the checked tree ([`Filesystem`]).

use std::path::{Path, PathBuf};

use ecs_gpu_hcl::Span;

use crate::eval::Fail;
use crate::eval::{EvalContext, Evaluate as _, Scope};
use crate::funcs::{unsupported, Filesystem, Outcome};
use crate::loader::Loader;
use crate::value::{Loc, Mark, Object};

impl Filesystem for Loader {
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
        mark: Mark,
        loc: Option<Loc>,
    ) -> Result<PathBuf, Fail> {
        let base = match self.instances.get(cx.inst) {
            Some(inst) => inst.root_dir.clone(),
            None => self.cwd.clone(),
        };
        let joined = base.join(path);
        let real = std::fs::canonicalize(&joined).map_err(|_| Fail::Error)?;
        if !self.may_read(&real) {
            let message = match mark {
                Mark::None => format!("`{path}` is outside the checked folders and is not read"),
                mark => format!(
                    "a {} path is outside the checked folders and is not read",
                    mark.label()
                ),
            };
            self.notes.push(crate::model::LoadNote {
                kind: crate::model::LoadNoteKind::FileOutsideTree,
                message,
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
        mark: Mark,
        vars: Object,
        loc: Option<Loc>,
    ) -> Outcome {
        let real = self.resolve_file(cx, path, mark, loc)?;
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
        let template_cx = EvalContext::new(cx.inst, fid, &scope, true);
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
