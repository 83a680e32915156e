//! `nav co_change`: files that change together with a file (or a symbol's defining
//! file) in recent git history, ranked by lift (analyses §9).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::co_change::co_changes;
use tsa_analysis::graph::One;
use tsa_analysis::history::{self, HistoryError};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, find_one, open_index, to_value, with_payload};
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

/// The answer's keys when the project has no git history.
#[derive(Serialize)]
pub struct NoHistory {
    /// The file whose partners were asked.
    pub target: String,
    /// Always 0.
    pub commits_analyzed: usize,
    /// The history window asked.
    pub window: String,
    /// Always empty.
    pub co_changed_files: Vec<String>,
    /// Always 0.
    pub candidates_below_threshold: usize,
    /// Always false.
    pub git_available: bool,
}

/// The keys of a `nav co_change` answer before its partner list.
#[derive(Serialize)]
pub struct CoChangeHead {
    /// The file whose partners were asked.
    pub target: String,
    /// Commits of the window touching it.
    pub commits_analyzed: usize,
    /// Commits read.
    pub commits_read: usize,
    /// The history window asked.
    pub window: String,
    /// The window held `max_commits` commits or the whole history.
    pub history_complete: bool,
}

/// The keys after the partner list.
#[derive(Serialize)]
pub struct CoChangeTail {
    /// Files sharing fewer commits than `min_shared`.
    pub candidates_below_threshold: usize,
    /// Fewest shared commits for a partner to count.
    pub min_shared: usize,
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
                let s = Success::new(
                    Verdict::Info,
                    format!("co_change {target}: not a git repository, no history"),
                );
                let none = NoHistory {
                    target,
                    commits_analyzed: 0,
                    window: format!("last {max_commits} commits"),
                    co_changed_files: Vec::new(),
                    candidates_below_threshold: 0,
                    git_available: false,
                };
                return Ok(with_payload(s, &none)
                .with_warning("git_unavailable: the project root is not inside a git repository")
                .with_next_step("No git history here; co-change needs a git repository. Use nav action=xref for static coupling."));
            }
            Err(HistoryError::Git(e)) => {
                return Err(ToolError::Internal(format!("reading git history: {e}")));
            }
        };
        let c = co_changes(&history, &target, min_shared);
        let (t, total) = (c.touching, c.read);
        let top = c.partners.first().map(|p| (p.file.clone(), p.lift));
        let listed = Capped::collect(c.partners.iter().map(to_value), max_results);
        let follow_up = if t < 10 {
            format!(
                "Only {t} commit(s) touch {target}: too small a sample for coupling conclusions."
            )
        } else {
            match &top {
                None => format!(
                    "No file changed with {target} in >= {min_shared} of its {t} commits: safe to edit in isolation as far as history shows."
                ),
                Some((f, lift)) => {
                    format!("When editing {target}, also review {f} (lift={lift}).")
                }
            }
        };
        let s = Success::new(
            Verdict::Info,
            format!(
                "co_change {target}: {} partner(s) over {t} of {total} commit(s)",
                listed.total()
            ),
        );
        let head = CoChangeHead {
            target,
            commits_analyzed: t,
            commits_read: total,
            window: format!("last {max_commits} commits"),
            history_complete: history.complete,
        };
        let tail = CoChangeTail {
            candidates_below_threshold: c.below_threshold,
            min_shared,
        };
        let s = with_payload(s, &head).with_list(
            ListSpelling {
                list_key: "co_changed_files",
                total_key: "co_changed_count",
                listed_key: "co_changed_listed",
                cap_key: "max_results",
                noun: "co-changed files",
                remedy: "raise max_results, or min_shared to keep only strong partners".into(),
            },
            listed,
        );
        let mut s = with_payload(s, &tail).with_next_step(follow_up);
        for w in warnings {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
