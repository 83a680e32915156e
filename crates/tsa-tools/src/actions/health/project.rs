//! `health project` (analyses.md §1.3): every indexed source file scored in parallel
//! (content measurements cached by hash), grade distribution, averages, weakest
//! dimension, the files at or below `min_grade` worst first.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::health::{DepsMode, Dimension, FileScore};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::cap;
use crate::actions::health::common::{scoring, with_warnings};
use crate::{Context, ToolError};

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

fn row(s: &FileScore) -> Value {
    json!({
        "file": s.file,
        "file_path": s.file,
        "grade": s.grade.to_string(),
        "total_score": s.total_score,
        "health_score": s.total_score,
        "signal": s.signal,
        "weakest_dimension": s.weakest_name(),
        "dimensions": s.dimensions_json(),
        "smell_count": s.smells.len(),
    })
}

impl Action for ProjectHealth {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "project";
    const SUMMARY: &'static str =
        "project health: grade distribution, dimension averages, weakest dimension, worst files";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let started = std::time::Instant::now();
        let max_files = cap("max_files", args.max_files, 20)?;
        let sc = scoring(ctx, DepsMode::Full)?;
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
        let total = scores.len();
        let mut dist: BTreeMap<String, usize> = ["A", "B", "C", "D", "F"]
            .iter()
            .map(|g| (g.to_string(), 0))
            .collect();
        for s in &scores {
            *dist.entry(s.grade.to_string()).or_default() += 1;
        }
        let mut averages = serde_json::Map::new();
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
        let avg_score = if total == 0 {
            0.0
        } else {
            tsa_analysis::health::round1(
                scores.iter().map(|s| s.total_score).sum::<f64>() / total as f64,
            )
        };
        let f_count = dist["F"];
        let d_count = dist["D"];
        let c_count = dist["C"];
        let (risk, verdict) = grade_risk(&dist);
        let threshold = grade_rank(match args.min_grade {
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
        let matching_count = matching.len();
        let targets: Vec<Value> = matching
            .iter()
            .filter(|s| !s.facts.functions.is_empty())
            .take(5)
            .map(|s| {
                let worst = s.facts.functions.iter().max_by_key(|f| f.complexity);
                json!({
                    "file": s.file,
                    "grade": s.grade.to_string(),
                    "total_score": s.total_score,
                    "weakest_dimension": s.weakest_name(),
                    "worst_function": worst.map(|f| json!({"name": f.name, "line": f.line, "complexity": f.complexity})),
                })
            })
            .collect();
        let backlog: Vec<Value> = matching
            .iter()
            .take(10)
            .map(|s| {
                json!({
                    "file": s.file,
                    "grade": s.grade.to_string(),
                    "action": format!("improve {} ({}); check with tsa health file --file-path {}", s.weakest_name(), s.signal, s.file),
                })
            })
            .collect();
        let weakest_name = weakest.map_or("none", |(d, _)| d.as_str());
        let signal = tsa_analysis::health::signal_of(weakest, &sc.scorer.config);
        let coverage_status = if sc.scorer.has_coverage() {
            "coverage.json found"
        } else {
            "unavailable (no coverage.json at the project root; coverage omitted and weights re-normalised)"
        };
        let summary = format!(
            "{total} files avg={avg_score} A={} B={} C={} D={d_count} F={f_count} weakest={weakest_name} risk={risk}",
            dist["A"], dist["B"], dist["C"]
        );
        let rows = Capped::collect(matching.iter().map(|s| row(s)), max_files);
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
        let ok = Success::new(verdict, summary)
            .with("project_root", ctx.root()?.display().to_string())
            .with("total_files", total)
            .with("average_score", avg_score)
            .with("grade_distribution", json!(dist))
            .with("signal", signal)
            .with("average_dimensions", Value::Object(averages))
            .with("coverage_status", coverage_status)
            .with(
                "git_status",
                if sc.scorer.has_git() {
                    "git history of the last 90 days"
                } else {
                    "unavailable (not a git repository)"
                },
            )
            .with("weakest_dimension", weakest_name)
            .with("min_grade", format!("{:?}", args.min_grade))
            .with("matching_file_count", matching_count)
            .with("detail_limit", max_files.get())
            .with("detail_count", listed)
            .with("hidden_detail_count", matching_count - listed)
            .with("top_refactoring_targets", targets)
            .with("agent_backlog", backlog)
            .with("recommendation", recommendation)
            .with("skipped_test_data_files", skipped_test_data)
            .with("skipped_unreadable_files", skipped_unscored)
            .with("elapsed_ms", started.elapsed().as_millis() as u64)
            .with_list(
                ListSpelling {
                    list_key: "files",
                    total_key: "files_total",
                    listed_key: "files_listed",
                    cap_key: "files_cap",
                    noun: "files",
                    remedy: "raise max_files or lower min_grade".into(),
                },
                rows,
            )
            .with_agent("risk", risk)
            .with_agent("d_count", d_count)
            .with_agent("f_count", f_count)
            .with_agent("backlog_count", matching_count)
            .with_agent("budget_seconds", 1)
            .with_next_step(if matching_count > 0 {
                "Run health action=file on the first listed file, then edit action=refactor on it."
            } else {
                "No files at or below min_grade; raise min_grade (e.g. C) to see more."
            });
        Ok(with_warnings(ok, &sc.warnings))
    }
}
