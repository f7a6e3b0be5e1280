//! Every file the Rust generators own is what they write: the check `scripts/generate.sh --check`
//! runs, here for `cargo test` too. (`catalog.json`, which scripts/import-catalog.py generates, is
//! checked by the catalog crate's `catalog_json_is_generated_from_its_sources`.)

use std::path::Path;

use ecs_gpu_generate::{generate, Tree};

#[test]
fn every_generated_file_is_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut tree = Tree::open(&root);
    if let Err((generator, e)) = generate(&mut tree) {
        panic!("{generator}: {e}");
    }
    let stale: Vec<String> = tree
        .changes()
        .unwrap()
        .iter()
        .map(|c| c.path().display().to_string())
        .collect();
    assert!(
        stale.is_empty(),
        "these files differ from what their generator writes: {}\nrun scripts/generate.sh",
        stale.join(", ")
    );
}
