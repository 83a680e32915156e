//! The one path-based test-file rule used everywhere (resolution, ranking, dead code).

use crate::Language;

/// True when a project-relative path (with `/`) names a test file: a directory
/// segment `test`, `tests`, `__tests__`, `spec`, `specs`, `fixtures` or `testdata`,
/// a test-suffixed basename (`_test.py`, `_test.rs`, `_test.go`, `.test.ts`, ...),
/// or a `test_*.py` module: each language's `test_paths` convention.
pub fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut segments: Vec<&str> = lower.split('/').collect();
    let base = segments.pop().unwrap_or("");
    if segments.iter().any(|s| {
        matches!(
            *s,
            "test" | "tests" | "__tests__" | "spec" | "specs" | "fixtures" | "testdata"
        )
    }) {
        return true;
    }
    let conventions = Language::ALL
        .iter()
        .filter_map(|l| l.conventions().test_paths.get());
    for c in conventions {
        if c.suffixes.iter().any(|s| base.ends_with(s))
            || c.prefixed
                .iter()
                .any(|(p, ext)| base.starts_with(p) && base.ends_with(ext))
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn recognises_test_paths() {
        for p in [
            "tests/a.py",
            "pkg/tests/b.rs",
            "src/x_test.go",
            "test_mod.py",
            "pkg/test_mod.py",
            "a/b.spec.ts",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in [
            "src/main.rs",
            "pkg/contest.py",
            "latest/a.py",
            "attestation.rs",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
    }
}
