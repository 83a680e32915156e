//! `structure explore`: a source bundle for one or more symbols (or a free-text
//! query): their definitions (code of the first 3), caller counts and callees, by file.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::source::Bodies;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{
    IncludeBodies, SUGGESTED_MISSES, fixed_cap, open_index, split_qualified,
};
use crate::{Context, ToolError};

/// Arguments of `structure explore` (camelCase limits, as in the reference).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Free-text query over symbol names (BM25), when no symbol is named.
    #[serde(default)]
    pub query: Option<String>,
    /// One symbol name (`Class.method` qualifies).
    #[serde(default)]
    pub symbol: Option<String>,
    /// Several symbol names.
    #[serde(default)]
    pub symbols: Option<Vec<String>>,
    /// Most files in the bundle (1..30, default 12).
    #[serde(default, rename = "maxFiles")]
    #[schemars(range(min = 1, max = 30))]
    pub max_files: Option<i64>,
    /// Most definitions in the bundle (1..50, default 20).
    #[serde(default, rename = "maxSymbols")]
    #[schemars(range(min = 1, max = 50))]
    pub max_symbols: Option<i64>,
    /// Inline the definitions' source (default true).
    #[serde(default, rename = "includeCode")]
    pub include_code: Option<bool>,
    /// Which definitions get their source inlined: `none`, `top` (default: the first 3), `all`; each body at most 40 lines (includeCode=false is `none`).
    #[serde(default)]
    pub include_bodies: Option<IncludeBodies>,
}

pub struct Explore;

fn ranged(name: &str, v: Option<i64>, default: i64, max: i64) -> Result<usize, ToolError> {
    match v {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(n) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be between 1 and {max}, got {n}"
        ))),
    }
}

impl Action for Explore {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "explore";
    const SUMMARY: &'static str = "source bundle for symbols (symbol, symbols[] or query): definitions (bodies of the first 3), callers and callees, by file (maxFiles, maxSymbols, includeCode)";
    const BRIEF: &'static str = "source bundle for symbols";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_files = ranged("maxFiles", args.max_files, 12, 30)?;
        let max_symbols = ranged("maxSymbols", args.max_symbols, 20, 50)?;
        let include_code = args.include_code.unwrap_or(true);
        let mut names: Vec<String> = Vec::new();
        if let Some(s) = &args.symbol {
            names.push(s.trim().to_owned());
        }
        for s in args.symbols.iter().flatten() {
            names.push(s.trim().to_owned());
        }
        names.retain(|n| !n.is_empty());
        names.dedup();
        let query = args
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        if names.is_empty() && query.is_none() {
            return Err(ToolError::Validation(
                "explore needs query, symbol or symbols (a non-empty name)".into(),
            ));
        }
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let mut matched: Vec<SymbolRow> = Vec::new();
        let mut missing: Vec<Value> = Vec::new();
        let subject = if names.is_empty() {
            query.unwrap_or_default().to_owned()
        } else {
            names.join(", ")
        };
        // Summary lines and next steps show its first 64 characters.
        let subject = match tsa_analysis::suggest::clip(&subject) {
            head if head.len() < subject.len() => format!("{head}…"),
            _ => subject,
        };
        if names.is_empty() {
            let q = query.unwrap_or_default();
            let (rows, _) = index.search(q, None, &[], (max_symbols * 4).max(100))?;
            matched.extend(
                rows.into_iter()
                    .map(|(s, _)| s)
                    .filter(|s| s.kind != "impl"),
            );
            if matched.is_empty() {
                missing.push(json!({"name": q, "suggestions": index.suggest(q, 5)?}));
            }
        } else {
            for n in &names {
                let (owner, name) = split_qualified(n);
                let defs: Vec<SymbolRow> = index
                    .find_symbols(name, owner, None)?
                    .into_iter()
                    .filter(|s| !matches!(s.kind.as_str(), "impl" | "module"))
                    .collect();
                if defs.is_empty() {
                    // Close names for the first few misses only.
                    let suggestions = if missing.len() < SUGGESTED_MISSES {
                        index.suggest(name, 5)?
                    } else {
                        Vec::new()
                    };
                    missing.push(json!({"name": n, "suggestions": suggestions}));
                }
                matched.extend(defs);
            }
        }
        let mut seen = HashSet::new();
        matched.retain(|s| seen.insert(s.id));
        if matched.is_empty() {
            let suggestions: Vec<Value> = missing
                .iter()
                .flat_map(|m| m["suggestions"].as_array().cloned().unwrap_or_default())
                .collect();
            let first = suggestions
                .first()
                .and_then(Value::as_str)
                .map(str::to_owned);
            let mut miss = Success::new(
                Verdict::NotFound,
                format!("explore '{subject}': nothing found"),
            )
            .with("query", subject.clone())
            .with("suggestions", Value::Array(suggestions));
            miss = miss.with_next_step(match first {
                Some(s) => format!("no definition matches '{subject}'. Did you mean '{s}'?"),
                None => format!("no definition matches '{subject}'; try search action=symbol or search action=content"),
            });
            return Ok(miss);
        }
        // Files in order of first appearance; the bundle keeps the first max_files.
        let mut file_order: Vec<String> = Vec::new();
        let mut per_file: HashMap<String, usize> = HashMap::new();
        for s in &matched {
            if !per_file.contains_key(&s.file) {
                file_order.push(s.file.clone());
            }
            *per_file.entry(s.file.clone()).or_default() += 1;
        }
        let kept_files: HashSet<&str> = file_order
            .iter()
            .take(max_files)
            .map(String::as_str)
            .collect();
        let kept: Vec<&SymbolRow> = matched
            .iter()
            .filter(|s| kept_files.contains(s.file.as_str()))
            .take(max_symbols)
            .collect();
        let ids: Vec<i64> = kept.iter().map(|s| s.id).collect();
        let mut callers: HashMap<i64, usize> = HashMap::new();
        for e in index.edges_to(&ids)? {
            *callers.entry(e.target).or_default() += 1;
        }
        let out_edges = index.edges_from(&ids)?;
        let targets: Vec<i64> = out_edges.iter().map(|e| e.target).collect();
        let names_by_id = index.symbols_by_id(&targets)?;
        let mut callees: HashMap<i64, Vec<String>> = HashMap::new();
        for e in &out_edges {
            if let Some(t) = names_by_id.get(&e.target) {
                let v = callees.entry(e.caller).or_default();
                if !v.contains(&t.qualname) {
                    v.push(t.qualname.clone());
                }
            }
        }
        let root = ctx.root()?;
        let include = if include_code {
            args.include_bodies.unwrap_or_default()
        } else {
            IncludeBodies::None
        };
        let mut bodies = Bodies::new(root, include.rows().budget());
        let rows: Vec<Value> = kept
            .iter()
            .map(|s| {
                let cs = callees.get(&s.id).cloned().unwrap_or_default();
                let mut r = json!({
                    "name": s.name,
                    "qualified_name": s.qualname,
                    "kind": s.kind,
                    "file": s.file,
                    "line": s.line,
                    "end_line": s.end_line,
                    "language": s.language,
                    "signature": s.signature,
                    "caller_count": callers.get(&s.id).copied().unwrap_or(0),
                    "callee_count": cs.len(),
                    "callees": cs.iter().take(10).map(String::as_str).collect::<Vec<_>>().join(", "),
                    "is_test": s.is_test,
                });
                // Flat and uniform (one TOON table): the code and the lines cut
                // from it, null for rows without code.
                let b = bodies.inline(&s.file, s.line, s.end_line);
                r["code"] = json!(b.body);
                r["code_cut_lines"] = json!(b.body_cut_lines);
                r
            })
            .collect();
        let total = matched.len();
        let file_rows = file_order
            .iter()
            .map(|f| json!({"file": f, "symbols": per_file[f]}));
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "explore '{subject}': {} definitions in {} files ({} in the bundle)",
                total,
                file_order.len(),
                rows.len()
            ),
        )
        .with("query", subject.clone())
        .with("include_code", include_code)
        .with_list(
            ListSpelling {
                list_key: "symbols",
                total_key: "symbol_count",
                listed_key: "symbols_listed",
                cap_key: "max_symbols",
                noun: "definitions",
                remedy:
                    "raise maxSymbols (<= 50) or maxFiles (<= 30), or name the symbols you need"
                        .into(),
            },
            Capped::counted(rows, total, fixed_cap(max_symbols)),
        )
        .with_list(
            ListSpelling {
                list_key: "files",
                total_key: "file_count",
                listed_key: "files_listed",
                cap_key: "max_files",
                noun: "files",
                remedy: "raise maxFiles (<= 30)".into(),
            },
            Capped::collect(file_rows, fixed_cap(max_files)),
        );
        if !missing.is_empty() {
            out = out
                .with("missing", Value::Array(missing))
                .with_warning("some names were not found: see `missing` (each with suggestions)");
        }
        out = out.with_next_step(if bodies.any() && include != IncludeBodies::All {
            "callers of one of them: nav action=callers function_name=<qualified_name>. Code is inlined for the first 3 definitions (each capped at 40 lines, cut lines in code_cut_lines): include_bodies=all inlines every one, structure action=read shows one file's lines."
        } else {
            "callers of one of them: nav action=callers function_name=<qualified_name>"
        });
        if let Some(w) = opened.built_now {
            out = out.with_warning(w);
        }
        Ok(bodies.warn(out))
    }
}
