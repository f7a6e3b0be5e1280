//! Effects as text, one file per output format. Renderers decide nothing; they only format.

mod human;
mod json;

pub use human::human;
pub use json::json;
