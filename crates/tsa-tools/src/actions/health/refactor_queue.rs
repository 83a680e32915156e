//! `health refactor_queue`: the files to clean up first, ranked by low health, git
//! churn over 30 days and dead-function density; no queue without churn.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::num::NonZeroUsize;
use tsa_analysis::health::queue::{CANDIDATE_CAP, FORMULA, Queue, refactor_queue};

use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{open_index, to_value};
use crate::{Context, ToolError};

/// Arguments of `health refactor_queue`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Files to return (1-50, default 5).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub top_n: Option<i64>,
}

pub struct RefactorQueue;

impl Action for RefactorQueue {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "refactor_queue";
    const SUMMARY: &'static str = "files to refactor first: (1 - health/100) * ln(1 + churn_30d) * (dead ratio + 0.1) over files git changed in 30 days";
    const BRIEF: &'static str = "files to refactor first";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let top_n = match args.top_n {
            None => 5,
            Some(n) if (1..=50).contains(&n) => n as usize,
            Some(n) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'top_n' must be 1-50, got {n}"
                )));
            }
        };
        let opened = open_index(ctx)?;
        let q = refactor_queue(ctx.root()?, &opened.index, top_n)?;
        let (rows, churny, candidates, zero) = match q {
            Queue::ChurnUnavailable(why) => {
                let mut s = Success::new(
                    Verdict::Warn,
                    "refactor_queue status=CHURN_UNAVAILABLE candidates=0 returned=0 head=n/a"
                        .to_owned(),
                );
                for (k, v) in [
                    ("status", json!("CHURN_UNAVAILABLE")),
                    ("reason", json!(why)),
                    ("formula", json!(FORMULA)),
                    ("top_n", json!(top_n)),
                    ("candidate_count", json!(0)),
                    ("queue", json!([])),
                ] {
                    s.insert(k, v);
                }
                return Ok(s.with_next_step(format!(
                    "No churn to rank by ({why}); rank by health alone with health action=project."
                )));
            }
            Queue::Ranked {
                rows,
                churny,
                candidates,
                zero_priority,
            } => (rows, churny, candidates, zero_priority),
        };
        let head = rows.first().map(|r| r.file_path.clone());
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "refactor_queue status=OK candidates={candidates} returned={} head={}",
                rows.len(),
                head.as_deref().unwrap_or("n/a")
            ),
        );
        let shown = rows.len();
        let ranked = candidates - zero;
        for (k, v) in [
            ("status", json!("OK")),
            ("formula", json!(FORMULA)),
            ("candidate_count", json!(candidates)),
            ("churny_file_count", json!(churny)),
            ("candidate_cap", json!(CANDIDATE_CAP)),
            ("candidates_truncated", json!(churny > CANDIDATE_CAP)),
            ("zero_priority_count", json!(zero)),
        ] {
            s.insert(k, v);
        }
        let mut s = s.with_list(
            ListSpelling {
                list_key: "queue",
                total_key: "ranked_count",
                listed_key: "queue_count",
                cap_key: "top_n",
                noun: "files",
                remedy: "raise top_n (max 50)".into(),
            },
            Capped::counted(
                rows.iter().map(to_value).collect(),
                ranked,
                NonZeroUsize::new(top_n).unwrap_or(NonZeroUsize::MIN),
            ),
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s.with_next_step(match head {
            Some(h) if ranked > shown => format!("Start with health action=file file_path={h}, then edit action=safe before changing it."),
            Some(h) => format!("Start with health action=file file_path={h}, then edit action=safe before changing it."),
            None => "Every changed file is healthy (priority 0): nothing to queue.".to_owned(),
        }))
    }
}
