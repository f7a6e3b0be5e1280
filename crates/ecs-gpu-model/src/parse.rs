//! The parser's entry points, guarded: a parser bug on some odd input must cost that file, never
//! the run. Within a unit, the syntax trees it parses share one memory budget besides each file's
//! own: a unit holds the trees of all its files at once while it evaluates them.

use std::cell::Cell;

use ecs_gpu_hcl::{Expr, File, ParseError, Span, Template, TREE_BUDGET_BASE};

thread_local! {
    /// What is left of the syntax-tree budget of the unit this thread is loading (`None`: no unit,
    /// each file has its own budget only). See [`start_unit`].
    static UNIT_TREES: Cell<Option<usize>> = const { Cell::new(None) };
    /// What the unit's trees and values took of its budget so far, for the message of a file that
    /// does not fit.
    static UNIT_USED: Cell<usize> = const { Cell::new(0) };
}

/// Starts a unit's syntax-tree budget: [`TREE_BUDGET_BASE`] once, and for each text parsed, as
/// many bytes per byte as that text's own budget gives it. Each file may still take its own
/// budget ([`ecs_gpu_hcl::tree_budget`]), but the trees of a unit together take no more than the
/// base once: four hundred small files that are each a dense list cannot each take the base.
pub(crate) fn start_unit() {
    // The budgets of a unit (this one, and the evaluator's in `budget`) are its thread's: a unit
    // runs from start to end on one thread and waits on no other work of the pool, which would
    // let the thread take up another unit in the middle of this one and start its budgets afresh.
    debug_assert!(
        UNIT_TREES.with(Cell::get).is_none(),
        "a unit started on a thread inside another"
    );
    UNIT_TREES.with(|t| t.set(Some(TREE_BUDGET_BASE)));
    UNIT_USED.with(|u| u.set(0));
}

/// Ends the unit's budget: parsing outside a unit gives each text its own budget only.
pub(crate) fn end_unit() {
    UNIT_TREES.with(|t| t.set(None));
}

fn guarded<T>(f: impl FnOnce() -> Result<T, ParseError>) -> Result<T, ParseError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(ParseError {
            message: "internal parser error".into(),
            span: Span::default(),
        }),
    }
}

/// Parses `text` (of `per_byte` budget bytes per byte) within what is left of the unit's budget
/// and the text's own, whichever is less, and charges the unit with the tree.
fn within<T>(
    text: &str,
    per_byte: usize,
    parse: impl FnOnce(usize) -> Result<(T, usize), ParseError>,
) -> Result<T, ParseError> {
    let allowance = text.len().saturating_mul(per_byte);
    let own = TREE_BUDGET_BASE.saturating_add(allowance);
    let Some(left) = UNIT_TREES.with(Cell::get) else {
        return guarded(|| parse(own)).map(|(tree, _)| tree);
    };
    let taken = UNIT_USED.with(Cell::get);
    let left = left.saturating_add(allowance);
    let budget = own.min(left);
    match guarded(|| parse(budget)) {
        Ok((tree, used)) => {
            UNIT_TREES.with(|t| t.set(Some(left.saturating_sub(used))));
            UNIT_USED.with(|u| u.set(u.get().saturating_add(used)));
            Ok(tree)
        }
        Err(mut e) => {
            // The tree is dropped: the unit keeps what it had, and this text's allowance.
            UNIT_TREES.with(|t| t.set(Some(left)));
            if e.is_over_budget() && budget < own {
                // What each side took, not a blame: the files before may have taken little, and
                // this one most.
                e.message = format!(
                    "syntax trees over their memory budget for one root module with the modules \
                     it calls ({} MiB, plus {per_byte} bytes per byte of their files): the files \
                     before this one took {} of it, and this one needs more than the {} left, so \
                     it is not checked",
                    TREE_BUDGET_BASE >> 20,
                    size(taken),
                    size(budget)
                );
            }
            Err(e)
        }
    }
}

/// Charges the unit's syntax-tree budget with `bytes` of values read from a text of `text_len`
/// bytes (a variable file: static data, like a tree, held while the unit is evaluated), with the
/// text's allowance. `false`, and nothing charged, when they do not fit.
pub(crate) fn charge_values(text_len: usize, bytes: usize) -> Result<(), String> {
    let Some(left) = UNIT_TREES.with(Cell::get) else {
        return Ok(());
    };
    let taken = UNIT_USED.with(Cell::get);
    let left = left.saturating_add(text_len.saturating_mul(ecs_gpu_hcl::TREE_BUDGET_PER_BYTE));
    let fits = bytes <= left;
    UNIT_TREES.with(|t| t.set(Some(if fits { left - bytes } else { left })));
    if fits {
        UNIT_USED.with(|u| u.set(u.get().saturating_add(bytes)));
        Ok(())
    } else {
        Err(format!(
            "the files before this one took {} of it, and its values need {}, more than the {} left",
            size(taken),
            size(bytes),
            size(left)
        ))
    }
}

/// A size in words: `3 KiB`, `15 MiB`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

pub(crate) fn file(text: &str) -> Result<File, ParseError> {
    within(text, ecs_gpu_hcl::TREE_BUDGET_PER_BYTE, |budget| {
        ecs_gpu_hcl::parse_within(text, budget)
    })
}

/// A file whose tree is dropped as soon as it is read (a variable file: its values are charged to
/// the evaluation's budget instead): its own budget only.
pub(crate) fn transient_file(text: &str) -> Result<File, ParseError> {
    guarded(|| ecs_gpu_hcl::parse(text))
}

/// [`transient_file`] for JSON (a variable file, a `jsondecode`).
pub(crate) fn transient_json(text: &str) -> Result<ecs_gpu_hcl::json::Json, ParseError> {
    guarded(|| ecs_gpu_hcl::json::parse(text))
}

pub(crate) fn template_result(text: &str) -> Result<Template, ParseError> {
    within(text, ecs_gpu_hcl::TREE_BUDGET_PER_BYTE, |budget| {
        ecs_gpu_hcl::parse_template_within(text, budget)
    })
}

pub(crate) fn template(text: &str) -> Option<Template> {
    template_result(text).ok()
}

pub(crate) fn expression(text: &str) -> Option<Expr> {
    guarded(|| ecs_gpu_hcl::parse_expression(text)).ok()
}

pub(crate) fn json(text: &str) -> Result<ecs_gpu_hcl::json::Json, ParseError> {
    within(text, ecs_gpu_hcl::JSON_TREE_BUDGET_PER_BYTE, |budget| {
        ecs_gpu_hcl::json::parse_within(text, budget)
    })
}
