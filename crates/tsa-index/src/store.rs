//! The SQLite schema and the writer. Names are interned once; edges are integer ids.

use std::path::Path;

use rayon::slice::ParallelSliceMut;
use rusqlite::{Connection, OptionalExtension, Statement, Transaction, params};
use rustc_hash::FxHashMap;
use tsa_lang::FileExtract;

use crate::IndexError;
use crate::fault::checkpoint;

/// Bumped whenever the schema or the extractor changes what it stores, or what a
/// writer must keep (17: the skeleton stamp, meta `skeleton`, which a writer of an
/// older version would leave as it was while changing files and imports; 18: the
/// `calls_by_*` tables in place of the indexes on calls; 19: by file and by caller
/// indexes on calls again, kept as rows come, in place of two of those tables; 20:
/// one index by file and caller for both).
pub const SCHEMA_VERSION: i64 = 21;

/// The FTS tables of [`SCHEMA`] (one text for both users).
macro_rules! fts_schema {
    () => {
        r#"CREATE VIRTUAL TABLE IF NOT EXISTS symbols_fts USING fts5(
    name, words, qualname, content='', contentless_delete=1
);
CREATE VIRTUAL TABLE IF NOT EXISTS symbols_trigram USING fts5(
    name, tokenize='trigram', content='', contentless_delete=1
);
"#
    };
}

const SCHEMA: &str = concat!(
    r#"
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    hash BLOB NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    parse_errors INTEGER NOT NULL,
    is_test INTEGER NOT NULL,
    facts TEXT
);
CREATE TABLE IF NOT EXISTS names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS symbols(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    name_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    qualname TEXT NOT NULL,
    owner_id INTEGER,
    parent_id INTEGER,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    signature TEXT NOT NULL,
    is_test INTEGER NOT NULL,
    self_name TEXT,
    doc TEXT
);
CREATE TABLE IF NOT EXISTS calls(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    caller_id INTEGER,
    callee_id INTEGER NOT NULL,
    receiver TEXT,
    receiver_type TEXT,
    shadowed INTEGER NOT NULL DEFAULT 0,
    path_call INTEGER NOT NULL DEFAULT 0,
    line INTEGER NOT NULL,
    target_id INTEGER,
    resolution INTEGER NOT NULL DEFAULT 5,
    confidence REAL NOT NULL DEFAULT 0,
    alt INTEGER NOT NULL DEFAULT 0,
    package TEXT,
    branch INTEGER,
    arity INTEGER
);
-- The call sites by target and by callee name: what an index on each column
-- would hold, as tables a cold build fills from keys it sorted itself (their keys
-- come in no order; SQLite sorts such an index far slower) and the triggers below
-- keep in step with calls afterwards.
CREATE TABLE IF NOT EXISTS calls_by_target(target_id INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(target_id, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS calls_by_callee(callee_id INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(callee_id, id)) WITHOUT ROWID;
-- By file, then caller: an index kept as rows come (a cold build writes call sites
-- file after file, so each file's keys land at the right edge of the B-tree). The
-- call sites inside a definition are found through its file ([`calls_of_callers`]):
-- one index to keep instead of two.
CREATE INDEX IF NOT EXISTS calls_file ON calls(file_id, caller_id);
CREATE TABLE IF NOT EXISTS imports(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    module TEXT NOT NULL,
    name TEXT,
    alias TEXT NOT NULL,
    level INTEGER NOT NULL,
    line INTEGER NOT NULL,
    target_file_id INTEGER,
    target_id INTEGER,
    resolution INTEGER NOT NULL DEFAULT 5
);
CREATE TABLE IF NOT EXISTS inherits(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    symbol_id INTEGER NOT NULL,
    base_id INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    target_id INTEGER,
    resolution INTEGER NOT NULL DEFAULT 5
);
CREATE TABLE IF NOT EXISTS fields(
    file_id INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    name_id INTEGER NOT NULL,
    type TEXT NOT NULL
);
"#,
    fts_schema!()
);

/// A definition's rows of the two FTS tables (symbol id, name, its words,
/// qualified name; symbol id, name).
const FTS_INSERT: &str =
    "INSERT INTO symbols_fts(rowid, name, words, qualname) VALUES (?1, ?2, ?3, ?4)";
const TRIGRAM_INSERT: &str = "INSERT INTO symbols_trigram(rowid, name) VALUES (?1, ?2)";

/// The FTS tables alone, as [`SCHEMA`] creates them: a cold build fills them in a
/// file of their own ([`build_fts_apart`]).
const FTS_SCHEMA: &str = fts_schema!();

/// Secondary indexes, and the triggers that keep the `calls_by_*` tables in step
/// with `calls`: a cold build creates them after its bulk insert.
pub(crate) const INDEXES: &str = r#"
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name_id);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE TRIGGER IF NOT EXISTS calls_keys_insert AFTER INSERT ON calls BEGIN
    INSERT INTO calls_by_callee VALUES (new.callee_id, new.id);
    INSERT INTO calls_by_target SELECT new.target_id, new.id WHERE new.target_id IS NOT NULL;
END;
CREATE TRIGGER IF NOT EXISTS calls_keys_delete AFTER DELETE ON calls BEGIN
    DELETE FROM calls_by_callee WHERE callee_id = old.callee_id AND id = old.id;
    DELETE FROM calls_by_target WHERE target_id = old.target_id AND id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS calls_keys_target AFTER UPDATE OF target_id ON calls
WHEN old.target_id IS NOT new.target_id BEGIN
    DELETE FROM calls_by_target WHERE target_id = old.target_id AND id = old.id;
    INSERT OR IGNORE INTO calls_by_target SELECT new.target_id, new.id WHERE new.target_id IS NOT NULL;
END;
CREATE TRIGGER IF NOT EXISTS calls_keys_rest AFTER UPDATE OF id, callee_id ON calls BEGIN
    DELETE FROM calls_by_callee WHERE callee_id = old.callee_id AND id = old.id;
    DELETE FROM calls_by_target WHERE target_id = old.target_id AND id = old.id;
    INSERT OR IGNORE INTO calls_by_callee VALUES (new.callee_id, new.id);
    INSERT OR IGNORE INTO calls_by_target SELECT new.target_id, new.id WHERE new.target_id IS NOT NULL;
END;
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS inherits_symbol ON inherits(symbol_id);
CREATE INDEX IF NOT EXISTS inherits_target ON inherits(target_id);
CREATE INDEX IF NOT EXISTS inherits_file ON inherits(file_id);
CREATE INDEX IF NOT EXISTS inherits_base ON inherits(base_id);
CREATE INDEX IF NOT EXISTS symbols_owner ON symbols(owner_id) WHERE owner_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS fields_file ON fields(file_id);
"#;

/// `column IN (list)`; for a column of calls keyed in a table of its own
/// (`c.callee_id`, `c.target_id`) through its `calls_by_*` table, calls having no
/// index on it; by caller (`c.caller_id`) through the callers' files
/// ([`calls_of_callers`]).
pub(crate) fn calls_keyed(column: &str, list: &str) -> String {
    match column.strip_prefix("c.") {
        Some(col @ ("callee_id" | "target_id")) => {
            let table = &col[..col.len() - 3];
            format!("c.id IN (SELECT id FROM calls_by_{table} WHERE {col} IN ({list}))")
        }
        Some("caller_id") => format!("c.id IN ({})", calls_of_callers(list)),
        _ => format!("{column} IN ({list})"),
    }
}

/// The ids of the call sites inside the definitions `list` (a list or a query of
/// symbol ids), sought by each one's file and its own id in `calls_file`.
pub(crate) fn calls_of_callers(list: &str) -> String {
    format!(
        "SELECT k.id FROM symbols s JOIN calls k ON k.file_id = s.file_id AND k.caller_id = s.id
         WHERE s.id IN ({list})"
    )
}

/// The FTS tables, whose settings a cold build changes and puts back.
const FTS_TABLES: [&str; 2] = ["symbols_fts", "symbols_trigram"];

/// Sets both FTS tables' merges (`automerge`, `crisismerge`) and how many bytes of
/// postings they hold in memory before a flush (`hashsize`).
fn fts_settings(automerge: u32, crisismerge: u32, hashsize: u32) -> String {
    FTS_TABLES
        .iter()
        .map(|t| {
            format!(
                "INSERT INTO {t}({t}, rank) VALUES('automerge', {automerge});
                 INSERT INTO {t}({t}, rank) VALUES('crisismerge', {crisismerge});
                 INSERT INTO {t}({t}, rank) VALUES('hashsize', {hashsize});"
            )
        })
        .collect()
}

/// Merges each FTS table into one segment, at the end of a cold build: else the
/// first writes of every later sync pay for merging what the bulk insert left
/// (93 ms of a one-file sync on the kernel).
///
/// The settings go back to FTS5's defaults (automerge 4, crisismerge 16, a 1 MiB
/// in-memory hash), which a cold build changed for its bulk load.
pub fn optimize_fts() -> String {
    let merges: String = FTS_TABLES
        .iter()
        .map(|t| format!("INSERT INTO {t}({t}) VALUES('optimize');"))
        .collect();
    merges + &fts_settings(4, 16, 1 << 20)
}

/// The FTS tables' settings for a bulk load: no incremental merges (each flushed
/// segment stays until [`optimize_fts`] merges them all), and 16 MiB of postings
/// held in memory before a flush instead of 1 MiB: a sixteenth of the segments for
/// that merge to read (on 100 k kernel symbols: 146 ms -> 44 ms for the trigram
/// table's merge, the inserts unchanged).
fn fts_bulk() -> String {
    fts_settings(0, 256, 16 << 20)
}

/// The FTS tables' shadow tables (FTS5's own storage), as [`copy_fts`] copies
/// them: postings, segment index, column sizes, settings.
const FTS_SHADOWS: [&str; 4] = ["data", "idx", "docsize", "config"];

/// The file beside a cold build's (`fresh`) its FTS tables are filled in.
pub(crate) fn fts_side(fresh: &Path) -> std::path::PathBuf {
    fresh.with_extension("building-fts")
}

/// Fills the FTS tables of a cold build in a file of their own (`path`, see
/// [`fts_side`]) from `rows` (symbol id, name, qualified name), merged into one
/// segment each: on its own connection, so beside the build's writer (on the
/// kernel the FTS inserts are a tenth of what a file's parse costs, and the
/// resolution leaves a core free). [`copy_fts`] then moves the result in. Stops
/// early, with nothing to copy, when `stop` turns true. The file is closed on
/// return: the build's connection, which has it attached, reads it next.
pub(crate) fn build_fts_apart<'a>(
    path: &Path,
    rows: impl Iterator<Item = (i64, &'a str, &'a str)>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(), IndexError> {
    // The tables are there: `open_fresh` made them when it attached the file.
    let mut conn = open_bulk(path)?;
    // A bulk load merges the segments once, at the end, rather than as they come.
    conn.execute_batch(&fts_bulk())?;
    let tx = conn.transaction()?;
    {
        let mut fts = tx.prepare(FTS_INSERT)?;
        let mut trigram = tx.prepare(TRIGRAM_INSERT)?;
        for (id, name, qualname) in rows {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(IndexError::Io(std::io::Error::other("stopped")));
            }
            fts.execute(params![id, name, identifier_words(name), qualname])?;
            trigram.execute(params![id, name])?;
        }
    }
    tx.execute_batch(&optimize_fts())?;
    tx.commit()?;
    conn.close().map_err(|(_, e)| e)?;
    Ok(())
}

/// A connection to a file only this build writes, thrown away if it stops: no
/// journal, no syncs, locked for the whole connection, temporary tables in memory.
/// The settings are `main`'s alone: a database attached later keeps SQLite's
/// defaults (the FTS side file, which another connection writes meanwhile, is
/// locked only while it is read). The index benchmark's write floor writes
/// through it too.
pub fn open_bulk(path: &Path) -> Result<Connection, IndexError> {
    let conn = Connection::open(path)?;
    conn.pragma_update(Some("main"), "journal_mode", "OFF")?;
    conn.pragma_update(Some("main"), "synchronous", "OFF")?;
    conn.pragma_update(Some("main"), "locking_mode", "EXCLUSIVE")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    Ok(conn)
}

/// A new file at `path` holding the FTS tables alone, filled from `rows` (symbol
/// id, name, qualified name) as a cold build fills its FTS side file: the index
/// benchmark's floor of that step.
pub fn write_fts_file<'a>(
    path: &Path,
    rows: impl Iterator<Item = (i64, &'a str, &'a str)>,
) -> Result<(), IndexError> {
    open_bulk(path)?.execute_batch(FTS_SCHEMA)?;
    build_fts_apart(path, rows, &std::sync::atomic::AtomicBool::new(false))
}

/// Removes a cold build's FTS side file ([`fts_side`]).
pub(crate) fn discard_fts_side(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// The name the FTS side file ([`fts_side`]) is attached under to a cold build's
/// connection ([`open_fresh`]).
const FTS_SIDE: &str = "fts_side";

/// Puts the FTS tables [`build_fts_apart`] filled in the side file in place of the
/// empty ones of the build in `tx`: FTS5's storage is ordinary tables, each
/// copied whole by `INSERT INTO t SELECT * FROM side.t`, which SQLite carries out
/// record by record without decoding them (its transfer optimization: same
/// columns and keys, an empty target). The FTS tables of `tx`'s connection must
/// not have been used in the transaction: FTS5 would keep what it read of them.
pub(crate) fn copy_fts(tx: &Transaction<'_>) -> Result<(), IndexError> {
    for table in FTS_TABLES {
        for shadow in FTS_SHADOWS {
            let name = format!("{table}_{shadow}");
            tx.execute_batch(&format!(
                "DELETE FROM main.{name}; INSERT INTO main.{name} SELECT * FROM {FTS_SIDE}.{name};"
            ))?;
        }
    }
    Ok(())
}

/// Where the index lives inside a project.
pub fn index_dir(root: &Path) -> std::path::PathBuf {
    root.join(".tsa")
}

pub fn index_path(root: &Path) -> std::path::PathBuf {
    index_dir(root).join("index.db")
}

/// `.tsa/<name>` (or the folder itself for an empty name), refused when the folder
/// or that entry is a symlink: whatever tsa keeps there stays inside the project,
/// and a link planted there (in a cloned repository, say) is never followed.
pub fn state_path(root: &Path, name: &str) -> Result<std::path::PathBuf, IndexError> {
    let dir = index_dir(root);
    refuse_link(root, &dir)?;
    if name.is_empty() {
        return Ok(dir);
    }
    let p = dir.join(name);
    refuse_link(root, &p)?;
    Ok(p)
}

fn refuse_link(root: &Path, p: &Path) -> Result<(), IndexError> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => Err(IndexError::Unsafe(format!(
            "'{}' is a symlink; tsa keeps its index and state inside the project and does not follow it",
            p.strip_prefix(root).unwrap_or(p).display()
        ))),
        _ => Ok(()),
    }
}

/// The index file and every file SQLite keeps beside it, each refused when a symlink.
pub(crate) fn check_index_files(root: &Path) -> Result<(), IndexError> {
    for name in [
        "index.db",
        "index.db-wal",
        "index.db-shm",
        "index.db-journal",
        "index.db.building",
        "index.db.building-journal",
        "index.db.building-fts",
    ] {
        state_path(root, name)?;
    }
    Ok(())
}

/// The index's build lock, held until dropped: one build at a time per project,
/// across threads and processes (a CLI build, an MCP server's calls, its watcher).
/// Readers never take it (WAL lets them read while a build writes). It is an OS
/// file lock on `.tsa/build.lock`, so a killed build leaves none behind.
pub struct BuildLock {
    _file: std::fs::File,
}

/// Waits for the build lock of `root`'s index, at most `wait` (`None`: as long as
/// it takes); past it, [`IndexError::Building`].
pub fn lock_builds_within(
    root: &Path,
    wait: Option<std::time::Duration>,
) -> Result<BuildLock, IndexError> {
    std::fs::create_dir_all(state_path(root, "")?)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(state_path(root, "build.lock")?)?;
    let Some(wait) = wait else {
        file.lock()?;
        return Ok(BuildLock { _file: file });
    };
    let wait = crate::fault::build_wait(wait);
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(BuildLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < wait => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(IndexError::Building {
                    waited_ms: started.elapsed().as_millis() as u64,
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e.into()),
        }
    }
}

fn configure(conn: &Connection) -> Result<(), IndexError> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -16_000)?;
    Ok(())
}

/// Opens (creating if needed) the index of `root` for writing. An index written by
/// another schema version is dropped and recreated.
pub fn open_for_write(root: &Path) -> Result<Connection, IndexError> {
    check_index_files(root)?;
    std::fs::create_dir_all(index_dir(root))?;
    let conn = Connection::open(index_path(root))?;
    configure(&conn)?;
    let version: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key='schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .unwrap_or(None);
    if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
        // One transaction: a kill mid-migration leaves the old database intact.
        let tx = conn.unchecked_transaction()?;
        tx.execute_batch(
            "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS names;
             DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS calls; DROP TABLE IF EXISTS imports;
             DROP TABLE IF EXISTS symbols_fts; DROP TABLE IF EXISTS inherits;
             DROP TABLE IF EXISTS fields; DROP TABLE IF EXISTS symbols_trigram;
             DROP TABLE IF EXISTS calls_by_target; DROP TABLE IF EXISTS calls_by_callee;
             DROP TABLE IF EXISTS calls_by_caller; DROP TABLE IF EXISTS calls_by_file;",
        )?;
        tx.execute_batch(SCHEMA)?;
        tx.execute_batch(INDEXES)?;
        tx.execute(
            "INSERT INTO meta(key, value) VALUES('schema_version', ?1)",
            params![SCHEMA_VERSION.to_string()],
        )?;
        tx.commit()?;
    }
    Ok(conn)
}

/// A fresh, empty database beside the index (`index.db.building`), tuned for one
/// bulk write: no journal (the old index is the fallback until the rename), no
/// secondary indexes yet. Returns the connection and the file's path.
pub fn open_fresh(root: &Path) -> Result<(Connection, std::path::PathBuf), IndexError> {
    check_index_files(root)?;
    let tmp = index_dir(root).join("index.db.building");
    for stale in [
        tmp.clone(),
        tmp.with_extension("building-journal"),
        fts_side(&tmp),
    ] {
        if stale.exists() {
            std::fs::remove_file(&stale)?;
        }
    }
    let conn = open_bulk(&tmp)?;
    // A cold build's multi-row inserts (calls by size, key tables) stay prepared.
    conn.set_prepared_statement_cache_capacity(64);
    conn.pragma_update(None, "cache_size", -8_000)?;
    // The secondary indexes are built after the bulk insert: their sorts may use
    // every core.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    conn.pragma_update(None, "threads", cores.min(8) as i64)?;
    conn.execute_batch(SCHEMA)?;
    conn.execute(
        "INSERT INTO meta(key, value) VALUES('schema_version', ?1)",
        params![SCHEMA_VERSION.to_string()],
    )?;
    // The FTS side file, its tables made now and attached (outside any
    // transaction, as SQLite asks) so that `copy_fts` reads it from this
    // connection; `build_fts_apart` fills it meanwhile on its own.
    let side = fts_side(&tmp);
    open_bulk(&side)?.execute_batch(FTS_SCHEMA)?;
    conn.execute(
        &format!("ATTACH DATABASE ?1 AS {FTS_SIDE}"),
        [side.to_string_lossy()],
    )?;
    Ok((conn, tmp))
}

/// Puts the fully written `fresh` file in place of the index: the old index, if
/// this build opened one, is checkpointed (its WAL emptied) and closed, the WAL
/// files removed, the new file synced, then renamed over it. A crash before the
/// rename leaves the old index, after it the new one. Without an old connection
/// (no index, or one of an older schema), what stands at the index's path is a
/// file nobody can read, and its WAL files go with it.
pub fn replace_with(root: &Path, old: Option<Connection>, fresh: &Path) -> Result<(), IndexError> {
    std::fs::File::open(fresh)?.sync_all()?;
    checkpoint("rename");
    // The old WAL may be removed only once every frame of it is in the database
    // file; a reader holding a snapshot would stop the checkpoint half-way.
    if let Some(old) = old {
        let (busy, log, done): (i64, i64, i64) =
            old.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
        if busy != 0 || (log > 0 && done < log) {
            return Err(IndexError::Busy);
        }
        drop(old);
    }
    checkpoint("rename");
    let path = index_path(root);
    for side in [path.with_extension("db-wal"), path.with_extension("db-shm")] {
        if side.exists() {
            std::fs::remove_file(&side)?;
        }
    }
    checkpoint("rename");
    std::fs::rename(fresh, &path)?;
    checkpoint("rename");
    if let Ok(dir) = std::fs::File::open(index_dir(root)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Removes a fresh database that will not be used (its build failed).
pub fn discard_fresh(tmp: &Path) {
    for f in [
        tmp.to_path_buf(),
        tmp.with_extension("building-journal"),
        fts_side(tmp),
    ] {
        let _ = std::fs::remove_file(f);
    }
}

/// Opens an existing index for reading; `None` when there is none (or it is of
/// another schema version). The connection may write only to recover the WAL of a
/// writer that was killed (a read-only one could not); `query_only` forbids the rest.
/// It never checkpoints on close: a reader closing after a build moved its file
/// (renamed a new index over it, or moved a damaged one aside) would otherwise
/// delete the WAL at the index's path, which by then is the new index's.
pub fn open_for_read(root: &Path) -> Result<Option<Connection>, IndexError> {
    use rusqlite::OpenFlags;
    check_index_files(root)?;
    let path = index_path(root);
    if !path.is_file() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .or_else(|_| {
        Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    })?;
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "query_only", "ON")?;
    let version: Option<String> = match conn
        .query_row(
            "SELECT value FROM meta WHERE key='schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
    {
        Ok(v) => v,
        // Not a tsa index (no meta table yet): treat as absent, a build recreates it.
        Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.contains("no such table") => None,
        Err(e) => return Err(e.into()),
    };
    if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
        return Ok(None);
    }
    Ok(Some(conn))
}

/// Splits an identifier into lower-case words for the FTS `words` column
/// (`parseHTTPRequest_v2` -> `parse http request v2`).
pub fn identifier_words(name: &str) -> String {
    // One pass, one string: the writer calls this for every definition.
    let mut out = String::with_capacity(name.len() + 4);
    let mut in_word = false;
    let mut prev: Option<char> = None;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            in_word = false;
            prev = Some(c);
            continue;
        }
        let boundary = c.is_uppercase()
            && in_word
            && (prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || chars.peek().is_some_and(|n| n.is_lowercase()));
        if boundary || !in_word {
            if !out.is_empty() {
                out.push(' ');
            }
            in_word = true;
        }
        out.extend(c.to_lowercase());
        prev = Some(c);
    }
    out
}

/// One file's stored identity.
pub struct FileRow<'a> {
    pub path: &'a str,
    pub language: &'a str,
    pub hash: &'a [u8],
    pub size: u64,
    pub mtime_ns: i64,
    pub is_test: bool,
}

/// The ids a file's rows are inserted at.
#[derive(Clone, Copy, Debug)]
pub enum At {
    /// Fresh ids, the database's choice.
    Fresh,
    /// File id, then consecutive symbol ids from the first (a cold build).
    Next(i64, i64),
}

impl At {
    fn file(self) -> Option<i64> {
        match self {
            At::Fresh => None,
            At::Next(f, _) => Some(f),
        }
    }

    fn symbol(self, i: usize) -> Option<i64> {
        match self {
            At::Fresh => None,
            At::Next(_, first) => Some(first + i as i64),
        }
    }
}

/// One call site's binding, packed (16 bytes; a cold build holds those of files in flight).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallBinding {
    /// Target symbol id, 0 for none (ids start at 1).
    pub target: i64,
    pub resolution: u8,
    pub confidence: f32,
}

/// Writes files inside one transaction, interning names as it goes.
pub struct Writer<'t> {
    tx: &'t Transaction<'t>,
    names: FxHashMap<String, i64>,
    /// True when the names table is known to hold exactly `names` (cold builds).
    names_complete: bool,
    /// The row inserts, prepared on first use and kept for the whole build (a cold
    /// build runs them a few hundred thousand times).
    inserts: Option<Inserts<'t>>,
    /// A cold build's `calls_by_*` rows (no trigger writes them yet).
    keys: Option<CallKeys>,
    /// The FTS rows are written elsewhere ([`build_fts_apart`], a cold build).
    fts_apart: bool,
}

/// Call rows a multi-row insert of a cold build takes per statement: 16, then
/// 8, 4, 2 and 1 for a file's last rows.
const CALL_INSERT_ROWS: [usize; 5] = [16, 8, 4, 2, 1];
/// The columns of a call row but its id, in [`bind_call`]'s order.
const CALL_COLUMNS: [&str; 14] = [
    "file_id",
    "caller_id",
    "callee_id",
    "receiver",
    "receiver_type",
    "shadowed",
    "path_call",
    "line",
    "target_id",
    "resolution",
    "confidence",
    "alt",
    "branch",
    "arity",
];

/// The `calls_by_*` rows of a cold build's call sites, by target and by callee,
/// sorted once all are in (a key and id packed in one `u64`: 8 bytes a site each)
/// and written in key order. A B-tree filled in key order is far cheaper than
/// SQLite's own sort of the same index.
struct CallKeys {
    by_target: Vec<u64>,
    by_callee: Vec<u64>,
    /// A key or id past `u32`: the packed lists are dropped and SQL fills those tables.
    wide: bool,
}

/// Rows a multi-row insert of key pairs takes per statement.
const PAIRS_PER_INSERT: usize = 128;

impl CallKeys {
    fn new() -> Self {
        CallKeys {
            by_target: Vec::new(),
            by_callee: Vec::new(),
            wide: false,
        }
    }

    fn add(&mut self, id: i64, site: &CallRow<'_>, target: Option<i64>) {
        if self.wide {
            return;
        }
        let pack = |key: i64| -> Option<u64> {
            Some((u64::from(u32::try_from(key).ok()?) << 32) | u64::from(u32::try_from(id).ok()?))
        };
        match (pack(site.callee_id), target.map(pack)) {
            (Some(callee), Some(Some(t))) => {
                self.by_callee.push(callee);
                self.by_target.push(t);
            }
            (Some(callee), None) => self.by_callee.push(callee),
            _ => {
                self.wide = true;
                self.by_target = Vec::new();
                self.by_callee = Vec::new();
            }
        }
    }

    /// Writes every row.
    fn finish(self, tx: &Transaction<'_>) -> Result<(), IndexError> {
        if self.wide {
            tx.execute_batch(
                "INSERT INTO calls_by_target SELECT target_id, id FROM calls WHERE target_id IS NOT NULL ORDER BY 1, 2;
                 INSERT INTO calls_by_callee SELECT callee_id, id FROM calls ORDER BY 1, 2;",
            )?;
            return Ok(());
        }
        let unpack = |k: u64| ((k >> 32) as i64, (k & 0xffff_ffff) as i64);
        let CallKeys {
            mut by_target,
            mut by_callee,
            ..
        } = self;
        by_target.par_sort_unstable();
        // The callee keys are sorted on another core while this one writes the
        // target rows (the other cores have nothing else left to do).
        std::thread::scope(|s| {
            let sorting = s.spawn(move || {
                by_callee.par_sort_unstable();
                by_callee
            });
            let written = put_pairs(tx, "calls_by_target", by_target.into_iter().map(unpack));
            let by_callee = sorting
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            written?;
            put_pairs(tx, "calls_by_callee", by_callee.into_iter().map(unpack))
        })
    }
}

/// Inserts `(key, id)` rows into `table`, many per statement.
fn put_pairs(
    tx: &Transaction<'_>,
    table: &str,
    pairs: impl Iterator<Item = (i64, i64)>,
) -> Result<(), IndexError> {
    let many = format!(
        "INSERT OR FAIL INTO {table} VALUES {}",
        vec!["(?,?)"; PAIRS_PER_INSERT].join(",")
    );
    let mut batch: Vec<i64> = Vec::with_capacity(2 * PAIRS_PER_INSERT);
    for (key, id) in pairs {
        batch.push(key);
        batch.push(id);
        if batch.len() == 2 * PAIRS_PER_INSERT {
            tx.prepare_cached(&many)?
                .execute(rusqlite::params_from_iter(batch.iter()))?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        let mut one = tx.prepare_cached(&format!("INSERT INTO {table} VALUES (?1, ?2)"))?;
        for pair in batch.chunks_exact(2) {
            one.execute(params![pair[0], pair[1]])?;
        }
    }
    Ok(())
}

/// The prepared statements of [`Writer`]'s inserts.
struct Inserts<'t> {
    name: Statement<'t>,
    file: Statement<'t>,
    symbol: Statement<'t>,
    fts: Statement<'t>,
    trigram: Statement<'t>,
    inherit: Statement<'t>,
    call: Statement<'t>,
    import: Statement<'t>,
    field: Statement<'t>,
}

impl<'t> Inserts<'t> {
    fn prepare(tx: &'t Transaction<'t>) -> Result<Self, IndexError> {
        Ok(Inserts {
            name: tx.prepare("INSERT INTO names(name) VALUES (?1)")?,
            file: tx.prepare(
                "INSERT INTO files(id, path, language, hash, size, mtime_ns, parse_errors, is_test, facts)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            symbol: tx.prepare(
                "INSERT INTO symbols(id, file_id, name_id, kind, qualname, owner_id, parent_id, line, end_line, signature, is_test, self_name, doc)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?,
            fts: tx.prepare(FTS_INSERT)?,
            trigram: tx.prepare(TRIGRAM_INSERT)?,
            inherit: tx.prepare(
                "INSERT INTO inherits(file_id, symbol_id, base_id, kind, target_id, resolution)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            call: tx.prepare(&calls_insert(1))?,
            import: tx.prepare(
                "INSERT INTO imports(file_id, module, name, alias, level, line, target_file_id, target_id, resolution)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            field: tx.prepare(
                "INSERT INTO fields(file_id, owner_id, name_id, type) VALUES (?1, ?2, ?3, ?4)",
            )?,
        })
    }
}

impl<'t> Writer<'t> {
    pub fn new(tx: &'t Transaction<'t>) -> Self {
        Writer {
            tx,
            names: FxHashMap::default(),
            names_complete: false,
            inserts: None,
            keys: None,
            fts_apart: false,
        }
    }

    /// A writer for an empty index, before its triggers: names need no lookups, the
    /// `calls_by_*` rows are written by [`Writer::finish_cold`], and the FTS rows by
    /// [`build_fts_apart`] beside the resolution (then [`copy_fts`]).
    pub fn cold(tx: &'t Transaction<'t>) -> Self {
        Writer {
            names_complete: true,
            keys: Some(CallKeys::new()),
            fts_apart: true,
            ..Writer::new(tx)
        }
    }

    /// Writes a cold build's `calls_by_*` rows, once every call site is in.
    pub(crate) fn finish_cold(&mut self) -> Result<(), IndexError> {
        match self.keys.take() {
            Some(keys) => keys.finish(self.tx),
            None => Ok(()),
        }
    }

    fn inserts(&mut self) -> Result<&mut Inserts<'t>, IndexError> {
        let ins = match self.inserts.take() {
            Some(ins) => ins,
            None => Inserts::prepare(self.tx)?,
        };
        Ok(self.inserts.insert(ins))
    }

    pub(crate) fn name_id(&mut self, name: &str) -> Result<i64, IndexError> {
        if let Some(id) = self.names.get(name) {
            return Ok(*id);
        }
        let existing = if self.names_complete {
            None
        } else {
            self.tx
                .prepare_cached("SELECT id FROM names WHERE name = ?1")?
                .query_row([name], |r| r.get(0))
                .optional()?
        };
        let id = match existing {
            Some(id) => id,
            None => {
                self.inserts()?.name.execute([name])?;
                self.tx.last_insert_rowid()
            }
        };
        self.names.insert(name.to_owned(), id);
        Ok(id)
    }

    /// Removes every row keyed on the file (symbols, FTS rows, calls, imports,
    /// inheritance, the file itself).
    pub fn delete_file(&mut self, path: &str) -> Result<Option<i64>, IndexError> {
        let id: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM files WHERE path = ?1")?
            .query_row([path], |r| r.get(0))
            .optional()?;
        let Some(id) = id else { return Ok(None) };
        self.delete_rows(id)?;
        self.tx
            .prepare_cached("DELETE FROM files WHERE id = ?1")?
            .execute([id])?;
        Ok(Some(id))
    }

    /// Removes every row keyed on file `id` but the file row itself.
    pub(crate) fn delete_rows(&mut self, id: i64) -> Result<(), IndexError> {
        // The FTS rows one rowid at a time: an `IN (subquery)` on a virtual table's
        // rowid is not handed to FTS5, which would then scan every row.
        let syms: Vec<i64> = self
            .tx
            .prepare_cached("SELECT id FROM symbols WHERE file_id = ?1")?
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for sym in syms {
            self.delete_fts_rows(sym)?;
        }
        for sql in [
            "DELETE FROM symbols WHERE file_id = ?1",
            "DELETE FROM calls WHERE file_id = ?1",
            "DELETE FROM imports WHERE file_id = ?1",
            "DELETE FROM inherits WHERE file_id = ?1",
            "DELETE FROM fields WHERE file_id = ?1",
        ] {
            self.tx.prepare_cached(sql)?.execute([id])?;
        }
        Ok(())
    }

    /// Removes the FTS rows of symbol `id`.
    fn delete_fts_rows(&mut self, id: i64) -> Result<(), IndexError> {
        for sql in [
            "DELETE FROM symbols_fts WHERE rowid = ?1",
            "DELETE FROM symbols_trigram WHERE rowid = ?1",
        ] {
            self.tx.prepare_cached(sql)?.execute([id])?;
        }
        Ok(())
    }

    /// The `names` id of a definition's owner, if it has one.
    fn owner_id(&mut self, d: &tsa_lang::Def) -> Result<Option<i64>, IndexError> {
        d.owner.as_deref().map(|o| self.name_id(o)).transpose()
    }

    /// Updates only the stat fields of an unchanged file.
    pub fn touch_file(&mut self, path: &str, size: u64, mtime_ns: i64) -> Result<(), IndexError> {
        self.tx
            .prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE path = ?1")?
            .execute(params![path, size as i64, mtime_ns])?;
        Ok(())
    }

    /// Inserts a file and everything extracted from it at fresh ids, its references
    /// unresolved (an incremental build resolves them after). Returns the file id.
    pub fn insert_file(&mut self, file: &FileRow<'_>, x: &FileExtract) -> Result<i64, IndexError> {
        let (file_id, ids) = self.insert_defs(file, x, At::Fresh)?;
        self.insert_refs(file_id, &ids, x)?;
        Ok(file_id)
    }

    /// Inserts the file row, its definitions and their FTS rows at the ids `at`
    /// says. Returns the file id and symbol ids.
    pub fn insert_defs(
        &mut self,
        file: &FileRow<'_>,
        x: &FileExtract,
        at: At,
    ) -> Result<(i64, Vec<i64>), IndexError> {
        self.inserts()?.file.execute(params![
            at.file(),
            file.path,
            file.language,
            file.hash,
            file.size as i64,
            file.mtime_ns,
            x.parse_errors,
            file.is_test,
            x.facts
        ])?;
        let file_id = self.tx.last_insert_rowid();
        let mut ids: Vec<i64> = Vec::with_capacity(x.defs.len());
        for (i, d) in x.defs.iter().enumerate() {
            let parent_id = d.parent.map(|p| ids[p]);
            ids.push(self.insert_def(file_id, file, d, at.symbol(i), parent_id)?);
        }
        Ok((file_id, ids))
    }

    /// One definition's row and FTS rows, at `id` (`None`: a fresh one). Its id.
    fn insert_def(
        &mut self,
        file_id: i64,
        file: &FileRow<'_>,
        d: &tsa_lang::Def,
        id: Option<i64>,
        parent_id: Option<i64>,
    ) -> Result<i64, IndexError> {
        let name_id = self.name_id(&d.name)?;
        let owner_id = self.owner_id(d)?;
        self.inserts()?.symbol.execute(params![
            id,
            file_id,
            name_id,
            d.kind.as_str(),
            d.qualname,
            owner_id,
            parent_id,
            d.line,
            d.end_line,
            d.signature,
            d.is_test || file.is_test,
            d.self_name,
            d.doc
        ])?;
        let id = self.tx.last_insert_rowid();
        if !self.fts_apart {
            self.inserts()?.fts.execute(params![
                id,
                d.name,
                identifier_words(&d.name),
                d.qualname
            ])?;
            self.inserts()?.trigram.execute(params![id, d.name])?;
        }
        Ok(id)
    }

    /// A re-parsed file's definitions rewritten in place: each found again
    /// (`kept[i]`: its stored id, and whether its owner changed) keeps its row and
    /// its FTS rows (its name and qualified name are what matched it); the others
    /// are inserted at fresh ids; the stored ones not found again (`stale`) go with
    /// their FTS rows. Returns the symbol ids.
    pub(crate) fn rewrite_defs(
        &mut self,
        file_id: i64,
        file: &FileRow<'_>,
        x: &FileExtract,
        kept: &[Option<(i64, bool)>],
        stale: &[i64],
    ) -> Result<Vec<i64>, IndexError> {
        for &id in stale {
            self.delete_fts_rows(id)?;
            self.tx
                .prepare_cached("DELETE FROM symbols WHERE id = ?1")?
                .execute([id])?;
        }
        self.update_file(file_id, file, x)?;
        let mut ids: Vec<i64> = Vec::with_capacity(x.defs.len());
        for (i, d) in x.defs.iter().enumerate() {
            let parent_id = d.parent.map(|p| ids[p]);
            let Some((id, owner_changed)) = kept.get(i).copied().flatten() else {
                ids.push(self.insert_def(file_id, file, d, None, parent_id)?);
                continue;
            };
            self.tx
                .prepare_cached(
                    "UPDATE symbols SET parent_id = ?2, line = ?3, end_line = ?4, signature = ?5,
                     is_test = ?6, self_name = ?7, doc = ?8 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    parent_id,
                    d.line,
                    d.end_line,
                    d.signature,
                    d.is_test || file.is_test,
                    d.self_name,
                    d.doc
                ])?;
            if owner_changed {
                let owner_id = self.owner_id(d)?;
                self.tx
                    .prepare_cached("UPDATE symbols SET owner_id = ?2 WHERE id = ?1")?
                    .execute(params![id, owner_id])?;
            }
            ids.push(id);
        }
        Ok(ids)
    }

    /// The stored row `file_id` of `file` brought up to date.
    fn update_file(
        &mut self,
        file_id: i64,
        file: &FileRow<'_>,
        x: &FileExtract,
    ) -> Result<(), IndexError> {
        self.tx
            .prepare_cached(
                "UPDATE files SET language = ?2, hash = ?3, size = ?4, mtime_ns = ?5,
                 parse_errors = ?6, is_test = ?7, facts = ?8 WHERE id = ?1",
            )?
            .execute(params![
                file_id,
                file.language,
                file.hash,
                file.size as i64,
                file.mtime_ns,
                x.parse_errors,
                file.is_test,
                x.facts
            ])?;
        Ok(())
    }

    /// A re-parsed file's call sites rewritten in place: a stored first-target row
    /// whose site is found again (same caller, callee, receiver, receiver type,
    /// shadowing, path flag and branch, paired in line order) keeps its row and its
    /// binding (its line brought up to date; a compiler binding goes back to the
    /// heuristics, the source it was made from has changed); the other sites are
    /// inserted unresolved, and the stored rows not found again go. The re-resolution
    /// that follows re-binds every site of the file and writes the further targets
    /// anew.
    pub(crate) fn rewrite_sites(
        &mut self,
        file_id: i64,
        ids: &[i64],
        x: &FileExtract,
    ) -> Result<(), IndexError> {
        type Key = (
            Option<i64>,
            i64,
            Option<String>,
            Option<String>,
            bool,
            bool,
            Option<i64>,
            Option<i64>,
        );
        let mut stored: FxHashMap<Key, std::collections::VecDeque<(i64, u32)>> =
            FxHashMap::default();
        {
            let mut stmt = self.tx.prepare_cached(
                "SELECT id, caller_id, callee_id, receiver, receiver_type, shadowed, path_call, branch, line, arity
                 FROM calls WHERE file_id = ?1 AND alt = 0
                 ORDER BY line, id",
            )?;
            let mut rows = stmt.query([file_id])?;
            while let Some(r) = rows.next()? {
                let key: Key = (
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(9)?,
                );
                stored
                    .entry(key)
                    .or_default()
                    .push_back((r.get(0)?, r.get(8)?));
            }
        }
        self.tx
            .prepare_cached(
                "UPDATE calls SET target_id = NULL, resolution = 5, confidence = 0, package = NULL
                 WHERE file_id = ?1
                   AND (resolution = 7 OR package IS NOT NULL)",
            )?
            .execute([file_id])?;
        let mut fresh = Vec::new();
        for c in &x.calls {
            let site = self.site(file_id, ids, c)?;
            let key: Key = (
                site.caller_id,
                site.callee_id,
                site.receiver.map(str::to_owned),
                site.receiver_type.map(str::to_owned),
                site.shadowed,
                site.path,
                site.branch,
                site.arity,
            );
            match stored.get_mut(&key).and_then(|q| q.pop_front()) {
                Some((id, line)) => {
                    if line != site.line {
                        self.tx
                            .prepare_cached("UPDATE calls SET line = ?2 WHERE id = ?1")?
                            .execute(params![id, site.line])?;
                    }
                }
                None => fresh.push(site),
            }
        }
        for id in stored.into_values().flatten().map(|(id, _)| id) {
            self.tx
                .prepare_cached("DELETE FROM calls WHERE id = ?1")?
                .execute([id])?;
        }
        for site in &fresh {
            self.insert_call(site, None, false)?;
        }
        Ok(())
    }

    /// Inserts a file's bases, call sites, fields and imports, unresolved.
    pub fn insert_refs(
        &mut self,
        file_id: i64,
        ids: &[i64],
        x: &FileExtract,
    ) -> Result<(), IndexError> {
        for c in &x.calls {
            let site = self.site(file_id, ids, c)?;
            self.insert_call(&site, None, false)?;
        }
        self.insert_other_refs(file_id, ids, x)
    }

    /// A call site's row (its callee's name row made if new).
    fn site<'x>(
        &mut self,
        file_id: i64,
        ids: &[i64],
        c: &'x tsa_lang::CallSite,
    ) -> Result<CallRow<'x>, IndexError> {
        Ok(CallRow {
            file_id,
            caller_id: c.enclosing.map(|i| ids[i]),
            callee_id: self.name_id(&c.callee)?,
            receiver: c.receiver.as_deref(),
            receiver_type: c.receiver_type.as_deref(),
            shadowed: c.shadowed,
            path: c.path,
            line: c.line,
            branch: c.branch.map(tsa_lang::BranchKind::code),
            arity: c.arity.map(i64::from),
        })
    }

    /// Inserts a file's bases, fields and imports, unresolved.
    pub(crate) fn insert_other_refs(
        &mut self,
        file_id: i64,
        ids: &[i64],
        x: &FileExtract,
    ) -> Result<(), IndexError> {
        for (i, d) in x.defs.iter().enumerate() {
            for b in &d.bases {
                let base_id = self.name_id(&b.name)?;
                self.insert_inherit(file_id, ids[i], base_id, b.kind, None, 5)?;
            }
        }
        self.insert_fields(file_id, &x.fields)?;
        for imp in &x.imports {
            let row = ImportRow {
                module: &imp.module,
                name: imp.name.as_deref(),
                alias: &imp.alias,
                level: imp.level,
                line: imp.line,
            };
            self.insert_import(file_id, &row, (None, None, 5))?;
        }
        Ok(())
    }

    /// One inheritance row.
    pub(crate) fn insert_inherit(
        &mut self,
        file_id: i64,
        symbol_id: i64,
        base_id: i64,
        kind: tsa_lang::BaseKind,
        target: Option<i64>,
        resolution: i64,
    ) -> Result<(), IndexError> {
        let kind = match kind {
            tsa_lang::BaseKind::Extends => 0,
            tsa_lang::BaseKind::Implements => 1,
        };
        self.inserts()?.inherit.execute(params![
            file_id, symbol_id, base_id, kind, target, resolution
        ])?;
        Ok(())
    }

    /// One call row: the site's first target (`alt` false, unresolved without a
    /// binding) or a further one.
    pub(crate) fn insert_call(
        &mut self,
        site: &CallRow<'_>,
        binding: Option<CallBinding>,
        alt: bool,
    ) -> Result<(), IndexError> {
        let unbound = CallBinding {
            target: 0,
            resolution: 5,
            confidence: 0.0,
        };
        let row = (*site, binding.unwrap_or(unbound), alt);
        let stmt = &mut self.inserts()?.call;
        bind_call(stmt, &mut 1, &row)?;
        stmt.raw_execute()?;
        if let Some(keys) = &mut self.keys {
            let target = (row.1.target != 0).then_some(row.1.target);
            keys.add(self.tx.last_insert_rowid(), site, target);
        }
        Ok(())
    }

    /// A cold build's call rows, each with its binding and whether it is a further
    /// target of the site before it: 16 rows a statement ([`CALL_INSERT_ROWS`]) (a
    /// statement's fixed cost is much of a row's: the resolve step's writer is
    /// 15-20% faster so on kernel code). Each statement's rows take consecutive
    /// ids (the table's largest plus one, row by row), ending at the last insert's.
    pub(crate) fn insert_calls(
        &mut self,
        rows: &[(CallRow<'_>, CallBinding, bool)],
    ) -> Result<(), IndexError> {
        static SQL: std::sync::LazyLock<[(usize, String); 5]> =
            std::sync::LazyLock::new(|| CALL_INSERT_ROWS.map(|n| (n, calls_insert(n))));
        let mut rest = rows;
        for (n, sql) in SQL.iter() {
            while rest.len() >= *n {
                let (part, tail) = rest.split_at(*n);
                rest = tail;
                let mut stmt = self.tx.prepare_cached(sql)?;
                let mut at = 1;
                for row in part {
                    bind_call(&mut stmt, &mut at, row)?;
                }
                stmt.raw_execute()?;
                if let Some(keys) = &mut self.keys {
                    let first = self.tx.last_insert_rowid() - part.len() as i64 + 1;
                    for (i, (site, b, _)) in part.iter().enumerate() {
                        let target = (b.target != 0).then_some(b.target);
                        keys.add(first + i as i64, site, target);
                    }
                }
            }
        }
        Ok(())
    }

    /// The fields a file declares with their types.
    pub(crate) fn insert_fields(
        &mut self,
        file_id: i64,
        fields: &[tsa_lang::Field],
    ) -> Result<(), IndexError> {
        for f in fields {
            let owner = self.name_id(&f.owner)?;
            let name = self.name_id(&f.name)?;
            self.inserts()?
                .field
                .execute(params![file_id, owner, name, f.ty])?;
        }
        Ok(())
    }

    /// One import row with its binding (target file id, target symbol id, resolution).
    pub(crate) fn insert_import(
        &mut self,
        file_id: i64,
        imp: &ImportRow<'_>,
        (tfile, tsym, resolution): (Option<i64>, Option<i64>, i64),
    ) -> Result<(), IndexError> {
        self.inserts()?.import.execute(params![
            file_id, imp.module, imp.name, imp.alias, imp.level, imp.line, tfile, tsym, resolution
        ])?;
        Ok(())
    }
}

/// An insert of `n` call rows (their ids the next ones). `OR FAIL`, as every
/// multi-row insert of a cold build: an abort would have to undo the statement's
/// earlier rows, so SQLite keeps a statement journal for it; a cold build has no
/// triggers yet, and any failure discards the whole build.
fn calls_insert(n: usize) -> String {
    let row = format!("({})", vec!["?"; CALL_COLUMNS.len()].join(","));
    format!(
        "INSERT OR FAIL INTO calls({}) VALUES {}",
        CALL_COLUMNS.join(", "),
        vec![row.as_str(); n].join(",")
    )
}

/// Binds call row `row` to `stmt`'s parameters from `*at` on.
fn bind_call(
    stmt: &mut Statement<'_>,
    at: &mut usize,
    (site, b, alt): &(CallRow<'_>, CallBinding, bool),
) -> Result<(), IndexError> {
    let target = (b.target != 0).then_some(b.target);
    let confidence = (f64::from(b.confidence) * 1000.0).round() / 1000.0;
    let values: [&dyn rusqlite::ToSql; CALL_COLUMNS.len()] = [
        &site.file_id,
        &site.caller_id,
        &site.callee_id,
        &site.receiver,
        &site.receiver_type,
        &site.shadowed,
        &site.path,
        &site.line,
        &target,
        &i64::from(b.resolution),
        &confidence,
        alt,
        &site.branch,
        &site.arity,
    ];
    for v in values {
        stmt.raw_bind_parameter(*at, v)?;
        *at += 1;
    }
    Ok(())
}

/// A call site's columns, shared by its first target's row and its variants'.
#[derive(Clone, Copy)]
pub(crate) struct CallRow<'a> {
    pub file_id: i64,
    pub caller_id: Option<i64>,
    pub callee_id: i64,
    pub receiver: Option<&'a str>,
    pub receiver_type: Option<&'a str>,
    pub shadowed: bool,
    pub path: bool,
    pub line: u32,
    /// [`tsa_lang::BranchKind::code`]; `None` where the language has no branch rules.
    pub branch: Option<i64>,
    /// The argument count, where the language picks overloads by it.
    pub arity: Option<i64>,
}

/// An import's columns.
pub(crate) struct ImportRow<'a> {
    pub module: &'a str,
    pub name: Option<&'a str>,
    pub alias: &'a str,
    pub level: u32,
    pub line: u32,
}

/// Sets a meta value.
pub fn set_meta(tx: &Transaction<'_>, key: &str, value: &str) -> Result<(), IndexError> {
    tx.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// Reads a meta value.
pub fn get_meta(conn: &Connection, key: &str) -> Result<Option<String>, IndexError> {
    Ok(conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()?)
}

#[cfg(test)]
pub(crate) mod tests {

    /// Rows of the `calls_by_*` tables and of `calls` that the other side lacks.
    pub(crate) const CALL_KEYS_ASTRAY: &str = "SELECT
        (SELECT count(*) FROM (SELECT callee_id, id FROM calls EXCEPT SELECT callee_id, id FROM calls_by_callee))
      + (SELECT count(*) FROM (SELECT callee_id, id FROM calls_by_callee EXCEPT SELECT callee_id, id FROM calls))
      + (SELECT count(*) FROM (SELECT target_id, id FROM calls WHERE target_id IS NOT NULL
                               EXCEPT SELECT target_id, id FROM calls_by_target))
      + (SELECT count(*) FROM (SELECT target_id, id FROM calls_by_target EXCEPT SELECT target_id, id FROM calls))";

    /// The schema text the current [`SCHEMA_VERSION`] stands for: a change to the
    /// tables without a new version would open old indexes as if they had the new
    /// columns. Change the schema, bump the version, then put the new digest here.
    const SCHEMA_DIGEST: (i64, &str) = (
        21,
        "1909899882ae02651c3b2ca6d29123da2111b1ea8260d200670e13eca4b6074e",
    );

    #[test]
    fn a_schema_change_bumps_the_version() {
        let digest = blake3::hash(format!("{SCHEMA}{INDEXES}").as_bytes()).to_hex();
        assert_eq!(
            (SCHEMA_VERSION, digest.as_str()),
            SCHEMA_DIGEST,
            "the schema changed: bump SCHEMA_VERSION and set SCHEMA_DIGEST to ({}, \"{digest}\")",
            SCHEMA_VERSION + 1
        );
    }
    use super::{INDEXES, SCHEMA, SCHEMA_VERSION, identifier_words};

    #[test]
    fn splits_identifiers_into_words() {
        assert_eq!(
            identifier_words("parseHTTPRequest_v2"),
            "parse http request v2"
        );
        assert_eq!(identifier_words("build_index"), "build index");
        assert_eq!(identifier_words("Foo"), "foo");
        // The words as the first (allocating) version split them.
        fn reference(name: &str) -> String {
            let mut words = Vec::new();
            let mut cur = String::new();
            let chars: Vec<char> = name.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                if !c.is_alphanumeric() {
                    if !cur.is_empty() {
                        words.push(std::mem::take(&mut cur));
                    }
                    continue;
                }
                let boundary = c.is_uppercase()
                    && !cur.is_empty()
                    && (chars[i - 1].is_lowercase()
                        || chars[i - 1].is_ascii_digit()
                        || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
                if boundary {
                    words.push(std::mem::take(&mut cur));
                }
                cur.extend(c.to_lowercase());
            }
            if !cur.is_empty() {
                words.push(cur);
            }
            words.join(" ")
        }
        for name in [
            "",
            "_",
            "__init__",
            "XMLHttpRequest2Go",
            "a1B",
            "ABC",
            "aB_C9dE",
            "ÄbcDéfİx",
            "kmalloc_node_track_caller",
            "HTTP2Server",
            "x--y",
            "9Lives",
            "ǅungla",
            "a\u{300}B",
        ] {
            assert_eq!(identifier_words(name), reference(name), "{name:?}");
        }
    }
}
