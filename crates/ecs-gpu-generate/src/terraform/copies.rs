//! `terraform/modules/service-v6`: a copy of `modules/service`'s `*.tf` files, next to the override
//! files (`*_override.tf`) that add what only hashicorp/aws 6.x knows. A copy whose original is
//! gone is removed.

use std::path::Path;

use crate::tree::{Error, Tree};

const SERVICE: &str = "terraform/modules/service";
const SERVICE_V6: &str = "terraform/modules/service-v6";

/// Writes the copies.
pub fn service_v6(tree: &mut Tree) -> Result<(), Error> {
    copy_module(tree, Path::new(SERVICE), Path::new(SERVICE_V6))
}

fn copy_module(tree: &mut Tree, from: &Path, to: &Path) -> Result<(), Error> {
    let originals = tree.tf_files(from)?;
    let names: Vec<_> = originals.iter().filter_map(|p| p.file_name()).collect();
    for copy in tree.tf_files(to)? {
        let Some(name) = copy.file_name() else {
            continue;
        };
        let is_override = name.to_string_lossy().ends_with("_override.tf");
        if !is_override && !names.contains(&name) {
            tree.remove(copy);
        }
    }
    for original in &originals {
        let Some(name) = original.file_name() else {
            continue;
        };
        let text = tree.read(original)?;
        tree.write(to.join(name), text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Change;

    #[test]
    fn copies_are_written_stale_ones_removed_and_overrides_kept() {
        let mut tree = Tree::in_memory([
            ("s/main.tf", "main"),
            ("s/task.tf", "task"),
            ("v6/main.tf", "main"),
            ("v6/task.tf", "old task"),
            ("v6/gone.tf", "gone"),
            ("v6/service_override.tf", "override"),
        ]);
        copy_module(&mut tree, Path::new("s"), Path::new("v6")).unwrap();
        assert_eq!(
            tree.changes().unwrap(),
            [
                Change::Remove("v6/gone.tf".into()),
                Change::Write("v6/task.tf".into(), "task".into())
            ]
        );
    }
}
