//! The declarations of one module folder, read from its files' syntax trees and nothing else:
//! where its variables, locals, outputs, resources and module calls are, with override files
//! merged in. Pure: no evaluation, no file system.

use std::path::PathBuf;
use std::sync::Arc;

use ecs_gpu_hcl::ast::{self, Item};

use crate::{FastMap, FileId};

/// The declarations of one module folder, shared by every instance of it.
#[derive(Debug)]
pub(crate) struct ModuleDecl {
    pub real_dir: PathBuf,
    pub display_dir: PathBuf,
    pub files: Vec<(FileId, Arc<ast::File>)>,
    pub variables: FastMap<String, (usize, usize)>,
    pub variable_order: Vec<String>,
    pub locals: FastMap<String, (usize, usize, usize)>,
    pub outputs: FastMap<String, (usize, usize)>,
    /// `resource` and `data` blocks, in file order.
    pub resources: Vec<(usize, usize)>,
    /// Address (`aws_x.y`, `data.aws_x.y`) to index in `resources`.
    pub resource_index: FastMap<String, usize>,
    pub calls: Vec<(usize, usize)>,
    pub call_index: FastMap<String, usize>,
}

pub(crate) struct BlockRef<'a> {
    pub block: &'a ast::Block,
    pub file: FileId,
    /// Has `count` or `for_each`.
    pub repeated: bool,
}

pub(crate) fn attr<'a>(body: &'a ast::Body, name: &str) -> Option<&'a ast::Attribute> {
    body.items.iter().find_map(|i| match i {
        Item::Attribute(a) if a.name.name == name => Some(a),
        _ => None,
    })
}

impl ModuleDecl {
    pub(crate) fn new(
        real_dir: PathBuf,
        display_dir: PathBuf,
        files: Vec<(FileId, Arc<ast::File>)>,
    ) -> ModuleDecl {
        let mut d = ModuleDecl {
            real_dir,
            display_dir,
            files,
            variables: FastMap::default(),
            variable_order: Vec::new(),
            locals: FastMap::default(),
            outputs: FastMap::default(),
            resources: Vec::new(),
            resource_index: FastMap::default(),
            calls: Vec::new(),
            call_index: FastMap::default(),
        };
        for (fi, (_, file)) in d.files.iter().enumerate() {
            for (ii, item) in file.body.items.iter().enumerate() {
                let Item::Block(b) = item else { continue };
                let label = |i: usize| b.labels.get(i).map(|l| l.name.clone());
                match b.kind.name.as_str() {
                    "variable" => {
                        if let Some(n) = label(0) {
                            if d.variables.insert(n.clone(), (fi, ii)).is_none() {
                                d.variable_order.push(n);
                            }
                        }
                    }
                    "locals" => {
                        for (ai, a) in b.body.items.iter().enumerate() {
                            if let Item::Attribute(a) = a {
                                d.locals.insert(a.name.name.clone(), (fi, ii, ai));
                            }
                        }
                    }
                    "output" => {
                        if let Some(n) = label(0) {
                            d.outputs.insert(n, (fi, ii));
                        }
                    }
                    "resource" | "data" => {
                        if let (Some(t), Some(n)) = (b.labels.first(), b.labels.get(1)) {
                            // `aws_x.y` or `data.aws_x.y`, built in place (one allocation).
                            let prefix = if b.kind.name == "data" { "data." } else { "" };
                            let (t, n) = (t.name.as_str(), n.name.as_str());
                            let mut address =
                                String::with_capacity(prefix.len() + t.len() + 1 + n.len());
                            address.push_str(prefix);
                            address.push_str(t);
                            address.push('.');
                            address.push_str(n);
                            d.resource_index.insert(address, d.resources.len());
                            d.resources.push((fi, ii));
                        }
                    }
                    "module" => {
                        if let Some(n) = label(0) {
                            d.call_index.insert(n, d.calls.len());
                            d.calls.push((fi, ii));
                        }
                    }
                    _ => {}
                }
            }
        }
        d
    }

    pub(crate) fn block(&self, at: (usize, usize)) -> Option<(&ast::Block, FileId)> {
        let (fid, file) = self.files.get(at.0)?;
        match file.body.items.get(at.1)? {
            Item::Block(b) => Some((b, *fid)),
            Item::Attribute(_) => None,
        }
    }

    pub(crate) fn has_resource(&self, address: &str) -> bool {
        self.resource_index.contains_key(address)
    }

    pub(crate) fn resource_block(&self, address: &str) -> Option<BlockRef<'_>> {
        let at = *self.resources.get(*self.resource_index.get(address)?)?;
        let (block, file) = self.block(at)?;
        let repeated =
            attr(&block.body, "count").is_some() || attr(&block.body, "for_each").is_some();
        Some(BlockRef {
            block,
            file,
            repeated,
        })
    }

    pub(crate) fn local(&self, name: &str) -> Option<(&ast::Attribute, FileId)> {
        let (fi, ii, ai) = *self.locals.get(name)?;
        let (b, fid) = self.block((fi, ii))?;
        match b.body.items.get(ai)? {
            Item::Attribute(a) => Some((a, fid)),
            Item::Block(_) => None,
        }
    }
}

/// Terraform's override files: each block of an override file is merged into the block of the same
/// type and labels in the other files (arguments replaced one by one, nested blocks of a type
/// replaced as a whole, `lifecycle` merged argument by argument); `locals` entries and blocks
/// without a counterpart simply come last, so they win.
pub(crate) fn apply_overrides(
    files: Vec<(FileId, Arc<ast::File>)>,
    is_override: impl Fn(FileId) -> bool,
) -> Vec<(FileId, Arc<ast::File>)> {
    let (mut base, overrides): (Vec<_>, Vec<_>) =
        files.into_iter().partition(|(id, _)| !is_override(*id));
    let mut rest = Vec::new();
    for (id, mut shared) in overrides {
        // A parsed file may be shared with other units (`Shared::parsed`): merged into a copy.
        let file = Arc::make_mut(&mut shared);
        let items = std::mem::take(&mut file.body.items);
        for item in items {
            let Item::Block(ob) = item else {
                file.body.items.push(item);
                continue;
            };
            let mergeable = matches!(
                ob.kind.name.as_str(),
                "resource" | "data" | "module" | "output" | "variable"
            );
            let target = if mergeable {
                base.iter_mut().find_map(|(_, f)| {
                    Arc::make_mut(f)
                        .body
                        .items
                        .iter_mut()
                        .find_map(|i| match i {
                            Item::Block(b)
                                if b.kind.name == ob.kind.name
                                    && b.labels.len() == ob.labels.len()
                                    && b.labels
                                        .iter()
                                        .zip(&ob.labels)
                                        .all(|(x, y)| x.name == y.name) =>
                            {
                                Some(b)
                            }
                            _ => None,
                        })
                })
            } else {
                None
            };
            match target {
                Some(b) => merge_body(&mut b.body, ob.body, true),
                None => file.body.items.push(Item::Block(ob)),
            }
        }
        rest.push((id, shared));
    }
    base.extend(rest);
    base
}

fn merge_body(base: &mut ast::Body, over: ast::Body, top: bool) {
    let mut replaced: Vec<String> = Vec::new();
    for item in over.items {
        match item {
            Item::Attribute(a) => {
                match base
                    .items
                    .iter_mut()
                    .find(|i| matches!(i, Item::Attribute(x) if x.name.name == a.name.name))
                {
                    Some(slot) => *slot = Item::Attribute(a),
                    None => base.items.push(Item::Attribute(a)),
                }
            }
            Item::Block(b) if top && b.kind.name == "lifecycle" => {
                match base.items.iter_mut().find_map(|i| match i {
                    Item::Block(x) if x.kind.name == "lifecycle" => Some(x),
                    _ => None,
                }) {
                    Some(l) => merge_body(&mut l.body, b.body, false),
                    None => base.items.push(Item::Block(b)),
                }
            }
            Item::Block(b) => {
                let kind = if b.kind.name == "dynamic" {
                    b.labels.first().map(|l| l.name.clone()).unwrap_or_default()
                } else {
                    b.kind.name.clone()
                };
                if !replaced.contains(&kind) {
                    base.items.retain(|i| match i {
                        Item::Block(x) => {
                            let k = if x.kind.name == "dynamic" {
                                x.labels.first().map(|l| l.name.as_str()).unwrap_or("")
                            } else {
                                x.kind.name.as_str()
                            };
                            k != kind
                        }
                        Item::Attribute(_) => true,
                    });
                    replaced.push(kind);
                }
                base.items.push(Item::Block(b));
            }
        }
    }
}
