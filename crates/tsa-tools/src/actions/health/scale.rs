//! `health scale`: size and complexity metrics of one file (`file_path`) or many
//! (`file_paths`), with per-function detail and reading guidance on request.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::complexity::band;
use tsa_analysis::health::{HealthConfig, facts_of, round1};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::cap;
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

fn category(lines: u32) -> &'static str {
    match lines {
        0..=200 => "small",
        201..=500 => "medium",
        501..=1500 => "large",
        _ => "very_large",
    }
}

fn comment_and_blank(text: &str) -> (u32, u32) {
    let mut blank = 0;
    let mut comment = 0;
    for l in text.lines() {
        let t = l.trim_start();
        if t.is_empty() {
            blank += 1;
        } else if ["#", "//", "/*", "*", "--", "<!--"]
            .iter()
            .any(|m| t.starts_with(m))
        {
            comment += 1;
        }
    }
    (comment, blank)
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
        let mut rows = Vec::new();
        let mut total_lines = 0u32;
        for input in &inputs {
            let rel = source_file(root, input)?;
            check_language(args.language.as_deref(), &rel)?;
            let text = tsa_analysis::security::read_text_in_root(root, &rel)?;
            let facts = facts_of(&rel, &text, &cfg);
            let (comment, blank) = comment_and_blank(&text);
            total_lines += facts.lines;
            let mut row = json!({
                "file_path": rel,
                "language": Language::from_path(&rel).map(|l| l.name()),
                "lines": facts.lines,
                "code_lines": facts.lines.saturating_sub(comment + blank),
                "comment_lines": comment,
                "blank_lines": blank,
                "characters": text.chars().count(),
                "estimated_tokens": text.len().div_ceil(4),
                "function_count": facts.functions.len(),
                "class_count": facts.classes.len(),
                "size_category": category(facts.lines),
            });
            if with_cc {
                let ccs: Vec<u32> = facts.functions.iter().map(|f| f.complexity).collect();
                let max = ccs.iter().copied().max().unwrap_or(1);
                let total: u32 = ccs.iter().sum();
                row["complexity"] = json!({
                    "total": total,
                    "average": if ccs.is_empty() { 1.0 } else { round1(f64::from(total) / ccs.len() as f64) },
                    "max": max,
                    "band": band(max),
                });
            }
            if details {
                row["functions"] = json!(facts.functions.iter().map(|f| json!({
                    "name": f.name, "line": f.line, "end_line": f.end_line,
                    "lines": f.end_line - f.line + 1, "complexity": f.complexity, "band": band(f.complexity)
                })).collect::<Vec<Value>>());
            }
            if guidance_on {
                row["guidance"] = json!(match category(facts.lines) {
                    "small" => "Small file: read it whole.".to_owned(),
                    "medium" => "Medium file: read the outline first, then the functions you need."
                        .to_owned(),
                    _ => format!(
                        "{} file ({} lines): do not read it whole; list its functions (include_details) and read by line range.",
                        category(facts.lines),
                        facts.lines
                    ),
                });
            }
            rows.push(row);
        }
        let n = rows.len();
        let summary = if n == 1 {
            format!(
                "{} lines={} functions={} size={}",
                rows[0]["file_path"].as_str().unwrap_or(""),
                rows[0]["lines"],
                rows[0]["function_count"],
                rows[0]["size_category"].as_str().unwrap_or("")
            )
        } else {
            format!("{n} files, {total_lines} lines")
        };
        Ok(Success::new(Verdict::Info, summary)
            .with("total_lines", total_lines)
            .with_list(
                ListSpelling {
                    list_key: "files",
                    total_key: "file_count",
                    listed_key: "files_listed",
                    cap_key: "files_cap",
                    noun: "files",
                    remedy: "raise limit, or pass fewer file_paths per call".into(),
                },
                Capped::collect(rows, limit),
            ))
    }
}
