//! `health file`: one file's health on seven dimensions (analyses.md §1), smells with
//! lines and fixes, the smell penalty, grade A–F and what to do next.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::health::{DepsMode, FileScore, verdict_of_grade};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap};
use crate::actions::health::common::{check_language, scoring, smell_rows, with_warnings};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to score (project-relative or absolute inside the project).
    pub file_path: ProjectPath,
    /// Language name; must agree with the file's extension when given.
    #[serde(default)]
    pub language: Option<String>,
    /// Most smells listed (default 50); the total stays exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct FileHealth;

fn recommendation(s: &FileScore) -> String {
    match s.grade {
        'A' | 'B' => format!(
            "Healthy (grade {}, {}). Edit normally; re-check after large changes.",
            s.grade, s.total_score
        ),
        'C' => format!(
            "Fair (grade {}): improve {} before adding more code here.",
            s.grade,
            s.weakest_name()
        ),
        _ => format!(
            "Poor (grade {}): refactor {} first (start with the listed smells), in small verified steps.",
            s.grade,
            s.weakest_name()
        ),
    }
}

/// The payload of `health file` without envelope keys (shared with other actions).
pub fn answer(s: &FileScore, limit: usize, warnings: &[String]) -> Success {
    let verdict: Verdict = verdict_of_grade(s.grade);
    let grade = s.grade.to_string();
    let weakest = s.weakest_name();
    let weakest_score = s.weakest.map(|(_, v)| v);
    let summary = format!(
        "{} grade={} score={} smells={} weakest={}",
        s.file,
        grade,
        s.total_score,
        s.smells.len(),
        weakest
    );
    let verify = format!("tsa health file --file-path {}", s.file);
    let (priority, reason, next) = match s.grade {
        'A' | 'B' => (
            "low",
            "file is healthy".to_owned(),
            "No health work needed; proceed with the intended edit.".to_owned(),
        ),
        'C' => (
            "medium",
            format!(
                "weakest dimension {weakest} ({})",
                weakest_score.unwrap_or(0.0)
            ),
            format!("Improve {weakest} while editing; check with edit action=safe first."),
        ),
        _ => (
            "high",
            format!("grade {grade}: weakest dimension {weakest}"),
            format!(
                "Run edit action=refactor on {} for extraction candidates, then re-score.",
                s.file
            ),
        ),
    };
    let rows = smell_rows(&s.smells);
    let spelling = |key: &'static str, total: &'static str, listed: &'static str| ListSpelling {
        list_key: key,
        total_key: total,
        listed_key: listed,
        cap_key: "smells_cap",
        noun: "smells",
        remedy: "raise limit".into(),
    };
    with_warnings(
        Success::new(verdict, summary)
            .with("file_path", s.file.clone())
            .with("grade", grade.clone())
            .with("total_score", s.total_score)
            .with("health_score", s.total_score)
            .with("overall_score", s.total_score)
            .with("score", s.total_score)
            .with("raw_score", s.raw_score)
            .with("smell_penalty", s.penalty)
            .with("signal", s.signal)
            .with("dimensions", s.dimensions_json())
            .with("weakest_dimension", weakest)
            .with("recommendation", recommendation(s))
            .with("language", json!(s.language))
            .with("lines", s.lines)
            .with(
                "agent_next_action",
                json!({
                    "priority": priority,
                    "reason": reason,
                    "mcp_command": {"tool": "edit", "arguments": {"action": "safe", "file_path": s.file}},
                    "cli_command": format!("tsa edit safe --file-path {}", s.file),
                    "post_edit_commands": [verify],
                }),
            )
            .with_list(
                spelling("code_smells", "smell_count", "smells_listed"),
                Capped::collect(rows.clone(), fixed_cap(limit)),
            )
            .with_list(
                spelling("smells", "smells_total", "smells_alias_listed"),
                Capped::collect(rows, fixed_cap(limit)),
            )
            .with_agent("risk", match verdict {
                Verdict::Safe => "low",
                Verdict::Caution => "medium",
                _ => "high",
            })
            .with_agent("grade", grade)
            .with_agent("score", s.total_score)
            .with_agent("weakest_dimension", weakest)
            .with_agent("weakest_score", json!(weakest_score))
            .with_agent("verification_command", verify)
            .with_agent(
                "stop_condition",
                "stop when the grade is B or better and no critical smell remains",
            )
            .with_next_step(next),
        warnings,
    )
}

impl Action for FileHealth {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "file";
    const SUMMARY: &'static str = "one file's health: 7 dimensions, smells with lines and fixes, grade A-F, signal, weakest dimension";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let rel = source_file(root, &args.file_path)?;
        check_language(args.language.as_deref(), &rel)?;
        let limit = cap("limit", args.limit, 50)?;
        let sc = scoring(ctx, DepsMode::Full)?;
        let score = sc.scorer.score(&rel)?;
        Ok(answer(&score, limit.get(), &sc.warnings))
    }
}
