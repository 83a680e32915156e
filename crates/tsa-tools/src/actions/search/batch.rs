//! `search batch`: several text searches in one call, each counted exactly and
//! capped on its own; one combined list of matches tagged by query.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::text_batch::{BatchReport, BatchSearch, SearchSummary, run_batch};
use tsa_analysis::text_search::{CaseMode, FileFilter, MatchSpec};
use tsa_envelope::{Capped, ListSpelling, Success};

use crate::action::Action;
use crate::actions::common::{fixed_cap, to_value, with_payload};
use crate::actions::text_common::{MAX_CAP, resolve_roots, verdict};
use crate::{Context, ToolError};

/// One search of a batch.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchQuery {
    /// Regular expression (or literal text with literal=true).
    pub pattern: String,
    /// A name for this search in the answer (default: q1, q2, ...).
    #[serde(default)]
    pub label: Option<String>,
    /// Directories (or files) to search; default the whole project.
    // A project path in the schema (its length limit, `<PATH>`), resolved by `run`
    // query by query, after the checks of the queries before it.
    #[serde(default)]
    #[schemars(with = "Option<Vec<crate::ProjectPath>>")]
    pub roots: Option<Vec<String>>,
    /// Treat the pattern as literal text.
    #[serde(default)]
    pub literal: bool,
    /// true = case-sensitive, false = insensitive; absent = smart case.
    #[serde(default)]
    pub case_sensitive: Option<bool>,
    /// Only files matching these globs.
    #[serde(default)]
    pub include_globs: Option<Vec<String>>,
    /// Skip files and folders matching these globs.
    #[serde(default)]
    pub exclude_globs: Option<Vec<String>>,
    /// Most matches listed for this search (default 20, clamped 1..2000); all are counted.
    #[serde(default)]
    pub max_results: Option<i64>,
}

/// Arguments of `search batch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// 2 to 10 searches: objects with pattern (required), label, roots, literal, case_sensitive, include_globs, exclude_globs, max_results.
    pub queries: Vec<BatchQuery>,
    /// Time budget for the whole batch in milliseconds (default 8000).
    #[serde(default)]
    pub timeout_ms: Option<i64>,
}

pub struct Batch;

const DEFAULT_RESULTS: usize = 20;

/// The payload of `search batch`, in answer order (the rows of every search
/// follow as one list).
#[derive(Clone, Debug, Serialize)]
pub struct BatchPayload<'a> {
    /// Searches run.
    pub query_count: usize,
    /// What each found.
    pub queries: &'a [SearchSummary],
    /// Every total is exact.
    pub total_count_known: bool,
    /// The whole batch's duration.
    pub elapsed_ms: u64,
}

impl Action for Batch {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "batch";
    const SUMMARY: &'static str = "run 2-10 text searches in one call (queries=[{pattern, label, roots, literal, case_sensitive, include_globs, exclude_globs, max_results}]), each with its exact total";
    const BRIEF: &'static str = "several text searches at once";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let n = a.queries.len();
        if !(2..=10).contains(&n) {
            return Err(ToolError::Validation(format!(
                "parameter 'queries' must hold 2 to 10 searches, got {n}; use search action=content for one"
            )));
        }
        let timeout_ms = match a.timeout_ms {
            None => 8000,
            Some(t) if t >= 1 => t as u64,
            Some(t) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'timeout_ms' must be >= 1, got {t}"
                )));
            }
        };
        let started = Instant::now();
        let deadline = started + Duration::from_millis(timeout_ms);
        // Validate every query before running any.
        let mut prepared = Vec::with_capacity(n);
        for (i, q) in a.queries.into_iter().enumerate() {
            if q.pattern.is_empty() {
                return Err(ToolError::Validation(format!(
                    "parameter 'queries[{i}].pattern' must be a non-empty string"
                )));
            }
            let label = q
                .label
                .clone()
                .filter(|l| !l.trim().is_empty())
                .unwrap_or_else(|| format!("q{}", i + 1));
            let mut spec = MatchSpec::new(&q.pattern);
            spec.fixed_strings = q.literal;
            spec.case = match q.case_sensitive {
                None => CaseMode::Smart,
                Some(true) => CaseMode::Sensitive,
                Some(false) => CaseMode::Insensitive,
            };
            let cap = match q.max_results {
                None => DEFAULT_RESULTS,
                Some(m) => (m.max(1) as usize).min(MAX_CAP),
            };
            let filter = FileFilter {
                roots: resolve_roots(
                    root,
                    "queries.roots",
                    q.roots.as_deref().unwrap_or_default(),
                )?,
                include_globs: q.include_globs.unwrap_or_default(),
                exclude_globs: q.exclude_globs.unwrap_or_default(),
                max_filesize: Some(10_000_000),
                parallel: true,
                ..FileFilter::default()
            };
            prepared.push(BatchSearch {
                label,
                spec,
                filter,
                cap,
            });
        }
        let BatchReport {
            summaries,
            rows,
            grand_total,
            cap_sum,
            any_truncated,
            all_known,
        } = run_batch(root, &prepared, deadline)?;
        let found = summaries.iter().filter(|s| s.total_matches > 0).count();
        let (v, risk) = verdict(grand_total, any_truncated || !all_known, all_known);
        let line = format!(
            "search_batch: {n} searches, {grand_total} matches, {found} of {n} found anything{}",
            if any_truncated { " (truncated)" } else { "" }
        );
        let list = Capped::counted(
            rows.iter().map(to_value).collect(),
            grand_total,
            fixed_cap(cap_sum),
        );
        let not_found: Vec<&str> = summaries
            .iter()
            .filter(|s| s.total_matches == 0)
            .map(|s| s.label.as_str())
            .collect();
        let step = if not_found.is_empty() {
            "Read matches in context with structure action=read, or rerun one search with search action=content".to_owned()
        } else {
            format!(
                "No match for {}; loosen those patterns (literal=false, case_sensitive=false) or widen roots",
                not_found.join(", ")
            )
        };
        let payload = BatchPayload {
            query_count: n,
            queries: &summaries,
            total_count_known: all_known,
            elapsed_ms: started.elapsed().as_millis() as u64,
        };
        let mut s = with_payload(Success::new(v, line), &payload)
            .with_list(
                ListSpelling {
                    list_key: "results",
                    total_key: "total_matches",
                    listed_key: "count",
                    cap_key: "listed_cap",
                    noun: "matches over all searches",
                    remedy: "raise max_results of the truncated searches (see queries[].truncated), or narrow their roots/include_globs".into(),
                },
                list,
            )
            .with_next_step(step)
            .with_agent("risk", risk)
            .with_agent("total_matches", grand_total)
            .with_agent("truncated", any_truncated);
        if !all_known {
            s = s.with_warning(format!(
                "the batch stopped at timeout_ms={timeout_ms}: totals with total_count_known=false are lower bounds"
            ));
        }
        Ok(s)
    }
}
