//! `nav co_change`: files that change together with a file (or a symbol's defining
//! file) in recent git history, ranked by lift (analyses §9).

use std::collections::{BTreeMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::graph::One;
use tsa_analysis::history::{self, HistoryError};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, find_one, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `nav co_change`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// A function or class; its defining file is the target.
    #[serde(default)]
    pub symbol: Option<String>,
    /// Project-relative file to find change partners of (instead of `symbol`).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// How many recent commits to read (default 500).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_commits: Option<i64>,
    /// Fewest shared commits for a partner to count (default 3).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub min_shared: Option<i64>,
    /// Most partners to list (default 20).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_results: Option<i64>,
}

pub struct CoChange;

/// `round(x, 2)`.
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl Action for CoChange {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "co_change";
    const SUMMARY: &'static str =
        "files that change together with a file or a symbol's file in git history, lift-ranked";
    const BRIEF: &'static str = "files changed together in git";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_commits = cap("max_commits", args.max_commits, 500)?.get();
        let min_shared = cap("min_shared", args.min_shared, 3)?.get();
        let max_results = cap("max_results", args.max_results, 20)?;
        let root = ctx.root()?;
        let mut warnings = Vec::new();
        let target = match (&args.file_path, &args.symbol) {
            (Some(_), Some(_)) => {
                return Err(ToolError::Validation(
                    "pass either 'symbol' or 'file_path', not both".into(),
                ));
            }
            (None, None) => {
                return Err(ToolError::Validation(
                    "nav action=co_change needs 'symbol' or 'file_path'".into(),
                ));
            }
            // Any path inside the root, even one deleted since (its history remains).
            (Some(f), None) => resolve_in_root(root, f)?.1,
            (None, Some(sym)) => {
                let opened = open_index(ctx)?;
                match find_one(ctx, &opened.index, "co_change", sym, None)? {
                    One::Answer(s) => return Ok(s),
                    One::Found(def, w) => {
                        warnings.extend(w);
                        def.file
                    }
                }
            }
        };
        let history = match history::load(root, max_commits) {
            Ok(h) => h,
            Err(HistoryError::NotARepo(_)) => {
                return Ok(Success::new(
                    Verdict::Info,
                    format!("co_change {target}: not a git repository, no history"),
                )
                .with("target", target.as_str())
                .with("commits_analyzed", 0)
                .with("window", format!("last {max_commits} commits"))
                .with("co_changed_files", json!([]))
                .with("candidates_below_threshold", 0)
                .with("git_available", false)
                .with_warning("git_unavailable: the project root is not inside a git repository")
                .with_next_step("No git history here; co-change needs a git repository. Use nav action=xref for static coupling."));
            }
            Err(HistoryError::Git(e)) => {
                return Err(ToolError::Internal(format!("reading git history: {e}")));
            }
        };
        let total = history.commits.len();
        let touching: Vec<&history::Commit> = history
            .commits
            .iter()
            .filter(|c| c.files.contains(&target))
            .collect();
        let t = touching.len();
        // Commit counts of every file, and those shared with the target.
        let mut commits_of: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &history.commits {
            for f in &c.files {
                *commits_of.entry(f.as_str()).or_default() += 1;
            }
        }
        let target_commits: HashSet<&str> = touching.iter().map(|c| c.id.as_str()).collect();
        let mut shared: BTreeMap<&str, usize> = BTreeMap::new();
        for c in history
            .commits
            .iter()
            .filter(|c| target_commits.contains(c.id.as_str()))
        {
            for f in c.files.iter().filter(|f| **f != target) {
                *shared.entry(f.as_str()).or_default() += 1;
            }
        }
        let mut below = 0usize;
        let mut rows: Vec<(String, usize, f64)> = Vec::new();
        for (file, s) in shared {
            if s < min_shared {
                below += 1;
                continue;
            }
            let p = commits_of.get(file).copied().unwrap_or(s);
            let lift = round2(s as f64 * total as f64 / (t as f64 * p as f64));
            rows.push((file.to_owned(), s, lift));
        }
        rows.sort_by(|a, b| {
            b.2.total_cmp(&a.2)
                .then(b.1.cmp(&a.1))
                .then_with(|| a.0.cmp(&b.0))
        });
        let top = rows.first().cloned();
        let listed = Capped::collect(
            rows.into_iter()
                .map(|(file, s, lift)| json!({"file": file, "shared_commits": s, "lift": lift})),
            max_results,
        );
        let follow_up = if t < 10 {
            format!(
                "Only {t} commit(s) touch {target}: too small a sample for coupling conclusions."
            )
        } else {
            match &top {
                None => format!(
                    "No file changed with {target} in >= {min_shared} of its {t} commits: safe to edit in isolation as far as history shows."
                ),
                Some((f, _, lift)) => {
                    format!("When editing {target}, also review {f} (lift={lift}).")
                }
            }
        };
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "co_change {target}: {} partner(s) over {t} of {total} commit(s)",
                listed.total()
            ),
        )
        .with("target", target.as_str())
        .with("commits_analyzed", t)
        .with("commits_read", total)
        .with("window", format!("last {max_commits} commits"))
        .with("history_complete", history.complete)
        .with_list(
            ListSpelling {
                list_key: "co_changed_files",
                total_key: "co_changed_count",
                listed_key: "co_changed_listed",
                cap_key: "max_results",
                noun: "co-changed files",
                remedy: "raise max_results, or min_shared to keep only strong partners".into(),
            },
            listed,
        )
        .with("candidates_below_threshold", below)
        .with("min_shared", min_shared)
        .with_next_step(follow_up);
        for w in warnings {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
