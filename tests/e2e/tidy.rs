//! Tidy: every Rust module starts with a `//!` line saying what it is for.

use std::path::Path;

fn visit(dir: &Path, bad: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !path.ends_with("fixtures") && !path.ends_with("target") {
                visit(&path, bad);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            if !text.starts_with("//!") {
                bad.push(path.display().to_string());
            }
        }
    }
}

#[test]
fn every_module_starts_with_a_doc_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bad = Vec::new();
    for dir in ["src", "crates", "tests/e2e"] {
        visit(&root.join(dir), &mut bad);
    }
    assert!(
        bad.is_empty(),
        "modules without a leading //! line:\n{}",
        bad.join("\n")
    );
}
