//! Faults: `kill -9` at checkpoints and at timed moments of a cold build and of a
//! sync (the index always opens, passes SQLite's integrity check and equals a cold
//! build of the old or of the new tree); a read-only project; a full disk; a file
//! deleted or rewritten between walk and parse; a 50 MB minified file and files
//! nested 10,000 levels deep. Each ends in a clear envelope or a skipped-file
//! count, never a panic or a hang.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tsa_index::Index;

use crate::support::{assert_envelope, bin};

// ---------------------------------------------------------------- helpers

/// Writes `rel` under `root`, creating folders.
fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn module(i: usize, n: usize, extra: &str) -> String {
    let j = (i + 1) % n;
    format!(
        "from pkg.mod{j} import helper_{j}\nfrom pkg.base import Base\n\n\n\
         class Thing{i}(Base):\n    def run(self, x):\n        return helper_{j}(x) + self.step(x)\n\n\n\
         def helper_{i}(v):\n    return len(str(v)) + {i}\n\n\n\
         def use_{i}():\n    t = Thing{i}()\n    return t.run({i})\n{extra}"
    )
}

const MODULES: usize = 24;

/// The old tree: a Python package (imports, classes, bases, calls across files),
/// a JavaScript file and a Rust file.
fn write_old(root: &Path) {
    put(
        root,
        "pkg/base.py",
        "class Base:\n    def step(self, x):\n        return x * 2\n",
    );
    for i in 0..MODULES {
        put(root, &format!("pkg/mod{i}.py"), &module(i, MODULES, ""));
    }
    put(
        root,
        "web/app.js",
        "function render(x) { return fmt(x); }\nfunction fmt(x) { return String(x); }\nrender(1);\n",
    );
    put(
        root,
        "native/lib.rs",
        "pub fn open() -> u32 { helper() }\nfn helper() -> u32 { 1 }\n",
    );
}

/// The new tree: three modules deleted, five edited, five added, the JS changed.
fn make_new(root: &Path) {
    for i in [3, 7, 11] {
        std::fs::remove_file(root.join(format!("pkg/mod{i}.py"))).unwrap();
    }
    for i in [0, 5, 9, 13, 17] {
        let extra = format!("\n\ndef added_{i}():\n    return use_{i}() + helper_{i}(2)\n");
        put(root, &format!("pkg/mod{i}.py"), &module(i, MODULES, &extra));
    }
    for i in 30..35 {
        put(root, &format!("pkg/mod{i}.py"), &module(i, MODULES, ""));
    }
    put(
        root,
        "web/app.js",
        "function render(x) { return fmt(x) + pad(x); }\nfunction fmt(x) { return String(x); }\nfunction pad(x) { return ' ' + x; }\n",
    );
}

/// Copies a folder (the index included).
fn copy_all(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_all(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn tsa(root: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("--project-root")
        .arg(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .env_remove("TSA_FAULT_KILL_AT")
        .env_remove("TSA_FAULT_PAUSE");
    cmd
}

/// Runs a prepared command with a deadline; (exit code, parsed stdout JSON).
fn answer(mut cmd: Command, deadline: Duration) -> (i32, Value) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        let mut e = String::new();
        let _ = err.read_to_string(&mut e);
        let _ = tx.send((s, e));
    });
    let (out, err) = match rx.recv_timeout(deadline) {
        Ok(v) => v,
        Err(_) => {
            let _ = child.kill();
            panic!("no answer within {deadline:?} (a hang): {cmd:?}");
        }
    };
    let status = child.wait().unwrap();
    assert!(
        status.signal().is_none(),
        "killed by signal {:?} (a crash or stack overflow): {cmd:?}\nstderr: {err}",
        status.signal()
    );
    assert!(
        !err.contains("panicked"),
        "a panic reached the user: {cmd:?}\nstderr: {err}"
    );
    let v: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out}\nstderr: {err}"));
    assert_envelope(&v);
    (status.code().unwrap_or(-1), v)
}

fn cli(root: &Path, args: &[&str]) -> (i32, Value) {
    let mut cmd = tsa(root);
    cmd.args(args);
    answer(cmd, Duration::from_secs(60))
}

/// What an index holds, as sorted text rows keyed by paths and names (never ids):
/// files with their content hash and stored facts, definitions, calls with their
/// bindings, imports, bases, and the full-text row count.
#[derive(Debug, PartialEq)]
enum State {
    /// No index (or not a complete one of this schema).
    Missing,
    /// An index with no file.
    Empty,
    Rows(Vec<String>),
}

fn rows(conn: &rusqlite::Connection, tag: &str, sql: &str, out: &mut Vec<String>) {
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    let mut q = stmt.query([]).unwrap();
    while let Some(r) = q.next().unwrap() {
        let mut line = tag.to_owned();
        for k in 0..n {
            use rusqlite::types::ValueRef;
            line.push('|');
            match r.get_ref(k).unwrap() {
                ValueRef::Null => line.push('-'),
                ValueRef::Integer(i) => line.push_str(&i.to_string()),
                ValueRef::Real(f) => line.push_str(&format!("{f:.3}")),
                ValueRef::Text(t) => line.push_str(&String::from_utf8_lossy(t)),
                ValueRef::Blob(b) => line.push_str(&format!("{b:02x?}")),
            }
        }
        out.push(line);
    }
}

fn state(root: &Path) -> State {
    let index = Index::open(root).expect("the index opens after any fault");
    if index.is_none() {
        return State::Missing;
    }
    let conn = rusqlite::Connection::open(tsa_index::index_path(root)).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok", "integrity_check of {}", root.display());
    let astray: i64 = conn.query_row(CALL_KEYS_ASTRAY, [], |r| r.get(0)).unwrap();
    assert_eq!(
        astray,
        0,
        "calls_by_* out of step with calls in {}",
        root.display()
    );
    let mut out = Vec::new();
    rows(
        &conn,
        "file",
        "SELECT path, language, hex(hash), parse_errors, is_test, facts FROM files",
        &mut out,
    );
    if out.is_empty() {
        return State::Empty;
    }
    rows(
        &conn,
        "def",
        "SELECT f.path, s.kind, s.qualname, n.name, o.name, p.qualname, s.line, s.end_line,
                s.signature, s.is_test, s.self_name
         FROM symbols s JOIN files f ON f.id = s.file_id JOIN names n ON n.id = s.name_id
         LEFT JOIN names o ON o.id = s.owner_id LEFT JOIN symbols p ON p.id = s.parent_id",
        &mut out,
    );
    rows(
        &conn,
        "call",
        "SELECT f.path, c.line, cs.qualname, n.name, c.receiver, c.receiver_type, c.shadowed,
                c.path_call, tf.path, t.qualname, t.line, c.resolution, c.confidence
         FROM calls c JOIN files f ON f.id = c.file_id JOIN names n ON n.id = c.callee_id
         LEFT JOIN symbols cs ON cs.id = c.caller_id LEFT JOIN symbols t ON t.id = c.target_id
         LEFT JOIN files tf ON tf.id = t.file_id",
        &mut out,
    );
    rows(
        &conn,
        "import",
        "SELECT f.path, i.line, i.module, i.name, i.alias, i.level, tf.path, t.qualname, i.resolution
         FROM imports i JOIN files f ON f.id = i.file_id LEFT JOIN files tf ON tf.id = i.target_file_id
         LEFT JOIN symbols t ON t.id = i.target_id",
        &mut out,
    );
    rows(
        &conn,
        "base",
        "SELECT f.path, s.qualname, n.name, h.kind, t.qualname, h.resolution
         FROM inherits h JOIN files f ON f.id = h.file_id JOIN symbols s ON s.id = h.symbol_id
         JOIN names n ON n.id = h.base_id LEFT JOIN symbols t ON t.id = h.target_id",
        &mut out,
    );
    // Rows that would point nowhere, and the full-text rows (one per definition).
    rows(
        &conn,
        "orphans",
        "SELECT (SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)),
                (SELECT count(*) FROM calls WHERE file_id NOT IN (SELECT id FROM files)),
                (SELECT count(*) FROM calls WHERE target_id IS NOT NULL AND target_id NOT IN (SELECT id FROM symbols)),
                (SELECT count(*) FROM symbols_fts) - (SELECT count(*) FROM symbols)",
        &mut out,
    );
    out.sort();
    State::Rows(out)
}

/// Rows of the `calls_by_*` tables and of `calls` that the other side lacks.
const CALL_KEYS_ASTRAY: &str = "SELECT
    (SELECT count(*) FROM (SELECT callee_id, id FROM calls EXCEPT SELECT callee_id, id FROM calls_by_callee))
  + (SELECT count(*) FROM (SELECT callee_id, id FROM calls_by_callee EXCEPT SELECT callee_id, id FROM calls))
  + (SELECT count(*) FROM (SELECT target_id, id FROM calls WHERE target_id IS NOT NULL
                           EXCEPT SELECT target_id, id FROM calls_by_target))
  + (SELECT count(*) FROM (SELECT target_id, id FROM calls_by_target EXCEPT SELECT target_id, id FROM calls))";

/// A seeded generator (xorshift), so the timed kills are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

// ---------------------------------------------------------------- kill -9

#[derive(Clone, Copy, Debug, PartialEq)]
enum Run {
    /// `index full --mode full` over the old index.
    Cold,
    /// `index sync` over the old index.
    Sync,
    /// `index full --mode full` with no index yet.
    Scratch,
}

#[derive(Clone, Debug)]
enum Kill {
    At(&'static str, usize),
    After(Duration),
}

#[test]
fn kill_9_at_checkpoints_and_random_moments_leaves_old_or_new_index() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    // References: cold builds of the old and of the new tree.
    let old = top.join("old");
    write_old(&old);
    assert_eq!(cli(&old, &["index", "full", "--mode", "full"]).0, 0);
    let old_state = state(&old);
    let new_ref = top.join("new_ref");
    write_old(&new_ref);
    make_new(&new_ref);
    assert_eq!(cli(&new_ref, &["index", "full", "--mode", "full"]).0, 0);
    let new_state = state(&new_ref);
    assert!(matches!(old_state, State::Rows(_)) && matches!(new_state, State::Rows(_)));
    assert_ne!(old_state, new_state);
    // The starting point of every run: the new tree over the old index.
    let base = top.join("base");
    copy_all(&old, &base);
    make_new(&base);
    let scratch = top.join("scratch");
    write_old(&scratch);
    make_new(&scratch);

    let words = |run: Run| -> Vec<&'static str> {
        match run {
            Run::Cold | Run::Scratch => vec!["index", "full", "--mode", "full"],
            Run::Sync => vec!["index", "sync"],
        }
    };
    // An uninterrupted sync ends equal to a cold build of the new tree; its time
    // (and a cold build's) spreads the timed kills.
    let mut measured = Vec::new();
    for run in [Run::Cold, Run::Sync] {
        let probe = top.join(format!("probe_{run:?}"));
        copy_all(&base, &probe);
        let t = Instant::now();
        assert_eq!(cli(&probe, &words(run)).0, 0);
        measured.push((run, t.elapsed()));
        assert!(
            state(&probe) == new_state,
            "{run:?} uninterrupted == cold build of the new tree"
        );
    }

    let mut plan: Vec<(Run, Kill)> = Vec::new();
    if cfg!(debug_assertions) {
        // The debug binary holds the checkpoints (tsa-index `fault`).
        for (phase, ns) in [
            ("open", &[1][..]),
            ("walk", &[1]),
            ("parse", &[1, 9, 17, 29]),
            ("resolve", &[1]),
            ("write", &[1, 2, 5, 10, 20, 25, 29]),
            ("commit", &[1, 2]),
            ("rename", &[1, 2, 3, 4]),
        ] {
            for &n in ns {
                plan.push((Run::Cold, Kill::At(phase, n)));
            }
        }
        for (phase, ns) in [
            ("open", &[1][..]),
            ("walk", &[1]),
            ("parse", &[1, 12, 29]),
            ("write", &[1, 2, 3, 4, 8, 15, 22, 28, 32]),
            ("resolve", &[1, 2, 3, 4]),
            ("commit", &[1, 2]),
        ] {
            for &n in ns {
                plan.push((Run::Sync, Kill::At(phase, n)));
            }
        }
        for (phase, ns) in [
            ("open", &[1][..]),
            ("walk", &[1]),
            ("parse", &[5]),
            ("write", &[1, 16]),
            ("resolve", &[1]),
            ("commit", &[1, 2]),
            ("rename", &[1, 3]),
        ] {
            for &n in ns {
                plan.push((Run::Scratch, Kill::At(phase, n)));
            }
        }
    }
    // Half over the whole run, half over its last 40% (where the writes are).
    let mut rng = Rng(0x5eed_fa17);
    for (run, took) in &measured {
        let span = took.as_micros() as u64 * 11 / 10;
        for k in 0..12 {
            let from = if k % 2 == 0 { 0 } else { span / 2 };
            let at = from + rng.below(span - from);
            plan.push((*run, Kill::After(Duration::from_micros(at))));
        }
    }

    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let killed_at_checkpoints = AtomicUsize::new(0);
    let killed_timed = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some((run, kill)) = plan.get(k) else {
                        break;
                    };
                    let root = top.join(format!("run{k}"));
                    copy_all(if *run == Run::Scratch { &scratch } else { &base }, &root);
                    let mut cmd = tsa(&root);
                    cmd.args(words(*run))
                        .stdout(Stdio::null())
                        .stderr(Stdio::null());
                    if let Kill::At(phase, n) = kill {
                        cmd.env("TSA_FAULT_KILL_AT", format!("{phase}:{n}"));
                    }
                    let mut child = cmd.spawn().unwrap();
                    if let Kill::After(d) = kill {
                        std::thread::sleep(*d);
                        let _ = child.kill();
                    }
                    let status = child.wait().unwrap();
                    let killed = status.signal() == Some(9);
                    match kill {
                        Kill::At(..) => {
                            assert!(killed, "{run:?} {kill:?}: the checkpoint was not reached ({status})");
                            killed_at_checkpoints.fetch_add(1, Ordering::SeqCst);
                        }
                        Kill::After(_) if killed => {
                            killed_timed.fetch_add(1, Ordering::SeqCst);
                        }
                        Kill::After(_) => {}
                    }
                    let got = state(&root);
                    let which = if got == new_state {
                        "new"
                    } else if got == old_state && *run != Run::Scratch {
                        "old"
                    } else if *run == Run::Scratch && matches!(got, State::Missing | State::Empty) {
                        "none"
                    } else {
                        let detail = match (&got, &new_state) {
                            (State::Rows(g), State::Rows(n)) => {
                                let extra: Vec<_> = g.iter().filter(|r| !n.contains(r)).take(5).collect();
                                let missing: Vec<_> = n.iter().filter(|r| !g.contains(r)).take(5).collect();
                                format!("vs new: extra {extra:?} missing {missing:?}")
                            }
                            _ => format!("{got:?}"),
                        };
                        panic!("{run:?} {kill:?}: the index is neither the old nor the new tree: {detail}");
                    };
                    // The CLI answers from whatever survived.
                    let (code, v) = cli(&root, &["index", "status"]);
                    assert_eq!(code, 0, "{v}");
                    // And a later sync completes from it.
                    if k.is_multiple_of(4) {
                        assert_eq!(cli(&root, &["index", "sync"]).0, 0);
                        assert!(state(&root) == new_state, "{run:?} {kill:?}: sync after the kill");
                    }
                    results.lock().unwrap().push(format!(
                        "{run:?} {kill:?} -> {} {which}",
                        if killed { "killed" } else { "finished" }
                    ));
                    let _ = std::fs::remove_dir_all(&root);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let at = killed_at_checkpoints.load(Ordering::SeqCst);
    let timed = killed_timed.load(Ordering::SeqCst);
    eprintln!(
        "kill -9: {} runs, {at} killed at checkpoints, {timed} killed at timed moments; measured {measured:?}",
        results.len()
    );
    for r in &results {
        eprintln!("  {r}");
    }
    if cfg!(debug_assertions) {
        assert!(at + timed >= 50, "at least 50 kill points ({at} + {timed})");
    }
}

// ---------------------------------------------------------------- environment

fn uid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(1)
}

/// A mount point, unmounted when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Runs `mount <args...> <target>`; `None` when this environment does not allow it
/// (or `TSA_FAULTS_NO_MOUNT` is set, to exercise the fallbacks).
fn mount(args: &[&str], target: &Path) -> Option<Mounted> {
    if std::env::var_os("TSA_FAULTS_NO_MOUNT").is_some() {
        return None;
    }
    let ok = Command::new("mount")
        .args(args)
        .arg(target)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mounted(target.to_path_buf()))
}

// ---------------------------------------------------------------- read-only

/// How the project folder was made read-only for this run.
enum ReadOnly {
    /// A read-only bind mount (root, mount permitted): writes fail with EROFS.
    Mount(#[allow(dead_code)] Mounted),
    /// `chmod -R a-w` (not root): writes fail with EACCES.
    Chmod(PathBuf),
    /// Root without mount: the permissions are dropped and tsa runs as `nobody`.
    Nobody,
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if let ReadOnly::Chmod(p) = self {
            let _ = Command::new("chmod").arg("-R").arg("u+w").arg(&*p).status();
        }
    }
}

fn read_only(dir: &Path) -> ReadOnly {
    if uid() != 0 {
        assert!(
            Command::new("chmod")
                .arg("-R")
                .arg("a-w")
                .arg(dir)
                .status()
                .unwrap()
                .success()
        );
        return ReadOnly::Chmod(dir.to_path_buf());
    }
    if let Some(m) = mount(&["--bind", &dir.to_string_lossy()], dir) {
        let remounted = Command::new("mount")
            .args(["-o", "remount,bind,ro"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let probe = dir.join(".probe");
        if remounted && std::fs::write(&probe, "x").is_err() {
            return ReadOnly::Mount(m);
        }
        let _ = std::fs::remove_file(probe);
        drop(m);
    }
    ReadOnly::Nobody
}

#[test]
fn read_only_project_refuses_writes_clearly_and_serves_an_existing_index() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let ro = top.join("ro");
    let fresh = ro.join("fresh");
    write_old(&fresh);
    let indexed = ro.join("indexed");
    write_old(&indexed);
    assert_eq!(cli(&indexed, &["index", "full"]).0, 0);
    let before = state(&indexed);
    // Readable by everyone (tsa may run as `nobody`).
    for p in [&top, &ro] {
        let _ = Command::new("chmod").arg("755").arg(p).status();
    }
    let how = read_only(&ro);
    let run = |root: &Path, args: &[&str]| {
        let mut cmd = tsa(root);
        cmd.args(args);
        if matches!(how, ReadOnly::Nobody) {
            cmd.uid(65534).gid(65534);
        }
        answer(cmd, Duration::from_secs(60))
    };
    eprintln!(
        "read-only by {}",
        match how {
            ReadOnly::Mount(_) => "a read-only bind mount",
            ReadOnly::Chmod(_) => "chmod -R a-w",
            ReadOnly::Nobody => "running as nobody",
        }
    );
    // No index, and none can be written: a clear refusal, never a panic.
    for args in [
        &["index", "full"][..],
        &["search", "symbol", "--query", "helper_1"],
        &["nav", "callers", "--function-name", "helper_1"],
    ] {
        let (code, v) = run(&fresh, args);
        assert_ne!(code, 0, "{args:?}: {v}");
        assert_eq!(v["error_type"], "permission_denied", "{args:?}: {v}");
        assert!(v["hint"].as_str().unwrap().contains(".tsa"), "{v}");
    }
    assert!(!fresh.join(".tsa").exists());
    // File actions need no index.
    let (code, v) = run(
        &fresh,
        &["structure", "outline", "--file-path", "pkg/mod1.py"],
    );
    assert_eq!(code, 0, "{v}");
    let (code, v) = run(&fresh, &["search", "content", "--query", "helper_2"]);
    assert_eq!(code, 0, "{v}");
    // An index built before: queries are served from it.
    let (code, v) = run(&indexed, &["search", "symbol", "--query", "helper_1"]);
    assert_eq!(code, 0, "{v}");
    assert!(v.to_string().contains("pkg/mod1.py"), "{v}");
    let (code, v) = run(&indexed, &["nav", "callers", "--function-name", "helper_1"]);
    assert_eq!(code, 0, "{v}");
    let (code, v) = run(&indexed, &["index", "status"]);
    assert_eq!(code, 0, "{v}");
    // A sync cannot write: refused clearly, the index unchanged.
    let (code, v) = run(&indexed, &["index", "sync"]);
    assert_ne!(code, 0, "{v}");
    assert_eq!(v["error_type"], "permission_denied", "{v}");
    drop(how);
    assert!(state(&indexed) == before, "the index is unchanged");
}

// ---------------------------------------------------------------- full disk

#[test]
fn full_disk_fails_clearly_and_keeps_the_previous_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("p");
    write_old(&root);
    // A large tree: its index does not fit in the space given.
    let grow = |root: &Path| {
        for i in 0..800 {
            put(root, &format!("more/m{i}.py"), &module(i + 100, 900, ""));
        }
    };
    let limit: u64 = 512 * 1024;
    let tsa_dir = root.join(".tsa");
    std::fs::create_dir_all(&tsa_dir).unwrap();
    let size = format!("size={limit}");
    let mounted = if uid() == 0 {
        mount(&["-t", "tmpfs", "-o", &size, "tmpfs"], &tsa_dir)
    } else {
        None
    };
    let has_prlimit = Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let how = if mounted.is_some() {
        "a 512 KiB tmpfs mounted on .tsa"
    } else if has_prlimit {
        "RLIMIT_FSIZE 512 KiB (prlimit), SIGXFSZ ignored"
    } else {
        eprintln!("full disk: skipped (no mount permission and no prlimit)");
        return;
    };
    eprintln!("full disk by {how}");
    let run = |args: &[&str]| {
        let cmd = if mounted.is_some() {
            let mut c = tsa(&root);
            c.args(args);
            c
        } else {
            // The shell ignores SIGXFSZ (inherited), prlimit caps the file size.
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg("trap '' XFSZ; exec prlimit --fsize=\"$0\" -- \"$@\"")
                .arg(limit.to_string())
                .arg(bin())
                .arg("--project-root")
                .arg(&root)
                .args(args)
                .env_remove("TREE_SITTER_PROJECT_ROOT");
            c
        };
        answer(cmd, Duration::from_secs(120))
    };
    // The small tree fits.
    let (code, v) = run(&["index", "full"]);
    assert_eq!(code, 0, "{v}");
    let before = state(&root);
    assert!(matches!(before, State::Rows(_)));
    grow(&root);
    for args in [&["index", "full", "--mode", "full"][..], &["index", "sync"]] {
        let (code, v) = run(args);
        assert_ne!(code, 0, "{args:?} should not fit: {v}");
        assert_eq!(v["error_type"], "resource_exhausted", "{args:?}: {v}");
        let hint = v["hint"].as_str().unwrap();
        assert!(hint.contains("space"), "{hint}");
        // The previous index is intact, and the failed build left nothing behind.
        assert!(state(&root) == before, "{args:?}: previous index intact");
        assert!(!tsa_dir.join("index.db.building").exists());
        let (code, v) = run(&["search", "symbol", "--query", "helper_1"]);
        assert_eq!(code, 0, "{v}");
    }
    drop(mounted);
}

// ---------------------------------------------------------------- races

/// Starts a build that pauses at `point`, runs `act` while it waits, lets it
/// finish; returns its answer.
fn paused_build(root: &Path, args: &[&str], point: &str, act: impl FnOnce()) -> (i32, Value) {
    let ctl = tempfile::tempdir().unwrap();
    let mut cmd = tsa(root);
    cmd.args(args)
        .env(
            "TSA_FAULT_PAUSE",
            format!("{point}@{}", ctl.path().display()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ctl.path().join("paused").exists() {
        assert!(Instant::now() < deadline, "the build never reached {point}");
        std::thread::sleep(Duration::from_millis(10));
    }
    act();
    std::fs::write(ctl.path().join("resume"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.signal().is_none() && !err.contains("panicked"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_envelope(&v);
    (out.status.code().unwrap_or(-1), v)
}

/// The state of a cold build of a copy of `root`'s files (no index copied).
fn cold_state(root: &Path) -> State {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("cold");
    copy_all(root, &copy);
    let _ = std::fs::remove_dir_all(copy.join(".tsa"));
    assert_eq!(cli(&copy, &["index", "full", "--mode", "full"]).0, 0);
    // The rows name project-relative paths only, so states of two roots compare.
    state(&copy)
}

/// `index sync --paths` (what the watcher does with a burst of events): told the
/// files that were deleted, edited and added, the sync reads only those and ends
/// where a cold build of the new tree does, row for row; told a path outside the
/// project, or paths with a mode that compares the whole tree, it refuses.
#[test]
fn a_sync_told_the_changed_paths_ends_where_a_cold_build_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    write_old(&root);
    assert_eq!(cli(&root, &["index", "full"]).0, 0);
    make_new(&root);
    let mut told: Vec<String> = [3, 7, 11, 0, 5, 9, 13, 17, 30, 31, 32, 33, 34]
        .iter()
        .map(|i| format!("pkg/mod{i}.py"))
        .collect();
    told.push("web/app.js".into());
    let (code, v) = cli(&root, &["index", "sync", "--paths", &told.join(",")]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        (&v["new_files"], &v["updated_files"], &v["deleted_files"]),
        (&json!(5), &json!(6), &json!(3)),
        "{v}"
    );
    // Only the told files were looked at: none was found unchanged.
    assert_eq!(v["unchanged_files"], 0, "{v}");
    assert_eq!(state(&root), cold_state(&root));

    let outside = dir.path().join("outside.py");
    std::fs::write(&outside, "def f():\n    pass\n").unwrap();
    for paths in ["../outside.py", outside.to_str().unwrap()] {
        let (code, v) = cli(&root, &["index", "sync", "--paths", paths]);
        assert_ne!(code, 0, "{v}");
        assert_eq!(v["success"], false, "{v}");
        assert!(v["error_type"].is_string() && v["hint"].is_string(), "{v}");
    }
    let (code, v) = cli(
        &root,
        &[
            "index",
            "sync",
            "--mode",
            "status",
            "--paths",
            "pkg/mod0.py",
        ],
    );
    assert_ne!(code, 0, "{v}");
    assert_eq!(v["error_type"], "validation", "{v}");
    // Nothing of the refusals reached the index.
    assert_eq!(state(&root), cold_state(&root));
}

#[test]
fn files_deleted_or_rewritten_mid_build_are_skipped_or_stored_consistently() {
    if !cfg!(debug_assertions) {
        eprintln!("races: skipped (the pause hook exists in debug builds only)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("p");
    write_old(&root);

    // Deleted between walk and read, cold: counted as skipped, nothing fails.
    let (code, v) = paused_build(
        &root,
        &["index", "full", "--mode", "full"],
        "walked",
        || {
            std::fs::remove_file(root.join("pkg/mod2.py")).unwrap();
        },
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["phases"]["skipped_missing"], 1, "{v}");
    assert_eq!(v["phases"]["errors"], 0, "{v}");
    let listed = v["file_issues"].to_string();
    assert!(
        listed.contains("pkg/mod2.py") && listed.contains("vanished"),
        "{v}"
    );
    assert!(state(&root) == cold_state(&root));

    // Deleted between walk and read, in a sync (the file had changed, so it is
    // read): skipped, and its old rows are gone.
    put(&root, "pkg/mod2.py", &module(2, MODULES, ""));
    assert_eq!(cli(&root, &["index", "sync"]).0, 0);
    put(
        &root,
        "pkg/mod4.py",
        &module(4, MODULES, "\n\ndef later():\n    return 4\n"),
    );
    let (code, v) = paused_build(&root, &["index", "sync"], "walked", || {
        std::fs::remove_file(root.join("pkg/mod4.py")).unwrap();
    });
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["skipped_missing"], 1, "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    assert!(state(&root) == cold_state(&root));

    // Rewritten after its bytes were read, before they are parsed: the stored hash
    // and symbols are both those of the version read; the next sync takes the new one.
    let v1 = module(6, MODULES, "\n\ndef first_version():\n    return 1\n");
    let v2 = module(6, MODULES, "\n\ndef second_version():\n    return 2\n");
    put(&root, "pkg/mod6.py", &v1);
    let want_v1 = cold_state(&root);
    let (code, v) = paused_build(&root, &["index", "sync"], "read:pkg/mod6.py", || {
        put(&root, "pkg/mod6.py", &v2);
    });
    assert_eq!(code, 0, "{v}");
    assert!(
        state(&root) == want_v1,
        "hash and symbols of the version read"
    );
    assert_eq!(cli(&root, &["index", "sync"]).0, 0);
    assert!(
        state(&root) == cold_state(&root),
        "the next sync takes the new version"
    );

    // Rewritten between walk and read: the version read is stored whole, and the
    // next sync finds nothing left to parse.
    let v3 = module(6, MODULES, "\n\ndef third_version():\n    return 3\n");
    put(
        &root,
        "pkg/mod6.py",
        &module(6, MODULES, "\n\ndef interim():\n    return 0\n"),
    );
    let (code, v) = paused_build(&root, &["index", "sync"], "walked", || {
        put(&root, "pkg/mod6.py", &v3);
    });
    assert_eq!(code, 0, "{v}");
    let want_v3 = cold_state(&root);
    assert!(state(&root) == want_v3);
    let (_, v) = cli(&root, &["index", "sync"]);
    assert_eq!(v["updated_files"], 0, "{v}");
    assert!(state(&root) == want_v3);
}

// ---------------------------------------------------------------- huge and deep

#[test]
fn huge_and_deeply_nested_files_end_in_answers_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("p");
    write_old(&root);
    // A 50 MB minified script on one line.
    let unit = "var a0=function(b){return b+1},c0=[1,2,3].map(a0);";
    let big = unit.repeat(50 * 1024 * 1024 / unit.len() + 1);
    put(&root, "web/huge.min.js", &big);
    drop(big);
    // 10,000 levels: brackets, parentheses, blocks, nested functions, use trees.
    const D: usize = 10_000;
    put(
        &root,
        "deep/brackets.py",
        &format!(
            "x = {}1{}\n\n\ndef after():\n    return x\n",
            "[".repeat(D),
            "]".repeat(D)
        ),
    );
    put(
        &root,
        "deep/parens.js",
        &format!(
            "const y = {}1{};\nfunction after() {{ return y; }}\n",
            "(".repeat(D),
            ")".repeat(D)
        ),
    );
    put(
        &root,
        "deep/blocks.js",
        &format!(
            "function f(a) {{ {} g(a); {} }}\nfunction g(a) {{ return a; }}\n",
            "if (a) {".repeat(D),
            "}".repeat(D)
        ),
    );
    let mut nested = String::new();
    for i in 0..D {
        nested.push_str(&format!("function n{i}() {{ "));
    }
    nested.push_str("return 1;");
    nested.push_str(&" }".repeat(D));
    nested.push('\n');
    put(&root, "deep/functions.js", &nested);
    put(
        &root,
        "deep/uses.rs",
        &format!(
            "use a::{}z{};\npub fn after() {{}}\n",
            "{b::".repeat(D),
            "}".repeat(D)
        ),
    );
    put(
        &root,
        "deep/blocks.rs",
        &format!(
            "pub fn f() {{ {} g(); {} }}\nfn g() {{}}\n",
            "{".repeat(D),
            "}".repeat(D)
        ),
    );

    let t = Instant::now();
    let (code, v) = cli(&root, &["index", "full"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["phases"]["skipped_too_large"], 1, "{v}");
    let issues = v["file_issues"].to_string();
    assert!(
        issues.contains("web/huge.min.js") && issues.contains("max_file_size"),
        "the skip has a reason: {v}"
    );
    eprintln!("index full with huge and deep files: {:?}", t.elapsed());
    // The deep files are indexed (what parsed), and what follows them is found.
    let (code, v) = cli(&root, &["search", "symbol", "--query", "after"]);
    assert_eq!(code, 0, "{v}");
    for f in ["deep/brackets.py", "deep/parens.js", "deep/uses.rs"] {
        assert!(v.to_string().contains(f), "{f}: {v}");
    }
    // Queries on each file finish with an answer (success or a clear refusal).
    let files = [
        "web/huge.min.js",
        "deep/brackets.py",
        "deep/parens.js",
        "deep/blocks.js",
        "deep/functions.js",
        "deep/uses.rs",
        "deep/blocks.rs",
    ];
    for f in files {
        for args in [
            vec!["structure", "outline", "--file-path", f],
            vec!["structure", "analyze", "--file-path", f],
            vec![
                "structure",
                "ast_path",
                "--file-path",
                f,
                "--mode",
                "outline",
                "--max-depth",
                "20000",
            ],
            vec!["health", "file", "--file-path", f],
        ] {
            let t = Instant::now();
            let (code, v) = cli(&root, &args);
            assert!(code == 0 || v["success"] == false, "{args:?}: {v}");
            eprintln!("{args:?}: {} in {:?}", v["verdict"], t.elapsed());
        }
    }
    let (code, v) = cli(&root, &["search", "content", "--query", "return b\\+1"]);
    assert_eq!(code, 0, "{v}");
    assert!(
        v.to_string().len() < 1024 * 1024,
        "a match on a 50 MB line is not echoed whole"
    );
    for args in [
        &["health", "project"][..],
        &["viz", "similarity"],
        &["structure", "sitemap"],
    ] {
        let (code, v) = cli(&root, args);
        assert!(code == 0 || v["success"] == false, "{args:?}: {v}");
    }
}
