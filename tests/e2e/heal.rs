//! A damaged index heals itself: random bytes over the whole file or over 4 KiB in
//! its middle, a truncated file, a zero-length file and a file of a future schema
//! are moved aside to `.tsa/index.db.damaged-<time>` (WAL and SHM beside it, the
//! last copy kept, never deleted) and rebuilt cold by the first query or `index`
//! call, over the CLI and MCP, with an `index_rebuilt` warning; a query during the
//! rebuild waits within its bound or answers that the index is being built, never
//! from stale data.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::support::{assert_envelope, bin, json, mcp_call, mcp_logged, project};

/// How the index file is damaged.
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// Random bytes over the whole file.
    Random,
    /// Random bytes over the 4 KiB page in the middle of the file.
    MiddlePage,
    /// Random bytes over the 4 KiB root page of a table every query reads.
    FilesPage,
    /// The second half cut off.
    Truncated,
    /// Zero bytes long.
    Empty,
    /// Written by a newer tsa.
    FutureSchema,
}

const ALL: [Damage; 6] = [
    Damage::Random,
    Damage::MiddlePage,
    Damage::FilesPage,
    Damage::Truncated,
    Damage::Empty,
    Damage::FutureSchema,
];

/// Deterministic noise (xorshift), so a failure replays.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn index_db(root: &Path) -> PathBuf {
    root.join(".tsa/index.db")
}

/// Damages the index of `root`; returns the bytes the file now holds.
fn damage(root: &Path, how: Damage) -> Vec<u8> {
    let path = index_db(root);
    let mut bytes = std::fs::read(&path).unwrap();
    let page = 4096;
    match how {
        Damage::Random => bytes = noise(bytes.len(), 7),
        Damage::MiddlePage => {
            let at = bytes.len() / 2 / page * page;
            bytes[at..at + page].copy_from_slice(&noise(page, 11));
        }
        Damage::FilesPage => {
            let conn = rusqlite::Connection::open(&path).unwrap();
            let root_page: usize = conn
                .query_row(
                    "SELECT rootpage FROM sqlite_master WHERE name = 'files'",
                    [],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap() as usize;
            drop(conn);
            let at = (root_page - 1) * page;
            bytes[at..at + page].copy_from_slice(&noise(page, 13));
        }
        Damage::Truncated => bytes.truncate(bytes.len() / 2),
        Damage::Empty => bytes.clear(),
        Damage::FutureSchema => {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                [(tsa_index::SCHEMA_VERSION + 1).to_string()],
            )
            .unwrap();
            drop(conn);
            return std::fs::read(&path).unwrap();
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    bytes
}

/// Whether `text` names the reason for `how` (a damaged page is named by what
/// `PRAGMA quick_check` or SQLite found first, which depends on the page).
fn names_reason(how: Damage, text: &str) -> bool {
    match how {
        Damage::Random => text.contains("(file is not a database)"),
        Damage::MiddlePage | Damage::FilesPage => {
            text.contains("(PRAGMA quick_check: ")
                || text.contains("(database disk image is malformed)")
        }
        Damage::Truncated => text.contains("(database disk image is malformed)"),
        Damage::Empty => text.contains("(the file is empty (0 bytes))"),
        Damage::FutureSchema => text.contains(&format!(
            "(written by a newer tsa (schema version {}; this tsa reads {}))",
            tsa_index::SCHEMA_VERSION + 1,
            tsa_index::SCHEMA_VERSION
        )),
    }
}

/// The damaged copies in `.tsa/` (main files, not their WAL/SHM).
fn damaged_copies(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(".tsa"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("index.db.damaged-")
                && !name.ends_with("-wal")
                && !name.ends_with("-shm")
                && !name.ends_with("-journal")
        })
        .collect();
    out.sort();
    out
}

/// The one `index_rebuilt` warning of an answer.
fn rebuilt_warning(v: &Value) -> String {
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let found: Vec<&&str> = warnings
        .iter()
        .filter(|w| w.starts_with("index_rebuilt: "))
        .collect();
    assert_eq!(found.len(), 1, "one index_rebuilt warning: {v}");
    found[0].to_string()
}

/// Checks the heal left exactly one damaged copy holding `bytes`, named in
/// `warning`, and a sound index in place.
fn assert_healed(root: &Path, how: Damage, warning: &str, bytes: &[u8]) {
    assert!(names_reason(how, warning), "{how:?}: {warning}");
    let copies = damaged_copies(root);
    assert_eq!(copies.len(), 1, "{how:?}: the last copy only: {copies:?}");
    let name = copies[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        warning.contains(&format!(".tsa/{name}")),
        "{how:?}: {warning}"
    );
    assert_eq!(
        std::fs::read(&copies[0]).unwrap(),
        bytes,
        "{how:?}: the damaged file is kept as it was"
    );
    let index = tsa_index::Index::open(root).unwrap().expect("a new index");
    assert_eq!(index.integrity_check().unwrap(), "ok");
}

fn callers_args() -> [&'static str; 8] {
    [
        "nav",
        "callers",
        "--function-name",
        "build",
        "--file-path",
        "app/core.py",
        "--limit",
        "3",
    ]
}

#[test]
fn the_first_query_moves_a_damaged_index_aside_and_rebuilds_it() {
    let p = project("python");
    assert_eq!(json(&p.root, &["index", "full"]).0, 0);
    let (code, healthy) = json(&p.root, &callers_args());
    assert_eq!(code, 0, "{healthy}");
    // Not the middle page: a query finds only the damage on the pages it reads (an
    // index call and the MCP server's start find the rest, see below).
    for how in ALL.into_iter().filter(|h| !matches!(h, Damage::MiddlePage)) {
        assert_eq!(json(&p.root, &["index", "full", "--mode", "full"]).0, 0);
        let bytes = damage(&p.root, how);
        let (code, v) = json(&p.root, &callers_args());
        assert_eq!(code, 0, "{how:?}: {v}");
        assert_envelope(&v);
        assert_eq!(v["verdict"], "WARN", "{how:?}: {v}");
        assert_eq!(v["callers"], healthy["callers"], "{how:?}: the full answer");
        assert_eq!(v["caller_count"], 8);
        let warning = rebuilt_warning(&v);
        assert!(warning.contains("rebuilt cold (8 files in "), "{warning}");
        assert_healed(&p.root, how, &warning, &bytes);
        // Told once: the next answer is the ordinary one.
        let (_, again) = json(&p.root, &callers_args());
        assert_eq!(again, healthy, "{how:?}");
    }
}

#[test]
fn index_calls_move_a_damaged_index_aside_and_rebuild_it() {
    let p = project("python");
    for (how, mode) in ALL
        .into_iter()
        .zip(["incremental", "full"].into_iter().cycle())
    {
        assert_eq!(json(&p.root, &["index", "full", "--mode", "full"]).0, 0);
        let bytes = damage(&p.root, how);
        let (code, v) = json(&p.root, &["index", "full", "--mode", mode]);
        assert_eq!(code, 0, "{how:?}: {v}");
        assert_eq!(v["verdict"], "WARN", "{how:?}: {v}");
        assert_eq!(
            v["phases"]["files_indexed"], 8,
            "{how:?}: rebuilt cold: {v}"
        );
        assert_healed(&p.root, how, &rebuilt_warning(&v), &bytes);
    }
    // `index build` too, with the damage only PRAGMA quick_check sees.
    assert_eq!(json(&p.root, &["index", "full", "--mode", "full"]).0, 0);
    let bytes = damage(&p.root, Damage::MiddlePage);
    let (code, v) = json(&p.root, &["index", "build"]);
    assert_eq!(code, 0, "{v}");
    let warning = rebuilt_warning(&v);
    assert!(warning.contains("PRAGMA quick_check"), "{warning}");
    assert_healed(&p.root, Damage::MiddlePage, &warning, &bytes);
}

#[test]
fn the_wal_and_shm_of_a_damaged_index_go_aside_with_it() {
    let p = project("python");
    assert_eq!(json(&p.root, &["index", "full"]).0, 0);
    // A writer that left its WAL behind (it checkpoints nothing on close).
    let conn = rusqlite::Connection::open(index_db(&p.root)).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )
    .unwrap();
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('note:wal', 'in the wal only')",
        [],
    )
    .unwrap();
    drop(conn);
    let wal = std::fs::read(p.root.join(".tsa/index.db-wal")).unwrap();
    assert!(!wal.is_empty() && p.root.join(".tsa/index.db-shm").exists());
    let bytes = damage(&p.root, Damage::Random);

    let (code, v) = json(&p.root, &callers_args());
    assert_eq!(code, 0, "{v}");
    assert_healed(&p.root, Damage::Random, &rebuilt_warning(&v), &bytes);
    let copy = damaged_copies(&p.root).remove(0);
    let side = |suffix: &str| PathBuf::from(format!("{}{suffix}", copy.display()));
    assert_eq!(
        std::fs::read(side("-wal")).unwrap(),
        wal,
        "the WAL kept beside it"
    );
    assert!(side("-shm").exists());
    // The new index never saw the old WAL.
    let index = tsa_index::Index::open(&p.root).unwrap().unwrap();
    assert_eq!(index.meta("note:wal").unwrap(), None);
}

/// `tsa` on `root` with the fault variables cleared and `env` set.
fn tsa(root: &Path, args: &[&str], env: &[(&str, String)]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("--project-root")
        .arg(root)
        .args(args)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .env_remove("TSA_FAULT_KILL_AT")
        .env_remove("TSA_FAULT_PAUSE")
        .env_remove("TSA_FAULT_BUILD_WAIT_MS")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn finish(child: std::process::Child) -> Value {
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_envelope(&v);
    v
}

#[test]
fn a_query_during_the_rebuild_waits_or_says_the_index_is_being_built() {
    if !cfg!(debug_assertions) {
        eprintln!("SKIP: needs the fault points of a debug build");
        return;
    }
    let p = project("python");
    let (_, healthy) = json(&p.root, &callers_args());
    assert_eq!(json(&p.root, &["index", "full", "--mode", "full"]).0, 0);
    let bytes = damage(&p.root, Damage::Random);

    // A rebuild that moves the damaged index aside, then holds after its walk.
    let ctl = tempfile::tempdir().unwrap();
    let pause = format!("walked@{}", ctl.path().display());
    let rebuild = tsa(&p.root, &["index", "full"], &[("TSA_FAULT_PAUSE", pause)])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ctl.path().join("paused").exists() {
        assert!(Instant::now() < deadline, "the rebuild never paused");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!index_db(&p.root).exists(), "moved aside before the build");

    // A query with a short bound answers that the index is being built.
    let short = [("TSA_FAULT_BUILD_WAIT_MS", "300".to_owned())];
    let started = Instant::now();
    let v = finish(tsa(&p.root, &callers_args(), &short).spawn().unwrap());
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "WARN", "{v}");
    assert_eq!(v["index_rebuilding"], true, "{v}");
    assert_eq!(v["data_source"], "cache_rebuilding", "{v}");
    assert!(v.get("callers").is_none(), "nothing stale: {v}");
    // A query with the usual bound waits for the rebuild and answers from it.
    let waiting = tsa(&p.root, &callers_args(), &[]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    std::fs::write(ctl.path().join("resume"), "").unwrap();
    let rebuilt = finish(rebuild);
    assert_eq!(rebuilt["verdict"], "WARN", "{rebuilt}");
    assert_healed(&p.root, Damage::Random, &rebuilt_warning(&rebuilt), &bytes);
    let waited = finish(waiting);
    assert_eq!(waited["callers"], healthy["callers"], "{waited}");
    assert!(waited.get("index_rebuilding").is_none(), "{waited}");
}

/// Waits for the server's stderr line that contains `needle`.
async fn line_with(stderr: tokio::process::ChildStderr, needle: &str) -> String {
    let mut lines = BufReader::new(stderr).lines();
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(needle) {
                return line;
            }
        }
        String::new()
    })
    .await
    .unwrap_or_default();
    assert!(!found.is_empty(), "no stderr line with {needle:?}");
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_server_checks_its_index_at_start_and_the_first_call_rebuilds_it() {
    let p = project("python");
    let call = json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 3, "output_format": "json"});
    let (_, healthy) = json(&p.root, &callers_args());
    for how in ALL {
        assert_eq!(json(&p.root, &["index", "full", "--mode", "full"]).0, 0);
        let bytes = damage(&p.root, how);
        let (client, stderr) = mcp_logged((), &p.root, &[]).await;
        // Damage SQLite only finds by reading every page (the middle page) is found
        // by the start-up check; the rest too, the check being a superset.
        let line = line_with(stderr, "found by the start-up check").await;
        assert!(names_reason(how, &line), "{how:?}: {line}");
        assert!(!index_db(&p.root).exists(), "{how:?}: moved aside at start");
        let (is_error, v) = mcp_call(&client, "nav", call.clone()).await;
        assert!(!is_error, "{how:?}: {v}");
        assert_eq!(v["verdict"], "WARN", "{how:?}: {v}");
        assert_eq!(v["callers"], healthy["callers"], "{how:?}");
        let warning = rebuilt_warning(&v);
        assert!(
            warning.contains("the next call rebuilds it cold"),
            "{warning}"
        );
        assert_healed(&p.root, how, &warning, &bytes);
        // Progress as usual: the rebuild was this call's first-use build.
        let first_use = v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("index_built_on_first_use"));
        assert!(first_use, "{v}");
        let (_, again) = mcp_call(&client, "nav", call.clone()).await;
        assert!(
            again
                .get("warnings")
                .is_none_or(|w| !w.to_string().contains("index_rebuilt"))
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_call_that_meets_a_damaged_page_rebuilds_and_answers() {
    // Damage after the server started (its start-up check passed): the call that
    // reads the damaged page confirms it (quick_check), rebuilds and runs again.
    let p = project("python");
    let call = json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 3, "output_format": "json"});
    let (_, healthy) = json(&p.root, &callers_args());
    assert_eq!(json(&p.root, &["index", "full", "--mode", "full"]).0, 0);
    let (client, _stderr) = mcp_logged((), &p.root, &[]).await;
    let (_, before) = mcp_call(&client, "nav", call.clone()).await;
    assert_eq!(before["callers"], healthy["callers"]);
    let bytes = damage(&p.root, Damage::FilesPage);
    let (is_error, v) = mcp_call(&client, "nav", call.clone()).await;
    assert!(!is_error, "{v}");
    assert_eq!(v["callers"], healthy["callers"]);
    let warning = rebuilt_warning(&v);
    assert!(warning.contains("PRAGMA quick_check"), "{warning}");
    assert!(warning.contains("rebuilt cold (8 files in "), "{warning}");
    assert_healed(&p.root, Damage::FilesPage, &warning, &bytes);
    client.cancel().await.unwrap();
}
