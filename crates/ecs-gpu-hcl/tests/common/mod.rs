//! What `tests/properties.rs` and `tests/skipping.rs` share: `parse_skipping` against `parse`.

use ecs_gpu_hcl::{parse, parse_skipping, File, Item, ParseError};

/// [`parse`], with the bodies of the top-level `resource` blocks whose type `skip` accepts
/// emptied: what [`parse_skipping`] must give.
pub fn parse_then_empty(text: &str, skip: &dyn Fn(&str) -> bool) -> Result<File, ParseError> {
    let mut f = parse(text)?;
    for item in &mut f.body.items {
        if let Item::Block(b) = item {
            if b.kind.name == "resource" && b.labels.first().is_some_and(|t| skip(&t.name)) {
                b.body.items.clear();
            }
        }
    }
    Ok(f)
}

/// Asserts that [`parse_skipping`] gives the same tree (bodies skipped emptied), the same
/// comments and the same error as [`parse`], skipping every resource type and skipping some;
/// `what` names the text in the failure. Whether the text parses.
pub fn skipping_agrees(what: &str, text: &str) -> bool {
    let some = |t: &str| t.len() % 2 == 1;
    let mut parses = false;
    for skip in [&(|_: &str| true) as &dyn Fn(&str) -> bool, &some] {
        let want = parse_then_empty(text, skip);
        assert_eq!(
            parse_skipping(text, skip),
            want,
            "{what}: parse_skipping disagrees with parse on:\n{text}"
        );
        parses = want.is_ok();
    }
    parses
}
