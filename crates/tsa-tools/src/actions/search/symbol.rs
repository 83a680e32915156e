//! `search symbol`: BM25-ranked symbol lookup over the FTS5 index.

use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;
use tsa_lang::{Language, is_test_path};

use crate::action::Action;
use crate::actions::common::{IncludeBodies, MORE_BODIES, cap, open_index, to_value, with_payload};
use crate::{Context, ToolError};
use tsa_analysis::source::{Bodies, Inlined};

/// Symbol kinds a search can be narrowed to.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Function,
    Method,
    Class,
    Enum,
    Variable,
    Import,
    Constant,
    Any,
}

/// Arguments of `search symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Words to look for in symbol names (identifiers are split on `_` and case changes).
    pub query: String,
    /// Only this language (`python`, `rust`).
    #[serde(default)]
    pub language: Option<String>,
    /// Only this kind (`class` also matches structs and traits). Default `any`.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Most results to list (>= 1, default 15). The exact total is always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// Which results get their source inlined: `none`, `top` (default: the first 3), `all`; each body at most 40 lines.
    #[serde(default)]
    pub include_bodies: Option<IncludeBodies>,
}

pub struct Symbol;

fn kind_weight(kind: &str) -> f64 {
    match kind {
        "class" | "struct" | "trait" | "enum" | "function" | "method" => 1.0,
        "impl" | "module" => 0.85,
        _ => 0.85,
    }
}

fn expresses_test_intent(q: &str) -> bool {
    q.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| {
            matches!(
                w.to_lowercase().as_str(),
                "test"
                    | "tests"
                    | "testing"
                    | "tested"
                    | "test_case"
                    | "test_cases"
                    | "spec"
                    | "specs"
                    | "unit_test"
                    | "unit_tests"
                    | "benchmark"
                    | "benchmarks"
                    | "fixture"
                    | "fixtures"
            )
        })
}

/// One match as a row of `results`.
#[derive(Clone, Debug, Serialize)]
pub struct SymbolHit {
    /// The definition's name.
    pub name: String,
    /// Its qualified name.
    pub qualified_name: String,
    /// Its kind.
    pub kind: String,
    /// Its file.
    pub file: String,
    /// Its language.
    pub language: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Signature as written.
    pub signature: String,
    /// Relevance 0..1 (best = 1.0, 3 decimals).
    pub relevance_score: f64,
    /// Its source, for the rows `include_bodies` names.
    #[serde(flatten)]
    pub body: Inlined,
}

/// The engine of `search symbol`: ranked matches, exact total.
pub struct SymbolSearch {
    /// Matches with their relevance (0..1), production code first, best first.
    pub hits: Capped<(f64, SymbolRow)>,
    /// The exact full-text match count.
    pub total: u64,
    /// The warning of an index built by this call.
    pub built_now: Option<String>,
}

/// The index kinds a [`Kind`] stands for (none: every kind).
fn stored_kinds(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Any => &[],
        Kind::Function => &["function"],
        Kind::Method => &["method"],
        Kind::Class => &["class", "struct", "trait"],
        Kind::Enum => &["enum"],
        // Not stored by this build's index: an honest empty answer.
        Kind::Variable | Kind::Import | Kind::Constant => &["__none__"],
    }
}

/// Definitions whose names hold the words of `query`, BM25-ranked, normalised to
/// 0..1 and weighted by kind; test code after production code unless the query
/// asks for tests.
pub fn search_symbols(
    ctx: &Context,
    query: &str,
    language: Option<&str>,
    kind: Kind,
    limit: NonZeroUsize,
) -> Result<SymbolSearch, ToolError> {
    let opened = open_index(ctx)?;
    let fetch = (limit.get() * 4).max(limit.get() + 50);
    let (rows, total) = opened
        .index
        .search(query, language, stored_kinds(kind), fetch)?;
    // Min-max normalise BM25 (negative, lower is better) to 0..1, weight by kind.
    let best = rows.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let worst = rows.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
    let test_intent = expresses_test_intent(query);
    let mut scored: Vec<_> = rows
        .into_iter()
        .map(|(s, raw)| {
            let rel = if raw >= 0.0 {
                0.0
            } else if (best - worst).abs() < f64::EPSILON {
                1.0
            } else {
                ((raw - worst) / (best - worst)).clamp(0.0, 1.0)
            };
            let exact = if s.name == query.trim() { 1.0 } else { 0.9 };
            let score = rel * kind_weight(&s.kind) * exact;
            let tier = u8::from(!test_intent && (s.is_test || is_test_path(&s.file)));
            (tier, score, s)
        })
        .collect();
    let top = scored.iter().map(|r| r.1).fold(0.0f64, f64::max);
    if top > 0.0 {
        for r in &mut scored {
            r.1 /= top;
        }
    }
    scored.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(b.1.total_cmp(&a.1))
            .then_with(|| a.2.file.cmp(&b.2.file))
            .then(a.2.line.cmp(&b.2.line))
    });
    // The total is the exact FTS match count; rows beyond the fetch window (which
    // is always wider than the limit) are counted, not ranked.
    let hits = Capped::counted(scored, total as usize, limit).map(|(_, score, s)| (score, s));
    Ok(SymbolSearch {
        hits,
        total,
        built_now: opened.built_now,
    })
}

/// The payload of `search symbol`, in answer order (the results follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct SymbolPayload<'a> {
    /// The query as given.
    pub query: &'a str,
    /// Matches listed.
    pub match_count: usize,
    /// Distinct files among them.
    pub file_count: usize,
    /// Always `fts5`.
    pub data_source: &'static str,
    /// Always `fts5_bm25`.
    pub ranking_method: &'static str,
    /// The language asked for.
    pub language_filter: Option<&'a str>,
    /// The kind asked for.
    pub kind_filter: String,
}

/// The language a `language` parameter names (its canonical name).
fn language_param(l: Option<&str>) -> Result<Option<&'static str>, ToolError> {
    let Some(l) = l else { return Ok(None) };
    let lang = Language::from_name(l).ok_or_else(|| {
        let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
        ToolError::Validation(format!(
            "parameter 'language' must be one of: {}; got '{l}'",
            known.join(", ")
        ))
    })?;
    Ok(Some(lang.name()))
}

impl Action for Symbol {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "symbol";
    const SUMMARY: &'static str = "find definitions by name, BM25-ranked (relevance_score 0..1, best = 1.0), bodies of the first 3 inlined";
    const BRIEF: &'static str = "find definitions by name";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 15)?;
        if args.query.trim().is_empty() {
            return Err(ToolError::Validation(
                "parameter 'query' must be a non-empty string".into(),
            ));
        }
        let language = language_param(args.language.as_deref())?;
        let kind = args.kind.unwrap_or(Kind::Any);
        let found = search_symbols(ctx, &args.query, language, kind, limit)?;
        let mut files: Vec<&str> = found
            .hits
            .items()
            .iter()
            .map(|r| r.1.file.as_str())
            .collect();
        files.sort_unstable();
        files.dedup();
        let count = found.hits.listed();
        let payload = SymbolPayload {
            query: &args.query,
            match_count: count,
            file_count: files.len(),
            data_source: "fts5",
            ranking_method: "fts5_bm25",
            language_filter: language,
            kind_filter: format!("{kind:?}").to_lowercase(),
        };
        let include = args.include_bodies.unwrap_or_default();
        let mut bodies = Bodies::new(ctx.root()?, include.rows().definition_budget());
        let listed = found.hits.clone().map(|(score, s)| {
            to_value(&SymbolHit {
                body: bodies.inline(&s.file, s.line, s.end_line),
                name: s.name,
                qualified_name: s.qualname,
                kind: s.kind,
                file: s.file,
                language: s.language,
                line: s.line,
                end_line: s.end_line,
                signature: s.signature,
                relevance_score: (score * 1000.0).round() / 1000.0,
            })
        });
        let verdict = if count > 0 {
            Verdict::Info
        } else {
            Verdict::NotFound
        };
        let follow_up = if count == 0 {
            "No symbol matches; try fewer or other words, or search action=content for text."
                .to_owned()
        } else if bodies.any() && include != IncludeBodies::All && count > 1 {
            format!(
                "Take the top result's name to nav action=callers or nav action=callees. {MORE_BODIES}"
            )
        } else {
            "Take the top result's name to nav action=callers or nav action=callees.".to_owned()
        };
        let mut s = with_payload(
            Success::new(
                verdict,
                format!("search_symbol '{}': {} matches", args.query, found.total),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "results",
                total_key: "total_matches",
                listed_key: "count",
                cap_key: "listed_cap",
                noun: "matches",
                remedy: "raise limit, or narrow with kind= or language=".into(),
            },
            listed,
        )
        .with_next_step(follow_up);
        if matches!(kind, Kind::Variable | Kind::Import | Kind::Constant) {
            s = s.with_warning(
                "kind_not_indexed: this build's index stores functions, methods and types only",
            );
        }
        if let Some(w) = found.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
