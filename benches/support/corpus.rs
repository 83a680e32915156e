//! The benchmark corpus: the installed CPython standard library (or the directory in
//! `TSA_BENCH_CORPUS`), copied into a temp dir so nothing is written outside it.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn corpus() -> PathBuf {
    if let Some(dir) = std::env::var_os("TSA_BENCH_CORPUS") {
        return PathBuf::from(dir);
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect(
            "python3 is needed to locate the CPython standard library (or set TSA_BENCH_CORPUS)",
        );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Copies `from` into `to` (skipping `site-packages` and `__pycache__`); returns bytes.
pub fn copy_tree(from: &Path, to: &Path) -> u64 {
    let mut bytes = 0;
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        if name == "site-packages" || name == "__pycache__" || name == ".tsa" {
            continue;
        }
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            bytes += copy_tree(&entry.path(), &to.join(&name));
        } else if ft.is_file() {
            bytes += std::fs::copy(entry.path(), to.join(&name)).unwrap_or(0);
        }
    }
    bytes
}
