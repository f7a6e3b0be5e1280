//! Answers as text, one file per output format. Renderers decide nothing; they only format. Every
//! text from the input (a service, group or instance type name, a reason quoting a value) goes
//! through the report crate's escaper, the one every other command's output uses.

mod human;
mod json;

pub use human::human;
pub use json::json;
