//! `search tql_execute`: a TQL selector over the index (one engine with `search
//! select`), every call pseudo-class walking resolved call edges only, hop
//! quantifiers `{n,m}`; the total is exact.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::hyphae;
use tsa_envelope::{Capped, ErrorType, Failure, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index};
use crate::{Context, ToolError};

/// Arguments of `search tql_execute`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// A TQL selector (see search action=tql_schema), e.g. `.function:calls(#save){1,3}`.
    #[schemars(length(max = tsa_analysis::hyphae::parse::MAX_SELECTOR_CHARS))]
    pub selector: String,
    /// Most symbols listed (1-1000, default 100); the total is exact.
    #[serde(default)]
    pub max_results: Option<f64>,
}

pub struct TqlExecute;

/// The selector as echoed: its first 200 characters, then its length.
fn echo(selector: &str) -> String {
    let s = selector.trim();
    let n = s.chars().count();
    if n <= 200 {
        s.to_owned()
    } else {
        format!(
            "{}... ({n} chars total)",
            s.chars().take(200).collect::<String>()
        )
    }
}

fn invalid(code: &str, error: String) -> ToolError {
    ToolError::Coded(Box::new(
        Failure::new(ErrorType::Validation, error)
            .with_hint("Check the selector against search action=tql_schema.")
            .with("error_code", code)
            .with("count", 0)
            .with("symbols", json!([])),
    ))
}

impl Action for TqlExecute {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "tql_execute";
    const SUMMARY: &'static str = "run a TQL selector over the index: call pseudo-classes over resolved edges, {n,m} hop quantifiers, exact totals";
    const BRIEF: &'static str = "run a TQL selector";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let selector = args.selector.trim();
        if selector.is_empty() {
            return Err(invalid(
                "INVALID_ARGUMENT",
                "selector must be a non-blank string".into(),
            ));
        }
        let max = match args.max_results {
            None => 100,
            Some(m) if m.fract() == 0.0 && (1.0..=1000.0).contains(&m) => m as usize,
            Some(_) => {
                return Err(invalid(
                    "INVALID_ARGUMENT",
                    "max_results must be an integer from 1 to 1000".into(),
                ));
            }
        };
        // Syntax first: a bad selector never builds an index.
        hyphae::parse::parse(selector).map_err(|e| {
            invalid(
                "TQL_SYNTAX_ERROR",
                format!("TQL syntax error: {} at column {}", e.detail, e.column),
            )
        })?;
        let opened = open_index(ctx)?;
        let indexed_files = opened.index.files()?.len();
        let outcome = hyphae::select_tql(&opened.index, selector)?;
        let total = outcome.total();
        let rows: Vec<_> = outcome
            .rows()
            .take(max)
            .map(|m| json!({"name": m.name, "file": m.file, "line": m.line, "language": m.language, "class": m.class}))
            .collect();
        let echo = echo(selector);
        // Nothing found while unresolved call sites might have matched: not NOT_FOUND.
        // ... or while a pseudo-class could not judge some of its data.
        let unsure = outcome.unresolved > 0 || !outcome.warnings.is_empty();
        let verdict = match (total, unsure) {
            (0, false) => Verdict::NotFound,
            (0, true) => Verdict::Warn,
            _ => Verdict::Info,
        };
        let mut s = Success::new(
            verdict,
            format!("tql_execute: {total} symbols for '{echo}'"),
        );
        s.insert("selector", json!(echo));
        s.insert("index_state", json!("ready"));
        s.insert("indexed_files", json!(indexed_files));
        let mut s = s.with_list(
            ListSpelling {
                list_key: "symbols",
                total_key: "total_matches",
                listed_key: "count",
                cap_key: "listed_cap",
                noun: "symbols",
                remedy: "narrow with :in(path), [file=], :not(), or raise max_results".into(),
            },
            Capped::counted(rows, total, fixed_cap(max)),
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        if outcome.unresolved > 0 {
            s.insert("unresolved_candidates", json!(outcome.unresolved));
            s = s.with_warning(format!(
                "{} symbol(s) were left out but unresolved call sites may reach them (same name): they may belong (nav action=callers lists those sites)",
                outcome.unresolved
            ));
        }
        for w in &outcome.warnings {
            s = s.with_warning(w.clone());
        }
        Ok(if total == 0 {
            s.with_next_step(format!("No symbol matches in the {indexed_files} indexed files: loosen the selector or check names with search action=symbol."))
        } else {
            s.with_next_step(
                "Open a symbol with nav action=pulse, or walk further with a {n,m} quantifier.",
            )
        })
    }
}
