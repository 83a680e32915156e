//! `search semantic`: symbols matching a description in words, offline lexical
//! retrieval (`tsa-lexical-v1`): no network, no model download.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::semantic::{self, Filter, MODEL};
use tsa_envelope::{Capped, ErrorType, Failure, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, to_value};
use crate::{Context, ToolError};

/// Arguments of `search semantic`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// What the code does, in words ("database connection pooling").
    #[schemars(length(max = 1000))]
    pub query: String,
    /// Most symbols (1-50, default 10).
    #[serde(default)]
    pub top_k: Option<i64>,
    /// Least similarity kept (0-1, default 0.5: at least half the query's weight found).
    #[serde(default)]
    pub min_similarity: Option<f64>,
    /// Only this language.
    #[serde(default)]
    pub language: Option<String>,
    /// Only this kind (function, method, class, ...).
    #[serde(default)]
    pub kind: Option<String>,
    /// Blend in how many resolved callers each symbol has (default false).
    #[serde(default)]
    pub use_combined_score: Option<bool>,
}

pub struct Semantic;

fn invalid(msg: &str) -> ToolError {
    ToolError::Coded(Box::new(
        Failure::new(ErrorType::Validation, msg)
            .with_hint("Fix the argument named in error and call again.")
            .with("error_code", "INVALID_ARGUMENT"),
    ))
}

impl Action for Semantic {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "semantic";
    const SUMMARY: &'static str = "symbols matching a description in words: offline lexical retrieval (names, classes, signatures, paths; stems and code abbreviations), idf-weighted coverage of the query";
    const BRIEF: &'static str = "symbols by description, offline";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let top_k = match args.top_k {
            None => 10,
            Some(k) if (1..=50).contains(&k) => k as usize,
            Some(_) => return Err(invalid("top_k must be an integer between 1 and 50")),
        };
        let min = match args.min_similarity {
            None => 0.5,
            Some(m) if m.is_finite() && (0.0..=1.0).contains(&m) => m,
            Some(_) => {
                return Err(invalid(
                    "min_similarity must be a finite number between 0 and 1",
                ));
            }
        };
        if semantic::words(&args.query).is_empty() {
            return Err(invalid(
                "query must hold at least one word (stop words and 1-character words are left out)",
            ));
        }
        let opened = open_index(ctx)?;
        let terms = semantic::terms_of(&opened.index)?;
        if terms.is_empty() {
            let s = Success::new(
                Verdict::Warn,
                "semantic: the index holds no symbol".to_owned(),
            );
            return Ok(s.with_next_step("Build the index with index action=full."));
        }
        let filter = Filter {
            language: args.language.as_deref(),
            kind: args.kind.as_deref(),
        };
        let (mut found, total) = semantic::search(&terms, &args.query, min, &filter);
        let combined = args.use_combined_score.unwrap_or(false);
        let mut rows: Vec<Value> = Vec::new();
        let mut heat_known = false;
        if combined {
            // Rank the best candidates again with their callers and git heat (the
            // commits of the last 30 days owning their lines), when activation is
            // stored and fresh for all of them.
            found.truncate(200);
            let spans: Vec<(&str, u32, u32)> = found
                .iter()
                .map(|n| (n.file.as_str(), n.line, n.end_line))
                .collect();
            let heat = tsa_analysis::activation::heat_of(ctx.root()?, &opened.index, &spans);
            heat_known = heat.is_some();
            let mut scored: Vec<(f64, Value)> = Vec::new();
            for (i, n) in found.iter().enumerate() {
                let callers = opened.index.callers(&[n.symbol_id])?.len();
                let c = ((1.0 + callers as f64).ln() / 51f64.ln()).min(1.0);
                let h = heat.as_ref().map(|h| h[i]);
                let score = match h {
                    Some(h) => {
                        let g = ((1.0 + h as f64).ln() / 101f64.ln()).min(1.0);
                        0.7 * n.similarity + 0.2 * g + 0.1 * c
                    }
                    None => 0.875 * n.similarity + 0.125 * c,
                };
                let mut v = to_value(n);
                v["caller_count"] = json!(callers);
                v["git_heat"] = h.map_or(Value::Null, |h| json!(h));
                v["combined_score"] = json!((score * 10_000.0).round() / 10_000.0);
                scored.push((score, v));
            }
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            rows = scored.into_iter().take(top_k).map(|(_, v)| v).collect();
        } else {
            rows.extend(found.iter().take(top_k).map(to_value));
        }
        let listed = rows.len();
        let verdict = if rows.is_empty() {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let mut s = Success::new(
            verdict,
            format!(
                "semantic: {listed} of {total} symbol(s) at similarity >= {min} for '{}'",
                args.query
            ),
        );
        for (k, v) in [
            ("model", json!(MODEL)),
            ("similarity_method", json!("idf_coverage")),
            ("query", json!(args.query)),
            ("min_similarity", json!(min)),
        ] {
            s.insert(k, v);
        }
        let mut s = s.with_list(
            ListSpelling {
                list_key: "neighbors",
                total_key: "total_matches",
                listed_key: "count",
                cap_key: "top_k",
                noun: "symbols",
                remedy: "raise top_k (max 50) or min_similarity".into(),
            },
            Capped::counted(rows, total, fixed_cap(top_k)),
        );
        if combined && !heat_known {
            s = s.with_warning("no fresh per-symbol git activation for these symbols (index action=full include_activation=true computes it): combined_score = 0.875 similarity + 0.125 callers (heat left out)");
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(if verdict == Verdict::NotFound {
            s.with_next_step("Nothing reaches that similarity: lower min_similarity or use search action=symbol with a name.")
        } else {
            s.with_next_step("Open the best match with nav action=pulse file=<file> symbol=<name>.")
        })
    }
}
