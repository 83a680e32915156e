//! The project boundary: every path argument is resolved, symlinks included, and
//! refused when it leaves the root.

use std::path::{Component, Path, PathBuf};

use crate::ToolError;

/// Resolves `input` (relative to `root`, or absolute) to (absolute path,
/// project-relative `/` path). Existing paths are canonicalised, so a symlink
/// pointing outside is refused; for a missing path the nearest existing ancestor
/// is canonicalised and the rest may not contain `..`.
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
    }
}
