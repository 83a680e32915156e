//! Crash safety: a `tsa index full` killed with SIGKILL at any moment leaves an
//! index that opens, passes SQLite's integrity check, and holds either the old
//! or the new state, never a mix.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use tsa_index::Index;

use crate::support::{bin, json};

fn write_modules(root: &Path, from: usize, to: usize) {
    for i in from..to {
        let dir = root.join(format!("pkg{}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        let mut src = String::from("import os\n\n");
        for f in 0..25 {
            src.push_str(&format!(
                "def f{f}_{i}(x):\n    y = os.path.join(str(x), 'a')\n    return helper_{i}(y) + len(y)\n\n"
            ));
        }
        src.push_str(&format!("def helper_{i}(v):\n    return v.count('a')\n"));
        std::fs::write(dir.join(format!("m{i}.py")), src).unwrap();
    }
}

fn files_in_index(root: &Path) -> u64 {
    let index = Index::open(root).unwrap().expect("the index still opens");
    assert_eq!(index.integrity_check().unwrap(), "ok");
    index.status().unwrap().files
}

#[test]
fn kill_9_mid_build_leaves_old_or_new_state() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write_modules(&root, 0, 400);
    let (code, v) = json(&root, &["index", "full"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(files_in_index(&root), 400);
    write_modules(&root, 400, 1200);
    let mut outcomes = Vec::new();
    for (round, delay_ms) in [5u64, 40, 120, 300, 700, 1500].into_iter().enumerate() {
        let mode = if round % 2 == 0 {
            "full"
        } else {
            "incremental"
        };
        let mut child = Command::new(bin())
            .args(["--project-root"])
            .arg(&root)
            .args(["index", "full", "--mode", mode])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        let files = files_in_index(&root);
        assert!(
            files == 400 || files == 1200,
            "round {round} ({mode}, {delay_ms} ms): {files} files"
        );
        outcomes.push(files);
        // The CLI still answers from whatever state survived.
        let (code, v) = json(&root, &["index", "status", "--include-lag", "false"]);
        assert_eq!(code, 0, "{v}");
    }
    // A later build completes from any surviving state.
    let (code, v) = json(&root, &["index", "full"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(files_in_index(&root), 1200);
    eprintln!("files after each kill: {outcomes:?}");
}
