//! Shared by the health and edit actions: the scorer over an open index, a
//! `language` check, and smell rows.

use serde_json::Value;
use tsa_analysis::health::{DepsMode, Scorer, Smell};
use tsa_envelope::Success;
use tsa_index::Index;
use tsa_lang::Language;

use crate::actions::common::open_index;
use crate::{Context, ToolError};

/// The index and a scorer loaded once for this call (warnings to attach).
pub struct Scoring {
    pub index: Index,
    pub scorer: Scorer,
    pub warnings: Vec<String>,
}

pub fn scoring(ctx: &Context, mode: DepsMode) -> Result<Scoring, ToolError> {
    let opened = open_index(ctx)?;
    let scorer = Scorer::new(ctx.root()?, &opened.index, mode)?;
    let mut warnings: Vec<String> = opened.built_now.into_iter().collect();
    if let Some(src) = &scorer.config.source {
        warnings.push(format!("thresholds overridden by {src}"));
    }
    Ok(Scoring {
        index: opened.index,
        scorer,
        warnings,
    })
}

/// A `language` parameter must name a known language and agree with the file.
pub fn check_language(language: Option<&str>, rel: &str) -> Result<(), ToolError> {
    let Some(name) = language.filter(|l| !l.is_empty()) else {
        return Ok(());
    };
    let Some(lang) = Language::from_name(name) else {
        let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
        return Err(ToolError::Validation(format!(
            "unknown language '{name}'; known: {}",
            known.join(", ")
        )));
    };
    match Language::from_path(rel) {
        Some(actual) if actual != lang => Err(ToolError::Validation(format!(
            "language '{name}' does not match '{rel}' ({})",
            actual.name()
        ))),
        _ => Ok(()),
    }
}

pub fn with_warnings(mut s: Success, warnings: &[String]) -> Success {
    for w in warnings {
        s = s.with_warning(w.clone());
    }
    s
}

pub fn smell_rows(smells: &[Smell]) -> Vec<Value> {
    smells.iter().map(Smell::to_json).collect()
}
