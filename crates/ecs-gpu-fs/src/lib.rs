//! How every file an ecs-gpu command opens is opened: one place, so that a guard added for one
//! command holds for all of them.
//!
//! Reading ([`open`], [`read`], [`read_inside`], [`inspect`]): the file is opened without blocking
//! (an ordinary open waits forever on a FIFO), and what is checked is the open file itself, before
//! a byte is read: a regular file (not a FIFO, a device, a socket or a folder), not a file of the
//! kernel's own file systems (`/proc/kmsg` is a "regular" file whose read never ends, and
//! `/proc/self/environ` holds the credentials of the process), at most the given number of bytes;
//! then it is read through the same handle, bounded, so a file swapped or grown after the check
//! is not read past the bound.
//!
//! Writing ([`NewFiles`]): files are created new in a folder opened once, never through a link
//! (`O_CREAT | O_EXCL | O_NOFOLLOW` relative to the folder's handle): a link or a FIFO someone left
//! under the name is refused, nothing outside the folder is written, and no earlier file is
//! overwritten.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("plan.json");
//! std::fs::write(&path, "{}").unwrap();
//! assert_eq!(ecs_gpu_fs::read(&path, 1024).unwrap(), b"{}");
//! let err = ecs_gpu_fs::read(&path, 1).unwrap_err();
//! assert_eq!(err.to_string(), "file too large (2 bytes)");
//! #[cfg(unix)]
//! assert_eq!(
//!     ecs_gpu_fs::read(std::path::Path::new("/dev/zero"), 1024).unwrap_err().to_string(),
//!     "not a regular file: a device"
//! );
//! ```

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why a file was not read (or written).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// A FIFO, a device, a socket or a folder where a file is expected: what it is.
    #[error("not a regular file: {0}")]
    NotRegular(&'static str),
    /// A file of the kernel's own file systems, or anything under `/dev`, `/proc` or `/sys`.
    #[error("not a regular file: a file of the kernel (`/proc`, `/sys`, `/dev`)")]
    Kernel,
    /// Larger than the bound it is read with.
    #[error("file too large ({size} bytes)")]
    TooLarge { size: u64 },
    /// Opened somewhere `inside` does not allow ([`read_inside`]).
    #[error("moved outside the checked folders while being read: not read")]
    Outside,
    /// A link where a folder to write into or a file to create is expected.
    #[error("a link: not followed")]
    Link,
    /// Something else than a folder where one is expected: what it is.
    #[error("not a folder: {0}")]
    NotAFolder(&'static str),
    /// A file to create is there already.
    #[error("already there: not overwritten")]
    Exists,
    #[error("cannot read: {}", io_text(.0))]
    Read(io::Error),
    #[error("cannot write: {}", io_text(.0))]
    Write(io::Error),
}

impl FileError {
    /// Whether nothing is at the path (or a folder on the way to it is not one).
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Read(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory))
    }
}

/// An I/O error in words, without the OS error number (`No such file or directory`).
pub fn io_text(e: &io::Error) -> String {
    let t = e.to_string();
    match t.find(" (os error") {
        Some(i) => t[..i].to_string(),
        None => t,
    }
}

/// What a file that is not a regular file is, for a message.
pub fn kind_text(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO or pipe";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else if kind.is_file() {
        "a file"
    } else {
        "not a file"
    }
}

/// The places of the kernel's own: `/dev` (a tmpfs, on a host as in a container: only its path
/// tells it from any other tmpfs), `/proc` and `/sys`.
const KERNEL_PLACES: [&str; 3] = ["/dev", "/proc", "/sys"];

/// Whether `real` (a real path) is under `/dev`, `/proc` or `/sys`.
pub fn is_kernel_path(real: &Path) -> bool {
    KERNEL_PLACES.iter().any(|p| real.starts_with(p))
}

/// Whether the folder or file at `path` is on a file system of the kernel's own making (`/proc`,
/// `/sys`, `/dev/pts`, the debug, trace and control-group file systems), or resolves to a place
/// under `/dev`, `/proc` or `/sys`: nothing there is code, and much of it cannot be read (or reads
/// forever).
pub fn on_kernel_file_system(path: &Path) -> bool {
    if std::fs::canonicalize(path).is_ok_and(|real| is_kernel_path(&real)) {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        rustix::fs::statfs(path).is_ok_and(|s| is_kernel_magic(s.f_type))
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Whether a file system's `f_type` is one of the kernel's own (linux/magic.h).
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast)] // `f_type`'s width depends on the platform
fn is_kernel_magic(f_type: impl Into<i64>) -> bool {
    const KERNEL: &[u64] = &[
        0x9fa0,      // proc
        0x6265_6572, // sysfs
        0x1cd1,      // devpts
        0x6462_6720, // debugfs
        0x7472_6163, // tracefs
        0x7363_6673, // securityfs
        0x0027_e0eb, // cgroup
        0x6367_7270, // cgroup2
        0x6165_676c, // pstore
        0xcafe_4a11, // bpf
        0x6265_6570, // configfs
        0x6573_5546, // fusectl
        0x1980_0202, // mqueue
        0x4249_4e4d, // binfmt_misc
        0xde5e_81e4, // efivarfs
        0xf97c_ff8c, // selinuxfs
    ];
    // A signed word of the platform's size: its low 32 bits are the magic.
    KERNEL.contains(&((f_type.into() as u64) & 0xffff_ffff))
}

/// A file opened for reading and checked: a regular file of at most the bound, not the kernel's.
#[derive(Debug)]
pub struct Opened {
    file: File,
    len: u64,
    max: u64,
}

/// Opens `path` for reading without blocking, and checks what was opened (see the crate's doc):
/// a regular file, not the kernel's, of at most `max` bytes.
///
/// # Errors
/// The file cannot be opened, or is not what may be read.
pub fn open(path: &Path, max: u64) -> Result<Opened, FileError> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata().map_err(FileError::Read)?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind_text(&meta.file_type())));
    }
    if on_kernel_file_system_open(&file) {
        return Err(FileError::Kernel);
    }
    if meta.len() > max {
        return Err(FileError::TooLarge { size: meta.len() });
    }
    Ok(Opened {
        file,
        len: meta.len(),
        max,
    })
}

impl Opened {
    /// The size the file had when opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty when opened.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the open file really is, as the kernel resolved its path (`None` where the system
    /// does not say).
    pub fn real_path(&self) -> Option<PathBuf> {
        opened_path(&self.file)
    }

    /// Reads the whole file: up to the size it had when opened (a file that grew since is not
    /// read further), or up to the bound when its size was 0 (a file system that does not know
    /// sizes).
    ///
    /// # Errors
    /// The read fails.
    pub fn read_all(self) -> Result<Vec<u8>, FileError> {
        let mut bytes = Vec::with_capacity(usize::try_from(self.len).unwrap_or(0));
        // Through `take`: `File::read_to_end` would ask for the size and position again (two
        // more system calls per file), and the read that would only find the end is not made.
        let limit = match self.len {
            0 => self.max,
            n => n,
        };
        self.file
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(FileError::Read)?;
        Ok(bytes)
    }

    /// The open file, for a reader that streams it (and bounds what it reads itself).
    pub fn into_file(self) -> File {
        self.file
    }
}

/// Reads a file of at most `max` bytes ([`open`], then [`Opened::read_all`]).
///
/// # Errors
/// As [`open`], or the read fails.
pub fn read(path: &Path, max: u64) -> Result<Vec<u8>, FileError> {
    open(path, max)?.read_all()
}

/// [`read`], with `None` when there is no file at `path` (nothing on the way to it is a problem
/// then): a file a command reads when it is there.
///
/// # Errors
/// As [`read`], but for a missing file.
pub fn read_if_there(path: &Path, max: u64) -> Result<Option<Vec<u8>>, FileError> {
    match read(path, max) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// [`read`], if the file opened is where `inside` allows: the path was checked before, but a
/// folder on it swapped for a link in between would lead the open elsewhere (`/dev/zero`, a
/// secret), so what is checked here is where the open file really is.
///
/// # Errors
/// As [`read`], and [`FileError::Outside`].
pub fn read_inside(
    path: &Path,
    max: u64,
    inside: &dyn Fn(&Path) -> bool,
) -> Result<Vec<u8>, FileError> {
    let opened = open(path, max)?;
    if opened.real_path().is_some_and(|real| !inside(&real)) {
        return Err(FileError::Outside);
    }
    opened.read_all()
}

/// Checks the file at `path` as [`open`] does, without reading it: for a file another library
/// reads (the AWS SDK's configuration files).
///
/// # Errors
/// As [`open`].
pub fn inspect(path: &Path, max: u64) -> Result<(), FileError> {
    open(path, max).map(drop)
}

/// Opens a file for reading without blocking (an ordinary open would block on a FIFO): one path
/// lookup per file.
fn open_nonblocking(path: &Path) -> Result<File, FileError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        // `O_NOCTTY`: a terminal device named as a file never becomes the controlling one.
        let flags = (OFlags::NONBLOCK | OFlags::NOCTTY).bits();
        options.custom_flags(i32::try_from(flags).unwrap_or(0));
    }
    options.open(path).map_err(FileError::Read)
}

/// Whether an open file lives on one of the kernel's file systems or under its places.
fn on_kernel_file_system_open(file: &File) -> bool {
    if opened_path(file).is_some_and(|real| is_kernel_path(&real)) {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        rustix::fs::fstatfs(file).is_ok_and(|s| is_kernel_magic(s.f_type))
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Where an open file really is, as the kernel resolved its path (`/proc/self/fd`); `None` where
/// the system does not say.
fn opened_path(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// A folder to write new files into: opened once, never through a link, each file created new
/// relative to that handle ([`NewFiles::create`]).
#[derive(Debug)]
pub struct NewFiles {
    path: PathBuf,
    #[cfg(unix)]
    dir: std::os::fd::OwnedFd,
}

impl NewFiles {
    /// The folder at `path`, created when there is nothing there (its parents too). A link (even
    /// to a folder) or anything but a folder there is refused: files written through it would
    /// land elsewhere.
    ///
    /// # Errors
    /// [`FileError::Link`], [`FileError::NotAFolder`] (what is there instead of a folder), or the
    /// folder cannot be created or opened.
    pub fn open(path: &Path) -> Result<NewFiles, FileError> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => return Err(FileError::Link),
            Ok(m) if !m.is_dir() => return Err(FileError::NotAFolder(kind_text(&m.file_type()))),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(FileError::Write)?;
                }
                match std::fs::create_dir(path) {
                    Ok(()) => {}
                    // Made meanwhile: what it is is checked on the open below.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(FileError::Write(e)),
                }
            }
            Err(e) => return Err(FileError::Write(e)),
        }
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags, CWD};
            let dir = rustix::fs::openat(
                CWD,
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| match e {
                // Swapped for a link since the look above.
                rustix::io::Errno::LOOP => FileError::Link,
                e => FileError::Write(e.into()),
            })?;
            Ok(NewFiles {
                path: path.to_path_buf(),
                dir,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(NewFiles {
                path: path.to_path_buf(),
            })
        }
    }

    /// The folder's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The names in the folder now.
    ///
    /// # Errors
    /// The folder cannot be listed.
    pub fn names(&self) -> Result<Vec<String>, FileError> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .map_err(FileError::Read)?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Creates the file `name` in the folder, new: whatever is there under that name (a file, a
    /// link, a FIFO) is refused with [`FileError::Exists`], never written through.
    ///
    /// # Errors
    /// [`FileError::Exists`], or the file cannot be created.
    pub fn create(&self, name: &str) -> Result<File, FileError> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::openat(
                &self.dir,
                name,
                OFlags::WRONLY
                    | OFlags::CREATE
                    | OFlags::EXCL
                    | OFlags::NOFOLLOW
                    | OFlags::CLOEXEC
                    | OFlags::NOCTTY,
                Mode::from_raw_mode(0o644),
            )
            .map_err(|e| match e {
                rustix::io::Errno::EXIST => FileError::Exists,
                e => FileError::Write(e.into()),
            })?;
            Ok(File::from(fd))
        }
        #[cfg(not(unix))]
        {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
                .map_err(|e| match e.kind() {
                    io::ErrorKind::AlreadyExists => FileError::Exists,
                    _ => FileError::Write(e),
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }

    /// A FIFO nobody writes to is refused at once, not waited on.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let err = read(&fifo, 1024).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file: a FIFO or pipe");
    }

    /// `/proc/kmsg` is a "regular" file of size 0 whose read waits for the kernel's next message;
    /// `/proc/self/environ` holds the process's credentials. Neither is read, nor a link to them.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernels_files_are_refused_even_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        for target in [
            "/proc/kmsg",
            "/proc/self/environ",
            "/sys/kernel/uevent_seqnum",
        ] {
            if !Path::new(target).exists() {
                continue;
            }
            let link = dir.path().join("link.json");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(target, &link).unwrap();
            for p in [Path::new(target), link.as_path()] {
                match read(p, 1 << 20) {
                    Err(FileError::Kernel) => {}
                    // Not even opened (no permission): not read either.
                    Err(FileError::Read(e)) if e.kind() == io::ErrorKind::PermissionDenied => {}
                    other => panic!("{}: {other:?}", p.display()),
                }
            }
        }
    }

    #[test]
    fn a_missing_file_is_none_for_read_if_there() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_if_there(&dir.path().join("nothing"), 10)
            .unwrap()
            .is_none());
        assert!(read_if_there(&dir.path().join("nothing/below"), 10)
            .unwrap()
            .is_none());
    }

    /// A path checked inside the folders, then led elsewhere (a folder on it swapped for a link
    /// between the check and the open): what is checked is where the open file really is.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_opened_outside_the_allowed_folders_is_not_read() {
        let outside = tempfile::tempdir().unwrap();
        let checked = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        std::fs::write(checked.path().join("ok.txt"), "ok").unwrap();
        std::os::unix::fs::symlink(outside.path(), checked.path().join("swapped")).unwrap();
        let root = std::fs::canonicalize(checked.path()).unwrap();
        let inside = |p: &Path| p.starts_with(&root);
        assert_eq!(
            read_inside(&root.join("ok.txt"), 100, &inside).unwrap(),
            b"ok"
        );
        let err = read_inside(&root.join("swapped/secret.txt"), 100, &inside).unwrap_err();
        assert!(matches!(err, FileError::Outside), "{err:?}");
    }

    /// A name the folder already holds, as a file, a link (to a file outside, or dangling) or a
    /// FIFO, is never written through; the folder itself may not be a link.
    #[cfg(unix)]
    #[test]
    fn new_files_are_never_written_through_what_is_there() {
        let base = tempfile::tempdir().unwrap();
        let victim = base.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let dir = base.path().join("save");
        let files = NewFiles::open(&dir).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("a.json")).unwrap();
        std::os::unix::fs::symlink(base.path().join("nowhere"), dir.join("b.json")).unwrap();
        mkfifo(&dir.join("c.json"));
        std::fs::write(dir.join("d.json"), "earlier").unwrap();
        for name in ["a.json", "b.json", "c.json", "d.json"] {
            assert!(
                matches!(files.create(name), Err(FileError::Exists)),
                "{name}"
            );
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!base.path().join("nowhere").exists());
        use std::io::Write;
        files.create("e.json").unwrap().write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("e.json")).unwrap(), "new");

        let link = base.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(matches!(NewFiles::open(&link), Err(FileError::Link)));
        assert!(matches!(
            NewFiles::open(&victim),
            Err(FileError::NotAFolder("a file"))
        ));
    }
}
