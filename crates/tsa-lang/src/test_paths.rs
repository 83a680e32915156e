//! The one path-based test-file rule used everywhere (resolution, ranking, dead code).

/// True when a project-relative path (with `/`) names a test file: a directory
/// segment `test`, `tests`, `__tests__`, `spec`, `specs`, `fixtures` or `testdata`,
/// a test-suffixed basename (`_test.py`, `_test.rs`, `_test.go`, `.test.ts`, ...),
/// or a `test_*.py` module.
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
    const SUFFIXES: [&str; 15] = [
        "_test.go",
        "_test.py",
        "_test.rs",
        "_test.cc",
        "_test.cpp",
        "_test.cxx",
        "_spec.rb",
        ".test.js",
        ".test.jsx",
        ".test.ts",
        ".test.tsx",
        ".spec.js",
        ".spec.jsx",
        ".spec.ts",
        ".spec.tsx",
    ];
    SUFFIXES.iter().any(|s| base.ends_with(s))
        || (base.starts_with("test_") && base.ends_with(".py"))
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
