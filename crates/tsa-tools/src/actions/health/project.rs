//! `health project` (analyses.md §1.3): every indexed source file scored in parallel
//! (content measurements cached by hash), grade distribution, averages, weakest
//! dimension, the files at or below `min_grade` worst first.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_agent_fields, with_payload};
use crate::actions::health::common::{Scoring, scoring, with_warnings};
use crate::{Context, ToolError};
use tsa_analysis::health::{DepsMode, Dimension, FileScore};

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub enum MinGrade {
    A,
    B,
    C,
    #[default]
    D,
    F,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// List files graded this or worse (default D: D and F files).
    #[serde(default)]
    pub min_grade: MinGrade,
    /// Most files listed (default 20); counts stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
}

pub struct ProjectHealth;

/// Directories excluded as test data (relative to the root, whole segments).
const TEST_DATA: [&str; 3] = ["golden_masters", "fixtures", "test_data"];

fn excluded(path: &str) -> bool {
    path.split('/').any(|seg| TEST_DATA.contains(&seg))
}

fn grade_rank(g: char) -> u8 {
    match g {
        'A' => 0,
        'B' => 1,
        'C' => 2,
        'D' => 3,
        _ => 4,
    }
}

/// The risk word and verdict of a grade distribution: any F is critical, any D
/// high (both REVIEW), any C medium (CAUTION), else low (SAFE).
pub fn grade_risk(dist: &BTreeMap<String, usize>) -> (&'static str, Verdict) {
    let has = |g: &str| dist.get(g).is_some_and(|n| *n > 0);
    if has("F") {
        ("critical", Verdict::Review)
    } else if has("D") {
        ("high", Verdict::Review)
    } else if has("C") {
        ("medium", Verdict::Caution)
    } else {
        ("low", Verdict::Safe)
    }
}

/// A file at or below `min_grade`, as a row of `files`.
#[derive(Clone, Debug, Serialize)]
pub struct ProjectFileRow {
    /// The file, project-relative.
    pub file: String,
    /// Alias of `file`.
    pub file_path: String,
    /// Grade A-F.
    pub grade: String,
    /// Its health score.
    pub total_score: f64,
    /// Alias of `total_score`.
    pub health_score: f64,
    /// Its health signal.
    pub signal: &'static str,
    /// Its lowest-scoring dimension.
    pub weakest_dimension: &'static str,
    /// `{dimension: score}` of its available dimensions.
    pub dimensions: Value,
    /// How many smells it has.
    pub smell_count: usize,
}

impl ProjectFileRow {
    fn of(s: &FileScore) -> Self {
        ProjectFileRow {
            file: s.file.clone(),
            file_path: s.file.clone(),
            grade: s.grade.to_string(),
            total_score: s.total_score,
            health_score: s.total_score,
            signal: s.signal,
            weakest_dimension: s.weakest_name(),
            dimensions: s.dimensions_json(),
            smell_count: s.smells.len(),
        }
    }
}

/// The most complex function of a refactoring target.
#[derive(Clone, Debug, Serialize)]
pub struct WorstFunction {
    /// Its name.
    pub name: String,
    /// Its first line.
    pub line: u32,
    /// Its cyclomatic complexity.
    pub complexity: u32,
}

/// One of the (at most five) worst files that define functions.
#[derive(Clone, Debug, Serialize)]
pub struct RefactoringTarget {
    /// The file, project-relative.
    pub file: String,
    /// Grade A-F.
    pub grade: String,
    /// Its health score.
    pub total_score: f64,
    /// Its lowest-scoring dimension.
    pub weakest_dimension: &'static str,
    /// Its most complex function.
    pub worst_function: Option<WorstFunction>,
}

/// One item of the agent's backlog (the ten worst files).
#[derive(Clone, Debug, Serialize)]
pub struct BacklogItem {
    /// The file, project-relative.
    pub file: String,
    /// Grade A-F.
    pub grade: String,
    /// What to improve, and the command that checks it.
    pub action: String,
}

/// The payload of `health project`, in answer order (the files follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct ProjectHealthPayload {
    /// The project root.
    pub project_root: String,
    /// How many files were scored.
    pub total_files: usize,
    /// Their average score (1 decimal).
    pub average_score: f64,
    /// Files per grade, A to F.
    pub grade_distribution: BTreeMap<String, usize>,
    /// The signal of the weakest average dimension.
    pub signal: &'static str,
    /// `{dimension: average}` over the files that have it, in canonical order.
    pub average_dimensions: Map<String, Value>,
    /// Whether coverage data was read.
    pub coverage_status: &'static str,
    /// Whether git history was read.
    pub git_status: &'static str,
    /// The dimension with the lowest average (`none` without data).
    pub weakest_dimension: &'static str,
    /// The grade threshold of the listed files.
    pub min_grade: String,
    /// How many files are at or below it.
    pub matching_file_count: usize,
    /// The most files listed.
    pub detail_limit: usize,
    /// How many are listed.
    pub detail_count: usize,
    /// How many are not.
    pub hidden_detail_count: usize,
    /// The worst files that define functions, with their most complex function.
    pub top_refactoring_targets: Vec<RefactoringTarget>,
    /// The ten worst files with what to improve.
    pub agent_backlog: Vec<BacklogItem>,
    /// The advice in one sentence.
    pub recommendation: String,
    /// Files skipped as test data (`fixtures`, `golden_masters`, `test_data`).
    pub skipped_test_data_files: usize,
    /// Files that could not be scored.
    pub skipped_unreadable_files: usize,
    /// Time taken.
    pub elapsed_ms: u64,
}

/// The `agent_summary` additions of `health project`, in answer order.
#[derive(Clone, Debug, Serialize)]
pub struct ProjectHealthAgent {
    /// `low`, `medium`, `high` or `critical` (see [`grade_risk`]).
    pub risk: &'static str,
    /// Files graded D.
    pub d_count: usize,
    /// Files graded F.
    pub f_count: usize,
    /// Files at or below `min_grade`.
    pub backlog_count: usize,
    /// The time budget of the call.
    pub budget_seconds: u32,
}

/// The engine of `health project`: its payload, listed files and agent additions.
#[derive(Clone, Debug)]
pub struct ProjectHealthReport {
    /// The verdict of the grade spread.
    pub verdict: Verdict,
    /// The one-line summary.
    pub summary: String,
    /// The payload.
    pub payload: ProjectHealthPayload,
    /// The files at or below `min_grade`, worst first, capped at `max_files`.
    pub files: Capped<ProjectFileRow>,
    /// The `agent_summary` additions.
    pub agent: ProjectHealthAgent,
    /// Warnings of the scoring run.
    pub warnings: Vec<String>,
}

impl ProjectHealthReport {
    /// The answer of `health project`.
    pub fn into_success(self) -> Success {
        let next = if self.payload.matching_file_count > 0 {
            "Run health action=file on the first listed file, then edit action=refactor on it."
        } else {
            "No files at or below min_grade; raise min_grade (e.g. C) to see more."
        };
        let ok = with_payload(Success::new(self.verdict, self.summary), &self.payload).with_list(
            ListSpelling {
                list_key: "files",
                total_key: "files_total",
                listed_key: "files_listed",
                cap_key: "files_cap",
                noun: "files",
                remedy: "raise max_files or lower min_grade".into(),
            },
            self.files.map(|r| to_value(&r)),
        );
        with_warnings(
            with_agent_fields(ok, &self.agent).with_next_step(next),
            &self.warnings,
        )
    }
}

/// The scores of the indexed files outside test data, with how many files were
/// skipped as test data and how many could not be scored.
fn score_project(sc: &Scoring) -> (Vec<FileScore>, usize, usize) {
    let mut skipped_test_data = 0usize;
    let mut skipped_unscored = 0usize;
    let rels: Vec<String> = sc
        .scorer
        .indexed_files()
        .into_iter()
        .filter(|f| {
            if excluded(&f.path) {
                skipped_test_data += 1;
                false
            } else {
                true
            }
        })
        .map(|f| f.path.clone())
        .collect();
    let mut scores: Vec<FileScore> = Vec::with_capacity(rels.len());
    for (_, r) in sc.scorer.score_all(&rels) {
        match r {
            Ok(s) => scores.push(s),
            Err(_) => skipped_unscored += 1,
        }
    }
    (scores, skipped_test_data, skipped_unscored)
}

/// The average of each dimension over the files that have it, and the weakest.
fn dimension_averages(scores: &[FileScore]) -> (Map<String, Value>, Option<(Dimension, f64)>) {
    let mut averages = Map::new();
    let mut weakest: Option<(Dimension, f64)> = None;
    for d in Dimension::ALL {
        let vals: Vec<f64> = scores.iter().filter_map(|s| s.score_of(d)).collect();
        if vals.is_empty() {
            continue;
        }
        let avg = tsa_analysis::health::round1(vals.iter().sum::<f64>() / vals.len() as f64);
        averages.insert(d.as_str().to_owned(), json!(avg));
        if weakest.is_none_or(|(_, w)| avg < w) {
            weakest = Some((d, avg));
        }
    }
    (averages, weakest)
}

/// The files graded `min_grade` or worse, worst first.
fn matching_files(scores: &[FileScore], min_grade: MinGrade) -> Vec<&FileScore> {
    let threshold = grade_rank(match min_grade {
        MinGrade::A => 'A',
        MinGrade::B => 'B',
        MinGrade::C => 'C',
        MinGrade::D => 'D',
        MinGrade::F => 'F',
    });
    let mut matching: Vec<&FileScore> = scores
        .iter()
        .filter(|s| grade_rank(s.grade) >= threshold)
        .collect();
    matching.sort_by(|a, b| {
        a.total_score
            .partial_cmp(&b.total_score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.file.cmp(&b.file))
    });
    matching
}

fn refactoring_targets(matching: &[&FileScore]) -> Vec<RefactoringTarget> {
    matching
        .iter()
        .filter(|s| !s.facts.functions.is_empty())
        .take(5)
        .map(|s| {
            let worst = s.facts.functions.iter().max_by_key(|f| f.complexity);
            RefactoringTarget {
                file: s.file.clone(),
                grade: s.grade.to_string(),
                total_score: s.total_score,
                weakest_dimension: s.weakest_name(),
                worst_function: worst.map(|f| WorstFunction {
                    name: f.name.clone(),
                    line: f.line,
                    complexity: f.complexity,
                }),
            }
        })
        .collect()
}

fn backlog(matching: &[&FileScore]) -> Vec<BacklogItem> {
    matching
        .iter()
        .take(10)
        .map(|s| BacklogItem {
            file: s.file.clone(),
            grade: s.grade.to_string(),
            action: format!(
                "improve {} ({}); check with tsa health file --file-path {}",
                s.weakest_name(),
                s.signal,
                s.file
            ),
        })
        .collect()
}

/// The engine of `health project`: every indexed file outside test data scored,
/// the files graded `min_grade` or worse listed worst first (at most `max_files`).
pub fn assess(
    ctx: &Context,
    min_grade: MinGrade,
    max_files: NonZeroUsize,
) -> Result<ProjectHealthReport, ToolError> {
    let started = std::time::Instant::now();
    let sc = scoring(ctx, DepsMode::Full)?;
    let (scores, skipped_test_data, skipped_unscored) = score_project(&sc);
    let total = scores.len();
    let mut dist: BTreeMap<String, usize> = ["A", "B", "C", "D", "F"]
        .iter()
        .map(|g| g.to_string())
        .map(|g| (g, 0))
        .collect();
    for s in &scores {
        *dist.entry(s.grade.to_string()).or_default() += 1;
    }
    let (averages, weakest) = dimension_averages(&scores);
    let avg_score = if total == 0 {
        0.0
    } else {
        tsa_analysis::health::round1(
            scores.iter().map(|s| s.total_score).sum::<f64>() / total as f64,
        )
    };
    let (f_count, d_count, c_count) = (dist["F"], dist["D"], dist["C"]);
    let (risk, verdict) = grade_risk(&dist);
    let matching = matching_files(&scores, min_grade);
    let matching_count = matching.len();
    let weakest_name = weakest.map_or("none", |(d, _)| d.as_str());
    let summary = format!(
        "{total} files avg={avg_score} A={} B={} C={} D={d_count} F={f_count} weakest={weakest_name} risk={risk}",
        dist["A"], dist["B"], dist["C"]
    );
    let rows = Capped::collect(matching.iter().map(|s| ProjectFileRow::of(s)), max_files);
    let listed = rows.listed();
    let recommendation = match risk {
        "critical" | "high" => format!(
            "{} file(s) graded D or F: start with the top refactoring targets; the weakest dimension overall is {weakest_name}.",
            d_count + f_count
        ),
        "medium" => {
            format!("{c_count} file(s) graded C; improve {weakest_name} where you edit.")
        }
        _ => "All files graded A or B.".to_owned(),
    };
    let payload = ProjectHealthPayload {
        project_root: ctx.root()?.display().to_string(),
        total_files: total,
        average_score: avg_score,
        signal: tsa_analysis::health::signal_of(weakest, &sc.scorer.config),
        grade_distribution: dist,
        average_dimensions: averages,
        coverage_status: if sc.scorer.has_coverage() {
            "coverage.json found"
        } else {
            "unavailable (no coverage.json at the project root; coverage omitted and weights re-normalised)"
        },
        git_status: if sc.scorer.has_git() {
            "git history of the last 90 days"
        } else {
            "unavailable (not a git repository)"
        },
        weakest_dimension: weakest_name,
        min_grade: format!("{min_grade:?}"),
        matching_file_count: matching_count,
        detail_limit: max_files.get(),
        detail_count: listed,
        hidden_detail_count: matching_count - listed,
        top_refactoring_targets: refactoring_targets(&matching),
        agent_backlog: backlog(&matching),
        recommendation,
        skipped_test_data_files: skipped_test_data,
        skipped_unreadable_files: skipped_unscored,
        elapsed_ms: started.elapsed().as_millis() as u64,
    };
    Ok(ProjectHealthReport {
        verdict,
        summary,
        payload,
        files: rows,
        agent: ProjectHealthAgent {
            risk,
            d_count,
            f_count,
            backlog_count: matching_count,
            budget_seconds: 1,
        },
        warnings: sc.warnings,
    })
}

impl Action for ProjectHealth {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "project";
    const SUMMARY: &'static str =
        "project health: grade distribution, dimension averages, weakest dimension, worst files";
    const BRIEF: &'static str = "project health grades";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_files = cap("max_files", args.max_files, 20)?;
        Ok(assess(ctx, args.min_grade, max_files)?.into_success())
    }
}
