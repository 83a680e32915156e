//! `health scale`: size and complexity metrics of one file (`file_path`) or many
//! (`file_paths`), with per-function detail and reading guidance on request.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::HealthConfig;
use tsa_analysis::health::scale::{ScaleOptions, scale_of};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_payload};
use crate::actions::health::common::check_language;
use crate::project_path::{ProjectPath, given_all};
use crate::{Context, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// One file to measure.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Several files to measure (batch).
    #[serde(default)]
    pub file_paths: Option<Vec<ProjectPath>>,
    /// Language name; must agree with each file.
    #[serde(default)]
    pub language: Option<String>,
    /// Only the numbers (no guidance, no details).
    #[serde(default)]
    pub metrics_only: bool,
    /// Include cyclomatic complexity (default true).
    #[serde(default)]
    pub include_complexity: Option<bool>,
    /// Include the per-function list.
    #[serde(default)]
    pub include_details: bool,
    /// Include reading guidance (default true unless metrics_only).
    #[serde(default)]
    pub include_guidance: Option<bool>,
    /// Most files listed (default 200); totals cover every file measured.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Scale;

/// The payload of `health scale` before its list.
#[derive(Debug, Serialize)]
struct TotalLines {
    total_lines: u32,
}

impl Action for Scale {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "scale";
    const SUMMARY: &'static str =
        "file size and complexity metrics (batch with file_paths), with reading guidance";
    const BRIEF: &'static str = "file size and complexity";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 200)?;
        let root = ctx.root()?;
        let mut inputs: Vec<String> = given_all(args.file_paths.as_deref().unwrap_or_default());
        if let Some(f) = &args.file_path {
            inputs.insert(0, f.to_string());
        }
        if inputs.is_empty() {
            return Err(ToolError::Validation("give file_path or file_paths".into()));
        }
        let with_cc = args.include_complexity.unwrap_or(true);
        let guidance_on = !args.metrics_only && args.include_guidance.unwrap_or(true);
        let details = args.include_details && !args.metrics_only;
        let cfg = HealthConfig::load(root)?;
        let o = ScaleOptions {
            complexity: with_cc,
            details,
            guidance: guidance_on,
        };
        let mut rows = Vec::new();
        let mut total_lines = 0u32;
        for input in &inputs {
            let rel = source_file(root, input)?;
            check_language(args.language.as_deref(), &rel)?;
            let row = scale_of(root, &rel, &cfg, o)?;
            total_lines += row.lines;
            rows.push(row);
        }
        let n = rows.len();
        let summary = if n == 1 {
            format!(
                "{} lines={} functions={} size={}",
                rows[0].file_path, rows[0].lines, rows[0].function_count, rows[0].size_category
            )
        } else {
            format!("{n} files, {total_lines} lines")
        };
        Ok(with_payload(
            Success::new(Verdict::Info, summary),
            &TotalLines { total_lines },
        )
        .with_list(
            ListSpelling {
                list_key: "files",
                total_key: "file_count",
                listed_key: "files_listed",
                cap_key: "files_cap",
                noun: "files",
                remedy: "raise limit, or pass fewer file_paths per call".into(),
            },
            Capped::collect(rows.iter().map(to_value), limit),
        ))
    }
}
