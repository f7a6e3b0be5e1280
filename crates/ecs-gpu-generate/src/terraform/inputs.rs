//! The inputs a root module passes unchanged to a submodule are declared once, in the submodule.
//!
//! An input is passed through when the root's `module` block sets it from the root's variable of
//! the same name (`max_size = var.max_size`). The root's declaration of it is then the
//! submodule's, copied (with or without its validation blocks, as [`ROOTS`] says), and added to the
//! root when missing. A declaration that must say something else at the root (a description that
//! says more there, another default) keeps its own text when it says so, inside the block:
//!
//! ```hcl
//! variable "efa" {
//!   # Differs from modules/capacity in description: the root gives the service the EFA device too.
//!   description = "..."
//! ```
//!
//! and the check then fails unless it differs in exactly the fields named (`description`, `type`,
//! `default`, `nullable`, `sensitive`, `ephemeral`, `validation`), from the module it is copied from
//! (the first call that passes it). Every input of a submodule is set by the root's call, or named
//! in a `# Not set: <input>, <input>: <why>` comment inside the block, so that a new input of a
//! submodule is never silently left out of a root.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ecs_gpu_hcl::{Block, Expr, ExprKind, Item, Span};

use super::{attribute, blocks, description, nested, one_line};
use crate::tree::{display, join_relative, Error, Hcl, Tree};

/// A root module whose pass-through inputs are copied from its submodules.
#[derive(Debug)]
struct Root {
    dir: &'static str,
    /// The file, in `dir`, where a pass-through input the root does not declare yet is added.
    new_inputs: &'static str,
    /// Whether the copies keep the submodule's validation blocks.
    validations: bool,
}

const ROOTS: &[Root] = &[
    // The submodules validate what the root passes them, on the module call (variables.tf says so).
    Root {
        dir: "terraform/ecs-gpu-task",
        new_inputs: "variables.tf",
        validations: false,
    },
    // Refused on the module's own input, as its other inputs are.
    Root {
        dir: "terraform/ecs-gpu-managed-instances",
        new_inputs: "variables_service.tf",
        validations: true,
    },
];

/// The attributes of a `variable` block the check compares, besides its validation blocks.
const FIELDS: [&str; 6] = [
    "description",
    "type",
    "default",
    "nullable",
    "sensitive",
    "ephemeral",
];
const VALIDATION: &str = "validation";
const DIFFERS: &str = "Differs from ";
const NOT_SET: &str = "Not set:";

/// Copies the pass-through inputs of every root in [`ROOTS`].
pub fn pass_through(tree: &mut Tree) -> Result<(), Error> {
    for root in ROOTS {
        one_root(tree, root)?;
    }
    Ok(())
}

/// A submodule's declaration of an input a call passes through.
#[derive(Debug)]
struct Feed<'a> {
    /// The submodule's folder.
    module: &'a Path,
    hcl: &'a Hcl,
    block: &'a Block,
}

fn one_root(tree: &mut Tree, root: &Root) -> Result<(), Error> {
    let dir = Path::new(root.dir);
    let files = tree
        .tf_files(dir)?
        .iter()
        .map(|p| tree.parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    // The submodules the root calls by a relative path, parsed once each.
    let mut modules: BTreeMap<PathBuf, Vec<Hcl>> = BTreeMap::new();
    for hcl in &files {
        for (_, call) in blocks(hcl, "module")? {
            let Some(module) = local_source(hcl, dir, call)? else {
                continue;
            };
            if let Entry::Vacant(slot) = modules.entry(module) {
                let parsed = tree
                    .tf_files(slot.key())?
                    .iter()
                    .map(|p| tree.parse(p))
                    .collect::<Result<Vec<_>, _>>()?;
                slot.insert(parsed);
            }
        }
    }

    let mut declared: BTreeMap<&str, (&Hcl, &Block)> = BTreeMap::new();
    for hcl in &files {
        for (name, block) in blocks(hcl, "variable")? {
            if declared.insert(name, (hcl, block)).is_some() {
                return Err(hcl.error(block.span, format!("variable `{name}` is declared twice")));
            }
        }
    }

    // Each pass-through input with the declarations it is passed to, in the order of the calls.
    let mut feeds: Vec<(&str, Vec<Feed<'_>>)> = Vec::new();
    for hcl in &files {
        for (label, call) in blocks(hcl, "module")? {
            let Some(module_dir) = local_source(hcl, dir, call)? else {
                continue;
            };
            let (module, sub) = modules
                .get_key_value(&module_dir)
                .expect("every local module was parsed above");
            let mut inputs: BTreeMap<&str, (&Hcl, &Block)> = BTreeMap::new();
            for sub_hcl in sub {
                for (name, block) in blocks(sub_hcl, "variable")? {
                    inputs.insert(name, (sub_hcl, block));
                }
            }
            check_every_input_is_set(hcl, label, call, module, &inputs)?;
            for item in &call.body.items {
                let Item::Attribute(attr) = item else {
                    continue;
                };
                let name = attr.name.name.as_str();
                let Some(&(sub_hcl, block)) = inputs.get(name) else {
                    continue;
                };
                if !is_var(&attr.value, name) {
                    continue;
                }
                let feed = Feed {
                    module,
                    hcl: sub_hcl,
                    block,
                };
                match feeds.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, list)) => list.push(feed),
                    None => feeds.push((name, vec![feed])),
                }
            }
        }
    }

    let mut edits: Vec<(PathBuf, Span, String)> = Vec::new();
    let mut added: Vec<String> = Vec::new();
    for (name, list) in &feeds {
        let first = &list[0];
        for other in &list[1..] {
            let differ = differing(
                &fields(first.hcl, first.block, false)?,
                &fields(other.hcl, other.block, false)?,
            );
            if !differ.is_empty() {
                return Err(other.hcl.error(
                    other.block.span,
                    format!(
                        "`{name}` is passed through to {} and {}, which declare it differently ({}): make them agree",
                        module_name(first.module),
                        module_name(other.module),
                        differ.join(", ")
                    ),
                ));
            }
        }
        let text = copy(first.hcl, first.block, root.validations);
        let expected = fields(first.hcl, first.block, root.validations)?;
        match declared.get(name) {
            None => added.push(text),
            Some(&(hcl, block)) => match differs_comment(hcl, block)? {
                None => {
                    if hcl.slice(block.span) != text {
                        edits.push((hcl.path.clone(), block.span, text));
                    }
                }
                Some(said) => {
                    check_said_difference(hcl, block, name, first.module, &said, &expected)?
                }
            },
        }
    }

    apply(tree, dir, root, edits, added)
}

/// The submodule folder of a `module` block whose source is a relative path (`../modules/x`).
fn local_source(hcl: &Hcl, dir: &Path, call: &Block) -> Result<Option<PathBuf>, Error> {
    let Some(source) = attribute(call, "source") else {
        return Ok(None);
    };
    let ExprKind::Template(t) = &source.value.kind else {
        return Ok(None);
    };
    let Some(source_text) = t.as_literal() else {
        return Ok(None);
    };
    if !source_text.starts_with("./") && !source_text.starts_with("../") {
        return Ok(None);
    }
    join_relative(dir, source_text).map(Some).ok_or_else(|| {
        hcl.error(
            source.span,
            format!("the module source `{source_text}` leaves the repository"),
        )
    })
}

/// `var.<name>`.
fn is_var(expr: &Expr, name: &str) -> bool {
    matches!(&expr.kind, ExprKind::GetAttr { target, name: attr }
        if attr.name == name && matches!(&target.kind, ExprKind::Variable(v) if v.name == "var"))
}

/// `modules/service` for `terraform/modules/service`: how the modules name each other.
fn module_name(module: &Path) -> String {
    display(module.strip_prefix("terraform").unwrap_or(module))
}

fn check_every_input_is_set(
    hcl: &Hcl,
    label: &str,
    call: &Block,
    module: &Path,
    inputs: &BTreeMap<&str, (&Hcl, &Block)>,
) -> Result<(), Error> {
    let set: BTreeSet<&str> = call
        .body
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Attribute(a) => Some(a.name.name.as_str()),
            Item::Block(_) => None,
        })
        .collect();
    let mut not_set: BTreeSet<String> = BTreeSet::new();
    for comment in paragraphs_in(hcl, call.span) {
        let Some(rest) = comment.text.strip_prefix(NOT_SET) else {
            continue;
        };
        let Some((names, _)) = rest
            .split_once(':')
            .filter(|(_, why)| !why.trim().is_empty())
        else {
            return Err(hcl.error(
                comment.span,
                format!("write `# {NOT_SET} <input>, <input>: <why>`"),
            ));
        };
        for name in split_list(names) {
            if !inputs.contains_key(name) {
                return Err(hcl.error(
                    comment.span,
                    format!("`{name}` is not an input of {}", module_name(module)),
                ));
            }
            if set.contains(name) {
                return Err(hcl.error(
                    comment.span,
                    format!(
                        "module \"{label}\" sets `{name}`, which its `# {NOT_SET}` comment names"
                    ),
                ));
            }
            not_set.insert(name.to_string());
        }
    }
    for name in inputs.keys() {
        if !set.contains(name) && !not_set.contains(*name) {
            return Err(hcl.error(
                call.span,
                format!(
                    "module \"{label}\" sets no value for `{name}`, an input of {}: pass it, or name it in a `# {NOT_SET} {name}: <why>` comment in the block",
                    module_name(module)
                ),
            ));
        }
    }
    Ok(())
}

/// The comments that start inside a span.
fn comments_in(hcl: &Hcl, span: Span) -> impl Iterator<Item = &ecs_gpu_hcl::Comment> {
    hcl.file
        .comments
        .iter()
        .filter(move |c| c.span.start > span.start && c.span.end <= span.end)
}

/// A comment continued over the lines after it, as one text.
#[derive(Debug)]
struct Paragraph {
    text: String,
    span: Span,
}

/// The comments inside a span, those on consecutive lines joined into one paragraph, except that
/// a comment that starts with `# Not set:` or `# Differs from` starts a paragraph of its own.
fn paragraphs_in(hcl: &Hcl, span: Span) -> Vec<Paragraph> {
    let mut out: Vec<(Paragraph, u32)> = Vec::new();
    for comment in comments_in(hcl, span) {
        let (line, _) = ecs_gpu_hcl::line_col(&hcl.text, comment.span.start);
        let starts = comment.text.starts_with(NOT_SET) || comment.text.starts_with(DIFFERS);
        match out.last_mut() {
            Some((last, last_line)) if *last_line + 1 == line && !starts => {
                last.text.push(' ');
                last.text.push_str(&comment.text);
                last.span = last.span.to(comment.span);
                *last_line = line;
            }
            _ => out.push((
                Paragraph {
                    text: comment.text.clone(),
                    span: comment.span,
                },
                line,
            )),
        }
    }
    out.into_iter().map(|(p, _)| p).collect()
}

/// `a, b and c` as `["a", "b", "c"]`.
fn split_list(text: &str) -> Vec<&str> {
    text.split(',')
        .flat_map(|part| part.split(" and "))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// What a declaration says, field by field, as the check compares it: the description as a table
/// shows it, the other attributes on one line (a heredoc as written), and each validation block's
/// lines (without their indentation).
#[derive(Debug, PartialEq)]
struct Fields {
    attributes: Vec<Option<String>>,
    validations: Vec<String>,
}

fn fields(hcl: &Hcl, block: &Block, with_validations: bool) -> Result<Fields, Error> {
    let mut attributes = Vec::with_capacity(FIELDS.len());
    for field in FIELDS {
        attributes.push(match field {
            "description" => description(hcl, block)?,
            _ => match attribute(block, field) {
                None => None,
                Some(a) => Some(match &a.value.kind {
                    ExprKind::Template(t) if t.heredoc => hcl.slice(a.value.span).to_string(),
                    _ => one_line(hcl, &a.value)?,
                }),
            },
        });
    }
    let validations = if with_validations {
        nested(block, VALIDATION)
            .map(|v| {
                let text = hcl.slice(v.span);
                text.lines().map(str::trim).collect::<Vec<_>>().join("\n")
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Fields {
        attributes,
        validations,
    })
}

/// The names of the fields in which two declarations differ.
fn differing(a: &Fields, b: &Fields) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = FIELDS
        .iter()
        .zip(a.attributes.iter().zip(&b.attributes))
        .filter(|(_, (x, y))| x != y)
        .map(|(name, _)| *name)
        .collect();
    if a.validations != b.validations {
        out.push(VALIDATION);
    }
    out
}

/// A `# Differs from <module> in <fields>: <why>` comment.
#[derive(Debug)]
struct Said {
    module: String,
    fields: BTreeSet<String>,
    span: Span,
}

fn differs_comment(hcl: &Hcl, block: &Block) -> Result<Option<Said>, Error> {
    let mut found = None;
    for comment in paragraphs_in(hcl, block.span) {
        let Some(rest) = comment.text.strip_prefix(DIFFERS) else {
            continue;
        };
        let malformed = || {
            hcl.error(
                comment.span,
                format!("write `# {DIFFERS}modules/<name> in <field>, <field>: <why>`"),
            )
        };
        let (module, rest) = rest.split_once(" in ").ok_or_else(malformed)?;
        let (names, why) = rest.split_once(':').ok_or_else(malformed)?;
        if why.trim().is_empty() {
            return Err(malformed());
        }
        let mut fields = BTreeSet::new();
        for name in split_list(names) {
            let name = if name == "validations" {
                VALIDATION
            } else {
                name
            };
            if name != VALIDATION && !FIELDS.contains(&name) {
                return Err(hcl.error(
                    comment.span,
                    format!(
                        "`{name}` is not a field the check compares: {}, {VALIDATION}",
                        FIELDS.join(", ")
                    ),
                ));
            }
            fields.insert(name.to_string());
        }
        if found.is_some() {
            return Err(hcl.error(
                comment.span,
                format!("one `# {DIFFERS}...` comment per declaration"),
            ));
        }
        found = Some(Said {
            module: module.trim().to_string(),
            fields,
            span: comment.span,
        });
    }
    Ok(found)
}

fn check_said_difference(
    hcl: &Hcl,
    block: &Block,
    name: &str,
    module: &Path,
    said: &Said,
    expected: &Fields,
) -> Result<(), Error> {
    let module = module_name(module);
    if said.module != module {
        return Err(hcl.error(
            said.span,
            format!(
                "`{name}` is copied from {module} (the first module call that passes it through), not {}",
                said.module
            ),
        ));
    }
    let actual: BTreeSet<String> = differing(&fields(hcl, block, true)?, expected)
        .into_iter()
        .map(String::from)
        .collect();
    if actual.is_empty() {
        return Err(hcl.error(
            said.span,
            format!("`{name}` is declared as in {module}: remove the `# {DIFFERS}...` comment, and the declaration is copied from there"),
        ));
    }
    if actual != said.fields {
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        return Err(hcl.error(
            said.span,
            format!(
                "`{name}` differs from {module} in {}; its comment says {}: say exactly what differs, and why",
                list(&actual),
                list(&said.fields)
            ),
        ));
    }
    Ok(())
}

/// The text of a `variable` block as copied: the submodule's, without its validation blocks (and
/// the comments and blank lines just above each) unless `validations`.
fn copy(hcl: &Hcl, block: &Block, validations: bool) -> String {
    let text = hcl.slice(block.span);
    if validations {
        return text.to_string();
    }
    let base = block.span.start as usize;
    let line_of = |offset: u32| text[..offset as usize - base].matches('\n').count();
    let lines: Vec<&str> = text.split('\n').collect();
    let comment_lines: BTreeSet<usize> = comments_in(hcl, block.span)
        .filter(|c| {
            let start = c.span.start as usize - base;
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            text[line_start..start].trim().is_empty()
        })
        .map(|c| line_of(c.span.start))
        .collect();
    let mut dropped = vec![false; lines.len()];
    for v in nested(block, VALIDATION) {
        let (first, last) = (line_of(v.span.start), line_of(v.span.end - 1));
        dropped[first..=last].iter_mut().for_each(|d| *d = true);
        let mut above = first;
        while above > 0
            && !dropped[above - 1]
            && (lines[above - 1].trim().is_empty() || comment_lines.contains(&(above - 1)))
        {
            above -= 1;
            dropped[above] = true;
        }
    }
    lines
        .iter()
        .zip(&dropped)
        .filter(|(_, d)| !**d)
        .map(|(l, _)| *l)
        .collect::<Vec<_>>()
        .join("\n")
}

fn apply(
    tree: &mut Tree,
    dir: &Path,
    root: &Root,
    mut edits: Vec<(PathBuf, Span, String)>,
    added: Vec<String>,
) -> Result<(), Error> {
    edits.sort_by(|a, b| (&a.0, b.1.start).cmp(&(&b.0, a.1.start)));
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (path, span, text) in edits {
        if !texts.contains_key(&path) {
            let current = tree.read(&path)?;
            texts.insert(path.clone(), current);
        }
        let file = texts.get_mut(&path).expect("read above");
        file.replace_range(span.start as usize..span.end as usize, &text);
    }
    if !added.is_empty() {
        let path = dir.join(root.new_inputs);
        let mut file = match texts.remove(&path) {
            Some(text) => text,
            None => tree.read(&path).unwrap_or_default(),
        };
        for text in added {
            let trimmed = file.trim_end_matches('\n').len();
            file.truncate(trimmed);
            if !file.is_empty() {
                file.push_str("\n\n");
            }
            file.push_str(&text);
            file.push('\n');
        }
        texts.insert(path, file);
    }
    for (path, text) in texts {
        tree.write(path, text);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
