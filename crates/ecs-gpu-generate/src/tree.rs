//! The repository's files as the generators see them: what is on disk (or, in tests, in memory),
//! overlaid with what the generators that ran before have written, so that a generator reads an
//! earlier one's output (the README tables read the inputs the pass-through generator wrote) and
//! one run gives the final files, in write and in check mode alike.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use ecs_gpu_hcl::Span;

/// Why a generator could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file of the repository says something the generators cannot use: a syntax error, an
    /// undeclared difference, a malformed comment. `line` is 1-based, 0 when the whole file is meant.
    #[error("{}{}: {message}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
    At {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl Error {
    /// An error about `path` at the line of byte `offset` of `text`.
    pub fn at(path: &Path, text: &str, offset: u32, message: impl Into<String>) -> Error {
        Error::At {
            path: path.to_path_buf(),
            line: ecs_gpu_hcl::line_col(text, offset).0 as usize,
            message: message.into(),
        }
    }

    /// An error about a whole file.
    pub fn file(path: &Path, message: impl Into<String>) -> Error {
        Error::At {
            path: path.to_path_buf(),
            line: 0,
            message: message.into(),
        }
    }
}

/// A file whose generated text differs from the repository's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The file is missing or its text differs: write it.
    Write(PathBuf, String),
    /// A generator owns the file and no longer produces it: remove it.
    Remove(PathBuf),
}

impl Change {
    /// The file, relative to the repository's root.
    pub fn path(&self) -> &Path {
        match self {
            Change::Write(path, _) | Change::Remove(path) => path,
        }
    }
}

#[derive(Debug)]
enum Base {
    Disk(PathBuf),
    Memory(BTreeMap<PathBuf, String>),
}

/// The files of the repository, and what the generators wrote over them. Paths are relative to
/// the repository's root.
#[derive(Debug)]
pub struct Tree {
    base: Base,
    /// Written (`Some`) or removed (`None`) by a generator.
    pending: BTreeMap<PathBuf, Option<String>>,
}

/// A parsed HCL file with its text.
#[derive(Debug)]
pub struct Hcl {
    pub path: PathBuf,
    pub text: String,
    pub file: ecs_gpu_hcl::File,
}

impl Hcl {
    /// The source text of a span.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }

    /// An error at the line of `span`.
    pub fn error(&self, span: Span, message: impl Into<String>) -> Error {
        Error::at(&self.path, &self.text, span.start, message)
    }
}

impl Tree {
    /// The repository at `root`, on disk.
    pub fn open(root: impl Into<PathBuf>) -> Tree {
        Tree {
            base: Base::Disk(root.into()),
            pending: BTreeMap::new(),
        }
    }

    /// A repository of the given files (path, text), for tests.
    pub fn in_memory<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Tree {
        Tree {
            base: Base::Memory(
                files
                    .into_iter()
                    .map(|(path, text)| (PathBuf::from(path), text.to_string()))
                    .collect(),
            ),
            pending: BTreeMap::new(),
        }
    }

    fn read_base(&self, path: &Path) -> Result<Option<String>, Error> {
        match &self.base {
            Base::Memory(files) => Ok(files.get(path).cloned()),
            Base::Disk(root) => match std::fs::read_to_string(root.join(path)) {
                Ok(text) => Ok(Some(text)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(source) => Err(Error::Io {
                    path: path.to_path_buf(),
                    source,
                }),
            },
        }
    }

    /// The text of a file, as the generators that ran so far left it.
    pub fn read(&self, path: &Path) -> Result<String, Error> {
        let text = match self.pending.get(path) {
            Some(pending) => pending.clone(),
            None => self.read_base(path)?,
        };
        text.ok_or_else(|| Error::Io {
            path: path.to_path_buf(),
            source: std::io::ErrorKind::NotFound.into(),
        })
    }

    /// Reads and parses an HCL file.
    pub fn parse(&self, path: &Path) -> Result<Hcl, Error> {
        let text = self.read(path)?;
        let file = ecs_gpu_hcl::parse(&text)
            .map_err(|e| Error::at(path, &text, e.span.start, e.message))?;
        Ok(Hcl {
            path: path.to_path_buf(),
            text,
            file,
        })
    }

    /// The files directly in a folder (not in its subfolders), sorted by name.
    pub fn files(&self, dir: &Path) -> Result<Vec<PathBuf>, Error> {
        let mut out: Vec<PathBuf> = match &self.base {
            Base::Memory(files) => files
                .keys()
                .filter(|p| p.parent() == Some(dir))
                .cloned()
                .collect(),
            Base::Disk(root) => {
                let io = |source| Error::Io {
                    path: dir.to_path_buf(),
                    source,
                };
                let mut out = Vec::new();
                let entries = match std::fs::read_dir(root.join(dir)) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                    entries => entries.map_err(io)?.collect(),
                };
                for entry in entries {
                    let entry = entry.map_err(io)?;
                    if entry.file_type().map_err(io)?.is_file() {
                        out.push(dir.join(entry.file_name()));
                    }
                }
                out
            }
        };
        for (path, text) in &self.pending {
            if path.parent() == Some(dir) {
                match text {
                    Some(_) => out.push(path.clone()),
                    None => out.retain(|p| p != path),
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The `.tf` files directly in a folder, sorted by name.
    pub fn tf_files(&self, dir: &Path) -> Result<Vec<PathBuf>, Error> {
        let mut files = self.files(dir)?;
        files.retain(|p| p.extension().is_some_and(|e| e == "tf"));
        Ok(files)
    }

    /// Sets the text of a file.
    pub fn write(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.pending.insert(path.into(), Some(text.into()));
    }

    /// Removes a file the generator owns and no longer produces.
    pub fn remove(&mut self, path: impl Into<PathBuf>) {
        self.pending.insert(path.into(), None);
    }

    /// What differs between the generators' files and the repository's, by path.
    pub fn changes(&self) -> Result<Vec<Change>, Error> {
        let mut out = Vec::new();
        for (path, text) in &self.pending {
            let have = self.read_base(path)?;
            match text {
                Some(text) if have.as_deref() != Some(text.as_str()) => {
                    out.push(Change::Write(path.clone(), text.clone()));
                }
                None if have.is_some() => out.push(Change::Remove(path.clone())),
                _ => {}
            }
        }
        Ok(out)
    }
}

/// `dir` joined with a relative module source (`../modules/service`), with `..` resolved; `None`
/// for a path that leaves the repository.
pub fn join_relative(dir: &Path, relative: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in dir.join(relative).components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// A path with `/` separators, for messages and generated text.
pub fn display(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_read_sees_an_earlier_write_and_changes_name_only_what_differs() {
        let mut tree = Tree::in_memory([("a/x.tf", "x"), ("a/y.tf", "y"), ("a/b/z.tf", "z")]);
        tree.write("a/x.tf", "x");
        tree.write("a/w.tf", "w");
        tree.remove("a/y.tf");
        assert_eq!(tree.read(Path::new("a/w.tf")).unwrap(), "w");
        assert!(tree.read(Path::new("a/y.tf")).is_err());
        assert_eq!(
            tree.tf_files(Path::new("a")).unwrap(),
            [PathBuf::from("a/w.tf"), PathBuf::from("a/x.tf")]
        );
        assert_eq!(
            tree.changes().unwrap(),
            [
                Change::Write("a/w.tf".into(), "w".into()),
                Change::Remove("a/y.tf".into())
            ]
        );
    }

    #[test]
    fn relative_sources_resolve_inside_the_repository_only() {
        let root = Path::new("terraform/ecs-gpu-task");
        assert_eq!(
            join_relative(root, "../modules/service"),
            Some(PathBuf::from("terraform/modules/service"))
        );
        assert_eq!(
            join_relative(root, "./examples/basic"),
            Some(PathBuf::from("terraform/ecs-gpu-task/examples/basic"))
        );
        assert_eq!(join_relative(root, "../../../x"), None);
    }

    #[test]
    fn a_syntax_error_names_the_file_and_line() {
        let tree = Tree::in_memory([("m/variables.tf", "variable \"a\" {\n  type = \n}\n")]);
        let error = tree.parse(Path::new("m/variables.tf")).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("m/variables.tf:2: expected an expression"),
            "{error}"
        );
    }
}
