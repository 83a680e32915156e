//! `nav pulse`: one symbol's context card in one call (identity and docstring,
//! callers, callees, imports, importers, git heat, siblings, comments), its caps
//! honoured exactly, within a token budget; freshness checked for the files the card
//! is built from only (stale ones re-indexed first, up to 50).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsa_analysis::pulse::{self, Caps, Lookup, Pulse, View};
use tsa_analysis::trust::Assessor;
use tsa_envelope::{ErrorType, Failure, Success, Verdict};
use tsa_index::{Index, SymbolRow};

use crate::action::Action;
use crate::actions::common::{build_index, open_index, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Which card.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Identity and exact counts only.
    Skeletal,
    /// Short keys (default).
    #[default]
    Compact,
    /// Full key names.
    Verbose,
}

impl Format {
    pub(crate) fn view(self) -> View {
        match self {
            Format::Skeletal => View::Skeletal,
            Format::Compact => View::Compact,
            Format::Verbose => View::Verbose,
        }
    }
}

/// Arguments of `nav pulse`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Project-relative file defining the symbol.
    pub file: ProjectPath,
    /// Exact name, or `Class.method`.
    pub symbol: String,
    /// skeletal, compact (default) or verbose.
    #[serde(default)]
    pub format: Option<Format>,
    /// Soft budget of the card in tokens (chars/4; default 600): whole fields are dropped past it.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub token_budget: Option<i64>,
    /// Most callers listed (0-1000, default 10).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub max_callers: Option<i64>,
    /// Most callees listed (0-1000, default 10).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub max_callees: Option<i64>,
    /// Most sibling definitions listed (0-1000, default 15).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub max_siblings: Option<i64>,
    /// Most body comments listed (0-1000, default 10; 0 reads none).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub max_comments: Option<i64>,
    /// The definition's line, when the file defines the name more than once.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line: Option<i64>,
}

pub struct PulseAction;

/// Most stale files re-indexed before answering.
const REINDEX_MAX: usize = 50;

fn count(name: &str, v: Option<i64>, default: usize) -> Result<usize, ToolError> {
    match v {
        None => Ok(default),
        Some(n) if (0..=1000).contains(&n) => Ok(n as usize),
        Some(n) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be 0-1000, got {n}"
        ))),
    }
}

pub(crate) fn budget(name: &str, v: Option<i64>, default: usize) -> Result<usize, ToolError> {
    match v {
        None => Ok(default),
        Some(n) if n >= 1 => Ok(n as usize),
        Some(n) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be >= 1, got {n}"
        ))),
    }
}

/// Where the card's facts come from, and whether they match the files on disk.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Evidence {
    pub freshness: &'static str,
    pub scope: &'static str,
    pub snapshot_id: String,
    pub source_generation: String,
    pub reason: Option<String>,
}

/// One looked-up card, or why there is none.
pub(crate) enum Card {
    Found(Box<Pulse>),
    Missing(Vec<String>),
    Ambiguous(Vec<SymbolRow>),
    NotIndexed,
}

pub(crate) fn card(
    index: &Index,
    root: &std::path::Path,
    file: &str,
    symbol: &str,
    line: Option<u32>,
    caps: Caps,
) -> Result<Card, ToolError> {
    if !index.is_indexed(file)? {
        return Ok(Card::NotIndexed);
    }
    Ok(match pulse::lookup(index, file, symbol, line)? {
        Lookup::Found(row) => Card::Found(Box::new(pulse::gather(index, root, *row, caps)?)),
        Lookup::Missing(near) => Card::Missing(near),
        Lookup::Ambiguous(rows) => Card::Ambiguous(rows),
    })
}

/// The files among `files` that changed on disk; when there are some (at most
/// [`REINDEX_MAX`]), the index is synced and `true` returned (cards must be rebuilt).
pub(crate) fn refresh(
    ctx: &Context,
    index: &Index,
    files: &[String],
) -> Result<(Vec<String>, bool), ToolError> {
    let ask: Vec<&str> = files.iter().map(String::as_str).collect();
    let stale = index.changed_on_disk(&ask)?;
    if stale.is_empty() || stale.len() > REINDEX_MAX {
        return Ok((stale, false));
    }
    build_index(ctx, &ctx.build_options())?;
    Ok((stale, true))
}

/// The evidence of an answer built from `files`, `stale` of them changed on disk.
pub(crate) fn evidence(
    index: &Index,
    files: &[String],
    stale: &[String],
) -> Result<Evidence, ToolError> {
    let mut h = blake3::Hasher::new();
    for f in files {
        h.update(f.as_bytes());
        h.update(&[0]);
        if let Ok(bytes) = std::fs::read(index.root().join(f)) {
            h.update(blake3::hash(&bytes).as_bytes());
        }
    }
    let generation = index.generation()?;
    Ok(Evidence {
        freshness: if stale.is_empty() { "fresh" } else { "stale" },
        scope: "answer_files",
        snapshot_id: format!("idx_{generation}"),
        source_generation: format!("blake3:{}", &h.finalize().to_hex()[..32]),
        reason: (!stale.is_empty()).then(|| {
            format!(
                "{} file(s) of the answer changed on disk and were not re-indexed",
                stale.len()
            )
        }),
    })
}

pub(crate) fn ambiguous(file: &str, symbol: &str, rows: &[SymbolRow]) -> ToolError {
    let candidates: Vec<Value> = rows
        .iter()
        .map(|r| json!({"name": r.qualname, "kind": r.kind, "line": r.line, "class": r.owner}))
        .collect();
    ToolError::Coded(Box::new(
        Failure::new(
            ErrorType::Validation,
            format!(
                "AMBIGUOUS_SYMBOL: {file} defines '{symbol}' {} times",
                rows.len()
            ),
        )
        .with_hint("Pass line= (one of the candidates' lines) or Class.method as symbol.")
        .with("error_code", "AMBIGUOUS_SYMBOL")
        .with("candidates", Value::Array(candidates)),
    ))
}

impl Action for PulseAction {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "pulse";
    const SUMMARY: &'static str = "one symbol's context card: identity and docstring, callers, callees, imports, importers, git heat, siblings, body comments; caps honoured, whole fields dropped past token_budget";
    const BRIEF: &'static str = "a symbol's context card";
    const ALIASES: &'static [(&'static str, &'static str)] =
        &[("file_path", "file"), ("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let caps = Caps {
            callers: count("max_callers", args.max_callers, 10)?,
            callees: count("max_callees", args.max_callees, 10)?,
            siblings: count("max_siblings", args.max_siblings, 15)?,
            comments: count("max_comments", args.max_comments, 10)?,
        };
        let budget = budget("token_budget", args.token_budget, 600)?;
        let symbol = args.symbol.trim();
        if symbol.is_empty() {
            return Err(ToolError::Validation(
                "parameter 'symbol' must be a non-empty string".into(),
            ));
        }
        let line = args.line.map(|l| l.max(1) as u32);
        let file = args.file.relative().to_owned();
        let root = ctx.root()?;
        let opened = open_index(ctx)?;
        let mut index = opened.index;
        let mut found = card(&index, root, &file, symbol, line, caps)?;
        // A file written, or changed, since the last build is indexed first: a name
        // missing from a stale index is no NOT_FOUND.
        let changed = match &found {
            Card::NotIndexed => args.file.absolute().is_file(),
            Card::Missing(_) | Card::Ambiguous(_) => !index.changed_on_disk(&[&file])?.is_empty(),
            Card::Found(_) => false,
        };
        if changed {
            build_index(ctx, &ctx.build_options())?;
            index = open_index(ctx)?.index;
            found = card(&index, root, &file, symbol, line, caps)?;
        }
        let mut stale = Vec::new();
        if let Card::Found(p) = &found {
            let (s, synced) = refresh(ctx, &index, &p.files)?;
            stale = s;
            if synced {
                index = open_index(ctx)?.index;
                found = card(&index, root, &file, symbol, line, caps)?;
                stale = match &found {
                    Card::Found(p) => {
                        let ask: Vec<&str> = p.files.iter().map(String::as_str).collect();
                        index.changed_on_disk(&ask)?
                    }
                    _ => Vec::new(),
                };
            }
        }
        let p = match found {
            Card::NotIndexed => return Err(ToolError::NotFound(format!("{file} (not indexed)"))),
            Card::Ambiguous(rows) => return Err(ambiguous(&file, symbol, &rows)),
            Card::Missing(near) => {
                let mut s = Success::new(
                    Verdict::NotFound,
                    format!("pulse {file}:{symbol}: no such definition in the file"),
                );
                s.insert("result", Value::Null);
                s.insert("candidates", json!(near));
                return Ok(s.with_next_step(if near.is_empty() {
                    format!("{file} defines no '{symbol}'; list its definitions with structure action=outline file_path={file}.")
                } else {
                    format!("{file} defines no '{symbol}'; did you mean {}?", near.join(", "))
                }));
            }
            Card::Found(p) => p,
        };
        let trust = Assessor::new(&index, root).assess(std::slice::from_ref(&p.symbol), 0)?;
        let view = pulse::render(&p, args.format.unwrap_or_default().view(), budget);
        let tok = view
            .get("tok")
            .or_else(|| view.get("token_estimate"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let ev = evidence(&index, &p.files, &stale)?;
        let verdict = if stale.is_empty() {
            Verdict::Info
        } else {
            Verdict::Warn
        };
        let mut s = Success::new(
            verdict,
            format!(
                "pulse {file}:{symbol} callers={} callees={} tok={tok}",
                p.callers.total, p.callees.total
            ),
        );
        s.insert("result", view);
        s = with_payload(
            s,
            &json!({
                "callers_completeness": trust.completeness.as_str(),
                "unresolved_sites": trust.open.total,
                "source_evidence": ev,
            }),
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        for f in &stale {
            s = s.with_warning(format!(
                "stale: {f} changed on disk since the index was built"
            ));
        }
        if trust.open.total > 0 {
            s = s.with_warning(format!(
                "{} call site(s) of '{}' were not bound: callers may be missing (callers_completeness {})",
                trust.open.total, p.symbol.name, trust.completeness.as_str()
            ));
        }
        Ok(s.with_next_step(format!(
            "Before editing, check what breaks: edit action=impact (or nav action=callers function_name={} file_path={file}).",
            p.symbol.name
        )))
    }
}
