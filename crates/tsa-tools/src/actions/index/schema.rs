//! `index schema`: cheap statistics of the index and what can be asked of it (pulse
//! fields, selector pseudo-classes), before a pulse or a selector. Reads only:
//! never creates, builds or migrates an index.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tsa_analysis::hyphae::parse::PSEUDO_CLASSES;
use tsa_envelope::{Success, Verdict};
use tsa_index::Index;

use crate::action::Action;
use crate::actions::common::with_payload;
use crate::{Context, ToolError};

/// Arguments of `index schema` (none beyond the universal ones).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

pub struct Schema;

/// The fields a pulse card can carry.
const PULSE_FIELDS: [&str; 7] = [
    "callers",
    "callees",
    "git_heat",
    "imports",
    "imported_by",
    "siblings",
    "comments",
];

#[derive(Serialize)]
struct SchemaResult {
    indexed: bool,
    indexed_files: u64,
    languages: Vec<String>,
    total_symbols: u64,
    total_edges: u64,
    index_age_seconds: Option<u64>,
    available_pulse_fields: &'static [&'static str],
    hyphae_pseudo_classes: Vec<String>,
    /// Per-symbol git activation is stored (`index action=full include_activation=true`).
    activation_available: bool,
    /// ... and covers every indexed file at its current content (temporal selectors answer).
    temporal_ready: bool,
}

fn result(index: Option<&Index>) -> Result<SchemaResult, ToolError> {
    let pseudo: Vec<String> = PSEUDO_CLASSES.iter().map(|p| format!(":{p}")).collect();
    let Some(index) = index else {
        return Ok(SchemaResult {
            indexed: false,
            indexed_files: 0,
            languages: Vec::new(),
            total_symbols: 0,
            total_edges: 0,
            index_age_seconds: None,
            available_pulse_fields: &PULSE_FIELDS,
            hyphae_pseudo_classes: pseudo,
            activation_available: false,
            temporal_ready: false,
        });
    };
    let st = index.status()?;
    let ready = tsa_analysis::activation::ready(index.root(), index)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(SchemaResult {
        indexed: st.symbols > 0,
        indexed_files: st.files,
        languages: st.symbols_by_language.keys().cloned().collect(),
        total_symbols: st.symbols,
        total_edges: st.edges_by_kind.values().sum(),
        index_age_seconds: st.built_at.map(|b| now.saturating_sub(b)),
        available_pulse_fields: &PULSE_FIELDS,
        hyphae_pseudo_classes: pseudo,
        activation_available: ready.is_some(),
        temporal_ready: ready == Some(true),
    })
}

impl Action for Schema {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "schema";
    const SUMMARY: &'static str = "index statistics (files, symbols, edges, languages, age) and what pulse and selectors can ask; never builds an index";
    const BRIEF: &'static str = "index statistics and capabilities";

    fn run(&self, ctx: &Context, _args: Args) -> Result<Success, ToolError> {
        let index = Index::open(ctx.root()?)?;
        let r = result(index.as_ref())?;
        let verdict = if r.indexed {
            Verdict::Info
        } else {
            Verdict::Warn
        };
        let summary = format!(
            "index schema indexed={} symbols={} edges={} languages={}",
            r.indexed,
            r.total_symbols,
            r.total_edges,
            r.languages.len()
        );
        let s = with_payload(Success::new(verdict, summary), &json!({ "result": r }));
        Ok(if r.indexed {
            s.with_next_step("Ask for one symbol's card with nav action=pulse, or select symbols with search action=select.")
        } else {
            s.with_next_step("No index yet: build it with index action=full.")
        })
    }
}
