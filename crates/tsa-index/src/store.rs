//! The SQLite schema and the writer. Names are interned once; edges are integer ids.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use tsa_lang::FileExtract;

use crate::IndexError;

/// Bumped whenever the schema or the extractor changes what it stores.
pub const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    hash BLOB NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    parse_errors INTEGER NOT NULL,
    is_test INTEGER NOT NULL
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
    is_test INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name_id);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE TABLE IF NOT EXISTS calls(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    caller_id INTEGER,
    callee_id INTEGER NOT NULL,
    receiver TEXT,
    path_call INTEGER NOT NULL DEFAULT 0,
    line INTEGER NOT NULL,
    target_id INTEGER,
    resolution INTEGER NOT NULL DEFAULT 5,
    confidence REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS calls_target ON calls(target_id);
CREATE INDEX IF NOT EXISTS calls_caller ON calls(caller_id);
CREATE INDEX IF NOT EXISTS calls_callee ON calls(callee_id);
CREATE INDEX IF NOT EXISTS calls_file ON calls(file_id);
CREATE TABLE IF NOT EXISTS imports(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    module TEXT NOT NULL,
    name TEXT,
    alias TEXT NOT NULL,
    level INTEGER NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS symbols_fts USING fts5(
    name, words, qualname, path, content='', contentless_delete=1
);
"#;

/// Where the index lives inside a project.
pub fn index_dir(root: &Path) -> std::path::PathBuf {
    root.join(".tsa")
}

pub fn index_path(root: &Path) -> std::path::PathBuf {
    index_dir(root).join("index.db")
}

fn configure(conn: &Connection) -> Result<(), IndexError> {
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -64_000)?;
    Ok(())
}

/// Opens (creating if needed) the index of `root` for writing. An index written by
/// another schema version is dropped and recreated.
pub fn open_for_write(root: &Path) -> Result<Connection, IndexError> {
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
        conn.execute_batch(
            "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS names;
             DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS calls; DROP TABLE IF EXISTS imports;
             DROP TABLE IF EXISTS symbols_fts;",
        )?;
        conn.execute_batch(SCHEMA)?;
        conn.execute(
            "INSERT INTO meta(key, value) VALUES('schema_version', ?1)",
            params![SCHEMA_VERSION.to_string()],
        )?;
    }
    Ok(conn)
}

/// Opens an existing index read-only; `None` when there is none.
pub fn open_for_read(root: &Path) -> Result<Option<Connection>, IndexError> {
    let path = index_path(root);
    if !path.is_file() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(
        &path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let version: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key='schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .unwrap_or(None);
    if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
        return Ok(None);
    }
    Ok(Some(conn))
}

/// Splits an identifier into lower-case words for the FTS `words` column
/// (`parseHTTPRequest_v2` -> `parse http request v2`).
pub fn identifier_words(name: &str) -> String {
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

/// One file's stored identity.
pub struct FileRow<'a> {
    pub path: &'a str,
    pub language: &'a str,
    pub hash: &'a [u8],
    pub size: u64,
    pub mtime_ns: i64,
    pub is_test: bool,
}

/// Writes files inside one transaction, interning names as it goes.
pub struct Writer<'t> {
    tx: &'t Transaction<'t>,
    names: HashMap<String, i64>,
}

impl<'t> Writer<'t> {
    pub fn new(tx: &'t Transaction<'t>) -> Self {
        Writer {
            tx,
            names: HashMap::new(),
        }
    }

    fn name_id(&mut self, name: &str) -> Result<i64, IndexError> {
        if let Some(id) = self.names.get(name) {
            return Ok(*id);
        }
        let mut get = self
            .tx
            .prepare_cached("SELECT id FROM names WHERE name = ?1")?;
        let id = match get.query_row([name], |r| r.get(0)).optional()? {
            Some(id) => id,
            None => {
                self.tx
                    .prepare_cached("INSERT INTO names(name) VALUES (?1)")?
                    .execute([name])?;
                self.tx.last_insert_rowid()
            }
        };
        self.names.insert(name.to_owned(), id);
        Ok(id)
    }

    /// Removes every row keyed on the file (symbols, FTS rows, calls, imports, the file).
    pub fn delete_file(&mut self, path: &str) -> Result<(), IndexError> {
        let id: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM files WHERE path = ?1")?
            .query_row([path], |r| r.get(0))
            .optional()?;
        let Some(id) = id else { return Ok(()) };
        self.tx
            .prepare_cached("DELETE FROM symbols_fts WHERE rowid IN (SELECT id FROM symbols WHERE file_id = ?1)")?
            .execute([id])?;
        for sql in [
            "DELETE FROM symbols WHERE file_id = ?1",
            "DELETE FROM calls WHERE file_id = ?1",
            "DELETE FROM imports WHERE file_id = ?1",
            "DELETE FROM files WHERE id = ?1",
        ] {
            self.tx.prepare_cached(sql)?.execute([id])?;
        }
        Ok(())
    }

    /// Updates only the stat fields of an unchanged file.
    pub fn touch_file(&mut self, path: &str, size: u64, mtime_ns: i64) -> Result<(), IndexError> {
        self.tx
            .prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE path = ?1")?
            .execute(params![path, size as i64, mtime_ns])?;
        Ok(())
    }

    /// Inserts a file and everything extracted from it (calls unresolved).
    pub fn insert_file(&mut self, file: &FileRow<'_>, x: &FileExtract) -> Result<(), IndexError> {
        self.tx
            .prepare_cached(
                "INSERT INTO files(path, language, hash, size, mtime_ns, parse_errors, is_test)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                file.path,
                file.language,
                file.hash,
                file.size as i64,
                file.mtime_ns,
                x.parse_errors,
                file.is_test
            ])?;
        let file_id = self.tx.last_insert_rowid();
        let mut ids: Vec<i64> = Vec::with_capacity(x.defs.len());
        for d in &x.defs {
            let name_id = self.name_id(&d.name)?;
            let owner_id = match &d.owner {
                Some(o) => Some(self.name_id(o)?),
                None => None,
            };
            let parent_id = d.parent.map(|p| ids[p]);
            self.tx
                .prepare_cached(
                    "INSERT INTO symbols(file_id, name_id, kind, qualname, owner_id, parent_id, line, end_line, signature, is_test)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )?
                .execute(params![
                    file_id,
                    name_id,
                    d.kind.as_str(),
                    d.qualname,
                    owner_id,
                    parent_id,
                    d.line,
                    d.end_line,
                    d.signature,
                    d.is_test || file.is_test
                ])?;
            let id = self.tx.last_insert_rowid();
            ids.push(id);
            self.tx
                .prepare_cached("INSERT INTO symbols_fts(rowid, name, words, qualname, path) VALUES (?1, ?2, ?3, ?4, ?5)")?
                .execute(params![id, d.name, identifier_words(&d.name), d.qualname, file.path])?;
        }
        for c in &x.calls {
            let callee_id = self.name_id(&c.callee)?;
            self.tx
                .prepare_cached(
                    "INSERT INTO calls(file_id, caller_id, callee_id, receiver, path_call, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?
                .execute(params![file_id, c.enclosing.map(|i| ids[i]), callee_id, c.receiver, c.path, c.line])?;
        }
        for i in &x.imports {
            self.tx
                .prepare_cached(
                    "INSERT INTO imports(file_id, module, name, alias, level, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?
                .execute(params![file_id, i.module, i.name, i.alias, i.level, i.line])?;
        }
        Ok(())
    }
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
mod tests {
    use super::identifier_words;

    #[test]
    fn splits_identifiers_into_words() {
        assert_eq!(
            identifier_words("parseHTTPRequest_v2"),
            "parse http request v2"
        );
        assert_eq!(identifier_words("build_index"), "build index");
        assert_eq!(identifier_words("Foo"), "foo");
    }
}
