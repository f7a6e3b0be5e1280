//! `ecs-gpu check` (being written).

use std::io::Write;

use anyhow::{bail, Result};

use crate::Outcome;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: &Args, _out: &mut dyn Write) -> Result<Outcome> {
    bail!("`ecs-gpu check` is not available yet")
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {}

pub fn run_rules(_args: &RulesArgs, _out: &mut dyn Write) -> Result<Outcome> {
    bail!("`ecs-gpu rules` is not available yet")
}

#[derive(Debug, clap::Args)]
pub struct RuleArgs {}

pub fn run_rule(_args: &RuleArgs, _out: &mut dyn Write) -> Result<Outcome> {
    bail!("`ecs-gpu rule` is not available yet")
}
