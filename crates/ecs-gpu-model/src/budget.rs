//! The memory budget of a unit: what evaluation copies, iterates and builds is charged, and past
//! the budget a value is unknown.

use smallvec::SmallVec;

use crate::value::{Loc, Node, Value};

/// The memory budget of one unit (a root module with the modules it calls), in bytes: a base,
/// and more per file loaded. Charged: every value node copied by a reference (strings are
/// shared, not copied, but lists and objects are trees), every iteration of a `for` expression
/// or directive, and the text of every string an evaluation builds. A chain of locals that each
/// repeat the one before would otherwise take exponential memory or time. Past the budget a value
/// is unknown, and one note (GPU004) says where the budget ran out.
pub const MEMORY_BUDGET_BASE: u64 = 128 << 20;
/// See [`MEMORY_BUDGET_BASE`].
pub const MEMORY_BUDGET_PER_FILE: u64 = 64 << 10;
/// What a node copied, or an iteration, is charged.
const NODE_BYTES: u64 = 64;

thread_local! {
    static CHARGED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static BUDGET: std::cell::Cell<u64> = const { std::cell::Cell::new(MEMORY_BUDGET_BASE) };
    /// Where the budget first ran out (`Some(None)`: at no known place).
    static SPENT_AT: std::cell::Cell<Option<Option<Loc>>> = const { std::cell::Cell::new(None) };
}

/// Starts a unit's budget (the unit runs on one thread).
pub(crate) fn reset_copy_budget(files: usize) {
    CHARGED.with(|c| c.set(0));
    SPENT_AT.with(|s| s.set(None));
    BUDGET.with(|b| b.set(MEMORY_BUDGET_BASE + MEMORY_BUDGET_PER_FILE * files as u64));
}

/// Where the unit's budget ran out, once: the place of the first value it made unknown.
pub(crate) fn take_budget_spent() -> Option<Option<Loc>> {
    SPENT_AT.with(|s| s.take())
}

/// Charges `bytes`: `false` (and the place remembered, the first time) when the budget is spent.
fn charge(bytes: u64, loc: Option<Loc>) -> bool {
    let budget = BUDGET.with(std::cell::Cell::get);
    let ok = CHARGED.with(|c| {
        let used = c.get().saturating_add(bytes);
        c.set(used);
        used <= budget
    });
    if !ok {
        SPENT_AT.with(|s| {
            if s.get().is_none() {
                s.set(Some(loc));
            }
        });
    }
    ok
}

/// Charges the text of a string just built (a shared one costs nothing more), and the known
/// text and holes a partly known template keeps.
pub(crate) fn charge_built(node: &Node, loc: Option<Loc>) -> bool {
    match &node.value {
        Value::String(s) if s.is_fresh() => charge(s.len() as u64, loc),
        Value::Unknown(u) => match &u.text {
            Some(t) if std::sync::Arc::strong_count(t) == 1 => charge(
                (t.text.len() as u64)
                    .saturating_add((t.holes.len() + t.sources.len()) as u64 * NODE_BYTES),
                loc,
            ),
            _ => true,
        },
        _ => true,
    }
}

/// Charges `n` iterations of a `for` expression or directive at `loc`: nested `for`s over
/// `range()` must end too.
pub(crate) fn charge_work(n: u64, loc: Option<Loc>) -> bool {
    charge(n.saturating_mul(NODE_BYTES), loc)
}

/// The nodes of a value, counted up to about `limit`.
pub(crate) fn node_count(node: &Node, limit: u64) -> u64 {
    size(node, limit)
}

/// What a node is reckoned to take in memory, for a budget counted in bytes.
pub(crate) const NODE_SIZE: u64 = NODE_BYTES;

/// The nodes of a value, counted up to about `limit`.
fn size(n: &Node, limit: u64) -> u64 {
    {
        let mut total = 1;
        let mut stack: SmallVec<[&Node; 16]> = smallvec::smallvec![n];
        while let Some(n) = stack.pop() {
            if total > limit {
                break;
            }
            match &n.value {
                Value::List(items) => {
                    total += items.len() as u64;
                    stack.extend(items);
                }
                Value::Object(o) => {
                    total += (o.entries.len() + o.discarded.len()) as u64;
                    stack.extend(o.entries.iter().chain(&o.discarded).map(|e| &e.value));
                }
                Value::Json(inner) => {
                    total += 1;
                    stack.push(inner);
                }
                Value::Unknown(u) => {
                    total += u.entries.len() as u64;
                    stack.extend(u.entries.iter().map(|e| &e.value));
                }
                _ => {}
            }
        }
        total
    }
}

/// Charges a copy of `node` to the budget: `false` when it is spent.
pub(crate) fn charge_copy(node: &Node) -> bool {
    let budget = BUDGET.with(std::cell::Cell::get);
    let used = CHARGED.with(std::cell::Cell::get);
    let left = budget.saturating_sub(used) / NODE_BYTES;
    charge(size(node, left).saturating_mul(NODE_BYTES), node.loc)
}
