//! Cold and incremental builds: hash raw bytes (one hash for build and sync),
//! parse only what changed on all cores, write everything in one transaction,
//! then re-resolve calls.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use rusqlite::Connection;
use tsa_lang::{FileExtract, Language, extract, is_test_path};

use crate::IndexError;
use crate::resolve::{Binding, MCall, MFile, MImport, MSym, Model, Resolution};
use crate::store::{self, FileRow, Writer};
use crate::walk::{SourceFile, WalkOptions, walk};

/// Full wipes and rebuilds; incremental re-parses only files whose content changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BuildMode {
    Full,
    #[default]
    Incremental,
}

impl BuildMode {
    pub fn as_str(self) -> &'static str {
        match self {
            BuildMode::Full => "full",
            BuildMode::Incremental => "incremental",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub mode: BuildMode,
    pub walk: WalkOptions,
}

/// One file's outcome.
#[derive(Clone, Debug)]
pub struct FileStatus {
    pub file: String,
    /// `indexed`, `cached`, `deleted`, `skipped` or `error`.
    pub status: &'static str,
    pub reason: String,
    pub symbols: usize,
    pub call_edges: usize,
    pub parse_errors: u32,
    /// First 16 hex digits of the BLAKE3 hash of the raw bytes.
    pub content_hash: String,
}

/// What a build did.
#[derive(Clone, Debug, Default)]
pub struct BuildReport {
    pub mode_used: &'static str,
    pub total_files: usize,
    pub indexed: usize,
    pub cached: usize,
    pub deleted: usize,
    pub errors: usize,
    pub skipped_binary: usize,
    pub skipped_unknown_extension: usize,
    pub skipped_too_large: usize,
    pub truncated_by_max_files: bool,
    pub files_with_parse_errors: usize,
    pub calls_resolved: usize,
    pub workers: usize,
    pub elapsed_ms: u128,
    /// Wall time per phase: walk, parse (read + hash + parse + extract, parallel),
    /// write (one transaction), resolve.
    pub walk_ms: u128,
    pub parse_ms: u128,
    pub write_ms: u128,
    pub resolve_ms: u128,
    /// Per-file outcomes of files that were indexed, deleted, skipped or failed.
    pub files: Vec<FileStatus>,
}

enum Outcome {
    Unchanged,
    Touched,
    Parsed { hash: [u8; 32], x: FileExtract },
    Binary,
    Failed(String),
}

struct Stored {
    hash: Vec<u8>,
    size: i64,
    mtime_ns: i64,
}

fn stored_files(conn: &Connection) -> Result<HashMap<String, Stored>, IndexError> {
    let mut stmt = conn.prepare("SELECT path, hash, size, mtime_ns FROM files")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            Stored {
                hash: r.get(1)?,
                size: r.get(2)?,
                mtime_ns: r.get(3)?,
            },
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

fn examine(f: &SourceFile, stored: Option<&Stored>) -> Outcome {
    if let Some(s) = stored
        && s.size == f.size as i64
        && s.mtime_ns == f.mtime_ns
    {
        return Outcome::Unchanged;
    }
    let bytes = match std::fs::read(&f.abs) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let hash = *blake3::hash(&bytes).as_bytes();
    if stored.is_some_and(|s| s.hash == hash) {
        return Outcome::Touched;
    }
    if is_binary(&bytes) {
        return Outcome::Binary;
    }
    match extract(f.language, &bytes) {
        Ok(x) => Outcome::Parsed { hash, x },
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

fn hex16(hash: &[u8]) -> String {
    hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Builds or refreshes the index of `root`.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<BuildReport, IndexError> {
    let started = Instant::now();
    let mut conn = store::open_for_write(root)?;
    let walked = walk(root, &opts.walk);
    let walk_ms = started.elapsed().as_millis();
    let stored = match opts.mode {
        BuildMode::Full => HashMap::new(),
        BuildMode::Incremental => stored_files(&conn)?,
    };
    let t = Instant::now();
    let outcomes: Vec<Outcome> = walked
        .files
        .par_iter()
        .map(|f| examine(f, stored.get(&f.rel)))
        .collect();
    let parse_ms = t.elapsed().as_millis();
    let t = Instant::now();

    let mut report = BuildReport {
        mode_used: opts.mode.as_str(),
        total_files: walked.files.len(),
        skipped_unknown_extension: walked.skipped_unknown_extension,
        skipped_too_large: walked.skipped_too_large,
        truncated_by_max_files: walked.truncated_by_max_files,
        workers: rayon::current_num_threads(),
        walk_ms,
        parse_ms,
        ..BuildReport::default()
    };
    let tx = conn.transaction()?;
    let mut changed = opts.mode == BuildMode::Full;
    {
        if opts.mode == BuildMode::Full {
            tx.execute_batch(
                "DELETE FROM symbols_fts; DELETE FROM symbols; DELETE FROM calls; DELETE FROM imports;
                 DELETE FROM files; DELETE FROM names;",
            )?;
        }
        let mut w = Writer::new(&tx);
        let on_disk: HashSet<&str> = walked.files.iter().map(|f| f.rel.as_str()).collect();
        if !walked.truncated_by_max_files {
            let mut gone: Vec<&String> = stored
                .keys()
                .filter(|p| !on_disk.contains(p.as_str()))
                .collect();
            gone.sort();
            for path in gone {
                w.delete_file(path)?;
                report.deleted += 1;
                changed = true;
                report.files.push(FileStatus {
                    file: path.clone(),
                    status: "deleted",
                    reason: "file no longer on disk".into(),
                    symbols: 0,
                    call_edges: 0,
                    parse_errors: 0,
                    content_hash: String::new(),
                });
            }
        }
        for (f, outcome) in walked.files.iter().zip(outcomes) {
            match outcome {
                Outcome::Unchanged => report.cached += 1,
                Outcome::Touched => {
                    w.touch_file(&f.rel, f.size, f.mtime_ns)?;
                    report.cached += 1;
                }
                Outcome::Parsed { hash, x } => {
                    w.delete_file(&f.rel)?;
                    let row = FileRow {
                        path: &f.rel,
                        language: f.language.name(),
                        hash: &hash,
                        size: f.size,
                        mtime_ns: f.mtime_ns,
                        is_test: is_test_path(&f.rel),
                    };
                    w.insert_file(&row, &x)?;
                    changed = true;
                    report.indexed += 1;
                    if x.parse_errors > 0 {
                        report.files_with_parse_errors += 1;
                    }
                    report.files.push(FileStatus {
                        file: f.rel.clone(),
                        status: "indexed",
                        reason: if x.parse_errors > 0 {
                            format!(
                                "{} parse error node(s); indexed what parsed",
                                x.parse_errors
                            )
                        } else {
                            String::new()
                        },
                        symbols: x.defs.len(),
                        call_edges: x.calls.len(),
                        parse_errors: x.parse_errors,
                        content_hash: hex16(&hash),
                    });
                }
                Outcome::Binary => {
                    if stored.contains_key(&f.rel) {
                        w.delete_file(&f.rel)?;
                        changed = true;
                    }
                    report.skipped_binary += 1;
                    report.files.push(FileStatus {
                        file: f.rel.clone(),
                        status: "skipped",
                        reason: "binary content (NUL bytes)".into(),
                        symbols: 0,
                        call_edges: 0,
                        parse_errors: 0,
                        content_hash: String::new(),
                    });
                }
                Outcome::Failed(reason) => {
                    report.errors += 1;
                    report.files.push(FileStatus {
                        file: f.rel.clone(),
                        status: "error",
                        reason,
                        symbols: 0,
                        call_edges: 0,
                        parse_errors: 0,
                        content_hash: String::new(),
                    });
                }
            }
        }
    }
    report.write_ms = t.elapsed().as_millis();
    let t = Instant::now();
    if changed {
        report.calls_resolved = resolve_all(&tx)?;
    }
    report.resolve_ms = t.elapsed().as_millis();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    store::set_meta(&tx, "built_at", &now.to_string())?;
    store::set_meta(&tx, "last_mode", opts.mode.as_str())?;
    tx.commit()?;
    report.elapsed_ms = started.elapsed().as_millis();
    Ok(report)
}

/// Loads the resolution model from the index.
pub(crate) fn load_model(conn: &Connection) -> Result<(Model, HashMap<i64, usize>), IndexError> {
    let mut files = Vec::new();
    let mut file_idx = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT id, path, language, is_test FROM files ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let lang: String = r.get(2)?;
            let Some(lang) = Language::from_name(&lang) else {
                continue;
            };
            file_idx.insert(r.get::<_, i64>(0)?, files.len());
            files.push(MFile {
                id: r.get(0)?,
                path: r.get(1)?,
                lang,
                is_test: r.get(3)?,
            });
        }
    }
    let mut syms = Vec::new();
    let mut sym_idx = HashMap::new();
    let mut parents = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT s.id, s.file_id, n.name, s.kind, o.name, s.parent_id, s.is_test
             FROM symbols s JOIN names n ON n.id = s.name_id LEFT JOIN names o ON o.id = s.owner_id
             ORDER BY s.id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(&file) = file_idx.get(&r.get::<_, i64>(1)?) else {
                continue;
            };
            let kind: String = r.get(3)?;
            let Some(kind) = tsa_lang::DefKind::parse(&kind) else {
                continue;
            };
            sym_idx.insert(r.get::<_, i64>(0)?, syms.len());
            parents.push(r.get::<_, Option<i64>>(5)?);
            syms.push(MSym {
                id: r.get(0)?,
                file,
                name: r.get(2)?,
                kind,
                owner: r.get(4)?,
                parent: None,
                is_test: r.get(6)?,
            });
        }
    }
    for (s, p) in syms.iter_mut().zip(parents) {
        s.parent = p.and_then(|p| sym_idx.get(&p).copied());
    }
    let mut imports: Vec<Vec<MImport>> = vec![Vec::new(); files.len()];
    {
        let mut stmt =
            conn.prepare("SELECT file_id, module, name, alias, level FROM imports ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(&file) = file_idx.get(&r.get::<_, i64>(0)?) else {
                continue;
            };
            imports[file].push(MImport {
                module: r.get(1)?,
                name: r.get(2)?,
                alias: r.get(3)?,
                level: r.get(4)?,
            });
        }
    }
    Ok((Model::new(files, syms, imports), sym_idx))
}

/// Re-resolves every call site and writes the ones whose binding changed.
fn resolve_all(conn: &Connection) -> Result<usize, IndexError> {
    let (model, sym_idx) = load_model(conn)?;
    let file_idx: HashMap<i64, usize> = model
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.id, i))
        .collect();
    struct Row {
        id: i64,
        call: MCall,
        target: Option<i64>,
        resolution: i64,
    }
    let mut rows = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT c.id, c.file_id, c.caller_id, n.name, c.receiver, c.path_call, c.target_id, c.resolution
             FROM calls c JOIN names n ON n.id = c.callee_id",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let Some(&file) = file_idx.get(&r.get::<_, i64>(1)?) else {
                continue;
            };
            rows.push(Row {
                id: r.get(0)?,
                call: MCall {
                    file,
                    caller: r
                        .get::<_, Option<i64>>(2)?
                        .and_then(|c| sym_idx.get(&c).copied()),
                    callee: r.get(3)?,
                    receiver: r.get(4)?,
                    path: r.get(5)?,
                },
                target: r.get(6)?,
                resolution: r.get(7)?,
            });
        }
    }
    let bindings: Vec<Binding> = rows.par_iter().map(|r| model.resolve(&r.call)).collect();
    let mut update = conn.prepare_cached(
        "UPDATE calls SET target_id = ?2, resolution = ?3, confidence = ?4 WHERE id = ?1",
    )?;
    let mut resolved = 0;
    for (row, b) in rows.iter().zip(bindings) {
        let target = b.target.map(|t| model.syms[t].id);
        if b.resolution != Resolution::Unknown {
            resolved += 1;
        }
        if target != row.target || b.resolution.code() != row.resolution {
            update.execute(rusqlite::params![
                row.id,
                target,
                b.resolution.code(),
                b.confidence
            ])?;
        }
    }
    Ok(resolved)
}

/// Files that differ between disk and index, by project-relative path.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    pub new: Vec<String>,
    pub modified: Vec<String>,
    pub deleted: Vec<String>,
}

impl Pending {
    pub fn total(&self) -> usize {
        self.new.len() + self.modified.len() + self.deleted.len()
    }
}

/// Compares the files on disk with the index (stat first, then the content hash).
pub fn pending_changes(root: &Path, opts: &WalkOptions) -> Result<Pending, IndexError> {
    let Some(conn) = store::open_for_read(root)? else {
        let w = walk(root, opts);
        return Ok(Pending {
            new: w.files.into_iter().map(|f| f.rel).collect(),
            ..Pending::default()
        });
    };
    let stored = stored_files(&conn)?;
    let w = walk(root, opts);
    let mut new = Vec::new();
    let mut modified = Vec::new();
    let mut seen = HashSet::new();
    for f in &w.files {
        seen.insert(f.rel.as_str());
        match stored.get(&f.rel) {
            None => new.push(f.rel.clone()),
            Some(s) if s.size == f.size as i64 && s.mtime_ns == f.mtime_ns => {}
            Some(s) => {
                let changed = match std::fs::read(&f.abs) {
                    Ok(bytes) => blake3::hash(&bytes).as_bytes()[..] != s.hash[..],
                    Err(_) => true,
                };
                if changed {
                    modified.push(f.rel.clone());
                }
            }
        }
    }
    let mut deleted: Vec<String> = stored
        .into_keys()
        .filter(|p| !seen.contains(p.as_str()))
        .collect();
    deleted.sort();
    Ok(Pending {
        new,
        modified,
        deleted,
    })
}
