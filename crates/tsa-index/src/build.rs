//! Cold and incremental builds: hash raw bytes (one hash for build and sync),
//! parse only what changed on all cores, write everything in one transaction,
//! then re-resolve calls.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use rusqlite::{Connection, OptionalExtension};
use tsa_lang::{FileExtract, Language, extract_again, extract_with, is_test_path, return_type};

use crate::IndexError;
use crate::confine::{ConfineError, read_confined_capped};
use crate::fault::{checkpoint, pause};
use crate::heal::{self, Quarantined, State};
use crate::layout::Layout;
use crate::resolve::{Binding, MCall, MField, MFile, MImport, MSym, Model, Resolution, Skeleton};
use crate::scip_import::{self, DEFAULT_SCIP, ScipReport};
use crate::store::{self, FileRow, Writer};
use crate::walk::{SourceFile, WalkOptions, walk, walk_paths};

mod cold;
pub(crate) mod kept;
mod priors;
mod replace;

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

/// Where a build is: the phase, and files done of the total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// `parse`, `write` or `resolve`.
    pub phase: &'static str,
    pub done: usize,
    pub total: usize,
}

/// Receives build progress, from any thread.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

#[derive(Clone, Default)]
pub struct BuildOptions {
    pub mode: BuildMode,
    pub walk: WalkOptions,
    /// Called as files are parsed and phases change (a progress bar, MCP notifications).
    pub progress: Option<ProgressSink>,
    /// Measurements taken from each parse tree and stored with the file.
    pub facts: Option<tsa_lang::FactsHook>,
    /// Also run `PRAGMA quick_check` on the existing index before writing (under the
    /// build lock), moving it aside when it fails. The cheap checks always run.
    pub verify: bool,
    /// How long to wait for another build of the index; `None`: as long as it takes.
    /// Past it the build fails with [`IndexError::Building`].
    pub lock_wait: Option<std::time::Duration>,
    /// Only these project-relative paths changed (a watcher's burst, `index sync
    /// paths`): a sync looks at them instead of walking the tree, when it can
    /// ([`crate::walk_paths`]; else it walks). Cold and full builds walk.
    pub changed: Option<Vec<String>>,
}

impl std::fmt::Debug for BuildOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildOptions")
            .field("mode", &self.mode)
            .field("walk", &self.walk)
            .field("progress", &self.progress.is_some())
            .field("facts", &self.facts.is_some())
            .field("verify", &self.verify)
            .field("lock_wait", &self.lock_wait)
            .field("changed", &self.changed)
            .finish()
    }
}

impl BuildOptions {
    /// A full rebuild (every file parsed again), the defaults otherwise.
    pub fn full() -> Self {
        Self {
            mode: BuildMode::Full,
            ..Self::default()
        }
    }

    fn report(&self, phase: &'static str, done: usize, total: usize) {
        if let Some(p) = &self.progress {
            p(Progress { phase, done, total });
        }
    }
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
    /// Of `indexed`: files not in the index before, and files re-parsed after a change.
    pub new_files: usize,
    pub updated_files: usize,
    pub cached: usize,
    pub deleted: usize,
    pub errors: usize,
    pub skipped_binary: usize,
    pub skipped_unknown_extension: usize,
    pub skipped_too_large: usize,
    pub skipped_structure_only: usize,
    /// Files listed by the walk that were gone (deleted or renamed) when read.
    pub skipped_missing: usize,
    pub truncated_by_max_files: bool,
    /// Source files past `max_files`, left out (counted).
    pub skipped_over_max_files: usize,
    /// Source files the ignore rules left out (counted when the walk was asked to).
    pub skipped_ignored: usize,
    /// The ignore rules that left them out, most files first.
    pub ignore_rules: Vec<crate::walk::IgnoreRule>,
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
    /// The SCIP import this build ran (its inputs changed, or the index was new).
    pub scip: Option<ScipReport>,
    /// Why the SCIP import of this build failed (the build itself stands).
    pub scip_error: Option<String>,
    /// The index this build found unusable and moved aside before building cold.
    pub healed: Option<Quarantined>,
}

enum Outcome {
    Unchanged,
    Touched,
    Parsed {
        hash: [u8; 32],
        x: FileExtract,
    },
    Binary,
    /// Gone between the walk and the read (the reason: deleted, or swapped for a
    /// symlink, which is not followed).
    Vanished(&'static str),
    /// Grew past the size limit between the walk and the read.
    TooLarge(u64),
    Failed(String),
}

struct Stored {
    hash: Vec<u8>,
    size: i64,
    mtime_ns: i64,
}

fn stored_files(
    conn: &Connection,
    only: Option<&[String]>,
) -> Result<HashMap<String, Stored>, IndexError> {
    let row = |r: &rusqlite::Row<'_>| {
        Ok((
            r.get::<_, String>(0)?,
            Stored {
                hash: r.get(1)?,
                size: r.get(2)?,
                mtime_ns: r.get(3)?,
            },
        ))
    };
    let Some(only) = only else {
        let mut stmt = conn.prepare("SELECT path, hash, size, mtime_ns FROM files")?;
        return Ok(stmt.query_map([], row)?.collect::<Result<_, _>>()?);
    };
    // The paths themselves and what is below them (a removed folder), by the
    // path index: `p/` up to `p0` ('0' follows '/').
    let mut stmt = conn.prepare_cached(
        "SELECT path, hash, size, mtime_ns FROM files
         WHERE path = ?1 OR (path > ?1 || '/' AND path < ?1 || '0')",
    )?;
    let mut out = HashMap::new();
    for p in only {
        for r in stmt.query_map([p], row)? {
            let (k, v) = r?;
            out.insert(k, v);
        }
    }
    Ok(out)
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

/// How a walked file compares with its stored row, without parsing it: same size
/// and mtime -> unchanged; else the BLAKE3 hash of the raw bytes decides.
enum Compared {
    Unchanged,
    Touched,
    Changed {
        bytes: Vec<u8>,
        hash: [u8; 32],
    },
    Vanished,
    /// Swapped for a symlink (or moved below one leading out) since the walk.
    Linked,
    TooLarge(u64),
    Unreadable(String),
}

/// Compares walked file `f` of `root` with its stored row. The bytes are read once
/// (what is hashed is what is parsed) and only inside the root: a file swapped for
/// a symlink since the walk is not followed.
fn compare(root: &Path, f: &SourceFile, stored: Option<&Stored>, max_size: u64) -> Compared {
    if let Some(s) = stored
        && s.size == f.size as i64
        && s.mtime_ns == f.mtime_ns
    {
        return Compared::Unchanged;
    }
    let bytes = match read_confined_capped(root, &f.rel, max_size) {
        Ok(Ok(b)) => b,
        Ok(Err(len)) => return Compared::TooLarge(len),
        Err(ConfineError::NotFound(_)) => return Compared::Vanished,
        Err(ConfineError::Outside(_)) => return Compared::Linked,
        Err(e) => return Compared::Unreadable(e.to_string()),
    };
    let hash = *blake3::hash(&bytes).as_bytes();
    if stored.is_some_and(|s| s.hash == hash) {
        return Compared::Touched;
    }
    Compared::Changed { bytes, hash }
}

/// Reads, compares and (changed) parses file `f`; a sync's parse of it starts from
/// the last one this process kept for index `priors`, and is kept in turn.
fn examine(
    root: &Path,
    f: &SourceFile,
    (stored, priors): (Option<&Stored>, Option<&Path>),
    max_size: u64,
    hook: Option<&tsa_lang::FactsHook>,
) -> Outcome {
    let outcome = match compare(root, f, stored, max_size) {
        Compared::Unchanged => Outcome::Unchanged,
        Compared::Touched => Outcome::Touched,
        Compared::Vanished => Outcome::Vanished(VANISHED),
        Compared::Linked => Outcome::Vanished(LINKED),
        Compared::TooLarge(len) => Outcome::TooLarge(len),
        Compared::Unreadable(e) => Outcome::Failed(e),
        Compared::Changed { bytes, .. } if is_binary(&bytes) => Outcome::Binary,
        Compared::Changed { bytes, hash } => {
            pause(&|| format!("read:{}", f.rel));
            let parsed = match priors {
                Some(db) => {
                    let prior = priors::take(db, &f.rel);
                    extract_again(f.language, &bytes, hook, prior).map(|(x, next)| {
                        if let Some(next) = next {
                            priors::keep(db, &f.rel, next);
                        }
                        x
                    })
                }
                None => extract_with(f.language, &bytes, hook),
            };
            match parsed {
                Ok(x) => Outcome::Parsed { hash, x },
                Err(e) => Outcome::Failed(e.to_string()),
            }
        }
    };
    checkpoint("parse");
    outcome
}

/// The reason given for a file skipped by the size limit.
pub(crate) fn too_large_reason(len: u64, max: u64) -> String {
    format!("larger than max_file_size ({len} > {max} bytes)")
}

fn hex16(hash: &[u8]) -> String {
    hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Builds or refreshes the index of `root`. Under the build lock it first examines
/// the index (the cheap checks, and `quick_check` with `opts.verify`): an index it
/// cannot use is moved aside and the build runs cold, as it does again when the
/// index turns out damaged mid-build (`report.healed` says so).
pub fn build(root: &Path, opts: &BuildOptions) -> Result<BuildReport, IndexError> {
    // Concurrent builds would race on the fresh file and the resolution pass.
    let _lock = store::lock_builds_within(root, opts.lock_wait)?;
    let started = Instant::now();
    // A full build replaces the index whatever it holds: its `quick_check` (which
    // reads every page: 15 s on the kernel's index) runs beside the build rather
    // than before it, and decides at the end whether the old file is moved aside.
    let deep_beside = opts.verify && opts.mode == BuildMode::Full;
    let (existing, healed) = match heal::examine(root, opts.verify && !deep_beside)? {
        State::Current => (true, None),
        State::Absent | State::Older(_) => (false, None),
        State::Damaged(reason) => (false, Some(heal::quarantine(root, reason)?)),
    };
    let report = match build_locked(root, opts, (existing, deep_beside), started) {
        // Under the lock the file that failed is the index itself: set it aside.
        Err(e) if existing && heal::is_damage(&e) => {
            let healed = heal::quarantine(root, heal::words(&e))?;
            let mut r = build_locked(root, opts, (false, false), started)?;
            r.healed = Some(healed);
            return Ok(r);
        }
        r => r?,
    };
    let healed = healed.or(report.healed.clone());
    Ok(BuildReport { healed, ..report })
}

/// A build under the lock: `existing` says whether the index at its path is one
/// of this schema to sync (else nothing there is opened and the build runs cold,
/// renaming its fresh file into place, so a reader meanwhile finds no index rather
/// than an empty one); `deep`, whether that index's `quick_check` is still to run
/// (beside a cold build, which moves the index aside if it fails).
fn build_locked(
    root: &Path,
    opts: &BuildOptions,
    (existing, deep): (bool, bool),
    started: Instant,
) -> Result<BuildReport, IndexError> {
    // An index still to be checked is only read until the check says it is sound
    // (opened to write, SQLite would mark its header: a damaged file is kept as
    // it was).
    let mut conn = if existing && !deep {
        Some(store::open_for_write(root)?)
    } else {
        store::check_index_files(root)?;
        std::fs::create_dir_all(store::index_dir(root))?;
        None
    };
    let peek = if existing && deep {
        Some(heal::open_to_read(root)?)
    } else {
        None
    };
    checkpoint("open");
    let view = conn.as_ref().or(peek.as_ref());
    let (remembered, last_scip) = remembered_scip(view)?;
    let (walked, layout, layout_json, walk_opts, told) = walk_of(root, opts, view)?;
    drop(peek);
    let walk_ms = started.elapsed().as_millis();
    checkpoint("walk");
    pause(&|| "walked".to_owned());
    let stored = match (opts.mode, &conn) {
        (BuildMode::Incremental, Some(conn)) => {
            stored_files(conn, told.then_some(walk_opts.only.as_slice()))?
        }
        _ => HashMap::new(),
    };
    let cold = opts.mode == BuildMode::Full || (stored.is_empty() && !told);
    // The deep check of the index this build replaces, on a thread of its own
    // (`deep` is asked of full builds only, which run cold).
    let check = match (deep && existing).then(|| {
        let root = root.to_path_buf();
        std::thread::Builder::new()
            .name("tsa-check".into())
            .spawn(move || heal::deep_problem(&root))
    }) {
        Some(spawned) => Some(DeepCheck(Some(spawned?))),
        None => None,
    };
    let t = Instant::now();
    let total = walked.files.len();
    let done = AtomicUsize::new(0);
    let db = store::index_path(root);
    // A cold build parses as it writes (see `cold`).
    let outcomes: Vec<Outcome> = if cold {
        Vec::new()
    } else {
        opts.report("parse", 0, total);
        walked
            .files
            .par_iter()
            .map(|f| {
                let o = examine(
                    root,
                    f,
                    (stored.get(&f.rel), Some(&db)),
                    opts.walk.max_file_size,
                    opts.facts.as_ref(),
                );
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if n.is_multiple_of(32) || n == total {
                    opts.report("parse", n, total);
                }
                o
            })
            .collect()
    };
    let parse_ms = t.elapsed().as_millis();
    let mut report = BuildReport {
        mode_used: opts.mode.as_str(),
        total_files: walked.files.len(),
        skipped_unknown_extension: walked.skipped_unknown_extension,
        skipped_too_large: walked.skipped_too_large,
        skipped_structure_only: walked.skipped_structure_only,
        truncated_by_max_files: walked.truncated_by_max_files,
        skipped_over_max_files: walked.skipped_over_max_files,
        skipped_ignored: walked.skipped_ignored,
        ignore_rules: walked.ignore_rules.clone(),
        workers: rayon::current_num_threads(),
        walk_ms,
        parse_ms,
        ..BuildReport::default()
    };
    for (rel, len) in &walked.too_large {
        report.files.push(status(
            rel,
            "skipped",
            too_large_reason(*len, opts.walk.max_file_size),
        ));
    }
    if !cold {
        opts.report("write", total, total);
    }
    if cold {
        build_cold(
            root,
            (conn, check),
            &walked.files,
            (&layout, &layout_json),
            opts,
            &mut report,
        )?;
    } else if let Some(conn) = conn.as_mut() {
        let tx = conn.transaction()?;
        let resolved = write_incremental(
            &tx,
            &walked,
            (&store::index_path(root), &layout, &layout_json),
            &walk_opts,
            &stored,
            outcomes,
            &mut report,
        )?;
        store::set_meta(&tx, "built_at", &now_secs().to_string())?;
        store::set_meta(&tx, "last_mode", opts.mode.as_str())?;
        checkpoint("commit");
        tx.commit()?;
        checkpoint("commit");
        if let Some((stamp, skeleton)) = resolved {
            kept::keep(&store::index_path(root), stamp, &layout_json, skeleton);
        }
    }
    // Compiler-grade edges: the SCIP files of the project (`index.scip` at the root,
    // `[scip] inputs` of `tsa.toml`, files imported before), re-read when they
    // changed or the build started from nothing. A bad one is reported, never fatal
    // to the build.
    let inputs = scip_inputs(root, &remembered);
    if !inputs.is_empty() {
        let fresh_db = cold || last_scip.is_none();
        if fresh_db || last_scip.as_deref() != Some(scip_fingerprint(root, &inputs).as_str()) {
            match import_scip_locked(root, &inputs) {
                Ok(r) => report.scip = Some(r),
                Err(e) => report.scip_error = Some(e.to_string()),
            }
        }
    }
    report.elapsed_ms = started.elapsed().as_millis();
    Ok(report)
}

/// Seconds since the epoch.
fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A cold build writes a fresh database beside the old one (no journal: the old
/// file is the fallback) and renames it into place in one step.
fn build_cold(
    root: &Path,
    (conn, mut check): (Option<Connection>, Option<DeepCheck>),
    files: &[SourceFile],
    (layout, layout_json): (&Layout, &str),
    opts: &BuildOptions,
    report: &mut BuildReport,
) -> Result<(), IndexError> {
    let (mut fresh, tmp) = store::open_fresh(root)?;
    let written = (|| {
        let tx = fresh.transaction()?;
        let skeleton = cold::write(
            &tx,
            root,
            files,
            (layout, &store::fts_side(&tmp)),
            opts,
            report,
        )?;
        opts.report("write", files.len(), files.len());
        let t = Instant::now();
        store::set_meta(&tx, "layout", layout_json)?;
        store::set_meta(&tx, "built_at", &now_secs().to_string())?;
        store::set_meta(&tx, "last_mode", opts.mode.as_str())?;
        let stamp = kept::new_stamp();
        store::set_meta(&tx, kept::STAMP, &stamp)?;
        checkpoint("commit");
        tx.commit()?;
        checkpoint("commit");
        report.write_ms += t.elapsed().as_millis();
        Ok::<_, IndexError>((stamp, skeleton))
    })();
    drop(fresh);
    // The FTS side file, copied in (or of a build that failed).
    store::discard_fts_side(&store::fts_side(&tmp));
    let (stamp, skeleton) = match written {
        Ok(w) => w,
        Err(e) => {
            // A failed cold build (a full disk, say) leaves the old index as it
            // was and gives back the space the new one took.
            store::discard_fresh(&tmp);
            return Err(e);
        }
    };
    let t = Instant::now();
    // The old index was checked beside the build: sound, it is opened now to be
    // replaced; damaged, it is moved aside.
    let checked = check.is_some();
    let damaged = match check.take().map(|c| c.join()) {
        Some(Ok(found)) => found,
        Some(Err(_)) => Err(IndexError::Io(std::io::Error::other(
            "the index check stopped",
        ))),
        None => Ok(None),
    };
    let conn = match damaged {
        Ok(None) if checked => match store::open_for_write(root) {
            Ok(old) => Some(old),
            Err(e) => {
                store::discard_fresh(&tmp);
                return Err(e);
            }
        },
        Ok(None) => conn,
        Ok(Some(reason)) => {
            drop(conn);
            match heal::quarantine(root, reason) {
                Ok(q) => report.healed = Some(q),
                Err(e) => {
                    store::discard_fresh(&tmp);
                    return Err(e);
                }
            }
            None
        }
        Err(e) => {
            store::discard_fresh(&tmp);
            return Err(e);
        }
    };
    if let Err(e) = store::replace_with(root, conn, &tmp) {
        store::discard_fresh(&tmp);
        return Err(e);
    }
    kept::keep(&store::index_path(root), stamp, layout_json, skeleton);
    report.write_ms += t.elapsed().as_millis();
    Ok(())
}

/// A deep check running beside a cold build: the damage it found, if any. A
/// build that fails before it asks still waits for it (dropped), so no reader of
/// the old index outlives the build lock.
struct DeepCheck(Option<std::thread::JoinHandle<Result<Option<String>, IndexError>>>);

impl DeepCheck {
    fn join(mut self) -> std::thread::Result<Result<Option<String>, IndexError>> {
        match self.0.take() {
            Some(h) => h.join(),
            None => Ok(Ok(None)),
        }
    }
}

impl Drop for DeepCheck {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            let _ = h.join();
        }
    }
}

/// The SCIP files a build picks up: `index.scip` at the root, `[scip] inputs` in
/// the project's `tsa.toml`, and the files imported before, those that exist.
fn scip_inputs(root: &Path, remembered: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if crate::confined(root, DEFAULT_SCIP).is_ok_and(|p| p.is_file()) {
        out.push(DEFAULT_SCIP.to_owned());
    }
    if let Ok(Ok(bytes)) = crate::read_confined_capped(root, "tsa.toml", 64 * 1024)
        && let Ok(doc) = String::from_utf8_lossy(&bytes).parse::<toml_edit::Document<String>>()
        && let Some(list) = doc
            .as_table()
            .get("scip")
            .and_then(|t| t.get("inputs"))
            .and_then(toml_edit::Item::as_array)
    {
        out.extend(list.iter().filter_map(|v| v.as_str().map(str::to_owned)));
    }
    out.extend(remembered.iter().cloned());
    let mut seen = HashSet::new();
    out.retain(|p| seen.insert(p.clone()) && crate::confined(root, p).is_ok_and(|p| p.is_file()));
    out
}

/// Size and modification time of each SCIP input: re-read when any changes.
fn scip_fingerprint(root: &Path, inputs: &[String]) -> String {
    inputs
        .iter()
        .map(|p| {
            let meta = crate::confined(root, p)
                .ok()
                .and_then(|a| std::fs::metadata(a).ok());
            let (len, mtime) = meta.map_or((0, 0), |m| {
                (
                    m.len(),
                    m.modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0, |d| d.as_nanos()),
                )
            });
            format!("{p}:{len}:{mtime}")
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// `index scip`: reads the SCIP files `inputs` (project-relative, inside the root)
/// and binds the call sites they resolve; they are picked up again by later builds.
/// A corrupt or truncated file is an error and the index stays as it was.
pub fn import_scip(root: &Path, inputs: &[String]) -> Result<ScipReport, IndexError> {
    let _lock = store::lock_builds_within(root, None)?;
    let remembered: Vec<String> = {
        let conn = store::open_for_write(root)?;
        store::get_meta(&conn, "scip_inputs")?
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default()
    };
    let mut all: Vec<String> = inputs.to_vec();
    for r in remembered {
        if !all.contains(&r) && crate::confined(root, &r).is_ok_and(|p| p.is_file()) {
            all.push(r);
        }
    }
    import_scip_locked(root, &all)
}

fn import_scip_locked(root: &Path, inputs: &[String]) -> Result<ScipReport, IndexError> {
    let mut conn = store::open_for_write(root)?;
    let indexed: HashSet<String> = {
        let mut stmt = conn.prepare("SELECT path FROM files")?;
        stmt.query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<_, _>>()?
    };
    // Everything is read before anything is written.
    let collected = scip_import::collect(root, inputs, &indexed)?;
    let mut report = collected.report;
    let tx = conn.transaction()?;
    let layout = Layout::from_json(store::get_meta(&tx, "layout")?.as_deref());
    apply_compiler_edges(&tx, &collected.edges, &layout, &mut report)?;
    store::set_meta(
        &tx,
        "scip",
        &serde_json::to_string(&report).unwrap_or_default(),
    )?;
    store::set_meta(
        &tx,
        "scip_inputs",
        &serde_json::to_string(inputs).unwrap_or_default(),
    )?;
    store::set_meta(&tx, "scip_fingerprint", &scip_fingerprint(root, inputs))?;
    tx.commit()?;
    Ok(report)
}

/// Binds the call sites SCIP resolves: earlier compiler bindings first go back to
/// the heuristics, then each site a fresh document resolves gets its target (class
/// `compiler`) or its outside class and package; the site's further targets go.
fn apply_compiler_edges(
    tx: &rusqlite::Transaction<'_>,
    edges: &[scip_import::Edge],
    layout: &Layout,
    report: &mut ScipReport,
) -> Result<(), IndexError> {
    let compiler = Resolution::Compiler.code();
    let names: HashSet<String> = {
        let mut stmt = tx.prepare(
            "SELECT DISTINCT n.name FROM calls c JOIN names n ON n.id = c.callee_id
             WHERE c.resolution = ?1 OR c.package IS NOT NULL",
        )?;
        stmt.query_map([compiler], |r| r.get::<_, String>(0))?
            .collect::<Result<_, _>>()?
    };
    if !names.is_empty() {
        tx.execute(
            "UPDATE calls SET resolution = 5, target_id = NULL, confidence = 0, package = NULL
             WHERE resolution = ?1 OR package IS NOT NULL",
            [compiler],
        )?;
        resolve(tx, &Scope::names(names), layout, None)?;
    }
    let mut file_ids: HashMap<String, Option<i64>> = HashMap::new();
    let mut name_ids: HashMap<String, Option<i64>> = HashMap::new();
    let mut file_id = |p: &str| -> Result<Option<i64>, IndexError> {
        if let Some(id) = file_ids.get(p) {
            return Ok(*id);
        }
        let id = tx
            .prepare_cached("SELECT id FROM files WHERE path = ?1")?
            .query_row([p], |r| r.get(0))
            .optional()?;
        file_ids.insert(p.to_owned(), id);
        Ok(id)
    };
    let mut name_id = |n: &str| -> Result<Option<i64>, IndexError> {
        if let Some(id) = name_ids.get(n) {
            return Ok(*id);
        }
        let id = tx
            .prepare_cached("SELECT id FROM names WHERE name = ?1")?
            .query_row([n], |r| r.get(0))
            .optional()?;
        name_ids.insert(n.to_owned(), id);
        Ok(id)
    };
    // Per file, loaded once: its call sites by (line, callee) (with the further-target
    // rows of each site), and its definitions by (line, name).
    type Site = (i64, Option<i64>, i64, Option<i64>);
    type Sites = HashMap<(u32, i64), (Vec<Site>, Vec<i64>)>;
    let mut sites_of: HashMap<i64, Sites> = HashMap::new();
    let mut defs_of: HashMap<i64, HashMap<(u32, i64), i64>> = HashMap::new();
    let mut done: HashSet<i64> = HashSet::new();
    let mut update = tx.prepare_cached(
        "UPDATE calls SET target_id = ?2, resolution = ?3, confidence = 1.0, package = ?4
         WHERE id = ?1",
    )?;
    let mut delete = tx.prepare_cached("DELETE FROM calls WHERE id = ?1")?;
    for e in edges {
        let (Some(fid), Some(cid)) = (file_id(&e.file)?, name_id(&e.callee)?) else {
            report.references_without_call_site += 1;
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(slot) = sites_of.entry(fid) {
            let mut map: Sites = HashMap::new();
            let mut stmt = tx.prepare_cached(
                "SELECT id, line, callee_id, target_id, resolution, caller_id, alt FROM calls
                 WHERE file_id = ?1",
            )?;
            let rows = stmt.query_map([fid], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, u32>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })?;
            for row in rows {
                let (id, line, callee, target, class, caller, alt) = row?;
                let slot = map.entry((line, callee)).or_default();
                if alt == 0 {
                    slot.0.push((id, target, class, caller));
                } else {
                    slot.1.push(id);
                }
            }
            slot.insert(map);
        }
        let Some((sites, alts)) = sites_of
            .get(&fid)
            .and_then(|m| m.get(&(e.line, cid)))
            .cloned()
        else {
            report.references_without_call_site += 1;
            continue;
        };
        if sites.is_empty() {
            report.references_without_call_site += 1;
            continue;
        }
        let (target, class, package) = match &e.target {
            scip_import::Target::Def { file, line, name } => {
                let sym = match (file_id(file)?, name_id(name)?) {
                    (Some(tf), Some(tn)) => {
                        if let std::collections::hash_map::Entry::Vacant(slot) = defs_of.entry(tf) {
                            let mut map = HashMap::new();
                            let mut stmt = tx.prepare_cached(
                                "SELECT id, line, name_id FROM symbols WHERE file_id = ?1 ORDER BY id",
                            )?;
                            let rows = stmt.query_map([tf], |r| {
                                Ok((
                                    r.get::<_, i64>(0)?,
                                    r.get::<_, u32>(1)?,
                                    r.get::<_, i64>(2)?,
                                ))
                            })?;
                            for row in rows {
                                let (id, l, n) = row?;
                                map.entry((l, n)).or_insert(id);
                            }
                            slot.insert(map);
                        }
                        defs_of.get(&tf).and_then(|m| m.get(&(*line, tn)).copied())
                    }
                    _ => None,
                };
                match sym {
                    Some(id) => (Some(id), compiler, None),
                    None => {
                        report.unmapped_targets += 1;
                        continue;
                    }
                }
            }
            scip_import::Target::Outside { stdlib, package } => {
                let class = if *stdlib {
                    Resolution::Stdlib
                } else {
                    Resolution::External
                };
                (None, class.code(), Some(package.clone()))
            }
        };
        for (id, old_target, old_class, _caller) in sites {
            if !done.insert(id) {
                continue;
            }
            match (target, old_target) {
                (None, Some(_)) => report.contradicted += 1,
                (None, None) => {}
                (Some(t), Some(o)) if t == o && (old_class == 0 || old_class == 1) => {
                    report.upgraded += 1
                }
                (Some(_), Some(_)) => report.contradicted += 1,
                (Some(_), None) => report.added += 1,
            }
            if target.is_none() {
                report.external += 1;
            }
            update.execute(rusqlite::params![id, target, class, package])?;
        }
        // The site's further targets (variants, dispatch) go: the compiler knows.
        for a in alts {
            if done.insert(a) {
                delete.execute([a])?;
            }
        }
    }
    Ok(())
}

const VANISHED: &str = "file vanished between walk and read (deleted or renamed)";
const LINKED: &str =
    "file replaced by a symlink between walk and read (not followed: it may leave the project)";

fn status(file: &str, status: &'static str, reason: impl Into<String>) -> FileStatus {
    FileStatus {
        file: file.to_owned(),
        status,
        reason: reason.into(),
        symbols: 0,
        call_edges: 0,
        parse_errors: 0,
        content_hash: String::new(),
    }
}

fn indexed_status(f: &SourceFile, hash: &[u8], x: &FileExtract) -> FileStatus {
    FileStatus {
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
        content_hash: hex16(hash),
    }
}

fn file_row<'a>(f: &'a SourceFile, hash: &'a [u8]) -> FileRow<'a> {
    FileRow {
        path: &f.rel,
        language: f.language.name(),
        hash,
        size: f.size,
        mtime_ns: f.mtime_ns,
        is_test: is_test_path(&f.rel),
    }
}

/// The type a definition's signature states: a callable's return type, or the
/// type an alias stands for.
fn written_type(lang: Language, kind: tsa_lang::DefKind, name: &str, sig: &str) -> Option<String> {
    if kind.is_callable() {
        return_type(lang, name, sig)
    } else if kind == tsa_lang::DefKind::Type {
        tsa_lang::alias_target(sig)
    } else {
        None
    }
}

/// The typed fields a freshly parsed file declares.
fn fields_brought(x: &FileExtract, fields: &mut HashSet<(String, String, String)>) {
    fields.extend(
        x.fields
            .iter()
            .map(|f| (f.owner.clone(), f.name.clone(), f.ty.clone())),
    );
}

/// The typed fields the stored files `file_ids` declare.
fn fields_of_files(
    tx: &rusqlite::Transaction<'_>,
    file_ids: &[i64],
    fields: &mut HashSet<(String, String, String)>,
) -> Result<(), IndexError> {
    let mut fs = tx.prepare_cached(
        "SELECT o.name, n.name, f.type FROM fields f JOIN names n ON n.id = f.name_id
         JOIN names o ON o.id = f.owner_id WHERE f.file_id = ?1",
    )?;
    for id in file_ids {
        for row in fs.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))? {
            fields.insert(row?);
        }
    }
    Ok(())
}

/// Names whose bindings removing the stored files `file_ids` can alter: the names
/// they define and the names they import.
fn names_of_files(
    tx: &rusqlite::Transaction<'_>,
    file_ids: &[i64],
) -> Result<HashSet<String>, IndexError> {
    let mut out = HashSet::new();
    let mut defs = tx.prepare_cached(
        "SELECT n.name FROM symbols s JOIN names n ON n.id = s.name_id WHERE s.file_id = ?1",
    )?;
    let mut imps = tx.prepare_cached("SELECT alias, name FROM imports WHERE file_id = ?1")?;
    for id in file_ids {
        for n in defs.query_map([id], |r| r.get::<_, String>(0))? {
            out.insert(n?);
        }
        let rows: Vec<(String, Option<String>)> = imps
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        out.extend(replace::import_names(rows.iter().map(|(a, n)| (a, n))));
    }
    Ok(out)
}

/// The SCIP files imported before and their fingerprint (a cold build starts a
/// fresh database: none).
fn remembered_scip(conn: Option<&Connection>) -> Result<(Vec<String>, Option<String>), IndexError> {
    Ok(match conn {
        Some(c) => (
            store::get_meta(c, "scip_inputs")?
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or_default(),
            store::get_meta(c, "scip_fingerprint")?,
        ),
        None => (Vec::new(), None),
    })
}

/// What a build walks: the whole tree (with the layout its manifests give), or,
/// for a sync told what changed, only those paths (with the stored layout). Also
/// the walk options scoping the removals, and whether the sync was told.
fn walk_of(
    root: &Path,
    opts: &BuildOptions,
    conn: Option<&Connection>,
) -> Result<(crate::walk::WalkResult, Layout, String, WalkOptions, bool), IndexError> {
    // A sync told what changed looks only there (the layout is the stored one: no
    // manifest changed).
    let told = match (&opts.changed, conn, opts.mode) {
        (Some(paths), Some(c), BuildMode::Incremental) => {
            match (
                store::get_meta(c, "layout")?,
                walk_paths(root, &opts.walk, paths),
            ) {
                (Some(json), Some(walked)) => Some((walked, json, paths.clone())),
                _ => None,
            }
        }
        _ => None,
    };
    Ok(match told {
        Some((walked, json, paths)) => {
            let walk_opts = WalkOptions {
                only: paths,
                ..opts.walk.clone()
            };
            (
                walked,
                Layout::from_json(Some(&json)),
                json,
                walk_opts,
                true,
            )
        }
        None => {
            let walked = walk_for(root, opts, conn.is_none());
            let layout = Layout::read(root, &walked.manifests);
            let json = layout.to_json();
            (walked, layout, json, opts.walk.clone(), false)
        }
    })
}

/// The walk of a build: a cold or full build also counts what the ignore rules
/// left out (a second, rule-free walk of the folders); a sync does not pay for it.
fn walk_for(root: &Path, opts: &BuildOptions, cold: bool) -> crate::walk::WalkResult {
    let walk_opts = WalkOptions {
        count_ignored: opts.walk.count_ignored || cold || opts.mode == BuildMode::Full,
        ..opts.walk.clone()
    };
    walk(root, &walk_opts)
}

/// An incremental build: rewrite the rows of changed files, then re-resolve only
/// the call sites, imports and bases the change can affect.
/// The stored files no longer on disk (in scope, sorted); the old ids of files
/// about to be rewritten or removed; of those removed (every name they define or
/// import is affected: a rewritten file says which of its names changed).
#[allow(clippy::type_complexity)]
fn going<'a>(
    tx: &rusqlite::Transaction<'_>,
    walked: &crate::walk::WalkResult,
    opts: &WalkOptions,
    stored: &'a HashMap<String, Stored>,
    outcomes: &[Outcome],
) -> Result<(Vec<&'a String>, Vec<i64>, Vec<i64>), IndexError> {
    let on_disk: HashSet<&str> = walked.files.iter().map(|f| f.rel.as_str()).collect();
    let mut gone: Vec<&String> = Vec::new();
    if !walked.truncated_by_max_files {
        gone = stored
            .keys()
            .filter(|p| !on_disk.contains(p.as_str()) && opts.in_scope(p))
            .collect();
        gone.sort();
    }
    let mut old_ids = Vec::new();
    let mut removed_ids = Vec::new();
    let mut id_of = tx.prepare_cached("SELECT id FROM files WHERE path = ?1")?;
    let mut lookup = |p: &str| -> Result<Option<i64>, IndexError> {
        Ok(id_of.query_row([p], |r| r.get(0)).optional()?)
    };
    for p in &gone {
        removed_ids.extend(lookup(p)?);
    }
    for (f, o) in walked.files.iter().zip(outcomes) {
        match o {
            Outcome::Parsed { .. } => old_ids.extend(lookup(&f.rel)?),
            Outcome::Binary | Outcome::Vanished(_) | Outcome::TooLarge(_) => {
                removed_ids.extend(lookup(&f.rel)?);
            }
            _ => {}
        }
    }
    old_ids.extend(removed_ids.iter().copied());
    Ok((gone, old_ids, removed_ids))
}

/// Returns, when it re-resolved, the stamp it wrote and the skeleton of that state.
fn write_incremental(
    tx: &rusqlite::Transaction<'_>,
    walked: &crate::walk::WalkResult,
    (db, layout, layout_json): (&Path, &Layout, &str),
    opts: &WalkOptions,
    stored: &HashMap<String, Stored>,
    outcomes: Vec<Outcome>,
    report: &mut BuildReport,
) -> Result<Option<(String, kept::Kept)>, IndexError> {
    let stamp = store::get_meta(tx, kept::STAMP)?;
    let t = Instant::now();
    let mut w = Writer::new(tx);
    let (gone, old_ids, removed_ids) = going(tx, walked, opts, stored, &outcomes)?;
    // Fields whose declarations change: calls on `Owner#field` receivers elsewhere.
    // (Only declarations that changed: a field declared the same before and after
    // types every receiver as it did.)
    let mut old_fields = HashSet::new();
    let mut new_fields: HashSet<(String, String, String)> = HashSet::new();
    fields_of_files(tx, &old_ids, &mut old_fields)?;
    let mut affected_names = names_of_files(tx, &removed_ids)?;
    // Compiler (SCIP) bindings into their definitions go back to the heuristics.
    affected_names.extend(replace::unbind_compiler_edges(tx, &old_ids)?);
    // A changed manifest (a new source root, module path, crate name) can change
    // any binding.
    let mut structure_changed = store::get_meta(tx, "layout")?.as_deref() != Some(layout_json);
    if structure_changed {
        store::set_meta(tx, "layout", layout_json)?;
    }
    for path in gone {
        w.delete_file(path)?;
        checkpoint("write");
        report.deleted += 1;
        structure_changed = true;
        report
            .files
            .push(status(path, "deleted", "file no longer on disk"));
    }
    let mut changed_ids = Vec::new();
    for (f, outcome) in walked.files.iter().zip(outcomes) {
        match outcome {
            Outcome::Unchanged => report.cached += 1,
            Outcome::Touched => {
                w.touch_file(&f.rel, f.size, f.mtime_ns)?;
                checkpoint("write");
                report.cached += 1;
            }
            Outcome::Parsed { hash, x } => {
                // The file and the definitions found again keep their ids.
                let r = replace::replace_file(tx, &mut w, &file_row(f, &hash), &x)?;
                // A C or C++ file whose includes changed changes what every file
                // including it reaches: their sites are re-bound too.
                if r.imports_changed && f.language.family() == tsa_lang::Family::C {
                    structure_changed = true;
                }
                if r.new {
                    structure_changed = true;
                    report.new_files += 1;
                } else {
                    report.updated_files += 1;
                }
                checkpoint("write");
                changed_ids.push(r.file_id);
                affected_names.extend(r.names);
                fields_brought(&x, &mut new_fields);
                report.indexed += 1;
                if x.parse_errors > 0 {
                    report.files_with_parse_errors += 1;
                }
                report.files.push(indexed_status(f, &hash, &x));
            }
            Outcome::Binary => {
                if w.delete_file(&f.rel)?.is_some() {
                    structure_changed = true;
                }
                report.skipped_binary += 1;
                report
                    .files
                    .push(status(&f.rel, "skipped", "binary content (NUL bytes)"));
            }
            // The walk listed it, the read found nothing: it is gone now, so are its rows.
            Outcome::Vanished(reason) => {
                if w.delete_file(&f.rel)?.is_some() {
                    structure_changed = true;
                    report.deleted += 1;
                }
                report.skipped_missing += 1;
                report.files.push(status(&f.rel, "skipped", reason));
            }
            Outcome::TooLarge(len) => {
                if w.delete_file(&f.rel)?.is_some() {
                    structure_changed = true;
                }
                report.skipped_too_large += 1;
                report.files.push(status(
                    &f.rel,
                    "skipped",
                    too_large_reason(len, opts.max_file_size),
                ));
            }
            Outcome::Failed(reason) => {
                report.errors += 1;
                report.files.push(status(&f.rel, "error", reason));
            }
        }
    }
    report.write_ms = t.elapsed().as_millis();
    let t = Instant::now();
    let mut resolved = None;
    if structure_changed || !changed_ids.is_empty() {
        let scope = if structure_changed {
            // Files came or went: module maps change, so everything is re-resolved.
            Scope::All
        } else {
            Scope::Some {
                files: changed_ids,
                names: affected_names,
                fields: old_fields
                    .symmetric_difference(&new_fields)
                    .map(|(_, name, _)| name.clone())
                    .collect(),
            }
        };
        // A skeleton kept from this index as it was before this transaction (files
        // came or went: it is built anew).
        let before = match scope {
            Scope::Some { .. } => kept::take(db, stamp.as_deref(), layout_json),
            Scope::All => None,
        };
        let (n, skeleton) = resolve(tx, &scope, layout, before)?;
        report.calls_resolved = n;
        let stamp = kept::new_stamp();
        store::set_meta(tx, kept::STAMP, &stamp)?;
        resolved = Some((stamp, skeleton));
    }
    report.resolve_ms = t.elapsed().as_millis();
    Ok(resolved)
}

/// Which rows an incremental resolution revisits.
enum Scope {
    All,
    Some {
        files: Vec<i64>,
        names: HashSet<String>,
        /// Field names declared (before or after) in the changed files.
        fields: HashSet<String>,
    },
}

impl Scope {
    /// The sites, imports and bases that name one of `names`.
    fn names(names: HashSet<String>) -> Scope {
        Scope::Some {
            files: Vec::new(),
            names,
            fields: HashSet::new(),
        }
    }

    /// The scope with the names that stand for its names through renaming imports
    /// (see [`renamed`]).
    fn widened(&self, skeleton: &Skeleton) -> Scope {
        match self {
            Scope::All => Scope::All,
            Scope::Some {
                files,
                names,
                fields,
            } => Scope::Some {
                files: files.clone(),
                names: renamed(skeleton, names),
                fields: fields.clone(),
            },
        }
    }

    /// A SQL condition over `<alias>.file_id` and a name-id column, with its parameters.
    fn condition(
        &self,
        tx: &rusqlite::Transaction<'_>,
        file_col: &str,
        name_cols: &[&str],
    ) -> Result<(String, Vec<i64>), IndexError> {
        match self {
            Scope::All => Ok(("1".into(), Vec::new())),
            Scope::Some {
                files,
                names,
                fields,
            } => {
                let mut name_ids = Vec::new();
                let mut get = tx.prepare_cached("SELECT id FROM names WHERE name = ?1")?;
                for n in names {
                    if let Some(id) = get.query_row([n], |r| r.get::<_, i64>(0)).optional()? {
                        name_ids.push(id);
                    }
                }
                let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
                let mut parts = vec![store::calls_keyed(file_col, &list(files))];
                for c in name_cols {
                    parts.push(store::calls_keyed(c, &list(&name_ids)));
                }
                // Calls whose receiver goes through a changed field (`Owner#field`).
                if file_col == "c.file_id" {
                    for f in fields.iter().filter(|f| {
                        f.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
                    }) {
                        parts.push(format!(
                            "c.receiver_type GLOB '*#{f}' OR c.receiver_type GLOB '*#{f}#*' \
                             OR c.receiver = '{f}' OR c.receiver GLOB '{f}.*'"
                        ));
                    }
                }
                Ok((parts.join(" OR "), Vec::new()))
            }
        }
    }
}

/// Every indexed file, and file id -> index.
fn load_files(conn: &Connection) -> Result<(Vec<MFile>, HashMap<i64, usize>), IndexError> {
    let mut files = Vec::new();
    let mut file_idx = HashMap::new();
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
    Ok((files, file_idx))
}

/// The skeleton a resolution in `scope` starts from: the one kept before this
/// transaction with the changed files' imports as it wrote them, else one loaded
/// whole.
fn skeleton_of(
    tx: &rusqlite::Transaction<'_>,
    scope: &Scope,
    layout: &Layout,
    before: Option<kept::Kept>,
) -> Result<kept::Kept, IndexError> {
    Ok(match (before, scope) {
        (Some(mut k), Scope::Some { files: changed, .. })
            if changed.iter().all(|id| k.file_idx.contains_key(id)) =>
        {
            // (A scope of some files means none came or went: ids stay.)
            for id in changed {
                let imports = load_file_imports(tx, *id)?;
                k.skeleton.set_imports(k.file_idx[id], imports);
            }
            k
        }
        _ => {
            let (files, file_idx) = load_files(tx)?;
            let imports = load_imports(tx, &file_idx, files.len())?;
            kept::Kept {
                skeleton: Skeleton::new(files, imports, layout),
                file_idx: Arc::new(file_idx),
            }
        }
    })
}

/// Re-binds the imports in `scope`: those of the changed files and those naming
/// an affected name.
fn rebind_imports(
    tx: &rusqlite::Transaction<'_>,
    scope: &Scope,
    model: &Model,
    file_idx: &HashMap<i64, usize>,
) -> Result<(), IndexError> {
    let sym_id = |s: usize| model.syms[s].id;
    // Found in the model, which holds every file's imports (then read by file id,
    // through an index, rather than by a scan of every import row for the names).
    let names_one = |imp: &MImport, names: &HashSet<String>| {
        (!imp.alias.is_empty() && names.contains(&imp.alias))
            || imp.name.as_ref().is_some_and(|n| names.contains(n))
    };
    let cond = match scope {
        Scope::All => "1".to_owned(),
        Scope::Some {
            files: changed,
            names,
            ..
        } => {
            let mut ids = changed.clone();
            // (Wildcards, `*`, are in every file that has includes.)
            let all: Vec<usize>;
            let candidates = if names.contains("*") {
                all = (0..model.files.len()).collect();
                &all
            } else {
                &*model.naming
            };
            for &k in candidates {
                if model.imports[k].iter().any(|imp| names_one(imp, names)) {
                    ids.push(model.files[k].id);
                }
            }
            format!("i.file_id IN ({})", id_list(ids))
        }
    };
    {
        let mut stmt = tx.prepare(&format!(
            "SELECT i.id, i.file_id, i.module, i.name, i.alias, i.level, i.target_file_id, i.target_id, i.resolution
             FROM imports i WHERE {cond}"
        ))?;
        let mut upd = tx.prepare_cached(
            "UPDATE imports SET target_file_id = ?2, target_id = ?3, resolution = ?4 WHERE id = ?1",
        )?;
        let mut q = stmt.query([])?;
        let mut changes = Vec::new();
        while let Some(r) = q.next()? {
            let Some(&file) = file_idx.get(&r.get::<_, i64>(1)?) else {
                continue;
            };
            let imp = import_at(r, 2)?;
            if let Scope::Some {
                files: changed,
                names,
                ..
            } = scope
                && !changed.contains(&model.files[file].id)
                && !names_one(&imp, names)
            {
                // (The model holds the definitions these names reach, not others.)
                continue;
            }
            let b = model.resolve_import(file, &imp);
            let tf = b.file.map(|f| model.files[f].id);
            let ts = b.target.map(sym_id);
            let old: (Option<i64>, Option<i64>, i64) = (r.get(6)?, r.get(7)?, r.get(8)?);
            if old != (tf, ts, b.resolution.code()) {
                changes.push((r.get::<_, i64>(0)?, tf, ts, b.resolution.code()));
            }
        }
        for (id, tf, ts, code) in changes {
            upd.execute(rusqlite::params![id, tf, ts, code])?;
        }
    }
    Ok(())
}

/// Re-binds the bases in `scope`.
fn rebind_bases(
    tx: &rusqlite::Transaction<'_>,
    scope: &Scope,
    model: &Model,
    sym_idx: &HashMap<i64, usize>,
) -> Result<(), IndexError> {
    let sym_id = |s: usize| model.syms[s].id;
    let (cond, _) = scope.condition(tx, "h.file_id", &["h.base_id"])?;
    {
        let mut stmt = tx.prepare(&format!(
            "SELECT h.id, h.symbol_id, n.name, h.target_id, h.resolution
             FROM inherits h JOIN names n ON n.id = h.base_id WHERE {cond}"
        ))?;
        let mut upd =
            tx.prepare_cached("UPDATE inherits SET target_id = ?2, resolution = ?3 WHERE id = ?1")?;
        let mut q = stmt.query([])?;
        let mut changes = Vec::new();
        while let Some(r) = q.next()? {
            let Some(&s) = sym_idx.get(&r.get::<_, i64>(1)?) else {
                continue;
            };
            let name: String = r.get(2)?;
            let b = model.resolve_base(s, &name);
            let t = b.target.map(sym_id);
            let old: (Option<i64>, i64) = (r.get(3)?, r.get(4)?);
            if old != (t, b.resolution.code()) {
                changes.push((r.get::<_, i64>(0)?, t, b.resolution.code()));
            }
        }
        for (id, t, code) in changes {
            upd.execute(rusqlite::params![id, t, code])?;
        }
    }
    Ok(())
}

/// `names` and the names that stand for them through imports that rename
/// (`from b import f as g`: a call of `g` reaches what `f` is, so it is re-bound
/// when `f` changes), along chains of such imports.
fn renamed(skeleton: &Skeleton, names: &HashSet<String>) -> HashSet<String> {
    let mut aliases: HashMap<&str, Vec<&str>> = HashMap::new();
    for imp in skeleton.naming.iter().flat_map(|&k| &skeleton.imports[k]) {
        if let Some(n) = &imp.name
            && !matches!(imp.alias.as_str(), "" | "*")
            && imp.alias != *n
        {
            aliases.entry(n).or_default().push(&imp.alias);
        }
    }
    let mut out = names.clone();
    reach(&mut out, &aliases);
    out
}

/// Adds to `names` every name `edges` lead to from them, along chains.
fn reach(names: &mut HashSet<String>, edges: &HashMap<&str, Vec<&str>>) {
    let mut todo: Vec<String> = names.iter().cloned().collect();
    while let Some(n) = todo.pop() {
        for &next in edges.get(n.as_str()).into_iter().flatten() {
            if names.insert(next.to_owned()) {
                todo.push(next.to_owned());
            }
        }
    }
}

/// An import read from columns `at..at + 4` (module, name, alias, level).
fn import_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<MImport> {
    Ok(MImport {
        module: r.get(at)?,
        name: r.get(at + 1)?,
        alias: r.get(at + 2)?,
        level: r.get(at + 3)?,
    })
}

/// One file's imports, in order.
pub(super) fn load_file_imports(
    conn: &Connection,
    file_id: i64,
) -> Result<Vec<MImport>, IndexError> {
    let mut stmt = conn.prepare_cached(
        "SELECT module, name, alias, level FROM imports WHERE file_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([file_id], |r| import_at(r, 0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Every import binding, per file.
fn load_imports(
    conn: &Connection,
    file_idx: &HashMap<i64, usize>,
    n: usize,
) -> Result<Vec<Vec<MImport>>, IndexError> {
    let mut imports: Vec<Vec<MImport>> = vec![Vec::new(); n];
    let mut stmt =
        conn.prepare("SELECT file_id, module, name, alias, level FROM imports ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let Some(&file) = file_idx.get(&r.get::<_, i64>(0)?) else {
            continue;
        };
        imports[file].push(import_at(r, 1)?);
    }
    Ok(imports)
}

/// Whether a definition's signature declares a function-typed parameter (TS:
/// `operate(init: (source: Observable<T>, subscriber: Subscriber<R>) => void)`).
fn takes_callback(lang: Language, kind: tsa_lang::DefKind, sig: &str) -> bool {
    lang.family() == tsa_lang::Family::Js && kind.is_callable() && sig.contains("=>")
}

/// Every field whose type the code states.
fn load_fields(
    conn: &Connection,
    file_idx: &HashMap<i64, usize>,
) -> Result<Vec<MField>, IndexError> {
    let mut names: FxHashMap<i64, Arc<str>> = FxHashMap::default();
    let mut out = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT f.file_id, f.owner_id, o.name, f.name_id, n.name, f.type
         FROM fields f JOIN names o ON o.id = f.owner_id JOIN names n ON n.id = f.name_id",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let Some(&file) = file_idx.get(&r.get::<_, i64>(0)?) else {
            continue;
        };
        let mut shared = |id: i64, col: usize| -> Result<Arc<str>, IndexError> {
            if let Some(n) = names.get(&id) {
                return Ok(Arc::clone(n));
            }
            let n: Arc<str> = Arc::from(r.get::<_, String>(col)?);
            names.insert(id, Arc::clone(&n));
            Ok(n)
        };
        let owner = shared(r.get(1)?, 2)?;
        let name = shared(r.get(3)?, 4)?;
        out.push(MField {
            file,
            owner,
            name,
            ty: Arc::from(r.get::<_, String>(5)?),
        });
    }
    Ok(out)
}

fn id_list(ids: impl IntoIterator<Item = i64>) -> String {
    ids.into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Symbols matching `filter` (all when `None`), then their parent chains, with
/// names shared as one `Arc` per name id. Returns the symbols and id -> index.
fn load_symbols(
    conn: &Connection,
    file_idx: &HashMap<i64, usize>,
    files_lang: &[Language],
    filter: Option<String>,
) -> Result<(Vec<MSym>, HashMap<i64, usize>), IndexError> {
    let mut names: FxHashMap<i64, Arc<str>> = FxHashMap::default();
    let mut syms: Vec<MSym> = Vec::new();
    let mut sym_idx: HashMap<i64, usize> = HashMap::new();
    let mut parents: Vec<Option<i64>> = Vec::new();
    let partial = filter.is_some();
    let mut condition = filter.unwrap_or_else(|| "1".into());
    let mut bases_fetched: HashSet<i64> = HashSet::new();
    let mut bases_requested: HashSet<String> = HashSet::new();
    let mut ifaces_fetched: HashSet<i64> = HashSet::new();
    loop {
        let mut stmt = conn.prepare(&format!(
            "SELECT s.id, s.file_id, s.name_id, n.name, s.kind, s.owner_id, o.name, s.parent_id, s.is_test, s.self_name, s.signature
             FROM symbols s JOIN names n ON n.id = s.name_id LEFT JOIN names o ON o.id = s.owner_id
             WHERE {condition} ORDER BY s.id"
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            if sym_idx.contains_key(&id) {
                continue;
            }
            let Some(&file) = file_idx.get(&r.get::<_, i64>(1)?) else {
                continue;
            };
            let kind = match r.get_ref(4)? {
                rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t)
                    .ok()
                    .and_then(tsa_lang::DefKind::parse),
                _ => None,
            };
            let Some(kind) = kind else { continue };
            let mut shared = |id: i64, col: usize| -> Result<Arc<str>, IndexError> {
                if let Some(n) = names.get(&id) {
                    return Ok(Arc::clone(n));
                }
                let n: Arc<str> = Arc::from(r.get::<_, String>(col)?);
                names.insert(id, Arc::clone(&n));
                Ok(n)
            };
            let name = shared(r.get(2)?, 3)?;
            let owner = r
                .get::<_, Option<i64>>(5)?
                .map(|o| shared(o, 6))
                .transpose()?;
            sym_idx.insert(id, syms.len());
            parents.push(r.get::<_, Option<i64>>(7)?);
            let sig = r.get_ref(10)?.as_str().unwrap_or("");
            let lang = files_lang[file];
            syms.push(MSym {
                id,
                file,
                returns: written_type(lang, kind, &name, sig).map(Arc::from),
                params: tsa_lang::param_range(lang, &name, sig),
                name,
                kind,
                owner,
                parent: None,
                is_test: r.get(8)?,
                self_name: r.get::<_, Option<String>>(9)?.map(Arc::from),
                bases: Vec::new(),
                default_export: sig.starts_with("export default "),
                callback_sig: takes_callback(lang, kind, sig).then(|| Arc::from(sig)),
                file_local: crate::resolve::is_file_local(lang, kind, sig),
            });
        }
        // Parent chains of a partial load: fetch the parents not loaded yet.
        let missing: HashSet<i64> = parents
            .iter()
            .flatten()
            .copied()
            .filter(|p| !sym_idx.contains_key(p))
            .collect();
        if !missing.is_empty() {
            condition = format!("s.id IN ({})", id_list(missing));
            continue;
        }
        // Types named by the return types of the callables loaded so far (a partial
        // load fetches them, so typed receivers resolve as in a cold build).
        let mut new_names = Vec::new();
        if partial {
            for sym in &syms {
                // Types a callback-taking signature names (`Subscriber` in
                // `operate(init: (s: Subscriber<R>) => void)`).
                if let Some(sig) = &sym.callback_sig {
                    for word in sig
                        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
                    {
                        if bases_requested.insert(word.to_owned()) {
                            new_names.push(word.to_owned());
                        }
                    }
                }
                let Some(r) = &sym.returns else { continue };
                let mut parts: Vec<&str> = r.split(['.', ':']).filter(|p| !p.is_empty()).collect();
                if &**r == "Self" {
                    parts.extend(sym.owner.as_deref());
                }
                for part in parts {
                    if bases_requested.insert(part.to_owned()) {
                        new_names.push(part.to_owned());
                    }
                }
            }
        }
        // Interfaces: every name of their method sets, so the types that implement
        // them (dispatch targets) are judged on the same methods as in a cold build.
        if partial {
            let ifaces: Vec<i64> = syms
                .iter()
                .filter(|s| s.kind == tsa_lang::DefKind::Interface && ifaces_fetched.insert(s.id))
                .map(|s| s.id)
                .collect();
            if !ifaces.is_empty() {
                let mut stmt = conn.prepare(&format!(
                    "SELECT DISTINCT n.name FROM symbols s JOIN names n ON n.id = s.name_id WHERE s.parent_id IN ({})",
                    id_list(ifaces)
                ))?;
                for n in stmt.query_map([], |r| r.get::<_, String>(0))? {
                    let n = n?;
                    if bases_requested.insert(n.clone()) {
                        new_names.push(n);
                    }
                }
            }
        }
        // Bases of the types loaded so far (and, for a partial load, the base types).
        let todo: Vec<i64> = syms
            .iter()
            .filter(|s| s.kind.is_type() && !bases_fetched.contains(&s.id))
            .map(|s| s.id)
            .collect();
        if !todo.is_empty() {
            let where_clause = if partial {
                format!("h.symbol_id IN ({})", id_list(todo.iter().copied()))
            } else {
                "1".into()
            };
            bases_fetched.extend(todo);
            let mut stmt = conn.prepare(&format!(
                "SELECT h.symbol_id, n.name FROM inherits h JOIN names n ON n.id = h.base_id WHERE {where_clause} ORDER BY h.id"
            ))?;
            for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
                let (sym, base) = row?;
                let Some(&k) = sym_idx.get(&sym) else {
                    continue;
                };
                if partial && bases_requested.insert(base.clone()) {
                    new_names.push(base.clone());
                }
                syms[k].bases.push(Arc::from(base));
            }
        }
        if new_names.is_empty() {
            break;
        }
        let mut get = conn.prepare_cached("SELECT id FROM names WHERE name = ?1")?;
        let mut ids = Vec::new();
        for n in &new_names {
            if let Some(id) = get.query_row([n], |r| r.get::<_, i64>(0)).optional()? {
                ids.push(id);
            }
        }
        condition = format!("s.name_id IN ({})", id_list(ids));
    }
    for (s, p) in syms.iter_mut().zip(parents) {
        s.parent = p.and_then(|p| sym_idx.get(&p).copied());
    }
    Ok((syms, sym_idx))
}

/// A call site as a re-resolution reads it.
struct RawCall {
    id: i64,
    file_id: i64,
    caller: Option<i64>,
    callee: String,
    receiver: Option<String>,
    receiver_type: Option<String>,
    shadowed: bool,
    path: bool,
    target: Option<i64>,
    resolution: i64,
    confidence: f64,
    callee_id: i64,
    line: u32,
    branch: Option<i64>,
    arity: Option<i64>,
}

/// A further-target row: its site's columns, then its target, class and
/// confidence (as bits).
type AltKey<'a> = (
    (i64, u32, i64, Option<i64>, bool, bool, Option<i64>),
    (Option<&'a str>, Option<&'a str>),
    (i64, i64, u64),
);

impl RawCall {
    /// The key of a further-target row of this site.
    fn alt_key(&self, target: i64, class: i64, confidence: f64) -> AltKey<'_> {
        (
            (
                self.file_id,
                self.line,
                self.callee_id,
                self.caller,
                self.shadowed,
                self.path,
                self.branch,
            ),
            (self.receiver.as_deref(), self.receiver_type.as_deref()),
            (target, class, confidence.to_bits()),
        )
    }

    /// The key of this row, a further-target row.
    fn own_alt_key(&self) -> AltKey<'_> {
        self.alt_key(self.target.unwrap_or(0), self.resolution, self.confidence)
    }
}

/// The further-target rows of the sites matching `cond` (their callee name not read).
fn stored_alts(tx: &rusqlite::Transaction<'_>, cond: &str) -> Result<Vec<RawCall>, IndexError> {
    call_rows(tx, &format!("'' FROM calls c WHERE c.alt = 1 AND ({cond})"))
}

/// A confidence as stored: three decimals.
fn rounded(confidence: f64) -> f64 {
    (confidence * 1000.0).round() / 1000.0
}

/// The first-target call sites matching `cond` that a re-resolution revisits.
fn raw_calls(tx: &rusqlite::Transaction<'_>, cond: &str) -> Result<Vec<RawCall>, IndexError> {
    call_rows(
        tx,
        // (compiler bindings, class 7, and SCIP's outside classes stay as imported)
        &format!(
            "n.name FROM calls c JOIN names n ON n.id = c.callee_id
             WHERE c.alt = 0 AND c.resolution != 7 AND c.package IS NULL AND ({cond})"
        ),
    )
}

/// The call rows `rest` selects: the callee name and the rows, after the columns.
fn call_rows(tx: &rusqlite::Transaction<'_>, rest: &str) -> Result<Vec<RawCall>, IndexError> {
    let mut out = Vec::new();
    let mut stmt = tx.prepare(&format!(
        "SELECT c.id, c.file_id, c.caller_id, c.receiver, c.path_call, c.target_id, c.resolution,
                c.receiver_type, c.shadowed, c.confidence, c.callee_id, c.line, c.branch, c.arity,
                {rest}"
    ))?;
    let mut q = stmt.query([])?;
    while let Some(r) = q.next()? {
        out.push(RawCall {
            id: r.get(0)?,
            file_id: r.get(1)?,
            caller: r.get(2)?,
            receiver: r.get(3)?,
            path: r.get(4)?,
            target: r.get(5)?,
            resolution: r.get(6)?,
            receiver_type: r.get(7)?,
            shadowed: r.get(8)?,
            confidence: r.get(9)?,
            callee_id: r.get(10)?,
            line: r.get(11)?,
            branch: r.get(12)?,
            arity: r.get(13)?,
            callee: r.get(14)?,
        });
    }
    Ok(out)
}

/// The symbols a partial re-resolution loads (`None`: all of them).
fn symbol_filter(
    tx: &rusqlite::Transaction<'_>,
    scope: &Scope,
    raw_calls: &[RawCall],
    fields: &[MField],
    (imports, naming): (&[Vec<MImport>], &[usize]),
    file_idx: &HashMap<i64, usize>,
) -> Result<Option<String>, IndexError> {
    Ok(match scope {
        Scope::All => None,
        Scope::Some {
            files: changed,
            names,
            ..
        } => {
            // Symbols the resolver can reach from the affected rows: their callers
            // (and parent chains), everything named like a callee, receiver, base or
            // import on the way, and every symbol of the changed files.
            let mut ids: HashSet<i64> = HashSet::new();
            let mut ns: HashSet<String> = names.clone();
            let mut fields_by_name: HashMap<&str, Vec<&MField>> = HashMap::new();
            for f in fields {
                fields_by_name.entry(&f.name).or_default().push(f);
            }
            for c in raw_calls {
                ids.extend(c.caller);
                ns.insert(c.callee.clone());
                let head = c.receiver.as_deref().map(|r| {
                    r.split(['.', ':'])
                        .filter(|p| !p.is_empty())
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                });
                if let Some(parts) = &head {
                    ns.extend(parts.iter().cloned());
                    // Receivers through fields or module-level variables declared
                    // elsewhere: the types those are declared with.
                    for part in parts {
                        for f in fields_by_name.get(part.as_str()).into_iter().flatten() {
                            ns.insert(f.owner.to_string());
                            ns.extend(
                                f.ty.split(['.', ':'])
                                    .filter(|p| !p.is_empty())
                                    .map(str::to_owned),
                            );
                        }
                    }
                }
                if let Some(t) = &c.receiver_type {
                    ns.extend(
                        t.split(['.', ':', '#', '!'])
                            .filter(|p| !p.is_empty())
                            .map(str::to_owned),
                    );
                    // `Owner#field`: the types the fields of that name are declared with.
                    for field in t.split('#').skip(1) {
                        for f in fields_by_name.get(field).into_iter().flatten() {
                            ns.insert(f.owner.to_string());
                            ns.extend(
                                f.ty.split(['.', ':'])
                                    .filter(|p| !p.is_empty())
                                    .map(str::to_owned),
                            );
                        }
                    }
                }
                if let Some(&k) = file_idx.get(&c.file_id) {
                    for imp in &imports[k] {
                        let used = imp.alias == c.callee
                            || head.as_ref().is_some_and(|p| p.first() == Some(&imp.alias))
                            || imp.alias == "*";
                        if used {
                            ns.insert(imp.alias.clone());
                            ns.extend(imp.name.clone());
                        }
                    }
                }
            }
            // The imports of the changed files are re-bound: what they name is loaded
            // (used by a call site or not: a decorator, an argument, an attribute).
            for id in changed {
                for imp in file_idx.get(id).map_or(&[][..], |&k| &imports[k]) {
                    ns.insert(imp.alias.clone());
                    ns.extend(imp.name.clone());
                }
            }
            let (hcond, _) = scope.condition(tx, "h.file_id", &["h.base_id"])?;
            let mut hs = tx.prepare(&format!(
                "SELECT h.symbol_id, n.name FROM inherits h JOIN names n ON n.id = h.base_id WHERE {hcond}"
            ))?;
            for row in hs.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
                let (sym, base) = row?;
                ids.insert(sym);
                ns.insert(base);
            }
            // Re-export chains: an alias in the set brings the name it stands for.
            let mut stands_for: HashMap<&str, Vec<&str>> = HashMap::new();
            for imp in naming.iter().flat_map(|&k| &imports[k]) {
                if let Some(n) = &imp.name {
                    stands_for.entry(&imp.alias).or_default().push(n);
                }
            }
            reach(&mut ns, &stands_for);
            let mut get = tx.prepare_cached("SELECT id FROM names WHERE name = ?1")?;
            let mut name_ids = Vec::new();
            for n in &ns {
                if let Some(id) = get.query_row([n], |r| r.get::<_, i64>(0)).optional()? {
                    name_ids.push(id);
                }
            }
            let names = id_list(name_ids.iter().copied());
            // Default imports name no definition: every default export may be meant.
            let defaults = if ns.contains("default") {
                " OR (s.parent_id IS NULL AND s.signature LIKE 'export default %')"
            } else {
                ""
            };
            Some(format!(
                "s.file_id IN ({}) OR s.id IN ({}) OR s.name_id IN ({names}) OR s.owner_id IN ({names}){defaults}",
                id_list(changed.iter().copied()),
                id_list(ids)
            ))
        }
    })
}

/// Re-resolves the call sites, imports and bases in `scope` and writes the ones
/// whose binding changed. Returns how many call sites in scope are resolved.
fn resolve(
    tx: &rusqlite::Transaction<'_>,
    scope: &Scope,
    layout: &Layout,
    before: Option<kept::Kept>,
) -> Result<(usize, kept::Kept), IndexError> {
    let kept::Kept { skeleton, file_idx } = skeleton_of(tx, scope, layout, before)?;
    let scope = &scope.widened(&skeleton);
    let imports = &skeleton.imports;
    let fields = load_fields(tx, &file_idx)?;
    // The affected call sites and bases, read before the symbols so a small change
    // loads only the symbols their resolution can look at.
    let (cond, _) = scope.condition(tx, "c.file_id", &["c.callee_id"])?;
    let raw_calls = raw_calls(tx, &cond)?;
    let filter = symbol_filter(
        tx,
        scope,
        &raw_calls,
        &fields,
        (imports, &skeleton.naming),
        &file_idx,
    )?;
    let langs: Vec<Language> = skeleton.files.iter().map(|f| f.lang).collect();
    let (syms, sym_idx) = load_symbols(tx, &file_idx, &langs, filter)?;
    let model = Model::on(skeleton.clone(), syms).with_fields(fields);
    let sym_id = |s: usize| model.syms[s].id;
    // Calls.
    struct Row<'a> {
        raw: &'a RawCall,
        call: MCall<'a>,
    }
    let rows: Vec<Row<'_>> = raw_calls
        .iter()
        .filter_map(|c| {
            let file = *file_idx.get(&c.file_id)?;
            Some(Row {
                raw: c,
                call: MCall {
                    file,
                    caller: c.caller.and_then(|id| sym_idx.get(&id).copied()),
                    callee: &c.callee,
                    receiver: c.receiver.as_deref(),
                    receiver_type: c.receiver_type.as_deref(),
                    shadowed: c.shadowed,
                    path: c.path,
                    arity: c.arity.and_then(|a| u8::try_from(a).ok()),
                },
            })
        })
        .collect();
    let bindings: Vec<Binding> = rows.par_iter().map(|r| model.resolve(&r.call)).collect();
    checkpoint("resolve");
    // The further targets stored for the sites in scope: those found again stay,
    // the others go and the new ones come (a sync mostly finds the same).
    let stored = stored_alts(tx, &cond)?;
    let mut unmatched: HashMap<AltKey<'_>, Vec<i64>> = HashMap::new();
    for a in &stored {
        unmatched.entry(a.own_alt_key()).or_default().push(a.id);
    }
    let mut update = tx.prepare_cached(
        "UPDATE calls SET target_id = ?2, resolution = ?3, confidence = ?4 WHERE id = ?1",
    )?;
    let mut insert_alt = tx.prepare_cached(
        "INSERT INTO calls(file_id, caller_id, callee_id, receiver, receiver_type, shadowed, path_call, line, target_id, resolution, confidence, alt, branch, arity)
         SELECT file_id, caller_id, callee_id, receiver, receiver_type, shadowed, path_call, line, ?2, ?3, ?4, 1, branch, arity
         FROM calls WHERE id = ?1",
    )?;
    let mut resolved = 0;
    for (row, b) in rows.iter().zip(bindings) {
        let target = b.target.map(sym_id);
        if b.resolution != Resolution::Unknown {
            resolved += 1;
        }
        // (A site kept from before a file's re-parse may change its confidence
        // alone.)
        let confidence = rounded(b.confidence);
        if target != row.raw.target
            || b.resolution.code() != row.raw.resolution
            || confidence != row.raw.confidence
        {
            update.execute(rusqlite::params![
                row.raw.id,
                target,
                b.resolution.code(),
                confidence
            ])?;
        }
        for a in &b.alts {
            let (target, class, confidence) =
                (sym_id(a.target), a.resolution.code(), rounded(a.confidence));
            let key = row.raw.alt_key(target, class, confidence);
            if unmatched.get_mut(&key).and_then(Vec::pop).is_none() {
                insert_alt.execute(rusqlite::params![row.raw.id, target, class, confidence])?;
            }
        }
    }
    let mut delete = tx.prepare_cached("DELETE FROM calls WHERE id = ?1")?;
    for id in unmatched.into_values().flatten() {
        delete.execute([id])?;
    }
    checkpoint("resolve");
    rebind_imports(tx, scope, &model, &file_idx)?;
    checkpoint("resolve");
    rebind_bases(tx, scope, &model, &sym_idx)?;
    checkpoint("resolve");
    // The model's share of the skeleton goes with it, on the freeing thread.
    free_later(model);
    Ok((resolved, kept::Kept { skeleton, file_idx }))
}

/// Frees `x` on a thread of its own: freeing a model's many small allocations
/// takes a while (200 ms on the kernel), off the build's path.
pub(super) fn free_later<T: Send + 'static>(x: T) {
    let _ = std::thread::Builder::new()
        .name("tsa-free".into())
        .spawn(move || drop(x));
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
    let stored = stored_files(&conn, None)?;
    let w = walk(root, opts);
    let mut new = Vec::new();
    let mut modified = Vec::new();
    let mut seen = HashSet::new();
    for f in &w.files {
        seen.insert(f.rel.as_str());
        match stored.get(&f.rel) {
            None => new.push(f.rel.clone()),
            Some(s) => {
                if matches!(
                    compare(root, f, Some(s), opts.max_file_size),
                    Compared::Changed { .. }
                        | Compared::Unreadable(_)
                        | Compared::Vanished
                        | Compared::Linked
                        | Compared::TooLarge(_)
                ) {
                    modified.push(f.rel.clone());
                }
            }
        }
    }
    let mut deleted: Vec<String> = stored
        .into_keys()
        .filter(|p| !seen.contains(p.as_str()) && opts.in_scope(p))
        .collect();
    deleted.sort();
    Ok(Pending {
        new,
        modified,
        deleted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gone_since_the_walk_is_skipped_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let f = SourceFile {
            rel: "gone.py".into(),
            abs: dir.path().join("gone.py"),
            language: Language::from_name("python").unwrap(),
            size: 10,
            mtime_ns: 1,
        };
        let root = dir.path();
        assert!(matches!(
            examine(root, &f, (None, None), 100, None),
            Outcome::Vanished(VANISHED)
        ));
        std::fs::write(&f.abs, "def f():\n    return 1\n").unwrap();
        assert!(matches!(
            examine(root, &f, (None, None), 5, None),
            Outcome::TooLarge(22)
        ));
        assert!(matches!(
            examine(root, &f, (None, None), 100, None),
            Outcome::Parsed { .. }
        ));
        // Swapped for a link out of the root after the walk: skipped, not followed.
        #[cfg(unix)]
        {
            let out = tempfile::tempdir().unwrap();
            std::fs::write(out.path().join("s.py"), "def s():\n    return 2\n").unwrap();
            std::fs::remove_file(&f.abs).unwrap();
            std::os::unix::fs::symlink(out.path().join("s.py"), &f.abs).unwrap();
            assert!(matches!(
                examine(root, &f, (None, None), 100, None),
                Outcome::Vanished(LINKED)
            ));
        }
    }

    /// Every file, definition and call site with its binding, by path and name.
    fn rows(root: &Path) -> Vec<String> {
        let c = Connection::open(store::index_path(root)).unwrap();
        let astray: i64 = c
            .query_row(store::tests::CALL_KEYS_ASTRAY, [], |r| r.get(0))
            .unwrap();
        assert_eq!(astray, 0, "calls_by_* out of step with calls");
        // A cold build's bulk-load merge settings are undone: later writes merge as
        // FTS5 does by default.
        for table in ["symbols_fts", "symbols_trigram"] {
            let merge: Vec<(String, i64)> = c
                .prepare(&format!(
                    "SELECT k, v FROM {table}_config WHERE k IN ('automerge', 'crisismerge') ORDER BY k"
                ))
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(
                merge,
                [("automerge".to_owned(), 4), ("crisismerge".to_owned(), 16)],
                "{table}"
            );
        }
        let mut out: Vec<String> = c
            .prepare(
                "SELECT f.path || ' ' || n.name || ' ' || c.line || ' -> ' ||
                        coalesce(tf.path || ':' || ts.qualname, '?') || ' ' || c.resolution
                 FROM calls c JOIN files f ON f.id = c.file_id JOIN names n ON n.id = c.callee_id
                 LEFT JOIN symbols ts ON ts.id = c.target_id LEFT JOIN files tf ON tf.id = ts.file_id",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let defs: Vec<String> = c
            .prepare("SELECT f.path || ' ' || s.qualname FROM symbols s JOIN files f ON f.id = s.file_id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        out.extend(defs);
        // What the FTS tables answer (a cold build fills them apart and copies them
        // in; a sync writes them row by row): per defined name, the definitions its
        // words and its trigrams find.
        for table in ["symbols_fts", "symbols_trigram"] {
            c.execute(
                &format!("INSERT INTO {table}({table}) VALUES('integrity-check')"),
                [],
            )
            .unwrap();
        }
        // Each table holds one row per symbol, no row of a deleted one (a join to
        // symbols would hide it), and finds every symbol by its name.
        let count = |sql: &str, arg: Option<&str>| -> i64 {
            match arg {
                Some(a) => c.query_row(sql, [a], |r| r.get(0)),
                None => c.query_row(sql, [], |r| r.get(0)),
            }
            .unwrap()
        };
        let symbols = count("SELECT count(*) FROM symbols", None);
        for table in ["symbols_fts", "symbols_trigram"] {
            let sizes = count(&format!("SELECT count(*) FROM {table}_docsize"), None);
            assert_eq!(sizes, symbols, "{table}: a row per symbol");
        }
        let named: Vec<(i64, String)> = c
            .prepare("SELECT s.id, n.name FROM symbols s JOIN names n ON n.id = s.name_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (id, name) in &named {
            let phrase = format!("\"{}\"", name.replace('"', "\"\""));
            let words = name.chars().any(char::is_alphanumeric);
            for (table, searched) in [
                ("symbols_fts", words),
                ("symbols_trigram", name.chars().count() >= 3),
            ] {
                if !searched {
                    continue;
                }
                let rows: Vec<i64> = c
                    .prepare(&format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1"))
                    .unwrap()
                    .query_map([&phrase], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                assert!(rows.contains(id), "{table} does not find {name} ({id})");
                let live = count(
                    &format!(
                        "SELECT count(*) FROM {table} t JOIN symbols s ON s.id = t.rowid
                         WHERE {table} MATCH ?1"
                    ),
                    Some(&phrase),
                );
                assert_eq!(
                    rows.len() as i64,
                    live,
                    "{table}: {name} finds deleted rows"
                );
            }
        }
        let mut names: Vec<String> = named.into_iter().map(|(_, n)| n).collect();
        names.sort();
        names.dedup();
        for name in names {
            for table in ["symbols_fts", "symbols_trigram"] {
                let mut found: Vec<String> = c
                    .prepare(&format!(
                        "SELECT f.path || ' ' || s.qualname FROM {table} t
                         JOIN symbols s ON s.id = t.rowid JOIN files f ON f.id = s.file_id
                         WHERE {table} MATCH ?1"
                    ))
                    .unwrap()
                    .query_map([format!("\"{}\"", name.replace('"', "\"\""))], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                found.sort();
                out.push(format!("{table} {name}: {}", found.join(", ")));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_sync_told_what_changed_ends_where_a_cold_build_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let put = |p: &str, t: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        put("a.py", "def f():\n    return 1\n");
        put(
            "b.py",
            "from a import f\nfrom sub.n import n\n\n\ndef use():\n    f()\n    n()\n",
        );
        put("sub/c.py", "def c():\n    return 3\n");
        put(".ignore", "gen/\n");
        build(root, &BuildOptions::default()).unwrap();
        // f goes (f2 comes), c.py goes, n.py comes; an ignored and a hidden file change.
        put("a.py", "def f2():\n    return 1\n");
        std::fs::remove_file(root.join("sub/c.py")).unwrap();
        put("sub/n.py", "def n():\n    return 4\n");
        put("gen/e.py", "def e():\n    return 5\n");
        put(".hidden/d.py", "def d():\n    return 6\n");
        let changed = ["a.py", "sub/c.py", "sub/n.py", "gen/e.py", ".hidden/d.py"];
        let r = build(
            root,
            &BuildOptions {
                changed: Some(changed.iter().map(|p| p.to_string()).collect()),
                ..BuildOptions::default()
            },
        )
        .unwrap();
        assert_eq!(r.total_files, 2, "only a.py and sub/n.py looked at: {r:?}");
        assert_eq!(
            (r.new_files, r.updated_files, r.deleted),
            (1, 1, 1),
            "{r:?}"
        );
        let told = rows(root);
        assert!(
            told.iter()
                .any(|r| r.starts_with("b.py n ") && r.contains("sub/n.py:n")),
            "{told:?}"
        );
        assert!(
            told.iter()
                .any(|r| r.starts_with("b.py f ") && r.contains("-> ? 5")),
            "{told:?}"
        );
        build(
            root,
            &BuildOptions {
                mode: BuildMode::Full,
                ..BuildOptions::default()
            },
        )
        .unwrap();
        assert_eq!(told, rows(root));
    }

    /// Files of 0 to 40 call sites (statements of 16 rows down to 1, key rows
    /// queued across files), with two-target sites: the cold build's rows are the
    /// rows a sync of every file writes one at a time, keys included.
    #[test]
    fn a_cold_build_writes_many_call_rows_as_a_sync_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let file = |k: usize, note: &str| {
            let mut src = format!("# {note}\nclass C{k}:\n    def m(self):\n        return 0\n\n");
            for i in 0..k * 5 {
                src.push_str(&format!(
                    "def f{k}_{i}(x):\n    x.m()\n    g{}()\n    return f{k}_{}(x)\n\n",
                    i % 3,
                    i / 2
                ));
            }
            src
        };
        put(root, "g.py", "def g0():\n    pass\n\ndef g1():\n    pass\n");
        for k in 0..9 {
            put(root, &format!("m{k}.py"), &file(k, "cold"));
        }
        build(root, &BuildOptions::full()).unwrap();
        let cold = rows(root);
        assert!(cold.len() > 400, "{}", cold.len());
        for k in 0..9 {
            put(root, &format!("m{k}.py"), &file(k, "synced"));
        }
        let r = build(root, &BuildOptions::default()).unwrap();
        assert_eq!(r.updated_files, 9, "{r:?}");
        assert_eq!(rows(root), cold);
    }

    fn put(root: &Path, p: &str, t: &str) {
        let p = root.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }

    fn told(root: &Path, paths: &[&str]) -> BuildReport {
        build(
            root,
            &BuildOptions {
                changed: Some(paths.iter().map(|p| p.to_string()).collect()),
                ..BuildOptions::default()
            },
        )
        .unwrap()
    }

    fn cold_rows(root: &Path) -> Vec<String> {
        let full = BuildOptions {
            mode: BuildMode::Full,
            ..BuildOptions::default()
        };
        build(root, &full).unwrap();
        rows(root)
    }

    /// Syncs of the index of `root` that started from its kept skeleton.
    fn taken(root: &Path) -> u64 {
        kept::taken(&store::index_path(root))
    }

    #[test]
    fn syncs_from_a_kept_skeleton_end_where_a_cold_build_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        put(root, "a.py", "def f():\n    return 1\n");
        put(root, "c.py", "def f():\n    return 2\n");
        put(root, "b.py", "from a import f\n\n\ndef use():\n    f()\n");
        put(
            root,
            "r.py",
            "from b import f as g\n\n\ndef more():\n    g()\n",
        );
        put(root, "inc/x.h", "int xf(void);\n");
        put(
            root,
            "x.c",
            "#include \"inc/x.h\"\nint xf(void) { return 1; }\n",
        );
        put(
            root,
            "y.c",
            "#include \"inc/x.h\"\nint use(void) { return xf(); }\n",
        );
        build(root, &BuildOptions::default()).unwrap();
        // Each sync changes what files import or define, never which files there are.
        let steps: [(&str, &str); 5] = [
            ("b.py", "from c import f\n\n\ndef use():\n    f()\n"),
            ("a.py", "def f(x):\n    return x\n\n\ndef g():\n    f(1)\n"),
            ("r.py", "from a import g\n\n\ndef more():\n    g()\n"),
            (
                "x.c",
                "#include \"inc/x.h\"\nint xf(void) { return 2; }\nint x2(void) { return xf(); }\n",
            ),
            (
                "y.c",
                "#include \"inc/x.h\"\nint use(void) { return x2() + xf(); }\n",
            ),
        ];
        for (path, text) in steps {
            let before = taken(root);
            put(root, path, text);
            let r = told(root, &[path]);
            assert_eq!(r.updated_files, 1, "{path}: {r:?}");
            assert_eq!(
                taken(root),
                before + 1,
                "{path}: the kept skeleton was used"
            );
            let synced = rows(root);
            assert_eq!(synced, cold_rows(root), "after {path}");
        }
    }

    #[test]
    fn every_write_is_a_new_generation_within_the_same_second() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        put(root, "a.py", "def f():\n    return 1\n");
        build(root, &BuildOptions::default()).unwrap();
        let generation = || {
            crate::Index::open(root)
                .unwrap()
                .unwrap()
                .generation()
                .unwrap()
        };
        let mut seen = vec![generation()];
        for body in ["def f():\n    return 2\n", "def g():\n    return 3\n"] {
            put(root, "a.py", body);
            told(root, &["a.py"]);
            seen.push(generation());
        }
        for (i, g) in seen.iter().enumerate() {
            assert!(
                !seen[..i].contains(g),
                "write {i} kept a generation: {seen:?}"
            );
        }
    }

    #[test]
    fn a_skeleton_kept_of_an_older_state_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        put(root, "a.py", "def f():\n    return 1\n");
        put(root, "c.py", "def f():\n    return 2\n");
        put(root, "b.py", "from a import f\n\n\ndef use():\n    f()\n");
        build(root, &BuildOptions::default()).unwrap();
        let db = store::index_path(root);
        let meta = |k: &str| {
            let c = Connection::open(&db).unwrap();
            store::get_meta(&c, k).unwrap()
        };
        let (stamp, layout) = (meta(kept::STAMP), meta("layout").unwrap());
        let old = kept::take(&db, stamp.as_deref(), &layout).expect("kept by the build");
        // Another process changes what b.py imports (here: nothing is kept meanwhile).
        put(root, "b.py", "from c import f\n\n\ndef use():\n    f()\n");
        told(root, &["b.py"]);
        assert_ne!(meta(kept::STAMP), stamp);
        // This process still holds the skeleton of the state before; a sync of c.py
        // (f changes: b.py's call is in scope) must not bind through b.py's old import.
        kept::keep(&db, stamp.unwrap(), &layout, old);
        let before = taken(root);
        put(root, "c.py", "def f(x=0):\n    return 2\n");
        told(root, &["c.py"]);
        assert_eq!(taken(root), before, "the older skeleton is left alone");
        let synced = rows(root);
        assert!(
            synced
                .iter()
                .any(|r| r.starts_with("b.py f ") && r.contains("c.py:f")),
            "{synced:?}"
        );
        assert_eq!(synced, cold_rows(root));
    }

    #[test]
    fn a_folder_a_manifest_or_an_ignore_file_needs_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/m.py"), "x = 1\n").unwrap();
        let opts = WalkOptions::default();
        let told = |p: &str| walk_paths(root, &opts, &[p.to_owned()]);
        assert!(told("pkg").is_none());
        assert!(told("pyproject.toml").is_none());
        assert!(told("pkg/.gitignore").is_none());
        assert!(told("pkg/../pkg/m.py").is_none());
        let found = told("pkg/m.py").unwrap();
        assert_eq!(found.files.len(), 1);
        assert!(told("pkg/gone.py").unwrap().files.is_empty());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("pkg"), root.join("link")).unwrap();
            assert!(
                told("link/m.py").unwrap().files.is_empty(),
                "never through a link"
            );
        }
    }
}
