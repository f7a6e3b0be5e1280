//! The parser's entry points, guarded: a parser bug on some odd input must cost that file, never
//! the run.

use ecs_gpu_hcl::{Expr, File, ParseError, Span, Template};

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
