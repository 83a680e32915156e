//! `health refactor_queue`: which files to clean up first. Candidates are the files
//! git saw change in the last 30 days; each is ranked by
//! `(1 - health/100) * ln(1 + churn_30d) * (dead/total + 0.1)`: low health, much
//! churn and many dead functions first. Without churn there is no queue (never a
//! queue of zeros).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use tsa_index::Index;

use crate::ToolError;
use crate::health::dead::dead_report;
use crate::health::deadcode::DeadOptions;
use crate::health::model::{Model, Scope};
use crate::health::{DepsMode, Scorer};

/// Most churny files scored.
pub const CANDIDATE_CAP: usize = 200;
/// The ranking formula, as text.
pub const FORMULA: &str = "priority = (1 - health/100) * ln(1 + churn_30d) * (dead/total + 0.1)";

/// One queued file.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub rank: usize,
    pub file_path: String,
    pub grade: char,
    pub health_score: f64,
    pub weakest_dimension: &'static str,
    pub churn_30d: u32,
    pub dead_symbols: usize,
    pub total_symbols: usize,
    pub priority: f64,
    /// `delete dead`, `extract` or `split`.
    pub action: &'static str,
}

/// The queue, or why there is none.
pub enum Queue {
    /// No churn to rank by: not a git repository, or nothing changed in 30 days.
    ChurnUnavailable(&'static str),
    Ranked {
        rows: Vec<Row>,
        /// Files with churn.
        churny: usize,
        /// Files scored (churny, source, on disk; at most the cap).
        candidates: usize,
        /// Scored files left out with priority 0 (healthy or no churn weight).
        zero_priority: usize,
    },
}

/// Ranks the project's churny files.
pub fn refactor_queue(root: &Path, index: &Index, top_n: usize) -> Result<Queue, ToolError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let churn = match crate::history::commit_counts_since(root, now - 30 * 86_400) {
        Ok(c) => c,
        Err(_) => return Ok(Queue::ChurnUnavailable("not a git repository")),
    };
    let indexed: std::collections::HashSet<String> = index.files()?.into_iter().collect();
    let mut churny: Vec<(String, u32)> = churn.into_iter().filter(|(_, n)| *n > 0).collect();
    if churny.is_empty() {
        return Ok(Queue::ChurnUnavailable("no commit in the last 30 days"));
    }
    churny.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let churny_count = churny.len();
    let candidates: Vec<(String, u32)> = churny
        .into_iter()
        .filter(|(f, _)| indexed.contains(f) && root.join(f).is_file())
        .take(CANDIDATE_CAP)
        .collect();
    let scorer = Scorer::new(root, index, DepsMode::Fast)?;
    let model = Model::load(index)?;
    let report = dead_report(
        root,
        index,
        &model,
        &Scope::new(root, None)?,
        &DeadOptions {
            include_test_files: false,
            want_imports: false,
            want_variables: false,
        },
    )?;
    let path_of = |fid: i64| model.file(fid).map(|f| f.path.clone()).unwrap_or_default();
    let mut dead: HashMap<String, usize> = HashMap::new();
    for d in &report.dead {
        *dead.entry(path_of(model.syms[d.sym].file_id)).or_insert(0) += 1;
    }
    let mut total: HashMap<String, usize> = HashMap::new();
    for s in &model.syms {
        *total.entry(path_of(s.file_id)).or_insert(0) += 1;
    }
    let mut scored: Vec<(f64, Row)> = Vec::new();
    for (f, c) in &candidates {
        let Ok(s) = scorer.score(f) else { continue };
        let (d, t) = (
            dead.get(f).copied().unwrap_or(0),
            total.get(f).copied().unwrap_or(0),
        );
        let ratio = if t == 0 { 0.0 } else { d as f64 / t as f64 };
        let p = (1.0 - s.total_score / 100.0) * (1.0 + f64::from(*c)).ln() * (ratio + 0.1);
        let weakest = s.weakest_name();
        scored.push((
            p,
            Row {
                rank: 0,
                file_path: f.clone(),
                grade: s.grade,
                health_score: s.total_score,
                weakest_dimension: weakest,
                churn_30d: *c,
                dead_symbols: d,
                total_symbols: t,
                priority: (p * 10_000.0).round() / 10_000.0,
                action: if ratio > 0.5 {
                    "delete dead"
                } else if weakest == "duplication" {
                    "extract"
                } else {
                    "split"
                },
            },
        ));
    }
    let zero_priority = scored.iter().filter(|(p, _)| *p <= 0.0).count();
    scored.retain(|(p, _)| *p > 0.0);
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.1.file_path.cmp(&b.1.file_path))
    });
    let rows: Vec<Row> = scored
        .into_iter()
        .take(top_n)
        .enumerate()
        .map(|(i, (_, mut r))| {
            r.rank = i + 1;
            r
        })
        .collect();
    Ok(Queue::Ranked {
        rows,
        churny: churny_count,
        candidates: candidates.len(),
        zero_priority,
    })
}
