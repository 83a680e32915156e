//! `index build`: the project summary the reference writes, and (unlike the
//! reference) the symbol and call-graph index every other action reads.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Success, Verdict};
use tsa_index::{BuildOptions, Index, WalkOptions};

use crate::action::Action;
use crate::actions::common::{build_index, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `index build`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Folders to index, relative to the project root (default: the whole project).
    #[serde(default)]
    pub roots: Option<Vec<ProjectPath>>,
    /// Architecture notes stored with the index (empty keeps the previous notes).
    #[serde(default)]
    pub add_notes: Option<String>,
}

pub struct Build;

/// The payload of `index build`.
#[derive(Debug, Serialize)]
pub struct BuildPayload<'a> {
    pub status: &'static str,
    pub build_duration_ms: u64,
    pub files_scanned: usize,
    pub files_indexed: usize,
    pub files_cached: usize,
    pub languages_found: Vec<&'a String>,
    pub language_distribution: &'a BTreeMap<String, u64>,
    pub symbols: u64,
    pub edges_by_kind: &'a BTreeMap<String, u64>,
    /// The roots indexed (`.` for the whole project).
    pub roots: Vec<String>,
    pub custom_notes: Option<String>,
    pub index_saved_to: &'static str,
    pub quick_start: [&'static str; 4],
}

impl Action for Build {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "build";
    const SUMMARY: &'static str = "build the project index (symbols, call graph, language summary), optionally for some roots";
    const BRIEF: &'static str = "build the index";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let mut only = Vec::new();
        for r in args.roots.unwrap_or_default() {
            let (abs, rel) = resolve_in_root(root, &r)?;
            if !abs.is_dir() {
                return Err(ToolError::Validation(format!(
                    "Invalid root '{r}': not a directory in the project"
                )));
            }
            only.push(rel);
        }
        let opts = BuildOptions {
            walk: WalkOptions {
                only: only.clone(),
                ..WalkOptions::default()
            },
            // An explicit build checks the index it syncs (PRAGMA quick_check).
            verify: true,
            ..ctx.build_options()
        };
        let report = build_index(ctx, &opts)?;
        let notes = args.add_notes.filter(|n| !n.trim().is_empty());
        if let Some(n) = &notes {
            tsa_index::set_note(root, "custom_notes", n)?;
        }
        let index = Index::open(root)?
            .ok_or_else(|| ToolError::Internal("index missing after build".into()))?;
        let st = index.status()?;
        let notes = match notes {
            Some(n) => Some(n),
            None => index.meta("custom_notes")?,
        };
        let languages: Vec<&String> = st.files_by_language.keys().collect();
        let summary = format!(
            "build_project_index built files={} languages={} duration_ms={}",
            st.files,
            languages.len(),
            report.elapsed_ms
        );
        let payload = BuildPayload {
            status: "built",
            build_duration_ms: report.elapsed_ms as u64,
            files_scanned: report.total_files,
            files_indexed: report.indexed,
            files_cached: report.cached,
            languages_found: languages,
            language_distribution: &st.files_by_language,
            symbols: st.symbols,
            edges_by_kind: &st.edges_by_kind,
            roots: if only.is_empty() {
                vec![".".to_owned()]
            } else {
                only
            },
            custom_notes: notes,
            index_saved_to: ".tsa/index.db",
            quick_start: [
                "search action=symbol query=<words>",
                "nav action=callers function_name=<name>",
                "nav action=callees function_name=<name>",
                "index action=status",
            ],
        };
        Ok(with_payload(Success::new(Verdict::Info, summary), &payload)
            .with_next_step("Ask the graph: nav action=callers function_name=<name>"))
    }
}
