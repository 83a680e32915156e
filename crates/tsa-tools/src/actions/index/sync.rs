//! `index sync`: bring the index up to date with the working tree (or preview it).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{BuildOptions, Index, WalkOptions, pending_changes};

use crate::action::Action;
use crate::actions::common::{build_index, cap, fixed_cap};
use crate::{Context, ToolError};

/// What `index sync` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Re-index new and changed files, drop deleted ones (default).
    Sync,
    /// List what a sync would do, without writing.
    Changes,
    /// Counts and whether the index is current.
    Status,
}

/// Arguments of `index sync`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `sync` (default), `changes` or `status`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Most files to consider (>= 1, default 20000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// Only these files changed (project-relative; mode=sync): the sync looks at
    /// them instead of walking the tree (it walks anyway for a folder, a manifest,
    /// an ignore file).
    #[serde(default)]
    pub paths: Option<Vec<String>>,
}

/// More paths than this: the sync walks the tree.
const MAX_PATHS: usize = 1000;

pub struct Sync;

fn list(
    key: &'static str,
    noun: &'static str,
    items: Vec<String>,
) -> (ListSpelling, Capped<Value>) {
    let (total_key, listed_key, cap_key) = match key {
        "new" => ("new_count", "new_listed", "new_cap"),
        "modified" => ("modified_count", "modified_listed", "modified_cap"),
        "deleted" => ("deleted_count", "deleted_listed", "deleted_cap"),
        _ => ("detail_count", "details_listed", "details_cap"),
    };
    (
        ListSpelling {
            list_key: key,
            total_key,
            listed_key,
            cap_key,
            noun,
            remedy: "run index action=sync to apply them all".into(),
        },
        Capped::collect(items.into_iter().map(Value::from), fixed_cap(50)),
    )
}

impl Action for Sync {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "sync";
    const SUMMARY: &'static str = "sync the index with the working tree (content hash on raw bytes), or preview (changes) / check (status)";
    const BRIEF: &'static str = "sync with the working tree";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let max_files = cap("max_files", args.max_files, tsa_index::MAX_FILES_GUARD)?;
        let walk = WalkOptions {
            max_files: max_files.get(),
            ..WalkOptions::default()
        };
        let mode = args.mode.unwrap_or(Mode::Sync);
        if args.paths.is_some() && !matches!(mode, Mode::Sync) {
            return Err(ToolError::Validation(
                "paths applies to mode=sync only: changes and status compare the whole tree".into(),
            ));
        }
        match mode {
            Mode::Sync => {
                let mut changed = None;
                if let Some(paths) = args.paths.filter(|p| p.len() <= MAX_PATHS) {
                    let mut rels = Vec::with_capacity(paths.len());
                    for p in &paths {
                        rels.push(tsa_analysis::security::resolve_in_root(root, p)?.1);
                    }
                    changed = Some(rels);
                }
                let r = build_index(
                    ctx,
                    &BuildOptions {
                        walk,
                        changed,
                        ..ctx.build_options()
                    },
                )?;
                let details: Vec<Value> = r
                    .files
                    .iter()
                    .map(|f| json!({"file": f.file, "considered": true, "action": f.status, "reason": f.reason}))
                    .collect();
                let verdict = if r.errors > 0 {
                    Verdict::Warn
                } else {
                    Verdict::Info
                };
                let s = Success::new(
                    verdict,
                    format!(
                        "index sync new={} updated={} deleted={} unchanged={} errors={}",
                        r.new_files, r.updated_files, r.deleted, r.cached, r.errors
                    ),
                )
                .with("mode", "sync")
                .with("scanned", r.total_files)
                .with("new_files", r.new_files)
                .with("updated_files", r.updated_files)
                .with("deleted_files", r.deleted)
                .with("unchanged_files", r.cached)
                .with("errors", r.errors)
                .with("skipped_too_large", r.skipped_too_large)
                .with("skipped_missing", r.skipped_missing)
                .with("synapse_resolved", r.calls_resolved)
                .with("elapsed_ms", r.elapsed_ms as u64)
                .with_list(
                    ListSpelling {
                        list_key: "details",
                        total_key: "detail_count",
                        listed_key: "details_listed",
                        cap_key: "details_cap",
                        noun: "file details",
                        remedy: "the counts above are exact; see index action=status".into(),
                    },
                    Capped::collect(details, fixed_cap(50)),
                )
                .with_next_step("Index is current; query it with nav action=callers");
                Ok(crate::actions::index::scip::with_build_scip(s, &r))
            }
            Mode::Changes => {
                let p = pending_changes(root, &walk)?;
                let total = p.total();
                let summary = format!(
                    "index sync changes new={} modified={} deleted={}",
                    p.new.len(),
                    p.modified.len(),
                    p.deleted.len()
                );
                let mut s = Success::new(Verdict::Info, summary)
                    .with("mode", "changes")
                    .with("new_files", p.new.len())
                    .with("modified_files", p.modified.len())
                    .with("deleted_files", p.deleted.len());
                for (key, noun, items) in [
                    ("new", "new files", p.new),
                    ("modified", "modified files", p.modified),
                    ("deleted", "deleted files", p.deleted),
                ] {
                    let (spelling, capped) = list(key, noun, items);
                    s = s.with_list(spelling, capped);
                }
                Ok(s.with_next_step(if total == 0 {
                    "Nothing to sync."
                } else {
                    "Apply: index action=sync"
                }))
            }
            Mode::Status => {
                let pending = pending_changes(root, &walk)?;
                let (files, symbols) = match Index::open(root)? {
                    Some(i) => {
                        let st = i.status()?;
                        (st.files, st.symbols)
                    }
                    None => (0, 0),
                };
                let up_to_date = pending.total() == 0;
                Ok(Success::new(
                    if up_to_date {
                        Verdict::Info
                    } else {
                        Verdict::Warn
                    },
                    format!(
                        "index sync status files={files} pending={}",
                        pending.total()
                    ),
                )
                .with("mode", "status")
                .with("indexed_files", files)
                .with("total_symbols", symbols)
                .with("fts5_available", true)
                .with("pending_changes", pending.total())
                .with("up_to_date", up_to_date)
                .with_next_step(if up_to_date {
                    "Index is current."
                } else {
                    "Apply: index action=sync"
                }))
            }
        }
    }
}
