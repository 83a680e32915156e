//! `index cache`: raw access to the index store: stats, lookup, search, index,
//! sync, changes, invalidate.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{BuildMode, BuildOptions, Index, WalkOptions, pending_changes};

use crate::action::Action;
use crate::actions::common::{build_index, cap, open_index, split_qualified};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// What `index cache` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Store counts and size (default).
    Stats,
    /// The definitions of `symbol`, or every definition of `file_path`.
    Lookup,
    /// FTS5 search of `query` over symbol names.
    Search,
    /// Build the index (`force` rebuilds from scratch).
    Index,
    /// Incremental sync.
    Sync,
    /// What a sync would change.
    Changes,
    /// Drop the rows of `file_path` (or of every file) so the next sync re-parses them.
    Invalidate,
}

/// Arguments of `index cache`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `stats` (default), `lookup`, `search`, `index`, `sync`, `changes` or `invalidate`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// A project file (lookup, invalidate).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// A symbol name, `Class.method` allowed (lookup).
    #[serde(default)]
    pub symbol: Option<String>,
    /// Words to search (search).
    #[serde(default)]
    pub query: Option<String>,
    /// Only this language (search).
    #[serde(default)]
    pub language: Option<String>,
    /// Most rows listed (>= 1, default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// Most files to index (>= 1, default 20000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// With `index`: rebuild from scratch.
    #[serde(default)]
    pub force: Option<bool>,
}

pub struct Cache;

fn symbol_json(s: &tsa_index::SymbolRow) -> Value {
    json!({
        "name": s.name, "qualified_name": s.qualname, "kind": s.kind, "file": s.file,
        "language": s.language, "line": s.line, "end_line": s.end_line, "signature": s.signature,
    })
}

fn symbols_list(rows: Vec<Value>, limit: std::num::NonZeroUsize) -> (ListSpelling, Capped<Value>) {
    (
        ListSpelling {
            list_key: "symbols",
            total_key: "symbol_count",
            listed_key: "symbols_listed",
            cap_key: "listed_cap",
            noun: "symbols",
            remedy: "raise limit".into(),
        },
        Capped::collect(rows, limit),
    )
}

impl Action for Cache {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "cache";
    const SUMMARY: &'static str =
        "raw index store access: stats, lookup, search, index, sync, changes, invalidate";
    const BRIEF: &'static str = "raw index store access";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("limit", args.limit, 50)?;
        let max_files = cap("max_files", args.max_files, 20_000)?;
        let walk = WalkOptions {
            max_files: max_files.get(),
            ..WalkOptions::default()
        };
        match args.mode.unwrap_or(Mode::Stats) {
            Mode::Stats => {
                let Some(index) = Index::open(root)? else {
                    return Ok(
                        Success::new(Verdict::NotFound, "index cache stats: no index")
                            .with("mode", "stats")
                            .with("index_state", "missing")
                            .with_next_step("Build it: index action=cache mode=index"),
                    );
                };
                let st = index.status()?;
                Ok(Success::new(
                    Verdict::Info,
                    format!(
                        "index cache stats files={} symbols={} bytes={}",
                        st.files, st.symbols, st.index_bytes
                    ),
                )
                .with("mode", "stats")
                .with("files", st.files)
                .with("symbols", st.symbols)
                .with("call_edges", st.calls)
                .with("imports", st.imports)
                .with("files_by_language", json!(st.files_by_language))
                .with("edges_by_kind", json!(st.edges_by_kind))
                .with("index_bytes", st.index_bytes)
                .with("index_path", ".tsa/index.db")
                .with_next_step("Look a symbol up: index action=cache mode=lookup symbol=<name>"))
            }
            Mode::Lookup => {
                let opened = open_index(ctx)?;
                let (rows, subject) = match (&args.symbol, &args.file_path) {
                    (Some(sym), file) => {
                        let file = file.as_deref().map(|f| source_file(root, f)).transpose()?;
                        let (owner, name) = split_qualified(sym);
                        (
                            opened.index.find_symbols(name, owner, file.as_deref())?,
                            sym.clone(),
                        )
                    }
                    (None, Some(f)) => {
                        let rel = source_file(root, f)?;
                        (opened.index.symbols_in_file(&rel)?, rel)
                    }
                    (None, None) => {
                        return Err(ToolError::Validation(
                            "mode=lookup requires parameter 'symbol' or 'file_path'".into(),
                        ));
                    }
                };
                let verdict = if rows.is_empty() {
                    Verdict::NotFound
                } else {
                    Verdict::Info
                };
                let (spelling, list) = symbols_list(rows.iter().map(symbol_json).collect(), limit);
                Ok(Success::new(
                    verdict,
                    format!("index cache lookup '{subject}': {} symbols", rows.len()),
                )
                .with("mode", "lookup")
                .with_list(spelling, list)
                .with_next_step("nav action=callers function_name=<name> for who calls one"))
            }
            Mode::Search => {
                let Some(q) = args.query.filter(|q| !q.trim().is_empty()) else {
                    return Err(ToolError::Validation(
                        "mode=search requires parameter 'query'".into(),
                    ));
                };
                let opened = open_index(ctx)?;
                let language = args.language.as_deref();
                let (rows, total) = opened.index.search(&q, language, &[], limit.get())?;
                let listed: Vec<Value> = rows.iter().map(|(s, _)| symbol_json(s)).collect();
                let capped = Capped::counted(listed, total as usize, limit);
                let verdict = if total == 0 {
                    Verdict::NotFound
                } else {
                    Verdict::Info
                };
                Ok(Success::new(
                    verdict,
                    format!("index cache search '{q}': {total} matches"),
                )
                .with("mode", "search")
                .with("query", q.as_str())
                .with_list(
                    ListSpelling {
                        list_key: "symbols",
                        total_key: "total_matches",
                        listed_key: "symbols_listed",
                        cap_key: "listed_cap",
                        noun: "matches",
                        remedy: "raise limit, or use search action=symbol for ranked results"
                            .into(),
                    },
                    capped,
                )
                .with_next_step("search action=symbol ranks these by relevance"))
            }
            Mode::Index | Mode::Sync => {
                let full = matches!(args.mode, Some(Mode::Index)) && args.force.unwrap_or(false);
                let mode = if full {
                    BuildMode::Full
                } else {
                    BuildMode::Incremental
                };
                let r = build_index(
                    ctx,
                    &BuildOptions {
                        mode,
                        walk,
                        ..ctx.build_options()
                    },
                )?;
                Ok(Success::new(
                    if r.errors > 0 {
                        Verdict::Warn
                    } else {
                        Verdict::Info
                    },
                    format!(
                        "index cache {} indexed={} cached={} deleted={}",
                        mode.as_str(),
                        r.indexed,
                        r.cached,
                        r.deleted
                    ),
                )
                .with("mode", if full { "index" } else { "sync" })
                .with("mode_used", r.mode_used)
                .with("indexed", r.indexed)
                .with("cached", r.cached)
                .with("deleted", r.deleted)
                .with("errors", r.errors)
                .with("total_files", r.total_files)
                .with("elapsed_ms", r.elapsed_ms as u64)
                .with_next_step("index action=cache mode=stats"))
            }
            Mode::Changes => {
                let p = pending_changes(root, &walk)?;
                Ok(Success::new(
                    Verdict::Info,
                    format!(
                        "index cache changes new={} modified={} deleted={}",
                        p.new.len(),
                        p.modified.len(),
                        p.deleted.len()
                    ),
                )
                .with("mode", "changes")
                .with("new_files", p.new.len())
                .with("modified_files", p.modified.len())
                .with("deleted_files", p.deleted.len())
                .with("pending_changes", p.total())
                .with_next_step(if p.total() == 0 {
                    "Nothing to sync."
                } else {
                    "Apply: index action=cache mode=sync"
                }))
            }
            Mode::Invalidate => {
                let rel = match &args.file_path {
                    Some(f) => {
                        let (_, rel) = tsa_analysis::security::resolve_in_root(root, f)?;
                        Some(rel)
                    }
                    None => None,
                };
                let removed = tsa_index::invalidate(root, rel.as_deref())?;
                let subject = rel.clone().unwrap_or_else(|| "all files".into());
                Ok(Success::new(
                    if removed == 0 {
                        Verdict::NotFound
                    } else {
                        Verdict::Info
                    },
                    format!("index cache invalidate {subject}: {removed} file(s)"),
                )
                .with("mode", "invalidate")
                .with("invalidated_files", removed)
                .with("file_path", rel.map(Value::from).unwrap_or(Value::Null))
                .with_next_step("Re-parse them: index action=sync"))
            }
        }
    }
}
