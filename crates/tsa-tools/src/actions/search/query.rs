//! `search query`: a tree-sitter query (`.scm` DSL) over one file, or a named query
//! (functions, classes, imports, calls, comments, strings); or, with `symbol`, the
//! symbol's definitions from the index.

use schemars::JsonSchema;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tsa_analysis::ts_query::{parse_filter, read_source, run_query};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{
    Targets, definitions_json, find_targets, fixed_cap, open_index, to_value, with_payload,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `search query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to query (project-relative). Either this or symbol.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Instead of a file: look the symbol up in the index and list its definitions.
    #[serde(default)]
    pub symbol: Option<String>,
    /// A named query: functions, classes, imports, calls, comments, strings.
    #[serde(default)]
    pub query_key: Option<String>,
    /// A tree-sitter query in the .scm DSL, e.g. `(function_definition name: (identifier) @name)`.
    #[serde(default)]
    pub query_string: Option<String>,
    /// Keep results whose field matches: `name=~regex`, `name=value`, `capture=name`, `kind=node_kind`, `text=~regex`; `!=`/`!~` negate; several joined by `,`.
    #[serde(default)]
    pub filter: Option<String>,
    /// Parse the file as this language instead of by its extension.
    #[serde(default)]
    pub language: Option<String>,
    /// Most results to list (default 100, clamped 1..2000). The exact total is always counted.
    #[serde(default)]
    pub max_count: Option<i64>,
    /// json (default: full rows) or summary (counts per capture and short rows).
    #[serde(default)]
    pub result_format: Option<String>,
    /// With symbol: only definitions of this kind (function, method, class, struct, ...).
    #[serde(default)]
    pub symbol_type: Option<String>,
}

pub struct QueryAction;

/// The payload of `search query` (file form), in answer order (the results
/// follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct QueryPayload<'a> {
    /// The file, project-relative.
    pub file_path: &'a str,
    /// The language it was parsed as.
    pub language: &'static str,
    /// `query_string`, or the named query.
    pub query: &'a str,
    /// `json` or `summary`.
    pub result_format: &'static str,
    /// Results per capture.
    pub capture_counts: &'a BTreeMap<String, usize>,
}

impl Action for QueryAction {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "query";
    const SUMMARY: &'static str = "run a tree-sitter query over one file (query_string in .scm, or query_key functions|classes|imports|calls|comments|strings; filter name=~regex), or list a symbol's definitions (symbol)";
    const BRIEF: &'static str = "tree-sitter query on a file";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let cap = match a.max_count {
            None => 100,
            Some(n) => (n.max(1) as usize).min(2000),
        };
        let summary = match a.result_format.as_deref() {
            None | Some("json") => false,
            Some("summary") => true,
            Some(other) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'result_format' must be json or summary, got '{other}'"
                )));
            }
        };
        let conds = parse_filter(a.filter.as_deref().unwrap_or(""))?;
        match (&a.file_path, &a.symbol) {
            (None, Some(sym)) => return symbol_lookup(ctx, sym, a.symbol_type.as_deref(), cap),
            (None, None) => {
                return Err(ToolError::Validation(
                    "pass file_path (with query_key or query_string) or symbol".into(),
                ));
            }
            _ => {}
        }
        let Some(file) = a.file_path.as_deref() else {
            return Err(ToolError::Validation("pass file_path or symbol".into()));
        };
        let (rel, lang, bytes) = read_source(root, file, a.language.as_deref())?;
        let report = run_query(
            lang,
            &bytes,
            a.query_key.as_deref(),
            a.query_string.as_deref(),
            &conds,
        )?;
        let total = report.hits.len();
        let list = Capped::collect(
            report.hits.iter().map(|h| to_value(&h.row(summary))),
            fixed_cap(cap),
        );
        let verdict = if total == 0 {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let step = if total == 0 {
            format!(
                "Nothing matched in {rel}; check the node names with structure action=ast_path, or loosen filter"
            )
        } else {
            format!("Read a result in context: structure action=read file_path={rel}")
        };
        let payload = QueryPayload {
            file_path: &rel,
            language: lang.name(),
            query: &report.label,
            result_format: if summary { "summary" } else { "json" },
            capture_counts: &report.capture_counts,
        };
        Ok(with_payload(
            Success::new(
                verdict,
                format!("search_query {rel} {}: {total} results", report.label),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "results",
                total_key: "total_matches",
                listed_key: "count",
                cap_key: "listed_cap",
                noun: "results",
                remedy: "raise max_count, or narrow with filter=name=~regex".into(),
            },
            list,
        )
        .with_next_step(step))
    }
}

/// The symbol form: the definitions of `symbol` in the index, or NOT_FOUND with
/// suggestions.
fn symbol_lookup(
    ctx: &Context,
    symbol: &str,
    symbol_type: Option<&str>,
    cap: usize,
) -> Result<Success, ToolError> {
    let opened = open_index(ctx)?;
    let mut s = match find_targets(ctx, &opened.index, "search_query", symbol, None)? {
        Targets::Missing(miss) => miss.with("symbol", symbol),
        Targets::Found(defs) => {
            let defs: Vec<_> = defs
                .into_iter()
                .filter(|d| symbol_type.is_none_or(|t| d.kind.eq_ignore_ascii_case(t)))
                .collect();
            if defs.is_empty() {
                Success::new(
                    Verdict::NotFound,
                    format!(
                        "search_query: '{symbol}' has no definition of kind {}",
                        symbol_type.unwrap_or("?")
                    ),
                )
                .with("symbol", symbol)
                .with_next_step(format!(
                    "Drop symbol_type to see every definition of '{symbol}'"
                ))
            } else {
                let rows = definitions_json(&defs);
                let rows = rows.as_array().cloned().unwrap_or_default();
                let n = rows.len();
                let first = &defs[0];
                Success::new(
                    Verdict::Info,
                    format!("search_query: '{symbol}' has {n} definition(s)"),
                )
                .with("symbol", symbol)
                .with_list(
                    ListSpelling {
                        list_key: "definitions",
                        total_key: "definition_count",
                        listed_key: "count",
                        cap_key: "listed_cap",
                        noun: "definitions",
                        remedy: "raise max_count, or qualify as ClassName.method".into(),
                    },
                    Capped::collect(rows, fixed_cap(cap)),
                )
                .with_next_step(format!(
                    "Query the file: search action=query file_path={} query_key=functions filter=name={}",
                    first.file, first.name
                ))
            }
        }
    };
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}
