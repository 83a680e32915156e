//! The project boundary: every path argument is resolved, symlinks included, and
//! refused when it leaves the root; files tsa finds by a fixed name (configuration,
//! reports) are read only when they resolve inside the root; project files named by
//! the index (or by a resolved argument) are read only through [`read_in_root`],
//! which never follows a symlink swapped in since indexing; a project root may not
//! be a system folder or the home folder (or one of its ancestors).

use std::path::{Component, Path, PathBuf};

use crate::ToolError;

/// Where an `output_file` may be written: a path inside the root that is no folder
/// and not under `.git/` or tsa's own `.tsa/`.
pub fn output_target(root: &Path, output_file: &str) -> Result<(PathBuf, String), ToolError> {
    let (abs, rel) = resolve_in_root(root, output_file)?;
    if abs.is_dir() {
        return Err(ToolError::Validation(format!(
            "parameter 'output_file' names a directory: '{rel}'"
        )));
    }
    if rel
        .split('/')
        .next()
        .is_some_and(|c| c == ".git" || c == ".tsa")
    {
        return Err(ToolError::Validation(format!(
            "parameter 'output_file' may not write into '{rel}'"
        )));
    }
    Ok((abs, rel))
}

/// Resolves `input` (relative to `root`, or absolute) to (absolute path,
/// project-relative `/` path). Existing paths are canonicalised, so a symlink
/// pointing outside is refused; for a missing path the nearest existing ancestor
/// is canonicalised and the rest may not contain `..`, and a dangling symlink on
/// the way is refused (a write through it would leave the root).
///
/// Nothing is percent-decoded and no look-alike character is a separator: `%2e%2e`
/// or `\u{2215}` are parts of a literal name, which resolves inside the root (or
/// does not exist). Backslashes are read as `/`.
pub fn resolve_in_root(root: &Path, input: &str) -> Result<(PathBuf, String), ToolError> {
    if input.trim().is_empty() {
        return Err(ToolError::Validation(
            "path must be a non-empty string".into(),
        ));
    }
    if input.contains('\0') {
        return Err(ToolError::Validation(
            "path must not contain NUL bytes".into(),
        ));
    }
    let normalised = input.replace('\\', "/");
    let candidate = Path::new(&normalised);
    let joined = if candidate.is_absolute() {
        candidate.to_path_buf()
    } else {
        root.join(candidate)
    };
    let resolved = match std::fs::canonicalize(&joined) {
        Ok(p) => p,
        Err(_) => {
            // Canonicalise the deepest existing ancestor, keep the rest lexically.
            let mut existing = joined.as_path();
            let mut rest: Vec<Component<'_>> = Vec::new();
            loop {
                if let Ok(p) = std::fs::canonicalize(existing) {
                    let mut out = p;
                    for c in rest.iter().rev() {
                        match c {
                            Component::Normal(n) => out.push(n),
                            Component::CurDir => {}
                            _ => return Err(ToolError::Outside(input.to_owned())),
                        }
                    }
                    break out;
                }
                // An entry that exists but cannot be resolved is a dangling (or
                // looping) symlink: writing through it would land wherever it points.
                if std::fs::symlink_metadata(existing).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(ToolError::Outside(input.to_owned()));
                }
                match (existing.parent(), existing.components().next_back()) {
                    (Some(parent), Some(last)) => {
                        rest.push(last);
                        existing = parent;
                    }
                    _ => return Err(ToolError::Outside(input.to_owned())),
                }
            }
        }
    };
    let Ok(rel) = resolved.strip_prefix(root) else {
        return Err(ToolError::Outside(input.to_owned()));
    };
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    Ok((resolved, rel))
}

/// `root/rel` when it exists and resolves (symlinks included) inside `root`: how
/// files found by a fixed name (`tsa-health.yml`, `coverage.json`, ...) are read.
/// A link pointing outside reads as absent.
pub fn inside_root(root: &Path, rel: &str) -> Option<PathBuf> {
    let p = std::fs::canonicalize(root.join(rel)).ok()?;
    p.starts_with(root).then_some(p)
}

/// The bytes of project file `rel` (a `/` path relative to `root`, as the index
/// stores it or [`resolve_in_root`] returns it). Refused with [`ToolError::Linked`]
/// (`security_violation`) when the file is a symlink, wherever it points (the walk
/// never lists one, so it was swapped in since indexing), or lies below a folder that
/// resolves outside the root; a missing file is [`ToolError::NotFound`].
///
/// Every read of project content by path goes through here (or [`read_text_in_root`]):
/// a single file named by the agent turns the refusal into its answer, a walk over
/// many files skips the refused one and says so.
pub fn read_in_root(root: &Path, rel: &str) -> Result<Vec<u8>, ToolError> {
    tsa_index::read_confined(root, rel).map_err(|e| confine_error(rel, e))
}

/// [`read_in_root`] as UTF-8 text ([`ToolError::Encoding`] when it is not).
pub fn read_text_in_root(root: &Path, rel: &str) -> Result<String, ToolError> {
    String::from_utf8(read_in_root(root, rel)?).map_err(|_| ToolError::Encoding(rel.to_owned()))
}

/// The canonical path of project file `rel`, checked as [`read_in_root`] checks it,
/// for readers that need a path (a searcher, file metadata).
pub fn path_in_root(root: &Path, rel: &str) -> Result<PathBuf, ToolError> {
    tsa_index::confined(root, rel).map_err(|e| confine_error(rel, e))
}

/// `s` with a warning naming `files`, project files a walk did not read because each
/// is a symlink (or lies below one) leading out of the root; `s` itself when none.
pub fn warn_linked<'a, I>(s: tsa_envelope::Success, files: I) -> tsa_envelope::Success
where
    I: IntoIterator<Item = &'a String>,
{
    match linked_warning(files) {
        Some(w) => s.with_warning(w),
        None => s,
    }
}

/// The warning of [`warn_linked`] (first 10 names), or `None` for no file.
pub fn linked_warning<'a, I>(files: I) -> Option<String>
where
    I: IntoIterator<Item = &'a String>,
{
    let files: Vec<&String> = files.into_iter().collect();
    if files.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = files.iter().take(10).map(|f| f.as_str()).collect();
    if files.len() > 10 {
        names.push("...");
    }
    Some(format!(
        "skipped_linked_files: {} file(s) not read, each a symlink (or below one) leaving the project root since indexing: {}; restore them or re-index with index action=build",
        files.len(),
        names.join(", ")
    ))
}

fn confine_error(rel: &str, e: tsa_index::ConfineError) -> ToolError {
    match e {
        tsa_index::ConfineError::Outside(_) => ToolError::Linked(rel.to_owned()),
        tsa_index::ConfineError::NotFound(_) => ToolError::NotFound(rel.to_owned()),
        tsa_index::ConfineError::Io(_, e) => {
            ToolError::Internal(format!("cannot read '{rel}': {e}"))
        }
    }
}

/// Folders that are never a project root themselves (projects may live below them).
const SYSTEM_ROOTS: &[&str] = &[
    "/",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/usr",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libx32",
    "/usr/libexec",
    "/usr/include",
    "/usr/share",
    "/usr/src",
    "/usr/local",
    "/usr/local/bin",
    "/usr/local/lib",
    "/var",
    "/var/lib",
    "/var/log",
    "/var/cache",
    "/var/tmp",
    "/tmp",
    "/run",
    "/home",
    "/Users",
    "/opt",
    "/srv",
    "/mnt",
    "/media",
];

/// Folders that are neither a project root nor hold one (system state, devices,
/// kernel views, credentials).
const SYSTEM_TREES: &[&str] = &[
    "/etc",
    "/proc",
    "/sys",
    "/dev",
    "/boot",
    "/private/etc",
    "/private/var/root",
    "/System",
    "/Library/Keychains",
];

/// Refuses a project root (already canonical) that is a system folder, lies in a
/// system tree, or is the home folder or one of its ancestors (a project may live
/// below the home folder, never at or above it).
pub fn check_project_root(canonical: &Path) -> Result<(), ToolError> {
    let refuse = |why: &str| {
        Err(ToolError::SystemRoot(
            canonical.display().to_string(),
            why.to_owned(),
        ))
    };
    if canonical.parent().is_none() {
        return refuse("the filesystem root");
    }
    let macos = |s: &str| Path::new("/private").join(s.trim_start_matches('/'));
    if SYSTEM_ROOTS
        .iter()
        .any(|s| canonical == Path::new(s) || canonical == macos(s))
    {
        return refuse("a system folder");
    }
    if SYSTEM_TREES.iter().any(|s| canonical.starts_with(s)) {
        return refuse("inside a system folder");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let home = std::fs::canonicalize(&home).unwrap_or_else(|_| PathBuf::from(home));
        if home.starts_with(canonical) {
            return refuse(if home == canonical {
                "the home folder"
            } else {
                "an ancestor of the home folder"
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_paths_outside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("proj")).unwrap();
        let proj = root.join("proj");
        std::fs::write(proj.join("a.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("secret.py"), "x = 1\n").unwrap();
        assert_eq!(resolve_in_root(&proj, "a.py").unwrap().1, "a.py");
        assert_eq!(
            resolve_in_root(&proj, "./a.py")
                .unwrap_or_else(|e| panic!("{e}"))
                .1,
            "a.py"
        );
        for bad in [
            "../secret.py",
            "/etc/passwd",
            "../nope/x.py",
            "sub/../../secret.py",
        ] {
            assert!(
                matches!(resolve_in_root(&proj, bad), Err(ToolError::Outside(_))),
                "{bad}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("secret.py"), proj.join("link.py")).unwrap();
            assert!(matches!(
                resolve_in_root(&proj, "link.py"),
                Err(ToolError::Outside(_))
            ));
        }
        // Missing but inside: resolves, and the caller reports file_not_found.
        assert_eq!(
            resolve_in_root(&proj, "missing.py").unwrap().1,
            "missing.py"
        );
        // Literal names: nothing is decoded, look-alike slashes are characters.
        for literal in [
            "%2e%2e%2fsecret.py",
            "..\u{2215}secret.py",
            "\u{2024}\u{2024}/x.py",
        ] {
            assert!(resolve_in_root(&proj, literal).is_ok(), "{literal}");
        }
        assert!(matches!(
            resolve_in_root(&proj, "a.py\0../secret.py"),
            Err(ToolError::Validation(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn dangling_links_are_refused_and_links_inside_followed() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let proj = base.join("proj");
        std::fs::create_dir_all(proj.join("src")).unwrap();
        std::os::unix::fs::symlink(base.join("gone.json"), proj.join("out.json")).unwrap();
        std::os::unix::fs::symlink(proj.join("missing"), proj.join("in_dangling")).unwrap();
        std::os::unix::fs::symlink(proj.join("src"), proj.join("srclink")).unwrap();
        // A write through either would create the link's target.
        for bad in ["out.json", "in_dangling", "in_dangling/x.py"] {
            assert!(
                matches!(resolve_in_root(&proj, bad), Err(ToolError::Outside(_))),
                "{bad}"
            );
        }
        // A missing file below a link to an inside folder resolves through it.
        assert_eq!(
            resolve_in_root(&proj, "srclink/new.json").unwrap().1,
            "src/new.json"
        );
        assert_eq!(inside_root(&proj, "out.json"), None);
    }

    #[cfg(unix)]
    #[test]
    fn project_files_are_read_only_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let proj = base.join("proj");
        std::fs::create_dir_all(proj.join("app")).unwrap();
        std::fs::create_dir_all(base.join("out")).unwrap();
        std::fs::write(proj.join("app/a.py"), "a = 1\n").unwrap();
        std::fs::write(base.join("out/s.py"), "secret\n").unwrap();
        std::os::unix::fs::symlink(base.join("out/s.py"), proj.join("app/s.py")).unwrap();
        std::os::unix::fs::symlink(base.join("out"), proj.join("lib")).unwrap();
        assert_eq!(read_text_in_root(&proj, "app/a.py").unwrap(), "a = 1\n");
        for bad in ["app/s.py", "lib/s.py"] {
            let e = read_in_root(&proj, bad).unwrap_err();
            assert!(matches!(e, ToolError::Linked(_)), "{bad}");
            assert_eq!(e.error_type(), tsa_envelope::ErrorType::SecurityViolation);
            assert!(matches!(
                path_in_root(&proj, bad),
                Err(ToolError::Linked(_))
            ));
        }
        assert!(matches!(
            read_in_root(&proj, "app/gone.py"),
            Err(ToolError::NotFound(_))
        ));
        let files = vec!["app/s.py".to_owned()];
        assert!(linked_warning(&files).unwrap().contains("app/s.py"));
        assert!(linked_warning(&Vec::<String>::new()).is_none());
    }

    #[test]
    fn system_folders_and_the_home_folder_are_no_project_root() {
        for bad in [
            "/",
            "/etc",
            "/etc/ssl",
            "/usr",
            "/usr/sbin",
            "/tmp",
            "/var/lib",
            "/proc/1",
        ] {
            assert!(
                matches!(
                    check_project_root(Path::new(bad)),
                    Err(ToolError::SystemRoot(..))
                ),
                "{bad}"
            );
        }
        for good in ["/tmp/x", "/usr/src/linux", "/var/www/site", "/opt/app"] {
            assert!(check_project_root(Path::new(good)).is_ok(), "{good}");
        }
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            let home = std::fs::canonicalize(&home).unwrap_or_else(|_| PathBuf::from(home));
            assert!(check_project_root(&home).is_err());
            if home.parent().is_some() {
                assert!(check_project_root(&home.join("src/app")).is_ok());
            }
        }
    }
}
