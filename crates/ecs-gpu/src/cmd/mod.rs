//! One module per command. Each has an `Args` (clap) and a `run` that writes to `out` and returns the
//! [`crate::Outcome`], or an error for exit status 2.

pub mod check;
pub mod diagnose;
pub mod plan;
pub mod route;
pub mod simulate;
pub mod types;
