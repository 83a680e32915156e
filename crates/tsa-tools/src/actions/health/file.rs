//! `health file`: one file's health on seven dimensions (analyses.md §1), smells with
//! lines and fixes, the smell penalty, grade A–F and what to do next.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::health::{DepsMode, FileScore, verdict_of_grade};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, with_agent_fields, with_payload};
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

/// The `health file` command an agent runs next: `edit safe` on the file.
#[derive(Clone, Debug, Serialize)]
pub struct McpCommand {
    /// Always `edit`.
    pub tool: &'static str,
    /// The call's arguments.
    pub arguments: SafeCall,
}

/// The arguments of the `edit safe` call in [`McpCommand`].
#[derive(Clone, Debug, Serialize)]
pub struct SafeCall {
    /// Always `safe`.
    pub action: &'static str,
    /// The scored file.
    pub file_path: String,
}

/// What an agent does next about the file's health.
#[derive(Clone, Debug, Serialize)]
pub struct NextAction {
    /// `low` (A/B), `medium` (C) or `high` (D/F).
    pub priority: &'static str,
    /// Why, in words.
    pub reason: String,
    /// The MCP call to make next.
    pub mcp_command: McpCommand,
    /// The same call for the CLI.
    pub cli_command: String,
    /// Run after the edit.
    pub post_edit_commands: Vec<String>,
}

/// The payload of `health file`, in answer order.
#[derive(Clone, Debug, Serialize)]
pub struct FileHealthPayload {
    /// The scored file, project-relative.
    pub file_path: String,
    /// Grade A-F.
    pub grade: String,
    /// The score after the smell penalty (0-100, 1 decimal).
    pub total_score: f64,
    /// Alias of `total_score`.
    pub health_score: f64,
    /// Alias of `total_score`.
    pub overall_score: f64,
    /// Alias of `total_score`.
    pub score: f64,
    /// The weighted score before the smell penalty.
    pub raw_score: f64,
    /// The smell penalty applied.
    pub smell_penalty: f64,
    /// The health signal.
    pub signal: &'static str,
    /// `{dimension: score}` of the available dimensions, in canonical order.
    pub dimensions: Value,
    /// The lowest-scoring dimension (`none` without data).
    pub weakest_dimension: &'static str,
    /// The advice in one sentence.
    pub recommendation: String,
    /// The file's language, when known.
    pub language: Option<String>,
    /// Line count.
    pub lines: u32,
    /// What an agent does next.
    pub agent_next_action: NextAction,
}

/// The `agent_summary` additions of `health file`, in answer order.
#[derive(Clone, Debug, Serialize)]
pub struct FileHealthAgent {
    /// `low`, `medium` or `high`, from the verdict.
    pub risk: &'static str,
    /// Grade A-F.
    pub grade: String,
    /// The total score.
    pub score: f64,
    /// The lowest-scoring dimension.
    pub weakest_dimension: &'static str,
    /// Its score, when any dimension was measured.
    pub weakest_score: Option<f64>,
    /// The command that re-scores the file.
    pub verification_command: String,
    /// When to stop.
    pub stop_condition: &'static str,
}

/// The engine of `health file`: the score of `rel` (a project-relative source file)
/// in full dependency mode, with the scoring run's warnings.
pub struct FileHealthReport {
    /// The file's score: dimensions, smells, grade, signal.
    pub score: FileScore,
    /// Warnings of the scoring run.
    pub warnings: Vec<String>,
}

/// Scores `rel` (see [`FileHealthReport`]).
pub fn assess(ctx: &Context, rel: &str) -> Result<FileHealthReport, ToolError> {
    let sc = scoring(ctx, DepsMode::Full)?;
    let score = sc.scorer.score(rel)?;
    Ok(FileHealthReport {
        score,
        warnings: sc.warnings,
    })
}

/// The answer of `health file` for a score (shared with other actions).
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
    let payload = FileHealthPayload {
        file_path: s.file.clone(),
        grade: grade.clone(),
        total_score: s.total_score,
        health_score: s.total_score,
        overall_score: s.total_score,
        score: s.total_score,
        raw_score: s.raw_score,
        smell_penalty: s.penalty,
        signal: s.signal,
        dimensions: s.dimensions_json(),
        weakest_dimension: weakest,
        recommendation: recommendation(s),
        language: s.language.clone(),
        lines: s.lines,
        agent_next_action: NextAction {
            priority,
            reason,
            mcp_command: McpCommand {
                tool: "edit",
                arguments: SafeCall {
                    action: "safe",
                    file_path: s.file.clone(),
                },
            },
            cli_command: format!("tsa edit safe --file-path {}", s.file),
            post_edit_commands: vec![verify.clone()],
        },
    };
    let agent = FileHealthAgent {
        risk: match verdict {
            Verdict::Safe => "low",
            Verdict::Caution => "medium",
            _ => "high",
        },
        grade,
        score: s.total_score,
        weakest_dimension: weakest,
        weakest_score,
        verification_command: verify,
        stop_condition: "stop when the grade is B or better and no critical smell remains",
    };
    // Every smell row has the same keys (`symbol` null when none): one TOON table.
    let rows = crate::actions::common::uniform_rows(smell_rows(&s.smells));
    let spelling = |key: &'static str, total: &'static str, listed: &'static str| ListSpelling {
        list_key: key,
        total_key: total,
        listed_key: listed,
        cap_key: "smells_cap",
        noun: "smells",
        remedy: "raise limit".into(),
    };
    let ok = with_payload(Success::new(verdict, summary), &payload)
        .with_list(
            spelling("code_smells", "smell_count", "smells_listed"),
            Capped::collect(rows.clone(), fixed_cap(limit)),
        )
        .with_list(
            spelling("smells", "smells_total", "smells_alias_listed"),
            Capped::collect(rows, fixed_cap(limit)),
        );
    with_warnings(with_agent_fields(ok, &agent).with_next_step(next), warnings)
}

impl Action for FileHealth {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "file";
    const SUMMARY: &'static str = "one file's health: 7 dimensions, smells with lines and fixes, grade A-F, signal, weakest dimension";
    const BRIEF: &'static str = "one file's health grade";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let rel = source_file(root, &args.file_path)?;
        check_language(args.language.as_deref(), &rel)?;
        let limit = cap("limit", args.limit, 50)?;
        let report = assess(ctx, &rel)?;
        Ok(answer(&report.score, limit.get(), &report.warnings))
    }
}
