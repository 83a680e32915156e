//! `nav trace`: a text-based usage trace of a symbol. A word search for the name
//! over the project's code files; occurrences in comments, import lines and string
//! literals are filtered out; the rest are calls (name followed by `(`) or
//! references, and definition sites are listed apart.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::usage_trace::{Filtered, TraceOptions, impact, trace};
use tsa_envelope::{Capped, ListSpelling, Success};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, split_qualified, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `nav trace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The identifier to trace (`build`, or qualified `Engine.run`: its last part is searched).
    pub symbol: String,
    /// The file that defines the symbol (optional; its definition sites are marked).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Match letter case exactly (default true).
    #[serde(default)]
    pub case_sensitive: Option<bool>,
    /// Match the whole identifier only (default true).
    #[serde(default)]
    pub word_match: Option<bool>,
    /// Most usages to list (default 50, clamped 1..2000). All are counted.
    #[serde(default)]
    pub max_results: Option<i64>,
    /// Skip files and folders matching these globs (`tests/**`, `*_test.go`).
    #[serde(default)]
    pub exclude_patterns: Option<Vec<String>>,
}

pub struct Trace;

pub(crate) use tsa_analysis::usage_trace::{Occurrence, classify, syntax};

/// The payload of `nav trace`, in answer order (usages and definition sites
/// follow as lists; `suggestions` when nothing was found).
#[derive(Clone, Debug, Serialize)]
pub struct TracePayload<'a> {
    /// The symbol as asked.
    pub symbol: &'a str,
    /// Whether any usage was found.
    pub found: bool,
    /// Usages that are calls.
    pub call_count: usize,
    /// Usages that are plain references.
    pub reference_count: usize,
    /// Files holding a usage.
    pub file_count: usize,
    /// none, low, medium or high.
    pub impact_level: &'static str,
    /// The level as a badge.
    pub impact_badge: &'static str,
    /// What the level means for a change.
    pub impact_guidance: &'static str,
    /// Occurrences left out.
    pub filtered: Filtered,
    /// False when the search stopped at its time budget.
    pub total_count_known: bool,
    /// Always `text_search`.
    pub data_source: &'static str,
    /// The file given as defining the symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition_file: Option<&'a str>,
}

impl Action for Trace {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "trace";
    const SUMMARY: &'static str = "text usage trace of a symbol across the project: calls vs references, comments/imports/strings filtered out, impact_level by usage count";
    const BRIEF: &'static str = "text usage trace of a symbol";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let (_, name) = split_qualified(&a.symbol);
        let name = name.trim();
        if name.is_empty() {
            return Err(ToolError::Validation(
                "parameter 'symbol' must be a non-empty identifier".into(),
            ));
        }
        let cap = match a.max_results {
            None => 50,
            Some(n) => (n.max(1) as usize).min(2000),
        };
        let def_file = match &a.file_path {
            None => None,
            Some(p) => {
                let (abs, rel) = resolve_in_root(root, p)?;
                if !abs.is_file() {
                    return Err(ToolError::NotFound(rel));
                }
                Some(rel)
            }
        };
        let t = trace(
            root,
            name,
            &TraceOptions {
                case_sensitive: a.case_sensitive.unwrap_or(true),
                word: a.word_match.unwrap_or(true),
                exclude: a.exclude_patterns.unwrap_or_default(),
            },
        )?;
        let count = t.usages.len();
        let call_count = t.call_count;
        let (level, badge, guidance, verdict) = impact(count);
        let found = count > 0;
        let defined_in_file = def_file
            .as_ref()
            .map(|df| t.definitions.iter().any(|d| d.file == *df));
        let payload = TracePayload {
            symbol: &a.symbol,
            found,
            call_count,
            reference_count: count - call_count,
            file_count: t.files_with_usages.len(),
            impact_level: level,
            impact_badge: badge,
            impact_guidance: guidance,
            filtered: t.filtered,
            total_count_known: !t.timed_out,
            data_source: "text_search",
            definition_file: def_file.as_deref(),
        };
        let mut s = with_payload(
            Success::new(
                verdict,
                format!(
                    "trace: '{}' has {count} usage(s) ({call_count} calls) in {} files impact={level}",
                    a.symbol,
                    t.files_with_usages.len()
                ),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "usages",
                total_key: "count",
                listed_key: "usages_listed",
                cap_key: "listed_cap",
                noun: "usages",
                remedy: "raise max_results, or skip folders with exclude_patterns".into(),
            },
            Capped::collect(t.usages.iter().map(to_value), fixed_cap(cap)),
        )
        .with_list(
            ListSpelling {
                list_key: "definitions",
                total_key: "definition_count",
                listed_key: "definitions_listed",
                cap_key: "definitions_cap",
                noun: "definition sites",
                remedy: "qualify the symbol or pass file_path".into(),
            },
            Capped::collect(t.definitions.iter().map(to_value), fixed_cap(20)),
        )
        .with_agent("impact_level", level)
        .with_agent("symbol", a.symbol.as_str())
        .with_agent("count", count);
        if let Some(df) = &def_file
            && defined_in_file == Some(false)
        {
            s = s.with_warning(format!("no definition of '{name}' was recognised in {df}"));
        }
        if t.timed_out {
            s = s.with_warning(
                "the search stopped at its time budget: counts are lower bounds; narrow with exclude_patterns",
            );
        }
        let step = if found {
            if call_count > 0 {
                format!(
                    "For resolved call edges use nav action=callers function_name={}",
                    a.symbol
                )
            } else {
                "Open a listed usage with structure action=read".to_owned()
            }
        } else if !t.definitions.is_empty() {
            format!(
                "'{name}' is defined but never used in code text; check for dynamic use, then health action=dead"
            )
        } else {
            // Close names come from the symbol index (built on first use); a project
            // without indexable code simply has none.
            let suggestions = open_index(ctx)
                .ok()
                .and_then(|o| o.index.suggest(name, 5).ok())
                .unwrap_or_default();
            let first = suggestions.first().cloned();
            s = s.with("suggestions", suggestions.clone());
            match first {
                Some(sug) => format!(
                    "No usage of '{name}'. Did you mean '{sug}'? Check spelling, or try case_sensitive=false"
                ),
                None => format!(
                    "No usage of '{name}'. Check spelling, try case_sensitive=false, or search action=content query={name}"
                ),
            }
        };
        Ok(s.with_next_step(step))
    }
}
