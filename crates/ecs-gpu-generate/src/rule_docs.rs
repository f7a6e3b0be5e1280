//! `docs/rules/`: one page per rule and an index, from the rules' own documentation
//! ([`ecs_gpu_rules::docs`]). A page of a rule that is gone is removed.

use std::path::Path;

use ecs_gpu_rules::docs::{index_page, rule_page};
use ecs_gpu_rules::RULES;

use crate::tree::{Error, Tree};

const DIR: &str = "docs/rules";

/// Writes the pages.
pub fn pages(tree: &mut Tree) -> Result<(), Error> {
    let dir = Path::new(DIR);
    let mut pages: Vec<(std::path::PathBuf, String)> = RULES
        .iter()
        .map(|r| (dir.join(format!("{}.md", r.id)), rule_page(r)))
        .collect();
    pages.push((dir.join("README.md"), index_page()));
    for file in tree.files(dir)? {
        if !pages.iter().any(|(p, _)| *p == file) {
            tree.remove(file);
        }
    }
    for (path, text) in pages {
        tree.write(path, text);
    }
    Ok(())
}
