//! A cold build, streamed: files are parsed on all cores while this thread writes
//! each finished one in walk order (file row, definitions, search rows, fields);
//! what resolution needs is kept in compact tables (strings interned once, a call
//! site as ids and flags), never every file's extraction at once. Then the model
//! is built, and files' call sites, imports and bases are bound on all cores while
//! this thread writes their rows, already bound (no read-back, no update).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use tsa_lang::{BaseKind, FileExtract, is_test_path};

use super::{
    BuildOptions, BuildReport, Outcome, examine, file_row, indexed_status, status, takes_callback,
    too_large_reason, written_type,
};
use crate::IndexError;
use crate::fault::checkpoint;
use crate::layout::Layout;
use crate::resolve::{MCall, MField, MFile, MImport, MSym, Model, Resolution};
use crate::store::{At, CallBinding, CallRow, ImportRow, Writer};
use crate::walk::SourceFile;

/// Finished items that may wait in the channel for the consumer.
const AHEAD: usize = 64;
/// Items per batch where the work cannot be streamed (see [`ordered`]).
const BATCH: usize = 512;
/// No string id.
const NONE: u32 = u32::MAX;

/// Strings held once: names, receivers, types.
#[derive(Default)]
struct Interner {
    ids: FxHashMap<Arc<str>, u32>,
    strs: Vec<Arc<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let a: Arc<str> = Arc::from(s);
        let id = self.strs.len() as u32;
        self.strs.push(Arc::clone(&a));
        self.ids.insert(a, id);
        id
    }

    fn arc(&mut self, s: &str) -> Arc<str> {
        let id = self.id(s);
        Arc::clone(&self.strs[id as usize])
    }

    fn opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.id(s))
    }

    fn get(&self, id: u32) -> Option<&str> {
        (id != NONE).then(|| &*self.strs[id as usize])
    }
}

/// A call site as resolution and its row need it (24 bytes).
struct Site {
    callee: u32,
    receiver: u32,
    receiver_type: u32,
    /// The enclosing definition's model index, [`NONE`] at module level.
    caller: u32,
    line: u32,
    shadowed: bool,
    path: bool,
    /// [`tsa_lang::BranchKind::code`], [`NO_BRANCH`] when unknown.
    branch: u8,
    /// The argument count, [`NO_ARITY`] when not stated.
    arity: u8,
}

/// A site whose argument count is not stated.
const NO_ARITY: u8 = u8::MAX;

/// A site whose language states no branch rules.
const NO_BRANCH: u8 = u8::MAX;

/// A base a definition names.
struct BaseRef {
    sym: u32,
    name: u32,
    kind: BaseKind,
}

/// Everything kept of the parsed files until their references are written.
#[derive(Default)]
struct Kept {
    strings: Interner,
    files: Vec<MFile>,
    syms: Vec<MSym>,
    imports: Vec<Vec<MImport>>,
    fields: Vec<MField>,
    /// Per file: where its sites and bases start (one entry more than files).
    site_start: Vec<usize>,
    base_start: Vec<usize>,
    sites: Vec<Site>,
    bases: Vec<BaseRef>,
    import_lines: Vec<Vec<u32>>,
    /// Per symbol: its qualified name where it is not its name (the FTS rows).
    qualnames: Vec<Option<Box<str>>>,
}

impl Kept {
    /// Takes what resolution needs of file `f`'s extraction (its model id is the
    /// next one) before the extraction is dropped.
    fn keep(&mut self, f: &SourceFile, x: &FileExtract) {
        let k = self.files.len();
        let is_test = is_test_path(&f.rel);
        self.files.push(MFile {
            id: k as i64 + 1,
            path: f.rel.clone(),
            lang: f.language,
            is_test,
        });
        let base = self.syms.len();
        self.site_start.push(self.sites.len());
        self.base_start.push(self.bases.len());
        let s = &mut self.strings;
        for (i, d) in x.defs.iter().enumerate() {
            let sym = MSym {
                id: self.syms.len() as i64 + 1,
                file: k,
                name: s.arc(&d.name),
                kind: d.kind,
                owner: d.owner.as_deref().map(|o| s.arc(o)),
                returns: written_type(f.language, d.kind, &d.name, &d.signature).map(|t| s.arc(&t)),
                params: tsa_lang::param_range(f.language, &d.name, &d.signature),
                parent: d.parent.map(|p| base + p),
                is_test: d.is_test || is_test,
                self_name: d.self_name.as_deref().map(|n| s.arc(n)),
                bases: d.bases.iter().map(|b| s.arc(&b.name)).collect(),
                default_export: d.signature.starts_with("export default "),
                callback_sig: takes_callback(f.language, d.kind, &d.signature)
                    .then(|| Arc::from(d.signature.as_str())),
                file_local: crate::resolve::is_file_local(f.language, d.kind, &d.signature),
            };
            self.syms.push(sym);
            self.qualnames
                .push((d.qualname != d.name).then(|| d.qualname.as_str().into()));
            for b in &d.bases {
                self.bases.push(BaseRef {
                    sym: (base + i) as u32,
                    name: s.id(&b.name),
                    kind: b.kind,
                });
            }
        }
        for c in &x.calls {
            self.sites.push(Site {
                callee: s.id(&c.callee),
                receiver: s.opt(c.receiver.as_deref()),
                receiver_type: s.opt(c.receiver_type.as_deref()),
                caller: c.enclosing.map_or(NONE, |e| (base + e) as u32),
                line: c.line,
                shadowed: c.shadowed,
                path: c.path,
                branch: c
                    .branch
                    .and_then(|b| u8::try_from(b.code()).ok())
                    .unwrap_or(NO_BRANCH),
                arity: c.arity.unwrap_or(NO_ARITY),
            });
        }
        self.imports.push(
            x.imports
                .iter()
                .map(|i| MImport {
                    module: i.module.clone(),
                    name: i.name.clone(),
                    alias: i.alias.clone(),
                    level: i.level,
                })
                .collect(),
        );
        self.import_lines
            .push(x.imports.iter().map(|i| i.line).collect());
        for fl in &x.fields {
            self.fields.push(MField {
                file: k,
                owner: s.arc(&fl.owner),
                name: s.arc(&fl.name),
                ty: s.arc(&fl.ty),
            });
        }
    }

    /// Closes the per-file offsets.
    fn close(&mut self) {
        self.site_start.push(self.sites.len());
        self.base_start.push(self.bases.len());
    }
}

/// One file's bindings: per site, its first target; further targets by site;
/// per import (file id, symbol id, resolution); per base (symbol id, resolution).
struct Bound {
    calls: Vec<CallBinding>,
    alts: Vec<(usize, CallBinding)>,
    imports: Vec<(Option<i64>, Option<i64>, i64)>,
    bases: Vec<(Option<i64>, i64)>,
}

fn packed(target: Option<i64>, resolution: Resolution, confidence: f64) -> CallBinding {
    CallBinding {
        target: target.unwrap_or(0),
        resolution: resolution.code() as u8,
        confidence: confidence as f32,
    }
}

/// Resolves every site, import and base of file `k`.
fn bind_file(model: &Model, kept: &Kept, k: usize) -> Bound {
    let sym_id = |s: usize| model.syms[s].id;
    let mut alts = Vec::new();
    let sites = &kept.sites[kept.site_start[k]..kept.site_start[k + 1]];
    let calls = sites
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let b = model.resolve(&MCall {
                file: k,
                caller: (c.caller != NONE).then_some(c.caller as usize),
                callee: kept.strings.get(c.callee).unwrap_or_default(),
                receiver: kept.strings.get(c.receiver),
                receiver_type: kept.strings.get(c.receiver_type),
                shadowed: c.shadowed,
                path: c.path,
                arity: (c.arity != NO_ARITY).then_some(c.arity),
            });
            alts.extend(b.alts.iter().map(|a| {
                (
                    i,
                    packed(Some(sym_id(a.target)), a.resolution, a.confidence),
                )
            }));
            packed(b.target.map(sym_id), b.resolution, b.confidence)
        })
        .collect();
    let imports = model.imports[k]
        .iter()
        .map(|imp| {
            let b = model.resolve_import(k, imp);
            (
                b.file.map(|f| model.files[f].id),
                b.target.map(sym_id),
                b.resolution.code(),
            )
        })
        .collect();
    let bases = kept.bases[kept.base_start[k]..kept.base_start[k + 1]]
        .iter()
        .map(|b| {
            let r =
                model.resolve_base(b.sym as usize, kept.strings.get(b.name).unwrap_or_default());
            (r.target.map(sym_id), r.resolution.code())
        })
        .collect();
    Bound {
        calls,
        alts,
        imports,
        bases,
    }
}

/// The `names` row id of each interned string, looked up once (0: not yet).
#[derive(Default)]
struct NameRows(Vec<i64>);

impl NameRows {
    fn get(&mut self, w: &mut Writer<'_>, strings: &Interner, id: u32) -> Result<i64, IndexError> {
        let i = id as usize;
        if let Some(&row) = self.0.get(i)
            && row != 0
        {
            return Ok(row);
        }
        let row = w.name_id(strings.get(id).unwrap_or_default())?;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = row;
        Ok(row)
    }
}

/// Writes file `k`'s bases, sites (each target a row) and imports.
fn write_refs(
    w: &mut Writer<'_>,
    names: &mut NameRows,
    model: &Model,
    kept: &Kept,
    k: usize,
    b: &Bound,
) -> Result<usize, IndexError> {
    let file_id = k as i64 + 1;
    for (r, &(target, resolution)) in kept.bases[kept.base_start[k]..kept.base_start[k + 1]]
        .iter()
        .zip(&b.bases)
    {
        let base_id = names.get(w, &kept.strings, r.name)?;
        let symbol_id = model.syms[r.sym as usize].id;
        w.insert_inherit(file_id, symbol_id, base_id, r.kind, target, resolution)?;
    }
    let sites = &kept.sites[kept.site_start[k]..kept.site_start[k + 1]];
    let mut alt_at = 0usize;
    let mut resolved = 0;
    let mut rows = Vec::with_capacity(sites.len() + b.alts.len());
    for (i, (c, &first)) in sites.iter().zip(&b.calls).enumerate() {
        let callee_id = names.get(w, &kept.strings, c.callee)?;
        let row = CallRow {
            file_id,
            caller_id: (c.caller != NONE).then(|| model.syms[c.caller as usize].id),
            callee_id,
            receiver: kept.strings.get(c.receiver),
            receiver_type: kept.strings.get(c.receiver_type),
            shadowed: c.shadowed,
            path: c.path,
            line: c.line,
            branch: (c.branch != NO_BRANCH).then_some(i64::from(c.branch)),
            arity: (c.arity != NO_ARITY).then_some(i64::from(c.arity)),
        };
        if i64::from(first.resolution) != Resolution::Unknown.code() {
            resolved += 1;
        }
        rows.push((row, first, false));
        while let Some(&(s, alt)) = b.alts.get(alt_at)
            && s == i
        {
            rows.push((row, alt, true));
            alt_at += 1;
        }
    }
    w.insert_calls(&rows)?;
    for ((imp, &line), &binding) in model.imports[k]
        .iter()
        .zip(&kept.import_lines[k])
        .zip(&b.imports)
    {
        let row = ImportRow {
            module: &imp.module,
            name: imp.name.as_deref(),
            alias: &imp.alias,
            level: imp.level,
            line,
        };
        w.insert_import(file_id, &row, binding)?;
    }
    Ok(resolved)
}

/// Runs `make(i)` for every `i` in `0..n` on the rayon pool (driven from another
/// thread, items taken in order as workers free up) while this thread `consume`s
/// the results in index order: the writer overlaps the work that feeds it, and
/// only the items finished ahead of the one awaited are held (a few dozen; a slow
/// file holds the others back only as long as it takes). On a rayon worker (no
/// thread to spare without risking the pool) batches alternate instead.
fn ordered<T: Send>(
    n: usize,
    make: impl Fn(usize) -> T + Sync,
    mut consume: impl FnMut(usize, T) -> Result<(), IndexError>,
) -> Result<(), IndexError> {
    if rayon::current_thread_index().is_some() {
        for start in (0..n).step_by(BATCH) {
            let made: Vec<T> = (start..(start + BATCH).min(n))
                .into_par_iter()
                .map(&make)
                .collect();
            for (i, t) in (start..).zip(made) {
                consume(i, t)?;
            }
        }
        return Ok(());
    }
    let (send, recv) = sync_channel::<(usize, T)>(AHEAD);
    let make = &make;
    std::thread::scope(|s| {
        s.spawn(move || {
            // Stops at the first refused send: the consumer stopped (an error).
            let _ = (0..n)
                .par_bridge()
                .try_for_each_with(send, |send, i| send.send((i, make(i))));
        });
        let consumed = (|| {
            let mut ahead: std::collections::BTreeMap<usize, T> = Default::default();
            let mut next = 0;
            for (i, t) in recv.iter() {
                ahead.insert(i, t);
                while let Some(t) = ahead.remove(&next) {
                    consume(next, t)?;
                    next += 1;
                }
            }
            Ok(())
        })();
        // Unblocks the making side if the consumer stopped early.
        drop(recv);
        consumed
    })
}

/// Records a file that was not parsed.
fn skipped(report: &mut BuildReport, f: &SourceFile, outcome: Outcome, max_size: u64) {
    match outcome {
        Outcome::Binary => {
            report.skipped_binary += 1;
            report
                .files
                .push(status(&f.rel, "skipped", "binary content (NUL bytes)"));
        }
        Outcome::Vanished(reason) => {
            report.skipped_missing += 1;
            report.files.push(status(&f.rel, "skipped", reason));
        }
        Outcome::TooLarge(len) => {
            report.skipped_too_large += 1;
            report
                .files
                .push(status(&f.rel, "skipped", too_large_reason(len, max_size)));
        }
        Outcome::Failed(reason) => {
            report.errors += 1;
            report.files.push(status(&f.rel, "error", reason));
        }
        // Nothing is stored, so nothing is unchanged; parsed files are not skipped.
        Outcome::Unchanged | Outcome::Touched | Outcome::Parsed { .. } => {}
    }
}

/// Parses `files` on the rayon pool while this thread writes each, in walk order,
/// and keeps what resolution needs.
fn parse_and_write_defs(
    w: &mut Writer<'_>,
    root: &std::path::Path,
    files: &[SourceFile],
    opts: &BuildOptions,
    report: &mut BuildReport,
) -> Result<Kept, IndexError> {
    let max_size = opts.walk.max_file_size;
    let total = files.len();
    let done = AtomicUsize::new(0);
    opts.report("parse", 0, total);
    let mut kept = Kept::default();
    let parse = |i: usize| {
        let o = examine(root, &files[i], (None, None), max_size, opts.facts.as_ref());
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(32) || n == total {
            opts.report("parse", n, total);
        }
        o
    };
    ordered(total, parse, |i, outcome| {
        let f = &files[i];
        let Outcome::Parsed { hash, x } = outcome else {
            skipped(report, f, outcome, max_size);
            return Ok(());
        };
        let k = kept.files.len() as i64;
        w.insert_defs(
            &file_row(f, &hash),
            &x,
            At::Next(k + 1, kept.syms.len() as i64 + 1),
        )?;
        w.insert_fields(k + 1, &x.fields)?;
        kept.keep(f, &x);
        checkpoint("write");
        report.indexed += 1;
        report.new_files += 1;
        if x.parse_errors > 0 {
            report.files_with_parse_errors += 1;
        }
        report.files.push(indexed_status(f, &hash, &x));
        Ok(())
    })?;
    kept.close();
    Ok(kept)
}

/// A cold build's rows: every file is new, ids are 1.. in walk order. Its
/// secondary indexes too; the FTS tables are filled in `fts_side` beside the
/// resolution (on another connection, so on the core the resolution leaves free)
/// and copied in at the end.
pub(super) fn write(
    tx: &rusqlite::Transaction<'_>,
    root: &std::path::Path,
    files: &[SourceFile],
    (layout, fts_side): (&Layout, &std::path::Path),
    opts: &BuildOptions,
    report: &mut BuildReport,
) -> Result<super::kept::Kept, IndexError> {
    let t = Instant::now();
    let mut w = Writer::cold(tx);
    let mut kept = parse_and_write_defs(&mut w, root, files, opts, report)?;
    report.parse_ms = t.elapsed().as_millis();
    let t = Instant::now();
    // Progress never goes back: the files are all parsed.
    opts.report("resolve", files.len(), files.len());
    let model = Model::new(
        std::mem::take(&mut kept.files),
        std::mem::take(&mut kept.syms),
        std::mem::take(&mut kept.imports),
        layout,
    )
    .with_fields(std::mem::take(&mut kept.fields));
    model.bind_includes();
    let n = model.files.len();
    let mut names = NameRows::default();
    let qualnames = std::mem::take(&mut kept.qualnames);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let fts = std::thread::Builder::new()
            .name("tsa-fts".into())
            .spawn_scoped(s, || {
                let rows = model.syms.iter().zip(&qualnames).map(|(m, q)| {
                    let name: &str = &m.name;
                    (m.id, name, q.as_deref().unwrap_or(name))
                });
                crate::store::build_fts_apart(fts_side, rows, &stop)
            })?;
        let written = (|| {
            ordered(
                n,
                |k| bind_file(&model, &kept, k),
                |k, bound| {
                    report.calls_resolved +=
                        write_refs(&mut w, &mut names, &model, &kept, k, &bound)?;
                    checkpoint("write");
                    Ok(())
                },
            )?;
            w.finish_cold()?;
            checkpoint("resolve");
            report.resolve_ms = t.elapsed().as_millis();
            let t = Instant::now();
            drop(w);
            tx.execute_batch(crate::store::INDEXES)?;
            report.write_ms += t.elapsed().as_millis();
            Ok::<_, IndexError>(())
        })();
        if written.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        let t = Instant::now();
        let side = fts.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        written?;
        side?;
        crate::store::copy_fts(tx)?;
        report.write_ms += t.elapsed().as_millis();
        Ok::<_, IndexError>(())
    })?;
    // Ids are 1.. in walk order.
    let file_idx = (0..n).map(|k| (k as i64 + 1, k)).collect();
    let skeleton = model.skeleton();
    super::free_later(model);
    Ok(super::kept::Kept {
        skeleton,
        file_idx: Arc::new(file_idx),
    })
}

#[cfg(test)]
mod tests {
    use super::ordered;
    use crate::IndexError;

    /// Items are consumed in index order, whatever order they finish in.
    fn run(n: usize) -> Vec<usize> {
        let mut seen = Vec::new();
        ordered(
            n,
            |i| {
                // Early items finish last.
                std::thread::sleep(std::time::Duration::from_micros(((n - i) % 7) as u64 * 50));
                i * 10
            },
            |i, t| {
                assert_eq!(t, i * 10);
                seen.push(i);
                Ok(())
            },
        )
        .unwrap();
        seen
    }

    #[test]
    fn streams_in_order_from_any_thread() {
        assert_eq!(run(1500), (0..1500).collect::<Vec<_>>());
        // On a rayon worker (a build run inside a pool of one thread) it alternates
        // batches instead of waiting on work the pool cannot start.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| run(1500)), (0..1500).collect::<Vec<_>>());
    }

    #[test]
    fn a_failing_consumer_stops_the_stream() {
        let mut consumed = 0;
        let r = ordered(
            100_000,
            |i| i,
            |i, _| {
                consumed += 1;
                if i == 10 {
                    return Err(IndexError::Busy);
                }
                Ok(())
            },
        );
        assert!(matches!(r, Err(IndexError::Busy)));
        assert_eq!(consumed, 11);
    }
}
