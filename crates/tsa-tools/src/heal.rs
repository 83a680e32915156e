//! A damaged index heals itself, as answers show it. The index crate moves an index
//! it cannot use aside and builds cold (see `tsa-index/src/heal.rs`); here every
//! action runs through [`run`], which
//! - rebuilds and runs the action again once when it met a damaged index
//!   (`SQLITE_CORRUPT`/`SQLITE_NOTADB` mid-query: the build confirms the damage with
//!   `PRAGMA quick_check` under the build lock before moving anything aside);
//! - answers WARN with `index_rebuilding: true` when a query waited its bound
//!   ([`QUERY_BUILD_WAIT`]) for another build of the index, rather than stale data;
//! - adds what happened to the index (moved aside, where, rebuilt) to the next
//!   answer on that project as an `index_rebuilt` warning, and raises an INFO
//!   verdict to WARN.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value};
use tsa_envelope::{Success, Verdict};
use tsa_index::{BuildOptions, BuildReport, IndexError, Quarantined};

use crate::action::DynAction;
use crate::{Context, ToolError};

/// How long a query waits for another build of its index (a first build, a
/// rebuild after damage) before answering that the index is being built.
pub(crate) const QUERY_BUILD_WAIT: Duration = Duration::from_secs(30);

/// What happened to the index of a project, not yet told: (root, warning).
static NOTES: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

fn notes() -> std::sync::MutexGuard<'static, Vec<(PathBuf, String)>> {
    NOTES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps a warning for the next answer on the project at `root`.
pub fn remember(root: &Path, warning: String) {
    notes().push((root.to_path_buf(), warning));
}

/// The warning for an index moved aside: what was wrong, where it is, and the
/// rebuild (`rebuilt`: the build that replaced it, when it has run).
pub fn moved_aside_warning(q: &Quarantined, rebuilt: Option<&BuildReport>) -> String {
    let then = match rebuilt {
        Some(r) => format!("rebuilt cold ({} files in {} ms)", r.indexed, r.elapsed_ms),
        None => "the next call rebuilds it cold".to_owned(),
    };
    format!(
        "index_rebuilt: .tsa/index.db could not be used ({}); it was moved aside to {} \
         (remove it once you no longer need it) and {then}",
        q.reason, q.moved_to
    )
}

/// Records what a build did to a damaged index, for the next answer on `root`.
pub(crate) fn record(root: &Path, report: &BuildReport) {
    if let Some(q) = &report.healed {
        remember(root, moved_aside_warning(q, Some(report)));
    }
}

fn take(root: &Path) -> Vec<String> {
    let mut all = notes();
    let (mine, rest): (Vec<_>, Vec<_>) = all.drain(..).partition(|(r, _)| r == root);
    *all = rest;
    mine.into_iter().map(|(_, w)| w).collect()
}

/// Runs one action for the dispatcher (see the module docs).
pub(crate) fn run(
    handler: &dyn DynAction,
    ctx: &Context,
    args: Map<String, Value>,
) -> Result<Success, ToolError> {
    let again = args.clone();
    let answer = match handler.run_json(ctx, args) {
        Err(ToolError::Index(e)) if tsa_index::is_damage(&e) => {
            rebuild_damaged(ctx).and_then(|()| handler.run_json(ctx, again))
        }
        other => other,
    };
    let answer = match answer {
        Err(ToolError::Index(IndexError::Building { waited_ms })) => {
            Ok(building(handler, waited_ms))
        }
        other => other,
    };
    let Ok(root) = ctx.root() else {
        return answer;
    };
    let told = take(root);
    answer.map(|mut s| {
        if told.is_empty() {
            return s;
        }
        if s.verdict() == Verdict::Info {
            s.set_verdict(Verdict::Warn);
        }
        told.into_iter().fold(s, Success::with_warning)
    })
}

/// After a query met a damaged index: the build confirms it (`quick_check` under
/// the lock), moves it aside and rebuilds cold; an index already rebuilt by
/// someone else passes and is only synced.
fn rebuild_damaged(ctx: &Context) -> Result<(), ToolError> {
    let opts = BuildOptions {
        verify: true,
        lock_wait: Some(QUERY_BUILD_WAIT),
        ..ctx.build_options()
    };
    build_index(ctx, &opts).map(|_| ())
}

/// The answer of a query that found the index being built past its wait.
fn building(handler: &dyn DynAction, waited_ms: u64) -> Success {
    Success::new(
        Verdict::Warn,
        format!(
            "{} {}: unavailable while the index is being built",
            handler.facade(),
            handler.name()
        ),
    )
    .with("index_rebuilding", true)
    .with("data_source", "cache_rebuilding")
    .with("waited_ms", waited_ms)
    .with_warning(
        "index_rebuilding: another process or call is building this project's index; \
         nothing was answered from the index so that no stale or partial data is shown",
    )
    .with_next_step(format!(
        "Retry this call in a few seconds ({} {}); the build holding the index lock is still running",
        handler.facade(),
        handler.name()
    ))
}

/// Builds (or refreshes) the index; a project with no supported source file is an
/// error, not an empty answer. An index moved aside on the way is told in the next
/// answer (see `heal.rs`).
pub fn build_index(ctx: &Context, opts: &BuildOptions) -> Result<BuildReport, ToolError> {
    let root = ctx.root()?;
    let report = tsa_index::build(root, opts)?;
    record(root, &report);
    if report.total_files == 0 {
        return Err(empty_project(Some(&report)));
    }
    Ok(report)
}

/// The `empty_project` error: which languages are indexed and, from the build that
/// found nothing, every reason files were left out, with the ignore rule that left
/// out most.
pub fn empty_project(report: Option<&BuildReport>) -> ToolError {
    let languages: Vec<&str> = tsa_lang::Language::ALL
        .iter()
        .filter(|l| l.tier() != tsa_lang::Tier::Structure)
        .map(|l| l.name())
        .collect();
    let mut msg = format!(
        "no source file of an indexed language ({}) under the project root",
        languages.join(", ")
    );
    let Some(r) = report else {
        msg.push_str("; index action=full mode=full says what the walk left out");
        return ToolError::EmptyProject(msg);
    };
    let mut skipped = Vec::new();
    if r.skipped_ignored > 0 {
        let top = r
            .ignore_rules
            .first()
            .map(|g| {
                let file = if g.file.is_empty() {
                    String::new()
                } else {
                    format!(" in {}", g.file)
                };
                format!(" (most by `{}`{file}: {} file(s))", g.pattern, g.files)
            })
            .unwrap_or_default();
        skipped.push(format!(
            "{} by ignore rules{top}: pass no_ignore=true to index action=full to index them",
            r.skipped_ignored
        ));
    }
    for (n, why) in [
        (
            r.skipped_structure_only,
            "of outline-only languages (HTML, CSS, Markdown, ...)",
        ),
        (r.skipped_too_large, "over the size limit (max_file_size)"),
        (r.skipped_unknown_extension, "of unknown extensions"),
        (r.skipped_binary, "binary"),
    ] {
        if n > 0 {
            skipped.push(format!("{n} {why}"));
        }
    }
    if !skipped.is_empty() {
        msg.push_str(&format!("; the walk left out {}", skipped.join("; ")));
    }
    ToolError::EmptyProject(msg)
}
