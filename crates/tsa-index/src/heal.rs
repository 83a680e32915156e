//! A damaged index heals itself: what makes `.tsa/index.db` unusable, and moving
//! such a file aside (`.tsa/index.db.damaged-<time>`, with its WAL and shared-memory
//! files; only the last copy is kept) so that a cold build replaces it. Nothing here
//! deletes an index, and every check reads without writing.
//!
//! When the checks run (`PRAGMA quick_check` reads every page: 100-190 ms on the
//! 40 MiB CPython index, ten times a no-change sync, so it never runs on an ordinary
//! open or sync):
//! - every build, under the build lock before it writes: the cheap checks (an empty
//!   file, a file SQLite refuses, no meta table, another schema version);
//! - `PRAGMA quick_check` besides, when the build is asked to verify: an explicit
//!   `index full`/`index build`, a query that met `SQLITE_CORRUPT`/`SQLITE_NOTADB`
//!   (the check confirms the damage under the lock, so an index another process has
//!   just rebuilt is never moved aside), and the MCP server's start;
//! - a build that meets `SQLITE_CORRUPT` itself, under the lock, needs no check;
//! - a verifying full build runs `quick_check` beside itself ([`deep_problem`]),
//!   reading the old file only until the check is done, then replaces the file or
//!   moves it aside.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::store::{self, SCHEMA_VERSION};
use crate::{Fault, IndexError};

/// What the index file of a project is, for a build about to use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// No index, or a database with no table in it: nothing worth keeping.
    Absent,
    /// An index of this schema version (that passed `quick_check` when asked).
    Current,
    /// An index an older tsa wrote: rebuilt cold in its place (it is a cache of
    /// the source, and an older tsa rebuilds its own).
    Older(i64),
    /// An index tsa cannot use, and why: moved aside before the build.
    Damaged(String),
}

/// An index that was moved aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quarantined {
    /// What was wrong with it, in one line.
    pub reason: String,
    /// Where it is now, relative to the project root: `.tsa/index.db.damaged-<time>`
    /// (its `-wal`, `-shm` and `-journal` files, if any, beside it under the same name).
    pub moved_to: String,
}

/// The prefix of a moved-aside index's file name in `.tsa/`.
pub const DAMAGED_PREFIX: &str = "index.db.damaged-";

/// The files SQLite keeps beside a database, by suffix.
const SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Whether `e` says the index file itself is damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
pub fn is_damage(e: &IndexError) -> bool {
    e.fault() == Fault::Corrupt
}

/// SQLite's own words for a failure, without our prefix.
pub(crate) fn words(e: &IndexError) -> String {
    match e {
        IndexError::Sqlite(inner) => inner.to_string(),
        other => other.to_string(),
    }
}

/// Opens an existing database file to examine it: read-write only so that SQLite
/// can read a WAL-mode file whose shared memory must be rebuilt, `query_only`, and
/// never checkpointing on close (so nothing is written into a damaged file).
fn open_to_examine(path: &Path) -> Result<Connection, IndexError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .or_else(|_| {
        Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    })?;
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "query_only", "ON")?;
    Ok(conn)
}

/// Examines the index of `root` without changing it. The cheap checks always
/// run; with `deep`, `PRAGMA quick_check` too (every b-tree page read once).
pub(crate) fn examine(root: &Path, deep: bool) -> Result<State, IndexError> {
    store::check_index_files(root)?;
    let path = store::index_path(root);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::Absent),
        Err(e) => return Err(e.into()),
    };
    if !meta.is_file() {
        return Ok(State::Damaged("not a regular file".into()));
    }
    if meta.len() == 0 {
        return Ok(State::Damaged("the file is empty (0 bytes)".into()));
    }
    let damaged = |e: IndexError| -> Result<State, IndexError> {
        if is_damage(&e) {
            Ok(State::Damaged(words(&e)))
        } else {
            Err(e)
        }
    };
    let conn = match open_to_examine(&path) {
        Ok(c) => c,
        Err(e) => return damaged(e),
    };
    let version: Option<String> = match conn
        .query_row(
            "SELECT value FROM meta WHERE key='schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
    {
        Ok(v) => v,
        Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.contains("no such table") => {
            let tables: i64 =
                match conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0)) {
                    Ok(n) => n,
                    Err(e) => return damaged(e.into()),
                };
            return Ok(if tables == 0 {
                State::Absent
            } else {
                State::Damaged("not a tsa index (no meta table)".into())
            });
        }
        // A text value that is not UTF-8 is damage as well.
        Err(rusqlite::Error::FromSqlConversionFailure(..)) => {
            return Ok(State::Damaged("its schema version is not text".into()));
        }
        Err(e) => return damaged(e.into()),
    };
    let Some(version) = version else {
        return Ok(State::Damaged("no schema version in its meta table".into()));
    };
    match version.trim().parse::<i64>() {
        Ok(v) if v == SCHEMA_VERSION => {}
        Ok(v) if v < SCHEMA_VERSION => return Ok(State::Older(v)),
        Ok(v) => {
            return Ok(State::Damaged(format!(
                "written by a newer tsa (schema version {v}; this tsa reads {SCHEMA_VERSION})"
            )));
        }
        Err(_) => {
            return Ok(State::Damaged(
                "its schema version is not a number".to_owned(),
            ));
        }
    }
    if deep && let Some(problem) = deep_damage(&conn)? {
        return Ok(State::Damaged(problem));
    }
    Ok(State::Current)
}

/// `PRAGMA quick_check` on `conn`: the damage found, worded for `Damaged`.
fn deep_damage(conn: &Connection) -> Result<Option<String>, IndexError> {
    let problem = match quick_check(conn) {
        Ok(p) => p,
        Err(e) if is_damage(&e) => Some(words(&e)),
        Err(e) => return Err(e),
    };
    Ok(problem.map(|p| format!("PRAGMA quick_check: {p}")))
}

/// The index of `root` opened to read without changing a byte of it (see
/// `open_to_examine`): a full build reads its meta while the deep check runs.
pub(crate) fn open_to_read(root: &Path) -> Result<Connection, IndexError> {
    open_to_examine(&store::index_path(root))
}

/// `PRAGMA quick_check` of the index of `root`, on a connection of its own: the
/// damage found (as [`examine`] words it), `None` when sound. A full build runs it
/// beside its parse instead of before it (see [`crate::build`]).
pub(crate) fn deep_problem(root: &Path) -> Result<Option<String>, IndexError> {
    match open_to_read(root) {
        Ok(conn) => deep_damage(&conn),
        Err(e) if is_damage(&e) => Ok(Some(words(&e))),
        Err(e) => Err(e),
    }
}

/// `PRAGMA quick_check`: `None` when the file is sound, else its first finding
/// (one line, at most 200 characters).
pub(crate) fn quick_check(conn: &Connection) -> Result<Option<String>, IndexError> {
    let mut stmt = conn.prepare("PRAGMA quick_check(5)")?;
    let rows: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    if rows.len() == 1 && rows[0] == "ok" {
        return Ok(None);
    }
    let first = rows
        .iter()
        .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|r| !r.is_empty() && !r.starts_with("***"))
        .unwrap_or_else(|| "failed".to_owned());
    Ok(Some(first.chars().take(200).collect()))
}

/// Moves the index of `root` aside as `.tsa/index.db.damaged-<UTC time>`, with its
/// WAL, shared-memory and journal files under the same name (an old WAL must never
/// meet the next index). Copies moved aside before are removed first: only the last
/// one is kept. The caller holds the build lock.
pub(crate) fn quarantine(root: &Path, reason: String) -> Result<Quarantined, IndexError> {
    store::check_index_files(root)?;
    let dir = store::state_path(root, "")?;
    let stamp = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now())
        .format("%Y%m%dT%H%M%SZ");
    let name = format!("{DAMAGED_PREFIX}{stamp}");
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let old = entry.file_name();
        if old.to_string_lossy().starts_with(DAMAGED_PREFIX)
            && !entry.file_type().is_ok_and(|t| t.is_dir())
        {
            std::fs::remove_file(entry.path())?;
        }
    }
    let path = store::index_path(root);
    std::fs::rename(&path, dir.join(&name))?;
    for suffix in SIDE_FILES {
        let side = dir.join(format!("index.db{suffix}"));
        if std::fs::symlink_metadata(&side).is_ok() {
            std::fs::rename(&side, dir.join(format!("{name}{suffix}")))?;
        }
    }
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(Quarantined {
        reason,
        moved_to: format!(".tsa/{name}"),
    })
}

/// Checks the index of `root` deeply (cheap checks and `PRAGMA quick_check`) and
/// moves it aside when damaged, so that the next call rebuilds it: what the MCP
/// server does once when it starts. Skipped (`None`) when there is no index or a
/// build holds the lock (that build runs the cheap checks itself).
pub fn check_and_quarantine(root: &Path) -> Result<Option<Quarantined>, IndexError> {
    if !store::index_path(root).exists() {
        return Ok(None);
    }
    let _lock = match store::lock_builds_within(root, Some(std::time::Duration::ZERO)) {
        Ok(l) => l,
        Err(IndexError::Building { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    match examine(root, true)? {
        State::Damaged(reason) => quarantine(root, reason).map(Some),
        State::Absent | State::Current | State::Older(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::write(
            root.join("a.py"),
            "def f():\n    return g()\n\ndef g():\n    return 1\n",
        )
        .unwrap();
        crate::build(&root, &crate::BuildOptions::default()).unwrap();
        (dir, root)
    }

    fn damaged(state: State) -> String {
        match state {
            State::Damaged(r) => r,
            other => panic!("not damaged: {other:?}"),
        }
    }

    #[test]
    fn a_sound_index_passes_both_checks() {
        let (_d, root) = project();
        assert_eq!(examine(&root, false).unwrap(), State::Current);
        assert_eq!(examine(&root, true).unwrap(), State::Current);
        assert_eq!(check_and_quarantine(&root).unwrap(), None);
    }

    #[test]
    fn cheap_checks_name_what_is_wrong() {
        let (_d, root) = project();
        let path = store::index_path(&root);
        let good = std::fs::read(&path).unwrap();

        std::fs::write(&path, b"").unwrap();
        assert_eq!(
            damaged(examine(&root, false).unwrap()),
            "the file is empty (0 bytes)"
        );

        std::fs::write(&path, vec![0x5a; good.len()]).unwrap();
        assert!(damaged(examine(&root, false).unwrap()).contains("not a database"));

        std::fs::write(&path, &good[..good.len() / 2]).unwrap();
        assert!(damaged(examine(&root, false).unwrap()).contains("malformed"));

        std::fs::write(&path, &good).unwrap();
        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
            [(SCHEMA_VERSION + 1).to_string()],
        )
        .unwrap();
        drop(conn);
        assert!(damaged(examine(&root, false).unwrap()).contains("newer tsa"));

        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
            [(SCHEMA_VERSION - 1).to_string()],
        )
        .unwrap();
        drop(conn);
        assert_eq!(
            examine(&root, false).unwrap(),
            State::Older(SCHEMA_VERSION - 1)
        );
    }

    #[test]
    fn quarantine_moves_the_side_files_and_keeps_only_the_last_copy() {
        let (_d, root) = project();
        let dir = root.join(".tsa");
        std::fs::write(dir.join("index.db.damaged-19990101T000000Z"), b"old").unwrap();
        std::fs::write(dir.join("index.db.damaged-19990101T000000Z-wal"), b"old").unwrap();
        std::fs::write(dir.join("index.db-wal"), b"wal").unwrap();
        std::fs::write(dir.join("index.db-shm"), b"shm").unwrap();
        let q = quarantine(&root, "test".into()).unwrap();
        assert!(q.moved_to.starts_with(".tsa/index.db.damaged-2"), "{q:?}");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let copy = q.moved_to.trim_start_matches(".tsa/").to_owned();
        assert_eq!(
            names,
            vec![
                "build.lock".to_owned(),
                copy.clone(),
                format!("{copy}-shm"),
                format!("{copy}-wal"),
            ]
        );
        assert_eq!(
            std::fs::read(dir.join(format!("{copy}-wal"))).unwrap(),
            b"wal"
        );
    }

    #[test]
    fn a_deep_check_finds_a_damaged_page() {
        let (_d, root) = project();
        let path = store::index_path(&root);
        damage_a_page(&path, "files");
        assert_eq!(examine(&root, false).unwrap(), State::Current);
        let why = damaged(examine(&root, true).unwrap());
        assert!(why.starts_with("PRAGMA quick_check: "), "{why}");
        let q = check_and_quarantine(&root).unwrap().expect("moved aside");
        assert!(q.reason.starts_with("PRAGMA quick_check: "));
        assert!(!path.exists());
    }

    /// Overwrites the root page of `table` (the cheap checks still pass); gives
    /// the file's bytes after.
    fn damage_a_page(path: &Path, table: &str) -> Vec<u8> {
        let conn = Connection::open(path).unwrap();
        let page: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        let size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        drop(conn);
        let mut bytes = std::fs::read(path).unwrap();
        let at = ((page - 1) * size) as usize;
        for (i, b) in bytes[at..at + size as usize].iter_mut().enumerate() {
            *b = (i * 7 + 13) as u8;
        }
        std::fs::write(path, &bytes).unwrap();
        bytes
    }

    #[test]
    fn a_full_build_checks_the_index_it_replaces_beside_it() {
        let (_d, root) = project();
        let path = store::index_path(&root);
        let full = |verify| crate::BuildOptions {
            mode: crate::BuildMode::Full,
            verify,
            ..crate::BuildOptions::default()
        };
        // A page no cold build reads: unchecked, the build replaces the file.
        damage_a_page(&path, "calls");
        let r = crate::build(&root, &full(false)).unwrap();
        assert!(r.healed.is_none(), "{r:?}");
        assert_eq!(examine(&root, true).unwrap(), State::Current);
        // Checked, only the check beside the build can find it: moved aside.
        let bytes = damage_a_page(&path, "calls");
        let r = crate::build(&root, &full(true)).unwrap();
        let q = r.healed.clone().expect("the damaged index is moved aside");
        assert!(!q.reason.is_empty(), "{q:?}");
        assert_eq!(std::fs::read(root.join(&q.moved_to)).unwrap(), bytes);
        assert_eq!(examine(&root, true).unwrap(), State::Current);
        assert!(r.indexed > 0, "{r:?}");
        // A sound index is replaced, and nothing is moved aside.
        let r = crate::build(&root, &full(true)).unwrap();
        assert!(r.healed.is_none(), "{r:?}");
        assert_eq!(examine(&root, true).unwrap(), State::Current);
    }
}
