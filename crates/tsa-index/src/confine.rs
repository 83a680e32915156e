//! Reading a project file by its project-relative path without leaving the root.
//!
//! The walk never follows a symlink, so every path the index holds named a regular
//! file inside the root when it was indexed. A file (or one of its folders) may be
//! swapped for a symlink afterwards; reading `root.join(rel)` would then follow it
//! anywhere. [`confined`] refuses a path whose leaf is a symlink (wherever it
//! points: the walk would not have listed it) or whose folders resolve outside the
//! root, and gives the canonical path to read; [`read_confined`] reads through it
//! (on Linux, the kernel opens the file beneath the root in one call first).

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Why a project file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// The path is a symlink, or lies below a folder that resolves outside the root.
    #[error("'{0}' is a symlink or lies below one that leaves the project root")]
    Outside(String),
    #[error("'{0}' does not exist")]
    NotFound(String),
    #[error("cannot read '{0}': {1}")]
    Io(String, std::io::Error),
}

impl ConfineError {
    /// True when the path was refused as leaving the root.
    pub fn is_outside(&self) -> bool {
        matches!(self, ConfineError::Outside(_))
    }
}

/// The canonical path of project file `rel` (a `/` path relative to `root`), when
/// reading it stays inside `root`: `rel` is relative with no `..`, its leaf is no
/// symlink, and its folders resolve inside the root (a folder linked elsewhere
/// inside the root is followed, one linked out is refused).
pub fn confined(root: &Path, rel: &str) -> Result<PathBuf, ConfineError> {
    let outside = || ConfineError::Outside(rel.to_owned());
    if !plain(rel) {
        return Err(outside());
    }
    let joined = root.join(Path::new(rel));
    let meta = std::fs::symlink_metadata(&joined).map_err(|e| io_error(rel, e))?;
    if meta.file_type().is_symlink() {
        return Err(outside());
    }
    let canonical = std::fs::canonicalize(&joined).map_err(|e| io_error(rel, e))?;
    if canonical.starts_with(root) {
        return Ok(canonical);
    }
    // The root itself may be given through a link (callers usually pass it canonical).
    match std::fs::canonicalize(root) {
        Ok(r) if canonical.starts_with(&r) => Ok(canonical),
        _ => Err(outside()),
    }
}

/// `rel` is a relative path of plain names (no `..`, no root, no NUL), not empty.
fn plain(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains('\0')
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Project file `rel` opened by the kernel beneath `root` in one call (Linux's
/// `openat2`: no symlink at the leaf, none leading out of the root, no absolute
/// one), where [`confined`] resolves every folder of the path with a call or two
/// each (its `readlink`s alone were a quarter of the time a Django build spent
/// opening and reading its files). `None` when the kernel refuses for
/// any reason, an absolute link inside the root as well as a link out or an old
/// kernel: the caller then asks [`confined`], whose answer is the rule.
#[cfg(target_os = "linux")]
fn open_beneath(root: &Path, rel: &str) -> Option<std::fs::File> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let dir = rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let fd = rustix::fs::openat2(
        &dir,
        rel,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
    )
    .ok()?;
    Some(std::fs::File::from(fd))
}

#[cfg(not(target_os = "linux"))]
fn open_beneath(_: &Path, _: &str) -> Option<std::fs::File> {
    None
}

fn io_error(rel: &str, e: std::io::Error) -> ConfineError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ConfineError::NotFound(rel.to_owned())
    } else {
        ConfineError::Io(rel.to_owned(), e)
    }
}

/// The bytes of project file `rel`, read only through [`confined`].
pub fn read_confined(root: &Path, rel: &str) -> Result<Vec<u8>, ConfineError> {
    match read_confined_capped(root, rel, u64::MAX)? {
        Ok(bytes) => Ok(bytes),
        Err(len) => Err(ConfineError::Io(
            rel.to_owned(),
            std::io::Error::other(format!("{len} bytes")),
        )),
    }
}

/// [`read_confined`], or `Err(len)` when the file holds more than `max` bytes
/// (never more than `max + 1` bytes are read).
pub fn read_confined_capped(
    root: &Path,
    rel: &str,
    max: u64,
) -> Result<Result<Vec<u8>, u64>, ConfineError> {
    let opened = plain(rel).then(|| open_beneath(root, rel)).flatten();
    let mut file = match opened {
        Some(file) => file,
        None => std::fs::File::open(confined(root, rel)?).map_err(|e| io_error(rel, e))?,
    };
    let mut bytes = Vec::new();
    let n = (&mut file)
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(rel, e))? as u64;
    if n > max {
        let len = file.metadata().map(|m| m.len()).unwrap_or(n).max(n);
        return Ok(Err(len));
    }
    Ok(Ok(bytes))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_out_of_the_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("proj");
        let out = base.join("out");
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::create_dir_all(out.join("pkg")).unwrap();
        std::fs::write(root.join("app/a.py"), "a = 1\n").unwrap();
        std::fs::write(out.join("secret.py"), "secret\n").unwrap();
        std::fs::write(out.join("pkg/b.py"), "secret\n").unwrap();
        let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at));
        link(&out.join("secret.py"), "app/leaf.py").unwrap();
        link(&out.join("pkg"), "pkg").unwrap();
        link(&root.join("app/a.py"), "app/inside.py").unwrap();
        link(&root.join("app"), "applink").unwrap();

        assert_eq!(read_confined(&root, "app/a.py").unwrap(), b"a = 1\n");
        assert_eq!(read_confined(&root, "./app/a.py").unwrap(), b"a = 1\n");
        // A leaf link is refused wherever it points; a folder linked inside is followed.
        for bad in [
            "app/leaf.py",
            "pkg/b.py",
            "app/inside.py",
            "../out/secret.py",
            "app/../../out/secret.py",
            "",
        ] {
            assert!(read_confined(&root, bad).unwrap_err().is_outside(), "{bad}");
        }
        let abs = out.join("secret.py");
        assert!(
            read_confined(&root, abs.to_str().unwrap())
                .unwrap_err()
                .is_outside()
        );
        assert_eq!(read_confined(&root, "applink/a.py").unwrap(), b"a = 1\n");
        assert!(matches!(
            read_confined(&root, "app/gone.py"),
            Err(ConfineError::NotFound(_))
        ));
        // Through a link to the root, the same answers.
        std::os::unix::fs::symlink(&root, base.join("rootlink")).unwrap();
        let via = base.join("rootlink");
        assert_eq!(read_confined(&via, "app/a.py").unwrap(), b"a = 1\n");
        assert!(read_confined(&via, "pkg/b.py").unwrap_err().is_outside());
        // The cap.
        assert_eq!(read_confined_capped(&root, "app/a.py", 3).unwrap(), Err(6));
        // The kernel's one-call open takes a plain file, a folder linked inside by
        // a relative link, and refuses the rest (which `confined` then judges).
        #[cfg(target_os = "linux")]
        {
            std::os::unix::fs::symlink("app", root.join("rel_app")).unwrap();
            assert!(open_beneath(&root, "app/a.py").is_some());
            assert!(open_beneath(&root, "rel_app/a.py").is_some());
            assert!(open_beneath(&via, "app/a.py").is_some());
            for refused in ["app/leaf.py", "pkg/b.py", "app/inside.py", "applink/a.py"] {
                assert!(open_beneath(&root, refused).is_none(), "{refused}");
            }
            assert_eq!(read_confined(&root, "rel_app/a.py").unwrap(), b"a = 1\n");
        }
    }
}
