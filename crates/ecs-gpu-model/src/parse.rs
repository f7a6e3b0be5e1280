//! The parser's entry points, guarded: a parser bug on some odd input must cost that file, never
//! the run.

use ecs_gpu_hcl::{Build, Expr, File, ParseError, Span, Template};

fn guarded<T>(f: impl FnOnce() -> Result<T, ParseError>) -> Result<T, ParseError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(ParseError {
            message: "internal parser error".into(),
            span: Span::default(),
        }),
    }
}

pub(crate) fn file(text: &str) -> Result<File, ParseError> {
    guarded(|| ecs_gpu_hcl::parse(text))
}

/// A `.tf` file with only what the loader reads of it built ([`Reads`]), the rest only checked
/// for syntax errors.
pub(crate) fn file_reading(text: &str, reads: Option<&Reads>) -> Result<File, ParseError> {
    match reads {
        None => file(text),
        Some(reads) => {
            guarded(|| ecs_gpu_hcl::parse_selecting(text, &|kind, label| reads.of(kind, label)))
        }
    }
}

/// What the loader reads of each top-level block of a `.tf` file, for the parser to build only
/// that ([`ecs_gpu_hcl::parse_selecting`]): the rest is checked for syntax errors as strictly,
/// and nothing reads it.
///
/// - A `resource` block of a type not in [`crate::LoadOptions::only_types`]: nothing of its body
///   (a reference to it only needs to know it is declared). Of a type in
///   [`crate::LoadOptions::only_arguments`]: the arguments listed there, and the meta-arguments
///   the loader reads itself ([`crate::loader::META_ARGUMENTS`]).
/// - A `variable` block: what [`crate::loader::Ev::get_var`] reads (`default`, `type`,
///   `nullable`, `sensitive`); an `output` block: its `value` ([`crate::loader::Ev::get_output`]).
/// - `locals`, `data` and `module` blocks whole; no other block (`terraform`, `provider`,
///   `moved`...) is read by the model ([`crate::loader::ModuleDecl::new`]).
#[derive(Debug, Default)]
pub(crate) struct Reads {
    only_types: Option<Vec<String>>,
    /// By managed resource type: its arguments evaluated and the meta-arguments read.
    arguments: crate::FastMap<String, Vec<String>>,
    variable: Vec<String>,
    output: Vec<String>,
}

impl Reads {
    pub(crate) fn new(options: &crate::LoadOptions) -> Reads {
        let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<String>>();
        Reads {
            only_types: options.only_types.clone(),
            arguments: options
                .only_arguments
                .iter()
                .flatten()
                .map(|(kind, listed)| {
                    let mut built = listed.clone();
                    built.extend(names(crate::loader::META_ARGUMENTS));
                    (kind.clone(), built)
                })
                .collect(),
            variable: names(&["default", "type", "nullable", "sensitive"]),
            output: names(&["value"]),
        }
    }

    /// What is built of a top-level block of this type and first label.
    pub(crate) fn of(&self, kind: &str, label: Option<&str>) -> Build<'_> {
        match kind {
            "resource" => match label {
                Some(t) if !crate::model::keeps_type(self.only_types.as_deref(), t) => {
                    Build::Nothing
                }
                Some(t) => self.arguments.get(t).map_or(Build::All, |n| Build::Only(n)),
                None => Build::All,
            },
            "variable" => Build::Only(&self.variable),
            "output" => Build::Only(&self.output),
            "locals" | "data" | "module" => Build::All,
            _ => Build::Nothing,
        }
    }
}

pub(crate) fn template_result(text: &str) -> Result<Template, ParseError> {
    guarded(|| ecs_gpu_hcl::parse_template(text))
}

pub(crate) fn template(text: &str) -> Option<Template> {
    template_result(text).ok()
}

pub(crate) fn expression(text: &str) -> Option<Expr> {
    guarded(|| ecs_gpu_hcl::parse_expression(text)).ok()
}

pub(crate) fn json(text: &str) -> Result<ecs_gpu_hcl::json::Json, ParseError> {
    guarded(|| ecs_gpu_hcl::json::parse(text))
}
