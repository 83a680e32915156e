//! `index cache`: raw access to the index store: stats, lookup, search, index,
//! sync, changes, invalidate.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{BuildMode, BuildOptions, Index, SymbolRow, WalkOptions, pending_changes};

use crate::action::Action;
use crate::actions::common::{
    build_index, cap, open_index, split_qualified, to_value, with_payload,
};
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
    /// Most files to index (>= 1; default 1000000, a guard: files past it are counted and warned about).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// With `index`: rebuild from scratch.
    #[serde(default)]
    pub force: Option<bool>,
}

pub struct Cache;

/// A symbol of the store, as a row of `symbols`.
#[derive(Debug, Serialize)]
pub struct SymbolEntry<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub kind: &'a str,
    pub file: &'a str,
    pub language: &'a str,
    pub line: u32,
    pub end_line: u32,
    pub signature: &'a str,
}

fn symbol_json(s: &SymbolRow) -> Value {
    to_value(&SymbolEntry {
        name: &s.name,
        qualified_name: &s.qualname,
        kind: &s.kind,
        file: &s.file,
        language: &s.language,
        line: s.line,
        end_line: s.end_line,
        signature: &s.signature,
    })
}

fn symbols_list(rows: Vec<Value>, limit: NonZeroUsize) -> (ListSpelling, Capped<Value>) {
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

/// The mode alone (and what the mode adds before its list).
#[derive(Debug, Serialize)]
struct ModeOnly<'a> {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    index_state: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<&'a str>,
}

/// The payload of `stats`.
#[derive(Debug, Serialize)]
pub struct StatsPayload<'a> {
    pub mode: &'static str,
    pub files: u64,
    pub symbols: u64,
    pub call_edges: u64,
    pub imports: u64,
    pub files_by_language: &'a BTreeMap<String, u64>,
    pub edges_by_kind: &'a BTreeMap<String, u64>,
    pub index_bytes: u64,
    pub index_path: &'static str,
}

/// The payload of `index` and `sync`.
#[derive(Debug, Serialize)]
pub struct BuildPayload {
    pub mode: &'static str,
    pub mode_used: &'static str,
    pub indexed: usize,
    pub cached: usize,
    pub deleted: usize,
    pub errors: usize,
    pub total_files: usize,
    pub elapsed_ms: u64,
}

/// The payload of `changes`.
#[derive(Debug, Serialize)]
pub struct ChangesPayload {
    pub mode: &'static str,
    pub new_files: usize,
    pub modified_files: usize,
    pub deleted_files: usize,
    pub pending_changes: usize,
}

/// The payload of `invalidate`.
#[derive(Debug, Serialize)]
pub struct InvalidatePayload<'a> {
    pub mode: &'static str,
    pub invalidated_files: usize,
    pub file_path: Option<&'a str>,
}

fn mode_only(mode: &'static str) -> ModeOnly<'static> {
    ModeOnly {
        mode,
        index_state: None,
        query: None,
    }
}

fn stats(root: &std::path::Path) -> Result<Success, ToolError> {
    let Some(index) = Index::open(root)? else {
        let payload = ModeOnly {
            index_state: Some("missing"),
            ..mode_only("stats")
        };
        return Ok(with_payload(
            Success::new(Verdict::NotFound, "index cache stats: no index"),
            &payload,
        )
        .with_next_step("Build it: index action=cache mode=index"));
    };
    let st = index.status()?;
    let payload = StatsPayload {
        mode: "stats",
        files: st.files,
        symbols: st.symbols,
        call_edges: st.calls,
        imports: st.imports,
        files_by_language: &st.files_by_language,
        edges_by_kind: &st.edges_by_kind,
        index_bytes: st.index_bytes,
        index_path: ".tsa/index.db",
    };
    Ok(with_payload(
        Success::new(
            Verdict::Info,
            format!(
                "index cache stats files={} symbols={} bytes={}",
                st.files, st.symbols, st.index_bytes
            ),
        ),
        &payload,
    )
    .with_next_step("Look a symbol up: index action=cache mode=lookup symbol=<name>"))
}

fn lookup(ctx: &Context, args: &Args, limit: NonZeroUsize) -> Result<Success, ToolError> {
    let root = ctx.root()?;
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
    Ok(with_payload(
        Success::new(
            verdict,
            format!("index cache lookup '{subject}': {} symbols", rows.len()),
        ),
        &mode_only("lookup"),
    )
    .with_list(spelling, list)
    .with_next_step("nav action=callers function_name=<name> for who calls one"))
}

fn search(ctx: &Context, args: Args, limit: NonZeroUsize) -> Result<Success, ToolError> {
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
    let payload = ModeOnly {
        query: Some(&q),
        ..mode_only("search")
    };
    Ok(with_payload(
        Success::new(
            verdict,
            format!("index cache search '{q}': {total} matches"),
        ),
        &payload,
    )
    .with_list(
        ListSpelling {
            list_key: "symbols",
            total_key: "total_matches",
            listed_key: "symbols_listed",
            cap_key: "listed_cap",
            noun: "matches",
            remedy: "raise limit, or use search action=symbol for ranked results".into(),
        },
        capped,
    )
    .with_next_step("search action=symbol ranks these by relevance"))
}

fn build(ctx: &Context, args: &Args, walk: WalkOptions) -> Result<Success, ToolError> {
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
    let payload = BuildPayload {
        mode: if full { "index" } else { "sync" },
        mode_used: r.mode_used,
        indexed: r.indexed,
        cached: r.cached,
        deleted: r.deleted,
        errors: r.errors,
        total_files: r.total_files,
        elapsed_ms: r.elapsed_ms as u64,
    };
    Ok(with_payload(
        Success::new(
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
        ),
        &payload,
    )
    .with_next_step("index action=cache mode=stats"))
}

fn changes(root: &std::path::Path, walk: &WalkOptions) -> Result<Success, ToolError> {
    let p = pending_changes(root, walk)?;
    let payload = ChangesPayload {
        mode: "changes",
        new_files: p.new.len(),
        modified_files: p.modified.len(),
        deleted_files: p.deleted.len(),
        pending_changes: p.total(),
    };
    Ok(with_payload(
        Success::new(
            Verdict::Info,
            format!(
                "index cache changes new={} modified={} deleted={}",
                p.new.len(),
                p.modified.len(),
                p.deleted.len()
            ),
        ),
        &payload,
    )
    .with_next_step(if p.total() == 0 {
        "Nothing to sync."
    } else {
        "Apply: index action=cache mode=sync"
    }))
}

fn invalidate(root: &std::path::Path, args: &Args) -> Result<Success, ToolError> {
    let rel = match &args.file_path {
        Some(f) => Some(tsa_analysis::security::resolve_in_root(root, f)?.1),
        None => None,
    };
    let removed = tsa_index::invalidate(root, rel.as_deref())?;
    let subject = rel.as_deref().unwrap_or("all files");
    let payload = InvalidatePayload {
        mode: "invalidate",
        invalidated_files: removed,
        file_path: rel.as_deref(),
    };
    Ok(with_payload(
        Success::new(
            if removed == 0 {
                Verdict::NotFound
            } else {
                Verdict::Info
            },
            format!("index cache invalidate {subject}: {removed} file(s)"),
        ),
        &payload,
    )
    .with_next_step("Re-parse them: index action=sync"))
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
        let max_files = cap("max_files", args.max_files, tsa_index::MAX_FILES_GUARD)?;
        let walk = WalkOptions {
            max_files: max_files.get(),
            ..WalkOptions::default()
        };
        match args.mode.unwrap_or(Mode::Stats) {
            Mode::Stats => stats(root),
            Mode::Lookup => lookup(ctx, &args, limit),
            Mode::Search => search(ctx, args, limit),
            Mode::Index | Mode::Sync => build(ctx, &args, walk),
            Mode::Changes => changes(root, &walk),
            Mode::Invalidate => invalidate(root, &args),
        }
    }
}
