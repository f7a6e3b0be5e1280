//! Every generated file of the ecs-gpu repository, from one place: each generator writes its files
//! into a [`Tree`] (the repository, overlaid with what the generators before it wrote), and
//! [`Tree::changes`] then says which files differ from the repository's. `scripts/generate.sh`
//! runs the binary of this crate (after `scripts/import-catalog.py`, whose `catalog.json` the
//! catalog embeds); `scripts/generate.sh --check` changes nothing and names each file that differs.
//! A development tool: the shipped `ecs-gpu` binary does not depend on it.
//!
//! ```no_run
//! use ecs_gpu_generate::{generate, Tree};
//!
//! let mut tree = Tree::open(".");
//! generate(&mut tree).unwrap();
//! for change in tree.changes().unwrap() {
//!     println!("{} differs from what its generator writes", change.path().display());
//! }
//! ```

mod catalog;
mod rule_docs;
mod terraform;
mod tree;

pub use tree::{Change, Error, Tree};

/// A generator: writes its files into the tree, reading what it needs from it.
pub type Generator = fn(&mut Tree) -> Result<(), Error>;

/// Every generator, in the order they run: a generator reads what the ones before it wrote (the
/// pass-through inputs read modules/service-v6's copies; the README tables read the inputs).
/// Adding a generated file is one line here (and a script generator, one line in
/// `scripts/generate.sh`).
pub const GENERATORS: &[(&str, Generator)] = &[
    (
        "terraform/modules/facts/catalog.tf, from the catalog",
        catalog::terraform_locals,
    ),
    (
        "docs/rules/, from the rules' documentation",
        rule_docs::pages,
    ),
    (
        "terraform/modules/service-v6, copies of modules/service",
        terraform::copies::service_v6,
    ),
    (
        "the root modules' pass-through inputs, from their submodules",
        terraform::inputs::pass_through,
    ),
    (
        "the modules' README input and output tables",
        terraform::docs::tables,
    ),
];

/// Runs every generator over the tree, in order; stops at the first that fails, naming it.
pub fn generate(tree: &mut Tree) -> Result<(), (&'static str, Error)> {
    for (name, generator) in GENERATORS {
        generator(tree).map_err(|e| (*name, e))?;
    }
    Ok(())
}
