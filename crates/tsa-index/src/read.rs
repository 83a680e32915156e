//! Read queries over a built index. Every query answers from SQLite; none parses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Row, params_from_iter};

use crate::IndexError;
use crate::resolve::Resolution;
use crate::store;

/// A stored definition.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolRow {
    pub id: i64,
    pub name: String,
    pub kind: String,
    pub qualname: String,
    pub owner: Option<String>,
    pub file: String,
    pub language: String,
    pub line: u32,
    pub end_line: u32,
    pub signature: String,
    pub is_test: bool,
}

/// A call row with its ordering key: path, line, id, and whether it is a further
/// target of its site (`alt`).
type KeyedCall = (String, u32, i64, bool, CallRow);

/// A stored call site with both ends.
#[derive(Clone, Debug)]
pub struct CallRow {
    pub line: u32,
    pub file: String,
    pub language: String,
    /// The enclosing definition; `None` for module-level code.
    pub caller: Option<SymbolRow>,
    pub callee_name: String,
    pub receiver: Option<String>,
    pub path_call: bool,
    pub target: Option<SymbolRow>,
    pub resolution: Resolution,
    pub confidence: f64,
    /// The package of a target outside the project, when a SCIP index named it.
    pub package: Option<String>,
    /// The branch the call sits in; `None` where the language has no branch rules.
    pub branch: Option<tsa_lang::BranchKind>,
}

/// Counts describing the index.
#[derive(Clone, Debug, Default)]
pub struct Status {
    pub files: u64,
    pub symbols: u64,
    pub calls: u64,
    pub imports: u64,
    pub files_by_language: BTreeMap<String, u64>,
    pub symbols_by_kind: BTreeMap<String, u64>,
    pub symbols_by_language: BTreeMap<String, u64>,
    pub calls_by_resolution: BTreeMap<String, u64>,
    /// Edges by kind: calls, imports, extends, implements, contains.
    pub edges_by_kind: BTreeMap<String, u64>,
    /// Per edge kind, edges by resolution class.
    pub edges_by_resolution: BTreeMap<String, BTreeMap<String, u64>>,
    pub parse_error_files: Vec<(String, u32)>,
    pub index_bytes: u64,
    pub built_at: Option<u64>,
}

/// A read handle on one project's index.
pub struct Index {
    pub(crate) conn: Connection,
    pub(crate) root: PathBuf,
}

/// Most distinct words of a query [`Index::search`] looks for.
pub const SEARCH_TERMS: usize = 32;

pub(crate) const SYMBOL_COLS: &str = "s.id, n.name, s.kind, s.qualname, o.name, f.path, f.language, s.line, s.end_line, s.signature, s.is_test";
pub(crate) const SYMBOL_FROM: &str = "symbols s JOIN names n ON n.id = s.name_id JOIN files f ON f.id = s.file_id LEFT JOIN names o ON o.id = s.owner_id";

pub(crate) fn symbol_at(r: &Row<'_>, at: usize) -> rusqlite::Result<SymbolRow> {
    Ok(SymbolRow {
        id: r.get(at)?,
        name: r.get(at + 1)?,
        kind: r.get(at + 2)?,
        qualname: r.get(at + 3)?,
        owner: r.get(at + 4)?,
        file: r.get(at + 5)?,
        language: r.get(at + 6)?,
        line: r.get(at + 7)?,
        end_line: r.get(at + 8)?,
        signature: r.get(at + 9)?,
        is_test: r.get(at + 10)?,
    })
}

pub(crate) fn opt_symbol_at(r: &Row<'_>, at: usize) -> rusqlite::Result<Option<SymbolRow>> {
    match r.get::<_, Option<i64>>(at)? {
        Some(_) => symbol_at(r, at).map(Some),
        None => Ok(None),
    }
}

/// Ids bound in one statement of `calls_where` (SQLite's variable limit is
/// 32,766; 999 in builds older than 3.32).
const CALLS_CHUNK: usize = 4000;

impl Index {
    /// Opens the index of `root`; `None` when it has never been built.
    pub fn open(root: &Path) -> Result<Option<Index>, IndexError> {
        Ok(store::open_for_read(root)?.map(|conn| Index {
            conn,
            root: root.to_path_buf(),
        }))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Counts by kind, language and resolution class, parse-error files, size.
    pub fn status(&self) -> Result<Status, IndexError> {
        let c = &self.conn;
        let count = |sql: &str| -> Result<u64, IndexError> {
            Ok(c.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64)
        };
        let group = |sql: &str| -> Result<BTreeMap<String, u64>, IndexError> {
            let mut stmt = c.prepare(sql)?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        };
        let mut calls_by_resolution = BTreeMap::new();
        {
            let mut stmt =
                c.prepare("SELECT resolution, count(*) FROM calls GROUP BY resolution")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
            for row in rows {
                let (code, n) = row?;
                calls_by_resolution
                    .insert(Resolution::from_code(code).as_str().to_owned(), n as u64);
            }
        }
        let by_class = |sql: &str| -> Result<BTreeMap<String, u64>, IndexError> {
            let mut stmt = c.prepare(sql)?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
            let mut m = BTreeMap::new();
            for row in rows {
                let (code, n) = row?;
                *m.entry(Resolution::from_code(code).as_str().to_owned())
                    .or_insert(0) += n as u64;
            }
            Ok(m)
        };
        let mut edges_by_resolution = BTreeMap::new();
        edges_by_resolution.insert("calls".to_owned(), calls_by_resolution.clone());
        edges_by_resolution.insert(
            "imports".to_owned(),
            by_class("SELECT resolution, count(*) FROM imports GROUP BY resolution")?,
        );
        edges_by_resolution.insert(
            "extends".to_owned(),
            by_class(
                "SELECT resolution, count(*) FROM inherits WHERE kind = 0 GROUP BY resolution",
            )?,
        );
        edges_by_resolution.insert(
            "implements".to_owned(),
            by_class(
                "SELECT resolution, count(*) FROM inherits WHERE kind = 1 GROUP BY resolution",
            )?,
        );
        let contains = count("SELECT count(*) FROM symbols WHERE parent_id IS NOT NULL")?;
        edges_by_resolution.insert(
            "contains".to_owned(),
            BTreeMap::from([("local".to_owned(), contains)]),
        );
        let edges_by_kind: BTreeMap<String, u64> = edges_by_resolution
            .iter()
            .map(|(k, v)| (k.clone(), v.values().sum()))
            .collect();
        let parse_error_files = {
            let mut stmt = c.prepare(
                "SELECT path, parse_errors FROM files WHERE parse_errors > 0 ORDER BY path",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let path = store::index_path(&self.root);
        let size = |p: PathBuf| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let index_bytes = size(path.clone()) + size(path.with_extension("db-wal"));
        Ok(Status {
            files: count("SELECT count(*) FROM files")?,
            symbols: count("SELECT count(*) FROM symbols")?,
            calls: count("SELECT count(*) FROM calls")?,
            imports: count("SELECT count(*) FROM imports")?,
            files_by_language: group("SELECT language, count(*) FROM files GROUP BY language")?,
            symbols_by_kind: group("SELECT kind, count(*) FROM symbols GROUP BY kind")?,
            symbols_by_language: group(
                "SELECT f.language, count(*) FROM symbols s JOIN files f ON f.id = s.file_id GROUP BY f.language",
            )?,
            calls_by_resolution,
            edges_by_kind,
            edges_by_resolution,
            parse_error_files,
            index_bytes,
            built_at: store::get_meta(c, "built_at")?.and_then(|v| v.parse().ok()),
        })
    }

    /// Definitions named `name`, optionally of type `owner` and in `file`.
    pub fn find_symbols(
        &self,
        name: &str,
        owner: Option<&str>,
        file: Option<&str>,
    ) -> Result<Vec<SymbolRow>, IndexError> {
        let mut sql = format!("SELECT {SYMBOL_COLS} FROM {SYMBOL_FROM} WHERE n.name = ?1");
        let mut args: Vec<String> = vec![name.to_owned()];
        if let Some(o) = owner {
            args.push(o.to_owned());
            sql.push_str(&format!(" AND o.name = ?{}", args.len()));
        }
        if let Some(f) = file {
            args.push(f.to_owned());
            sql.push_str(&format!(" AND f.path = ?{}", args.len()));
        }
        sql.push_str(" ORDER BY s.is_test, f.path, s.line");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args.iter()), |r| symbol_at(r, 0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The call rows whose `clause` column is one of `ids`, by file, line and call:
    /// asked in chunks (SQLite bounds the variables of one statement), merged back
    /// into that order.
    pub(crate) fn calls_where(
        &self,
        clause: &str,
        ids: &[i64],
    ) -> Result<Vec<CallRow>, IndexError> {
        Ok(self
            .keyed_calls(clause, ids)?
            .into_iter()
            .map(|(_, _, _, _, row)| row)
            .collect())
    }

    /// [`Self::calls_where`], each row with its path, line, id and whether it is a
    /// further target (`alt`) of a site.
    fn keyed_calls(&self, clause: &str, ids: &[i64]) -> Result<Vec<KeyedCall>, IndexError> {
        let mut keyed: Vec<KeyedCall> = Vec::new();
        for chunk in ids.chunks(CALLS_CHUNK) {
            keyed.extend(self.calls_chunk(clause, chunk)?);
        }
        if ids.len() > CALLS_CHUNK {
            keyed.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
        }
        Ok(keyed)
    }

    fn calls_chunk(&self, clause: &str, ids: &[i64]) -> Result<Vec<KeyedCall>, IndexError> {
        let marks = vec!["?"; ids.len()].join(",");
        let sql = format!(
            "SELECT c.line, cf.path, cf.language, cn.name, c.receiver, c.path_call, c.resolution, c.confidence,
                    s.id, n.name, s.kind, s.qualname, o.name, f.path, f.language, s.line, s.end_line, s.signature, s.is_test,
                    t.id, tn.name, t.kind, t.qualname, tow.name, tf.path, tf.language, t.line, t.end_line, t.signature, t.is_test,
                    c.package, c.id, c.alt, c.branch
             FROM calls c
             JOIN files cf ON cf.id = c.file_id
             JOIN names cn ON cn.id = c.callee_id
             LEFT JOIN symbols s ON s.id = c.caller_id
             LEFT JOIN names n ON n.id = s.name_id
             LEFT JOIN names o ON o.id = s.owner_id
             LEFT JOIN files f ON f.id = s.file_id
             LEFT JOIN symbols t ON t.id = c.target_id
             LEFT JOIN names tn ON tn.id = t.name_id
             LEFT JOIN names tow ON tow.id = t.owner_id
             LEFT JOIN files tf ON tf.id = t.file_id
             WHERE {}
             ORDER BY cf.path, c.line, c.id",
            crate::store::calls_keyed(clause, &marks)
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(ids.iter()), |r| {
            let row = CallRow {
                line: r.get(0)?,
                file: r.get(1)?,
                language: r.get(2)?,
                callee_name: r.get(3)?,
                receiver: r.get(4)?,
                path_call: r.get(5)?,
                resolution: Resolution::from_code(r.get(6)?),
                confidence: r.get(7)?,
                caller: opt_symbol_at(r, 8)?,
                target: opt_symbol_at(r, 19)?,
                package: r.get(30)?,
                branch: r
                    .get::<_, Option<i64>>(33)?
                    .and_then(tsa_lang::BranchKind::from_code),
            };
            Ok((row.file.clone(), row.line, r.get(31)?, r.get(32)?, row))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// When the index was last built or synced (seconds since the epoch): the
    /// generation of what it holds.
    pub fn built_at(&self) -> Result<Option<u64>, IndexError> {
        Ok(store::get_meta(&self.conn, "built_at")?.and_then(|v| v.parse().ok()))
    }

    /// The generation of what the index holds: a new one for every write that
    /// changes it (each build or sync writing or deleting a file row writes a new
    /// stamp; a SCIP import, its fingerprint), where [`Index::built_at`] (seconds)
    /// gives two syncs within a second the same. Caches of what the index holds are
    /// keyed on it.
    pub fn generation(&self) -> Result<String, IndexError> {
        let mut h = blake3::Hasher::new();
        for key in ["built_at", crate::build::kept::STAMP, "scip_fingerprint"] {
            if let Some(v) = store::get_meta(&self.conn, key)? {
                h.update(v.as_bytes());
            }
            h.update(&[0]);
        }
        Ok(h.finalize().to_hex()[..16].to_owned())
    }

    /// A note stored with `set_note`.
    pub fn meta(&self, key: &str) -> Result<Option<String>, IndexError> {
        store::get_meta(&self.conn, &format!("note:{key}"))
    }

    /// What a build recorded about the project: `layout` (the manifests) and `scip`
    /// (the last SCIP import), as stored JSON.
    pub fn build_record(&self, key: &str) -> Result<Option<String>, IndexError> {
        match key {
            "layout" | "scip" => store::get_meta(&self.conn, key),
            _ => Ok(None),
        }
    }

    /// SQLite's own integrity check (`ok` when the database is sound).
    pub fn integrity_check(&self) -> Result<String, IndexError> {
        Ok(self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
    }

    /// Every definition of one file, in source order.
    pub fn symbols_in_file(&self, file: &str) -> Result<Vec<SymbolRow>, IndexError> {
        let sql = format!(
            "SELECT {SYMBOL_COLS} FROM {SYMBOL_FROM} WHERE f.path = ?1 ORDER BY s.line, s.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([file], |r| symbol_at(r, 0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every call site of one file, in source order.
    pub fn calls_in_file(&self, file: &str) -> Result<Vec<CallRow>, IndexError> {
        let id: Option<i64> = self
            .conn
            .query_row("SELECT id FROM files WHERE path = ?1", [file], |r| r.get(0))
            .optional()?;
        match id {
            Some(id) => self.calls_where("c.file_id", &[id]),
            None => Ok(Vec::new()),
        }
    }

    /// Paths of every indexed file.
    pub fn files(&self) -> Result<Vec<String>, IndexError> {
        let mut stmt = self.conn.prepare("SELECT path FROM files ORDER BY path")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The documentation (docstring or comment above) of every symbol that has one.
    pub fn symbol_docs(&self) -> Result<rustc_hash::FxHashMap<i64, String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, doc FROM symbols WHERE doc IS NOT NULL")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every indexed file with its BLAKE3 content hash (hex), in path order.
    pub fn file_hashes(&self) -> Result<Vec<(String, String)>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, hash FROM files ORDER BY path")?;
        let rows = stmt.query_map([], |r| {
            let hash: Vec<u8> = r.get(1)?;
            let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
            Ok((r.get::<_, String>(0)?, hex))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A digest of what the index was built from: every file's path and BLAKE3
    /// content hash, in path order (hex). Resolution depends only on these, so two
    /// indexes with the same fingerprint hold the same graph.
    pub fn content_fingerprint(&self) -> Result<String, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, hash FROM files ORDER BY path")?;
        let mut rows = stmt.query([])?;
        let mut h = blake3::Hasher::new();
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let hash: Vec<u8> = r.get(1)?;
            h.update(path.as_bytes());
            h.update(&[0]);
            h.update(&hash);
            h.update(&[0]);
        }
        Ok(h.finalize().to_hex().to_string())
    }

    /// Call sites bound to any of `targets`, each once: a site whose first target
    /// and a further one (a build variant) are both among `targets` is one row.
    pub fn callers(&self, targets: &[i64]) -> Result<Vec<CallRow>, IndexError> {
        let rows = self.keyed_calls("c.target_id", targets)?;
        let site = |r: &CallRow| {
            (
                r.file.clone(),
                r.line,
                r.caller.as_ref().map(|c| c.id),
                r.callee_name.clone(),
                r.receiver.clone(),
            )
        };
        let firsts: std::collections::HashSet<_> =
            rows.iter().filter(|k| !k.3).map(|k| site(&k.4)).collect();
        let mut alts_seen = std::collections::HashSet::new();
        Ok(rows
            .into_iter()
            .filter(|k| !k.3 || (!firsts.contains(&site(&k.4)) && alts_seen.insert(site(&k.4))))
            .map(|k| k.4)
            .collect())
    }

    /// Call sites inside any of `callers`.
    pub fn callees(&self, callers: &[i64]) -> Result<Vec<CallRow>, IndexError> {
        self.calls_where("c.caller_id", callers)
    }

    /// Unresolved call sites of `name` in `language` (they might be callers).
    pub fn unresolved_sites(&self, name: &str, language: &str) -> Result<u64, IndexError> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM names n JOIN calls_by_callee k ON k.callee_id = n.id JOIN calls c ON c.id = k.id JOIN files f ON f.id = c.file_id
             WHERE n.name = ?1 AND c.resolution = ?2 AND f.language = ?3",
            rusqlite::params![name, Resolution::Unknown.code(), language],
            |r| r.get::<_, i64>(0),
        )? as u64)
    }

    /// Unresolved call sites named `name` in any of `languages` (they might be
    /// callers): the exact count, and the first `cap` of them by file and line.
    pub fn unresolved_site_rows(
        &self,
        name: &str,
        languages: &[&str],
        cap: usize,
    ) -> Result<(u64, Vec<CallRow>), IndexError> {
        if languages.is_empty() {
            return Ok((0, Vec::new()));
        }
        let marks = vec!["?"; languages.len()].join(",");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT c.id FROM names n JOIN calls_by_callee k ON k.callee_id = n.id JOIN calls c ON c.id = k.id JOIN files f ON f.id = c.file_id
             WHERE n.name = ? AND c.resolution = ? AND f.language IN ({marks})
             ORDER BY f.path, c.line, c.id"
        ))?;
        let mut params: Vec<rusqlite::types::Value> =
            vec![name.to_owned().into(), Resolution::Unknown.code().into()];
        params.extend(languages.iter().map(|l| (*l).to_owned().into()));
        let ids: Vec<i64> = stmt
            .query_map(params_from_iter(params.iter()), |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let rows = self.calls_where("c.id", &ids[..ids.len().min(cap)])?;
        Ok((ids.len() as u64, rows))
    }

    /// Whether any call site exists at all (an empty graph gets a different hint).
    pub fn has_calls(&self) -> Result<bool, IndexError> {
        Ok(self
            .conn
            .query_row("SELECT EXISTS(SELECT 1 FROM calls)", [], |r| r.get(0))?)
    }

    /// Whether the index holds any file.
    pub fn has_files(&self) -> Result<bool, IndexError> {
        Ok(self
            .conn
            .query_row("SELECT EXISTS(SELECT 1 FROM files)", [], |r| r.get(0))?)
    }

    /// FTS5 BM25 search: (rows with raw bm25 scores, best first; exact total matches).
    /// Raw scores are negative; more negative is better. The query's first
    /// [`SEARCH_TERMS`] distinct words are searched (an FTS query's cost grows
    /// faster than its number of terms).
    pub fn search(
        &self,
        query: &str,
        language: Option<&str>,
        kinds: &[&str],
        fetch: usize,
    ) -> Result<(Vec<(SymbolRow, f64)>, u64), IndexError> {
        let mut seen = std::collections::HashSet::new();
        let terms: Vec<String> = query
            .split_whitespace()
            .filter(|t| seen.insert(*t))
            .take(SEARCH_TERMS)
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect();
        if terms.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let expr = terms.join(" OR ");
        let mut filter = String::new();
        let mut args: Vec<String> = vec![expr];
        if let Some(l) = language {
            args.push(l.to_owned());
            filter.push_str(&format!(" AND f.language = ?{}", args.len()));
        }
        if !kinds.is_empty() {
            let start = args.len() + 1;
            args.extend(kinds.iter().map(|k| k.to_string()));
            let marks: Vec<String> = (start..=args.len()).map(|i| format!("?{i}")).collect();
            filter.push_str(&format!(" AND s.kind IN ({})", marks.join(",")));
        }
        let total: i64 = self.conn.query_row(
            &format!(
                "SELECT count(*) FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid
                 JOIN files f ON f.id = s.file_id WHERE symbols_fts MATCH ?1{filter}"
            ),
            params_from_iter(args.iter()),
            |r| r.get(0),
        )?;
        let sql = format!(
            "SELECT {SYMBOL_COLS}, bm25(symbols_fts, 10.0, 5.0, 2.0) AS score
             FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid
             JOIN names n ON n.id = s.name_id JOIN files f ON f.id = s.file_id
             LEFT JOIN names o ON o.id = s.owner_id
             WHERE symbols_fts MATCH ?1{filter}
             ORDER BY score, f.path, s.line LIMIT {fetch}"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
            Ok((symbol_at(r, 0)?, r.get::<_, f64>(11)?))
        })?;
        Ok((rows.collect::<Result<_, _>>()?, total as u64))
    }

    /// Distinct defined names starting with `prefix` (ASCII case-insensitive),
    /// sorted, at most `n`; with the exact number of such names.
    pub fn names_with_prefix(
        &self,
        prefix: &str,
        n: usize,
    ) -> Result<(Vec<String>, u64), IndexError> {
        let escaped: String = prefix
            .chars()
            .flat_map(|c| match c {
                '%' | '_' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        let pattern = format!("{escaped}%");
        let from = "FROM names n WHERE n.name LIKE ?1 ESCAPE '\\'
                    AND EXISTS (SELECT 1 FROM symbols s WHERE s.name_id = n.id)";
        let total: i64 = self.conn.query_row(
            &format!("SELECT count(DISTINCT n.name) {from}"),
            [&pattern],
            |r| r.get(0),
        )?;
        let mut stmt = self.conn.prepare(&format!(
            "SELECT DISTINCT n.name {from} ORDER BY n.name LIMIT {n}"
        ))?;
        let rows = stmt.query_map([&pattern], |r| r.get::<_, String>(0))?;
        Ok((rows.collect::<Result<_, _>>()?, total as u64))
    }
}
