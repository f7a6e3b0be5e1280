//! `ecs-gpu check` (being written).

use std::io::Write;

use anyhow::{bail, Result};

use crate::Outcome;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: &Args, _out: &mut dyn Write) -> Result<Outcome> {
    bail!("`ecs-gpu check` is not available yet")
}
