//! `edit refactor`: extract-method candidates (long or complex functions, with the
//! blocks inside them worth extracting and their line ranges), complexity hotspots
//! and a skeleton of the file, all from the parse tree. Reads only.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::refactor::{Thresholds, plan};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, to_value, with_payload};
use crate::actions::health::common::check_language;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to analyse.
    pub file_path: ProjectPath,
    /// Language name; must agree with the file.
    #[serde(default)]
    pub language: Option<String>,
    /// Most extraction candidates listed (default 10); counts stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_suggestions: Option<i64>,
    /// List blocks to extract inside each candidate (default true).
    #[serde(default)]
    pub include_extractions: Option<bool>,
    /// Include the file's skeleton (default true).
    #[serde(default)]
    pub include_skeleton: Option<bool>,
}

pub struct Refactor;

/// The payload of `edit refactor` before its capped lists.
#[derive(Debug, Serialize)]
pub struct RefactorPayload<'a> {
    pub file_path: &'a str,
    pub language: &'static str,
    pub thresholds: Thresholds,
}

impl Action for Refactor {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "refactor";
    const SUMMARY: &'static str = "extract-method candidates with line ranges, complexity hotspots and a skeleton (read-only)";
    const BRIEF: &'static str = "extract-method candidates";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let rel = source_file(root, &args.file_path)?;
        check_language(args.language.as_deref(), &rel)?;
        let limit = cap("max_suggestions", args.max_suggestions, 10)?;
        let p = plan(
            root,
            &rel,
            args.include_extractions.unwrap_or(true),
            args.include_skeleton.unwrap_or(true),
        )?;
        let n = p.candidates.len();
        let verdict = if n == 0 {
            Verdict::Info
        } else {
            Verdict::Caution
        };
        let summary = format!(
            "{rel} candidates={n} hotspots={} functions={}",
            p.hotspots.len(),
            p.functions
        );
        let payload = RefactorPayload {
            file_path: &rel,
            language: p.language.name(),
            thresholds: p.thresholds,
        };
        let mut ok = with_payload(Success::new(verdict, summary), &payload)
            .with_list(
                ListSpelling {
                    list_key: "extraction_candidates",
                    total_key: "candidate_count",
                    listed_key: "candidates_listed",
                    cap_key: "max_suggestions",
                    noun: "extraction candidates",
                    remedy: "raise max_suggestions".into(),
                },
                Capped::collect(p.candidates.iter().map(to_value), limit),
            )
            .with_list(
                ListSpelling {
                    list_key: "hotspots",
                    total_key: "hotspot_count",
                    listed_key: "hotspots_listed",
                    cap_key: "hotspots_cap",
                    noun: "hotspots",
                    remedy: "use health action=heatmap mode=file for every function".into(),
                },
                Capped::collect(p.hotspots.iter().map(to_value), fixed_cap(20)),
            )
            .with_next_step(if n == 0 {
                "No function exceeds the thresholds; no extraction needed.".to_owned()
            } else {
                format!(
                    "Run edit action=safe on {rel}, then extract the first candidate's top block and re-run the tests."
                )
            });
        if let Some(skeleton) = &p.skeleton {
            ok = ok.with_list(
                ListSpelling {
                    list_key: "skeleton",
                    total_key: "skeleton_count",
                    listed_key: "skeleton_listed",
                    cap_key: "skeleton_cap",
                    noun: "skeleton entries",
                    remedy: "use structure actions for the full outline".into(),
                },
                Capped::collect(skeleton.iter().map(to_value), fixed_cap(200)),
            );
        }
        Ok(ok)
    }
}
