//! Module expansion: a root module's instance, and the instances of each module call (`count`,
//! `for_each`, a local folder or the copy `terraform init` installed), with the declarations of
//! the folders they call.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use ecs_gpu_hcl::ast::{self, ExprKind};

use crate::decl::{apply_overrides, attr, ModuleDecl};
use crate::eval::{to_str, EvalContext, Evaluate as _, EMPTY};
use crate::installed::{self, Installed, Lookup};
use crate::loader::{
    is_file, ChildState, Children, Loader, ModuleInstance, RemoteCall, Slot, VarSource,
};
use crate::model::*;
use crate::value::{unknown, Entry, InstanceKey, Loc, Mark, Node, Object, UnknownReason, Value};
use crate::version::Constraints;
use crate::walk::{self, Kind};
use crate::{FastMap, FastSet};

/// Deepest chain of module calls followed.
const MAX_MODULE_DEPTH: usize = 12;

/// More instances than this are treated as an unknown number (a typo'd count must not eat memory),
/// with a note ([`LoadNoteKind::InstanceLimit`]).
pub const MAX_INSTANCES: usize = 1000;

/// Most module instances in one load.
const MAX_MODULE_INSTANCES: usize = 5000;

/// One instance of a repeated block: its key and its `count`/`each` binding.
type Instance = (Option<InstanceKey>, Option<(String, Node)>);

/// What a root module takes from its folder's listing besides its Terraform files, ignored by
/// `.gitignore` or not (Terraform reads them either way).
#[derive(Debug, Default)]
struct RootListing {
    /// `terraform.tfvars` and `terraform.tfvars.json` (regular files, or links to one), by real path.
    pub tfvars: Vec<PathBuf>,
    /// `*.auto.tfvars` and `*.auto.tfvars.json`, the same.
    pub auto_tfvars: Vec<PathBuf>,
    /// Whether the folder holds `.terraform`.
    pub dot_terraform: bool,
}

impl RootListing {
    /// The listing of the folder at `real`.
    fn read(real: &Path) -> RootListing {
        let mut listing = RootListing::default();
        if let Ok(rd) = std::fs::read_dir(real) {
            for e in rd.filter_map(Result::ok) {
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                if name == ".terraform" {
                    listing.dot_terraform = true;
                } else if name == "terraform.tfvars" || name == "terraform.tfvars.json" {
                    if is_file(&e) {
                        listing.tfvars.push(e.path());
                    }
                } else if (name.ends_with(".auto.tfvars") || name.ends_with(".auto.tfvars.json"))
                    && is_file(&e)
                {
                    listing.auto_tfvars.push(e.path());
                }
            }
        }
        listing
    }
}

/// Most source text (bytes) of the module folders whose declarations a unit keeps for later
/// calls. Syntax trees take about ten times their text: small shared modules stay (a root may
/// call the same one many times), a big module called once does not hold its trees for the whole
/// unit.
const DECL_CACHE_BYTES: usize = 128 << 10;

pub(crate) fn header_span(b: &ast::Block) -> ecs_gpu_hcl::Span {
    let mut s = b.kind.span;
    if let Some(l) = b.labels.last() {
        s = s.to(l.span);
    }
    s
}

/// A module call's `version` constraint, as Terraform reads it: a constant string (a whole number
/// stands for its digits), none when absent or `null` (`internal/configs/version_constraint.go`).
/// Other constants are not read: a decimal number's text after Terraform's conversion (`1.20` is
/// `"1.2"`) is not the text written.
/// `Err`: why the installed copy cannot be checked against it.
fn call_version(call: &ast::Body) -> Result<Option<(String, Constraints)>, String> {
    let Some(a) = attr(call, "version") else {
        return Ok(None);
    };
    let text = match &a.value.kind {
        ExprKind::Null => return Ok(None),
        ExprKind::Template(t) => t.as_literal().map(str::to_string),
        ExprKind::Number(n) if n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0') => {
            Some(n.clone())
        }
        _ => None,
    };
    let Some(text) = text else {
        return Err("its `version` is not a literal string".to_string());
    };
    match Constraints::parse(&text) {
        Some(c) => Ok(Some((text, c))),
        None => Err(format!(
            "its `version`, `{text}`, is not a version constraint Terraform accepts"
        )),
    }
}

/// The notes about module calls not followed: one per remote call (at its place; the rules group
/// them by folder), one per local call that could not be followed.
pub(crate) fn finish_notes(
    remote_calls: &[RemoteCall],
    failed_calls: &[(String, Loc)],
) -> Vec<LoadNote> {
    let mut notes = Vec::new();
    let mut seen = FastSet::default();
    for c in remote_calls {
        if !seen.insert((c.address.clone(), c.loc)) {
            continue;
        }
        notes.push(LoadNote {
            kind: LoadNoteKind::RemoteModules,
            message: match &c.why {
                Some(why) => format!("`{}` (`{}`; {why})", c.address, c.source),
                None => format!("`{}` (`{}`)", c.address, c.source),
            },
            loc: Some(c.loc),
        });
    }
    let mut seen = FastSet::default();
    for (a, loc) in failed_calls {
        if seen.insert(a.clone()) {
            notes.push(LoadNote {
                kind: LoadNoteKind::ModuleNotFollowed,
                message: format!("module call `{a}` is not followed: its source is not a local folder that can be loaded (missing, not a literal, a recursive call or nested too deep)"),
                loc: Some(*loc),
            });
        }
    }
    notes
}

/// A whole `count` as Terraform prints it.
fn format_count(f: f64) -> String {
    crate::value::format_number(f)
}

impl Loader {
    /// The size of the texts of a module folder's declarations.
    fn text_size(&self, decl: &ModuleDecl) -> usize {
        decl.files
            .iter()
            .filter_map(|(id, _)| self.files.get(id.0 as usize))
            .map(|f| f.lines.text_len())
            .sum()
    }

    #[allow(clippy::too_many_arguments)]
    fn new_inst(
        &mut self,
        decl: Rc<ModuleDecl>,
        address: Option<String>,
        parent: Option<usize>,
        call: Option<Loc>,
        rel_dir: String,
        root_dir: PathBuf,
        chain: Vec<PathBuf>,
    ) -> usize {
        let idx = self.instances.len();
        let id = ModuleId(u32::try_from(idx).unwrap_or(u32::MAX));
        self.modules.push(Module {
            id,
            address: address.clone(),
            dir: decl.display_dir.clone(),
            parent: parent.map(|p| self.instances[p].id),
            call,
        });
        let depth = parent.map_or(0, |p| self.instances[p].depth + 1);
        let instances_unknown = parent.is_some_and(|p| self.instances[p].instances_unknown);
        let workspace = parent.map_or_else(
            || "default".to_string(),
            |p| self.instances[p].workspace.clone(),
        );
        let installed = parent.and_then(|p| self.instances[p].installed.clone());
        self.instances.push(ModuleInstance {
            decl,
            id,
            address,
            rel_dir,
            root_dir,
            depth,
            chain,
            instances_unknown,
            workspace,
            key: String::new(),
            installed,
            vars: FastMap::default(),
            locals: FastMap::default(),
            outputs: FastMap::default(),
            children: FastMap::default(),
            emitted: false,
        });
        idx
    }

    pub(crate) fn new_root(&mut self, decl: Rc<ModuleDecl>) -> usize {
        let root_dir = decl.real_dir.clone();
        // The folder's listing, ignored by `.gitignore` or not: its variable files and whether it
        // has `.terraform`.
        let RootListing {
            mut tfvars,
            auto_tfvars: mut auto,
            dot_terraform,
        } = RootListing::read(&decl.real_dir);
        // The workspace, as Terraform selects it: TF_WORKSPACE, else the one recorded by
        // `terraform workspace select` in .terraform/environment, else "default".
        let workspace = self
            .shared
            .tf_workspace
            .clone()
            .or_else(|| {
                dot_terraform
                    .then(|| walk::read_text(&root_dir.join(".terraform/environment")).ok())
                    .flatten()
                    .map(|s| s.trim().to_string())
            })
            .filter(|w| !w.is_empty())
            .unwrap_or_else(|| "default".to_string());
        let chain = vec![decl.real_dir.clone()];
        let installed = if dot_terraform {
            self.read_installed(&root_dir, &decl.display_dir)
        } else {
            None
        };
        let inst = self.new_inst(decl.clone(), None, None, None, ".".into(), root_dir, chain);
        self.instances[inst].workspace = workspace;
        self.instances[inst].installed = installed;
        // terraform.tfvars before terraform.tfvars.json.
        tfvars.sort();
        auto.sort();
        tfvars.extend(auto);
        self.bind_root_vars(inst, &decl, tfvars);
        inst
    }

    /// The calls `terraform init` installed for the root module at `root_real` (shown as
    /// `display_root`): `None` when it has no manifest, or one that cannot be read (a problem).
    fn read_installed(&mut self, root_real: &Path, display_root: &Path) -> Option<Rc<Installed>> {
        let path = root_real.join(installed::MANIFEST);
        let display = display_root.join(installed::MANIFEST);
        let text = match walk::read_text(&path) {
            Ok(t) => t,
            Err(_) if !path.exists() => return None,
            Err(e) => {
                self.problems.push(e.problem(display));
                return None;
            }
        };
        match Installed::parse(&text, display_root.to_path_buf()) {
            Ok(m) => Some(Rc::new(m)),
            Err(e) => {
                self.parse_problem(display, &text, &e);
                None
            }
        }
    }

    /// Notes a `count` or `for_each` past [`MAX_INSTANCES`].
    fn instance_limit(&mut self, meta: &str, n: &str, loc: Option<Loc>) {
        // Once per place: a block is expanded again when a reference names one of its instances,
        // and a module called twice declares it twice.
        if self
            .notes
            .iter()
            .any(|n| n.kind == LoadNoteKind::InstanceLimit && n.loc == loc)
        {
            return;
        }
        self.notes.push(LoadNote {
            kind: LoadNoteKind::InstanceLimit,
            message: format!(
                "`{meta}` gives {n} instances, more than the {MAX_INSTANCES} the checker expands: the resource is checked as one instance of unknown number"
            ),
            loc,
        });
    }

    /// The instances (and their keys) of a resource block, evaluating `count` / `for_each`.
    /// `None` for the key list means the instances are unknown.
    pub(crate) fn expand(
        &mut self,
        inst: usize,
        body: &ast::Body,
        file: FileId,
    ) -> Option<Vec<Instance>> {
        let cx = EvalContext::new(inst, file, &EMPTY, false);
        if let Some(c) = attr(body, "count") {
            let n = self.eval(&cx, &c.value);
            return match crate::eval::to_num(&n) {
                Ok(f) if f.fract() == 0.0 && f > MAX_INSTANCES as f64 => {
                    let shown = match n.hidden() {
                        Mark::None => format_count(f),
                        mark => mark.label().to_string(),
                    };
                    self.instance_limit("count", &shown, cx.loc(c.value.span));
                    None
                }
                Ok(f) if f >= 0.0 && f.fract() == 0.0 && (f as usize) <= MAX_INSTANCES => Some(
                    (0..f as u64)
                        .map(|i| {
                            let index = Node::new(Value::Number(i as f64), None);
                            let count = binding("count", vec![Entry::new("index".into(), index)]);
                            (Some(InstanceKey::Index(i)), Some(count))
                        })
                        .collect(),
                ),
                _ => None,
            };
        }
        if let Some(fe) = attr(body, "for_each") {
            let n = self.eval(&cx, &fe.value);
            // Terraform refuses a sensitive `for_each` as a whole (a set holding a sensitive
            // element is one): its keys would be instance addresses, shown everywhere. So the
            // instances are not known, and no key is ever printed.
            let hidden = n.mark.is_hidden()
                || matches!(&n.value, Value::List(items) if items.iter().any(Node::is_sensitive));
            if hidden {
                return None;
            }
            let pairs: Vec<(String, Node)> = match &n.value {
                Value::Object(o) => crate::json::sorted_entries(o)
                    .into_iter()
                    .map(|e| (e.key.clone(), e.value.clone()))
                    .collect(),
                Value::List(items) => {
                    let mut v = Vec::new();
                    for i in items {
                        match to_str(i) {
                            Ok(s) => v.push((s, i.clone())),
                            Err(_) => return None,
                        }
                    }
                    v.sort_by(|a, b| a.0.cmp(&b.0));
                    v.dedup_by(|a, b| a.0 == b.0);
                    v
                }
                _ => return None,
            };
            if pairs.len() > MAX_INSTANCES {
                let n = pairs.len().to_string();
                self.instance_limit("for_each", &n, cx.loc(fe.value.span));
                return None;
            }
            return Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| {
                        let key = Node::new(Value::String(k.clone().into()), None);
                        let each = [Entry::new("key".into(), key), Entry::new("value".into(), v)];
                        (
                            Some(InstanceKey::Key(k)),
                            Some(binding("each", each.into())),
                        )
                    })
                    .collect(),
            );
        }
        Some(vec![(None, None)])
    }

    /// The binding (`count` or `each`) of one known instance of a repeated block.
    pub(crate) fn instance_binding(
        &mut self,
        inst: usize,
        block: &ast::Block,
        file: FileId,
        key: &InstanceKey,
    ) -> Option<(String, Node)> {
        let list = self.expand(inst, &block.body, file)?;
        list.into_iter()
            .find(|(k, _)| k.as_ref() == Some(key))
            .and_then(|(_, b)| b)
    }

    /// The binding that stands for every instance when they are unknown.
    pub(crate) fn unknown_binding(body: &ast::Body) -> Option<(String, Node)> {
        let unk = |k: &str| {
            let after_apply = unknown(UnknownReason::AfterApply, Vec::new());
            Entry::new(k.into(), Node::new(after_apply, None))
        };
        if attr(body, "count").is_some() {
            return Some(binding("count", vec![unk("index")]));
        }
        attr(body, "for_each").map(|_| binding("each", vec![unk("key"), unk("value")]))
    }

    /// The instances of a module call, created on first use.
    pub(crate) fn ensure_children(&mut self, inst: usize, name: &str) -> Children {
        match self.instances[inst].children.get(name) {
            Some(ChildState::Ready(c)) => return c.clone(),
            Some(ChildState::Creating) => return Children::Failed,
            None => {}
        }
        let decl = self.instances[inst].decl.clone();
        let Some(at) = decl.call_index.get(name).map(|i| decl.calls[*i]) else {
            return Children::Missing;
        };
        let Some((block, fid)) = decl.block(at) else {
            return Children::Missing;
        };
        self.instances[inst]
            .children
            .insert(name.to_string(), ChildState::Creating);
        let children = self.create_children(inst, name, at, block, fid);
        self.instances[inst]
            .children
            .insert(name.to_string(), ChildState::Ready(children.clone()));
        children
    }

    fn create_children(
        &mut self,
        inst: usize,
        name: &str,
        at: (usize, usize),
        block: &ast::Block,
        fid: FileId,
    ) -> Children {
        let call_loc = Loc {
            file: fid,
            span: header_span(block),
        };
        let address = match &self.instances[inst].address {
            Some(a) => format!("{a}.module.{name}"),
            None => format!("module.{name}"),
        };
        let source = attr(&block.body, "source").and_then(|a| match &a.value.kind {
            ExprKind::Template(t) => t.as_literal().map(str::to_string),
            _ => None,
        });
        let Some(source) = source else {
            self.failed_calls.push((address, call_loc));
            return Children::Failed;
        };
        let module_key = match self.instances[inst].key.as_str() {
            "" => name.to_string(),
            parent => format!("{parent}.{name}"),
        };
        // Where the call's code is: a local folder relative to the calling module, or the copy
        // `terraform init` installed (relative to the root module), or a folder called by its
        // absolute path, with its real path, its path as shown and `path.module`.
        let local = source.starts_with("./") || source.starts_with("../");
        let (child_real, display, rel_dir) = if local {
            let parent_real = self.instances[inst].decl.real_dir.clone();
            let Ok(child_real) = std::fs::canonicalize(parent_real.join(&source)) else {
                self.failed_calls.push((address, call_loc));
                return Children::Failed;
            };
            let display = self.instances[inst].decl.display_dir.join(&source);
            let rel_dir = walk::normalize(&Path::new(&self.instances[inst].rel_dir).join(&source));
            (child_real, display, rel_dir)
        } else {
            match self.installed_copy(inst, &module_key, &source, &block.body) {
                Ok(found) => found,
                // A folder called by its absolute path, not installed yet: `terraform init` copies
                // that folder, so it is followed where it is.
                Err(None) if Path::new(&source).is_absolute() => {
                    let Ok(child_real) = std::fs::canonicalize(&source) else {
                        self.failed_calls.push((address, call_loc));
                        return Children::Failed;
                    };
                    // An absolute path may lead anywhere on the machine: followed only inside the
                    // checked folders, as a link is (`docs/limits.md`, "Links").
                    if !self.may_read(&child_real) {
                        self.remote_calls.push(RemoteCall {
                            address,
                            source,
                            loc: call_loc,
                            why: Some(
                                "its absolute path is outside the checked folders, which `check` does not read (give that folder as well to follow it)".to_string(),
                            ),
                        });
                        return Children::Remote;
                    }
                    (child_real, PathBuf::from(&source), PathBuf::from(&source))
                }
                Err(why) => {
                    self.remote_calls.push(RemoteCall {
                        address,
                        source,
                        loc: call_loc,
                        why,
                    });
                    return Children::Remote;
                }
            }
        };
        if self.instances[inst].depth + 1 > MAX_MODULE_DEPTH
            || self.instances[inst].chain.contains(&child_real)
            || self.instances.len() >= MAX_MODULE_INSTANCES
        {
            self.failed_calls.push((address, call_loc));
            return Children::Failed;
        }
        let Some(child_decl) = self.decl_for(&child_real, &display) else {
            self.failed_calls.push((address, call_loc));
            return Children::Failed;
        };
        let rel_dir = rel_dir.to_string_lossy().into_owned();
        let root_dir = self.instances[inst].root_dir.clone();
        let mut chain = self.instances[inst].chain.clone();
        chain.push(child_real);
        let repeated =
            attr(&block.body, "count").is_some() || attr(&block.body, "for_each").is_some();
        let (list, unknown_instances) = match self.expand(inst, &block.body, fid) {
            Some(l) => (l, false),
            None => (vec![(None, Self::unknown_binding(&block.body))], true),
        };
        let mut out = Vec::new();
        for (key, binding) in list {
            let addr = match &key {
                Some(InstanceKey::Index(i)) => format!("{address}[{i}]"),
                Some(InstanceKey::Key(k)) => format!("{address}[{k:?}]"),
                None => address.clone(),
            };
            let child = self.new_inst(
                child_decl.clone(),
                Some(addr),
                Some(inst),
                Some(call_loc),
                rel_dir.clone(),
                root_dir.clone(),
                chain.clone(),
            );
            if unknown_instances {
                self.instances[child].instances_unknown = true;
            }
            self.instances[child].key.clone_from(&module_key);
            let binds: Vec<(String, Node)> = binding.into_iter().collect();
            for var in child_decl.variable_order.clone() {
                let source = if attr(&block.body, &var).is_some() {
                    VarSource::Call {
                        parent: inst,
                        call: at,
                        binds: binds.clone(),
                    }
                } else {
                    VarSource::Default
                };
                self.instances[child]
                    .vars
                    .insert(var, Slot::Pending(source));
            }
            out.push((key, child));
        }
        Children::Instances {
            repeated,
            unknown_instances,
            list: out,
        }
    }

    /// Where `terraform init` installed the code of the remote call at `key` (written with
    /// `source`) of instance `inst`'s root: its real path, its path as shown and `path.module`. Or
    /// why its copy is not used (`None`: there is none).
    fn installed_copy(
        &self,
        inst: usize,
        key: &str,
        source: &str,
        call: &ast::Body,
    ) -> Result<(PathBuf, PathBuf, PathBuf), Option<String>> {
        let Some(manifest) = self.instances[inst].installed.as_deref() else {
            return Err(None);
        };
        let version = match call_version(call) {
            Ok(v) => v,
            // Not installed: nothing to say about the copy.
            Err(_) if manifest.lookup(key, source, None) == Lookup::NotInstalled => {
                return Err(None)
            }
            Err(why) => return Err(Some(why)),
        };
        let dir = match manifest.lookup(key, source, version.as_ref().map(|(_, c)| c)) {
            Lookup::Dir(dir) => dir,
            Lookup::NotInstalled => return Err(None),
            Lookup::OtherSource(other) => {
                return Err(Some(format!(
                    "`.terraform/modules` holds it from `{other}`: run `terraform init` again"
                )))
            }
            Lookup::OtherVersion(installed) => {
                let wanted = version.map(|(text, _)| text).unwrap_or_default();
                return Err(Some(match installed {
                    Some(v) => format!(
                        "`.terraform/modules` holds version `{v}`, which `{wanted}` does not allow: run `terraform init` again"
                    ),
                    None => format!(
                        "`.terraform/modules` holds it with no version, and the call asks for `{wanted}`: run `terraform init` again"
                    ),
                }));
            }
        };
        // The copy is inside the root module's folder, or it is not used; but a folder called by
        // its absolute path is installed as a link to that folder.
        let root_real = &self.instances[inst].root_dir;
        let called = Path::new(source)
            .is_absolute()
            .then(|| std::fs::canonicalize(source).ok())
            .flatten();
        let real = std::fs::canonicalize(root_real.join(dir))
            .ok()
            .filter(|real| {
                let linked = called.as_ref() == Some(real) && self.may_read(real);
                (real.starts_with(root_real) || linked) && real.is_dir()
            })
            .ok_or_else(|| {
                Some(format!(
                    "its folder in the `terraform init` manifest, `{dir}`, is missing or outside the root module's folder"
                ))
            })?;
        Ok((
            real,
            manifest.display_root.join(dir),
            walk::normalize(Path::new(dir)),
        ))
    }

    /// The declarations of a module folder: kept from an earlier call, or read (the texts the
    /// unit already has are parsed again, not read again).
    fn decl_for(&mut self, real: &Path, display: &Path) -> Option<Rc<ModuleDecl>> {
        if let Some(d) = self.decls.get(real.as_os_str()) {
            let d = d.clone();
            self.allow(real);
            return d;
        }
        let shared = self.shared.clone();
        let walked_folder = shared.walked(real);
        let display_dir = match walked_folder {
            Some(f) => f.display.clone(),
            None => walk::display_path(display, &self.cwd),
        };
        let mut entries: Vec<(PathBuf, Kind)> = std::fs::read_dir(real)
            .ok()?
            .filter_map(Result::ok)
            .filter(is_file)
            .filter_map(|e| {
                let p = e.path();
                match Kind::of(&p) {
                    Some(k @ (Kind::Tf | Kind::TfJson)) => Some((p, k)),
                    _ => None,
                }
            })
            .collect();
        entries.sort();
        let names: Vec<String> = entries
            .iter()
            .filter_map(|(p, _)| Some(p.file_name()?.to_str()?.to_string()))
            .collect();
        entries.retain(|(p, _)| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| walk::shadowed_by_tofu(n, |twin| names.iter().any(|m| m == twin)))
        });
        let mut files = Vec::new();
        for (p, kind) in entries {
            let Some(name) = p.file_name() else { continue };
            // A file of the folder that links outside it and the checked folders is not read (a
            // walked folder's was said by the walk).
            if !self.link_inside(&p, Some(real)) {
                if walked_folder.is_none() {
                    self.problems.push(LoadProblem {
                        path: walk::display_path(&display_dir.join(name), &self.cwd),
                        line: None,
                        column: None,
                        message: walk::LINK_OUTSIDE.to_string(),
                    });
                }
                continue;
            }
            // `real` is a real path already: the file's logical real path is its name under it.
            let real_file = real.join(name);
            // A walked file is counted, and its problems reported, by its own folder's unit.
            let walked = walked_folder
                .and_then(|f| f.files.iter().find(|w| w.real == real_file))
                .map(|w| w.display.clone());
            let report = walked.is_none();
            if report && self.registered(&real_file).is_none() {
                self.unit_other_checked.push(real_file.clone());
            }
            // A file of the current folder is shown by its name, as the walk shows it: one path
            // for one file, whether it is reached from the root or through `source = "../.."`.
            let display = walked.unwrap_or_else(|| {
                if display_dir == Path::new(".") {
                    PathBuf::from(name)
                } else {
                    display_dir.join(name)
                }
            });
            let found = walk::Found {
                display,
                real: real_file,
                kind,
            };
            files.extend(self.module_file(&found, report, true));
        }
        self.allow(real);
        let files = apply_overrides(files, |id| self.is_override_file(id));
        let decl = Rc::new(ModuleDecl::new(real.to_path_buf(), display_dir, files));
        self.decls
            .insert(real.as_os_str().to_os_string(), Some(decl.clone()));
        let size = self.text_size(&decl);
        self.decl_order.push_back((real.to_path_buf(), size));
        let mut total: usize = self.decl_order.iter().map(|d| d.1).sum();
        while total > DECL_CACHE_BYTES && self.decl_order.len() > 1 {
            if let Some((old, size)) = self.decl_order.pop_front() {
                self.decls.remove(old.as_os_str());
                total -= size;
            }
        }
        Some(decl)
    }

    /// Lets `file()` read under a module folder the unit in progress loads.
    fn allow(&mut self, real: &Path) {
        if !self.allowed.iter().any(|d| d == real) {
            self.allowed.push(real.to_path_buf());
        }
    }
}

/// A `count`, `each` or `dynamic` iterator binding: an object of these entries.
pub(crate) fn binding(name: &str, entries: Vec<Entry>) -> (String, Node) {
    let object = Object {
        entries,
        ..Object::default()
    };
    (name.to_string(), Node::new(Value::Object(object), None))
}
