//! Helpers of this crate's unit tests.

use tsa_index::Index;

/// A temporary project holding `files` (path, text), indexed.
pub(crate) fn index_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
    let index = Index::open(dir.path()).unwrap().unwrap();
    (dir, index)
}
