//! Answers as text, one file per output format. Renderers decide nothing; they only format.

mod human;
mod json;

pub use human::human;
pub use json::json;

/// A name from the input can neither forge a line nor send a terminal sequence: the report crate's
/// escaper, the one of every command.
pub(crate) use ecs_gpu_report::escape_control as escape;
