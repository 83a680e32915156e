//! `health patterns`: smells (the health smell rules), security and anti-pattern
//! findings (line rules in `health/patterns.yml`) for one file, each with its line
//! and a fix, filtered by category and minimum severity.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::patterns::{FindingFilter, file_findings};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_payload};
use crate::actions::health::common::check_language;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Smells,
    Security,
    AntiPatterns,
    All,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    #[default]
    Info,
    Warning,
    Critical,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to check.
    pub file_path: ProjectPath,
    /// Categories to report (default ["all"]).
    #[serde(default)]
    pub categories: Option<Vec<Category>>,
    /// Lowest severity reported (default info).
    #[serde(default)]
    pub severity_threshold: Severity,
    /// Language name; must agree with the file.
    #[serde(default)]
    pub language: Option<String>,
    /// Most findings listed (default 100); counts stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Patterns;

/// Findings per severity.
#[derive(Debug, Serialize)]
pub struct SeverityCounts {
    pub critical: usize,
    pub warning: usize,
    pub info: usize,
}

/// Findings per category.
#[derive(Debug, Serialize)]
pub struct CategoryCounts {
    pub smells: usize,
    pub security: usize,
    pub anti_patterns: usize,
}

/// The payload of `health patterns` before its list.
#[derive(Debug, Serialize)]
pub struct PatternsPayload<'a> {
    pub file_path: &'a str,
    pub language: &'static str,
    pub severity_counts: SeverityCounts,
    pub category_counts: CategoryCounts,
}

impl Action for Patterns {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "patterns";
    const SUMMARY: &'static str =
        "smells, security and anti-pattern findings of one file, each with line and fix";
    const BRIEF: &'static str = "smells and risky patterns";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let rel = source_file(root, &args.file_path)?;
        check_language(args.language.as_deref(), &rel)?;
        let limit = cap("limit", args.limit, 100)?;
        let cats = args.categories.unwrap_or_else(|| vec![Category::All]);
        if cats.is_empty() {
            return Err(ToolError::Validation(
                "categories must name at least one of smells, security, anti_patterns, all".into(),
            ));
        }
        let want = |c: Category| cats.contains(&Category::All) || cats.contains(&c);
        let min = match args.severity_threshold {
            Severity::Info => 0,
            Severity::Warning => 1,
            Severity::Critical => 2,
        };
        let text = tsa_analysis::security::read_text_in_root(root, &rel)?;
        let lang = Language::from_path(&rel).map_or("", |l| l.name());
        let rows = file_findings(
            root,
            &rel,
            &text,
            FindingFilter {
                smells: want(Category::Smells),
                security: want(Category::Security),
                anti_patterns: want(Category::AntiPatterns),
                min_rank: min,
            },
        )?;
        let count = |sev: u8| rows.iter().filter(|r| r.rank == sev).count();
        let (critical, warning, info) = (count(2), count(1), count(0));
        let by_category = |c: &str| rows.iter().filter(|r| r.category == c).count();
        let verdict = if critical > 0 {
            Verdict::Review
        } else if warning > 0 {
            Verdict::Caution
        } else if info > 0 {
            Verdict::Info
        } else {
            Verdict::Safe
        };
        let summary = format!(
            "{rel} findings={} critical={critical} warning={warning} info={info}",
            rows.len()
        );
        let payload = PatternsPayload {
            file_path: &rel,
            language: lang,
            severity_counts: SeverityCounts {
                critical,
                warning,
                info,
            },
            category_counts: CategoryCounts {
                smells: by_category("smells"),
                security: by_category("security"),
                anti_patterns: by_category("anti_patterns"),
            },
        };
        Ok(with_payload(Success::new(verdict, summary), &payload)
            .with_list(
                ListSpelling {
                    list_key: "findings",
                    total_key: "finding_count",
                    listed_key: "findings_listed",
                    cap_key: "findings_cap",
                    noun: "findings",
                    remedy: "raise limit or severity_threshold".into(),
                },
                Capped::collect(rows.iter().map(to_value), limit),
            )
            .with_next_step(if critical > 0 {
                "Fix the critical findings first (each carries its line and fix)."
            } else {
                "Apply the listed fixes where you edit; re-run to confirm."
            }))
    }
}
