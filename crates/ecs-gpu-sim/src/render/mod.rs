//! Answers as text, one file per output format. Renderers decide nothing; they only format.

mod human;
mod json;

pub use human::human;
pub use json::json;

/// Control characters as escapes, so a name from the input can neither forge a line nor send a
/// terminal sequence.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
