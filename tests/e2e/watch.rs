//! A live index: `tsa watch` and `tsa mcp --watch` keep the index in sync as files
//! are edited, added, deleted and renamed; afterwards the index equals a cold build,
//! and a subscriber gets one notification per burst of changes.

use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use tsa_index::{BuildMode, BuildOptions, Index};

use crate::support::{Updates, bin, drain, mcp_call, mcp_logged, project};

/// Every symbol and call edge of an index, as comparable text rows.
fn snapshot(root: &Path) -> Vec<String> {
    let index = Index::open(root).unwrap().unwrap();
    let mut rows = Vec::new();
    for f in index.files().unwrap() {
        for s in index.symbols_in_file(&f).unwrap() {
            rows.push(format!(
                "def {f} {} {} {}-{}",
                s.kind, s.qualname, s.line, s.end_line
            ));
        }
        for c in index.calls_in_file(&f).unwrap() {
            rows.push(format!(
                "call {f}:{} {} -> {} {}",
                c.line,
                c.callee_name,
                c.target
                    .map(|t| format!("{}:{}", t.file, t.qualname))
                    .unwrap_or_default(),
                c.resolution.as_str()
            ));
        }
    }
    rows.sort();
    rows
}

/// The snapshot of a cold build of a copy of `root`'s files.
fn cold_snapshot(root: &Path) -> Vec<String> {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            if e.file_name() == ".tsa" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let copy_root = dir.path().join("cold");
    copy(root, &copy_root);
    let opts = BuildOptions {
        mode: BuildMode::Full,
        ..BuildOptions::default()
    };
    tsa_index::build(&copy_root, &opts).unwrap();
    snapshot(&copy_root)
}

/// The next sync line whose counts satisfy `want`, within 15 s.
fn next_sync(lines: &mpsc::Receiver<Value>, want: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let v = lines
            .recv_timeout(left)
            .expect("a sync line before the deadline");
        assert_eq!(v["event"], "sync", "{v}");
        if want(&v) {
            return v;
        }
    }
}

#[test]
fn tsa_watch_follows_edits_adds_deletes_and_renames() {
    let p = project("python");
    let mut child = Command::new(bin())
        .arg("--project-root")
        .arg(&p.root)
        .args(["watch", "--quiet-ms", "100"])
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx
                .send(serde_json::from_str::<Value>(&line).unwrap())
                .is_err()
            {
                break;
            }
        }
    });
    let first = next_sync(&rx, |_| true);
    assert!(first["new_files"].as_u64().unwrap() > 0, "{first}");
    std::thread::sleep(Duration::from_millis(300));

    // Edit.
    let core = p.root.join("app/core.py");
    let mut text = std::fs::read_to_string(&core).unwrap();
    text.push_str("\n\ndef added_by_edit():\n    return build()\n");
    std::fs::write(&core, text).unwrap();
    let v = next_sync(&rx, |v| v["updated_files"] == 1);
    // The burst named the file: the sync looked there, not at the whole tree.
    assert_eq!(v["unchanged_files"], 0, "{v}");
    // Add.
    std::fs::write(
        p.root.join("app/extra.py"),
        "from app.core import added_by_edit\n\n\ndef extra():\n    return added_by_edit()\n",
    )
    .unwrap();
    next_sync(&rx, |v| v["new_files"] == 1);
    // Rename.
    std::fs::rename(p.root.join("app/extra.py"), p.root.join("app/renamed.py")).unwrap();
    next_sync(&rx, |v| v["new_files"] == 1 && v["deleted_files"] == 1);
    // Delete.
    std::fs::remove_file(p.root.join("app/renamed.py")).unwrap();
    next_sync(&rx, |v| v["deleted_files"] == 1);

    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        snapshot(&p.root),
        cold_snapshot(&p.root),
        "watched index == cold build"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_watch_notifies_one_update_per_burst() {
    let p = project("python");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (client, stderr) = mcp_logged(Updates(tx), &p.root, &["--watch"]).await;
    // The server logs, per notifying sync, how long after the sync it notified.
    let log = tokio::spawn(async move {
        use tokio::io::AsyncBufReadExt;
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let mut out = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            out.push(line);
        }
        out
    });
    let (err, sub) = mcp_call(
        &client,
        "search",
        json!({"action": "subscribe", "selector": ".function", "min_interval": 0, "output_format": "json"}),
    )
    .await;
    assert!(!err, "{sub}");
    let uri = sub["resource_uri"].as_str().unwrap().to_owned();
    // Let the first sync (the index built by subscribe) settle.
    let _ = drain(&mut rx, Duration::from_millis(500)).await;
    for i in 0..3 {
        // One burst: several writes within the quiet period.
        let file = p.root.join(format!("app/burst_{i}.py"));
        std::fs::write(&file, format!("def burst_{i}_a():\n    return {i}\n")).unwrap();
        std::fs::write(
            &file,
            format!("def burst_{i}_a():\n    return {i}\n\n\ndef burst_{i}_b():\n    return burst_{i}_a()\n"),
        )
        .unwrap();
        let first = tokio::time::timeout(Duration::from_secs(8), rx.recv())
            .await
            .expect("a notification after the burst");
        let mut got: Vec<String> = first.into_iter().collect();
        // Anything more for this burst would arrive right after the sync.
        got.extend(drain(&mut rx, Duration::from_millis(700)).await);
        assert_eq!(got, vec![uri.clone()], "burst {i}: one notification");
    }
    // A change that leaves the selection alone notifies nobody.
    std::fs::write(p.root.join("notes.txt"), "not code\n").unwrap();
    assert!(drain(&mut rx, Duration::from_secs(1)).await.is_empty());
    client.cancel().await.unwrap();
    let lines = tokio::time::timeout(Duration::from_secs(10), log)
        .await
        .expect("server exits")
        .unwrap();
    let latencies: Vec<f64> = lines
        .iter()
        .filter_map(|l| {
            let (_, rest) = l.split_once(" notified ")?;
            rest.split_once(" ms after the sync")?.0.parse().ok()
        })
        .collect();
    eprintln!("sync -> notification latencies (ms): {latencies:?}");
    assert!(
        latencies.len() >= 3,
        "one timing line per notifying sync: {lines:?}"
    );
    assert!(
        latencies.iter().all(|ms| *ms < 100.0),
        "notifications within 100 ms of their sync: {latencies:?}"
    );
    assert_eq!(snapshot(&p.root), cold_snapshot(&p.root));
}
