//! What `tests/properties.rs` and `tests/skipping.rs` share: `parse_skipping` and
//! `parse_selecting` against `parse`.

use ecs_gpu_hcl::{parse, parse_selecting, parse_skipping, Build, File, Item, ParseError};

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

/// [`parse`], with each top-level block cut down to what `select` builds of it: what
/// [`parse_selecting`] must give.
pub fn parse_then_select<'s>(
    text: &'s str,
    select: &dyn Fn(&str, Option<&str>) -> Build<'s>,
) -> Result<File, ParseError> {
    let mut f = parse(text)?;
    for item in &mut f.body.items {
        if let Item::Block(b) = item {
            match select(&b.kind.name, b.labels.first().map(|l| l.name.as_str())) {
                Build::All => {}
                Build::Nothing => b.body.items.clear(),
                Build::Only(names) => b.body.items.retain(|i| {
                    let name = match i {
                        Item::Attribute(a) => &a.name.name,
                        Item::Block(b) => &b.kind.name,
                    };
                    names.contains(name)
                }),
            }
        }
    }
    Ok(f)
}

/// Asserts that [`parse_skipping`] gives the same tree (bodies skipped emptied), the same
/// comments and the same error as [`parse`], skipping every resource type and skipping some,
/// and that [`parse_selecting`] does, building only some items of some blocks (as the checker
/// builds only the arguments its model reads); `what` names the text in the failure. Whether
/// the text parses.
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
    let names: Vec<String> = [
        "x",
        "nested",
        "a",
        "b",
        "name",
        "count",
        "for_each",
        "lifecycle",
        "dynamic",
        "default",
        "type",
        "value",
        "container_definitions",
        "image_id",
        "user_data",
        "tags",
    ]
    .map(String::from)
    .to_vec();
    let select = |kind: &str, label: Option<&str>| match (kind, label.map(str::len)) {
        ("resource", Some(n)) if n % 3 == 0 => Build::Nothing,
        ("resource" | "variable" | "output" | "locals" | "data", _) => Build::Only(&names),
        ("terraform" | "provider", _) => Build::Nothing,
        _ => Build::All,
    };
    assert_eq!(
        parse_selecting(text, &select),
        parse_then_select(text, &select),
        "{what}: parse_selecting disagrees with parse on:\n{text}"
    );
    parses
}
